#include "schedule/comparepanel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

ComparePanel::ComparePanel(QWidget* parent) : QWidget(parent) {
    auto* c = new QVBoxLayout(this);
    c->setContentsMargins(4, 0, 4, 0);
    auto* pick = new QHBoxLayout;
    a_ = new QComboBox(this);
    a_->setObjectName(QStringLiteral("compareA"));
    b_ = new QComboBox(this);
    b_->setObjectName(QStringLiteral("compareB"));
    for (QComboBox* box : {a_, b_}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(8);
    }
    pick->addWidget(new QLabel(tr("A"), this));
    pick->addWidget(a_, 1);
    pick->addWidget(new QLabel(tr("B"), this));
    pick->addWidget(b_, 1);
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
    const auto onPick = [this] { emit pairPicked(a_->currentIndex(), b_->currentIndex()); };
    connect(a_, &QComboBox::activated, this, onPick);
    connect(b_, &QComboBox::activated, this, onPick);
    connect(view_, &QTableView::clicked, this, [this](const QModelIndex& index) {
        emit nodeClicked(fxmem::NodeId(index.data(CompareModel::NodeIdRole).toInt()));
    });
}

void ComparePanel::setPair(int a, int b) {
    const QSignalBlocker blockA(a_), blockB(b_);
    a_->setCurrentIndex(a);
    b_->setCurrentIndex(b);
}

void ComparePanel::setComparison(std::shared_ptr<const GraphAnalysis> analysis,
                                 std::shared_ptr<const OrderComparison> comparison) {
    model_->setComparison(std::move(analysis), std::move(comparison));
}
