#include "schedule/comparepanel.h"

#include "schedule/schedulepicker.h"
#include "state/editedschedule.h"
#include "util/text.h"
#include "util/units.h"

#include <fxmem/error.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

ComparePanel::ComparePanel(EditedSchedule* edited, SchedulePicker* sources, QWidget* parent)
    : QWidget(parent), edited_(edited), sources_(sources) {
    auto* c = new QVBoxLayout(this);
    c->setContentsMargins(4, 0, 4, 0);
    auto* pick = new QHBoxLayout;
    boxA_ = new QComboBox(this);
    boxA_->setObjectName(QStringLiteral("compareA"));
    boxB_ = new QComboBox(this);
    boxB_->setObjectName(QStringLiteral("compareB"));
    for (QComboBox* box : {boxA_, boxB_}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(8);
        sources_->addMirror(box);
    }
    pick->addWidget(new QLabel(tr("A"), this));
    pick->addWidget(boxA_, 1);
    pick->addWidget(new QLabel(tr("B"), this));
    pick->addWidget(boxB_, 1);
    c->addLayout(pick);
    model_ = new CompareModel(this);
    view_ = new QTableView(this);
    view_->setObjectName(QStringLiteral("compareList"));
    // Sortable by any column; opens with the moves that change A's peak most on top.
    auto* sorted = new QSortFilterProxyModel(this);
    sorted->setSourceModel(model_);
    sorted->setSortRole(CompareModel::SortRole);
    view_->setModel(sorted);
    view_->setSortingEnabled(true);
    view_->sortByColumn(CompareModel::EffectColumn, Qt::DescendingOrder);
    view_->verticalHeader()->hide();
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setSelectionMode(QAbstractItemView::SingleSelection);
    view_->horizontalHeader()->setStretchLastSection(true);
    view_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    c->addWidget(view_);
    const auto onPick = [this] { emit pairPicked(boxA_->currentIndex(), boxB_->currentIndex()); };
    connect(boxA_, &QComboBox::activated, this, onPick);
    connect(boxB_, &QComboBox::activated, this, onPick);
    connect(view_, &QTableView::clicked, this, [this](const QModelIndex& index) {
        emit nodeClicked(fxmem::NodeId(index.data(CompareModel::NodeIdRole).toInt()));
    });
    hide();
}

void ComparePanel::compare(int a, int b) {
    const int n = sources_->count();
    if (!edited_->schedule() || a < 0 || b < 0 || a >= n || b >= n) return clear();
    a_ = a;
    b_ = b;
    {
        const QSignalBlocker blockA(boxA_), blockB(boxB_);
        boxA_->setCurrentIndex(a);
        boxB_->setCurrentIndex(b);
    }
    show();
    refresh();
}

void ComparePanel::clear() {
    const bool had = comparison_ != nullptr;
    a_ = b_ = -1;
    comparison_.reset();
    model_->setComparison(nullptr, nullptr);
    hide();
    if (had) emit changed();
}

QString ComparePanel::name(int which) const {
    const int i = which == 0 ? a_ : b_;
    if (i < 0 || i >= sources_->count()) return {};
    return (which == 0 ? QStringLiteral("A: ") : QStringLiteral("B: ")) % sources_->nameAt(i);
}

void ComparePanel::refreshUnits(const QString& statusShown) {
    model_->refreshBytes();
    if (!comparison_ || summarySaid_.isEmpty() || statusShown != summarySaid_) return;
    summarySaid_ = summary();
    emit status(summarySaid_, false);
}

QString ComparePanel::summary() const {
    return tr("%1 peak %2 · %3 peak %4 · %n node(s) moved", nullptr, static_cast<int>(comparison_->moved.size()))
        .arg(name(0), formatBytes(comparison_->peak_a), name(1), formatBytes(comparison_->peak_b));
}

void ComparePanel::refresh() {
    if (a_ < 0 || !edited_->schedule()) return;
    try {
        comparison_ = std::make_shared<const OrderComparison>(
            fxmem::compare_orders(*edited_->analysis(), sources_->orderAt(a_), sources_->orderAt(b_)));
    } catch (const fxmem::Error& e) {
        comparison_.reset();
        emit status(tr("Cannot compare: %1").arg(elided(std::string_view(e.what()), 4 * kMaxShownNameBytes)), true);
    }
    model_->setComparison(edited_->analysis(), comparison_);
    if (comparison_ && comparison_->moved.empty() && comparison_->profile_a == comparison_->profile_b)
        emit status(
            tr("%1 and %2 are the same order: pick another B (a schedule of the file, or your edit after a move).")
                .arg(name(0), name(1)),
            false);
    else if (comparison_)
        emit status(summarySaid_ = summary(), false);
    emit changed();
}
