#include "schedule/schedulepicker.h"

#include "state/editedschedule.h"
#include "util/text.h"
#include "util/units.h"

#include <fxmem/schedule.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QStandardItemModel>
#include <QToolButton>

SchedulePicker::SchedulePicker(EditedSchedule* edited, QWidget* parent) : QWidget(parent), edited_(edited) {
    auto* h = new QHBoxLayout(this);
    h->setContentsMargins(4, 0, 4, 0);
    combo = new QComboBox(this);
    combo->setObjectName(QStringLiteral("schedulePicker"));
    combo->setToolTip(
        tr("Which order to edit: the graph's original order, a schedule stored in the file, or your edit"));
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(8);
    compare = new QToolButton(this);
    compare->setText(tr("Compare"));
    compare->setCheckable(true);
    compare->setToolTip(tr("Overlay two orders on the timeline and list the nodes that moved"));
    optimize = new QToolButton(this);
    optimize->setText(tr("Optimize"));
    optimize->setToolTip(
        tr("Search an order with a lower peak (exact on small graphs); the result is one undoable edit"));
    suggest = new QToolButton(this);
    suggest->setText(tr("Suggest"));
    suggest->setCheckable(true);
    suggest->setToolTip(tr("The single moves that lower the current peak most; click one to apply it"));
    h->addWidget(new QLabel(tr("Schedule"), this));
    h->addWidget(combo, 1);
    h->addWidget(compare);
    h->addWidget(optimize);
    h->addWidget(suggest);
    boxes_.push_back(combo);
}

void SchedulePicker::addMirror(QComboBox* box) { boxes_.push_back(box); }

void SchedulePicker::clear() { sources_.clear(); }

void SchedulePicker::rebuild() {
    sources_.clear();
    if (const auto& a = edited_->analysis()) {
        sources_.push_back(
            {tr("Original order"), fxmem::original_order(a->graph()), false, tr("The graph's own order")});
        // The name only: a schedule's `source` can be a long provenance line (the pass and its
        // options), shown as the item's tooltip.
        for (const fxmem::NamedSchedule& named : a->file().schedules)
            if (named.graph == a->graph_index())
                sources_.push_back(
                    {elided(named.name), named.order, false, elided(named.source, 4 * kMaxShownNameBytes)});
        sources_.push_back({tr("Your edit"), {}, true, tr("The last order you made by moving nodes")});
    }
    for (QComboBox* box : boxes_) {
        const QSignalBlocker block(box);
        box->clear();
        for (const auto& src : sources_) {
            box->addItem(src.name);
            box->setItemData(box->count() - 1, src.source, Qt::ToolTipRole);
        }
    }
}

QStringList SchedulePicker::names() const {
    QStringList out;
    for (const auto& src : sources_) out << src.name;
    return out;
}

int SchedulePicker::current() const {
    if (!edited_->schedule()) return -1;
    const std::vector<fxmem::NodeId>& now = edited_->order();
    for (std::size_t i = 0; i + 1 < sources_.size(); ++i)
        if (sources_[i].order == now) return static_cast<int>(i);
    return count() - 1; // your edit
}

int SchedulePicker::find(const QString& name) const {
    for (std::size_t i = 1; i + 1 < sources_.size(); ++i)
        if (sources_[i].name == name) return static_cast<int>(i);
    return -1;
}

std::vector<fxmem::NodeId> SchedulePicker::orderAt(int i) const {
    const auto& src = sources_[static_cast<std::size_t>(i)];
    if (!src.isEdit) return src.order;
    return edited_->userEdit().empty() ? edited_->order() : edited_->userEdit();
}

QString SchedulePicker::nameAt(int i) const {
    return i >= 0 && i < count() ? sources_[static_cast<std::size_t>(i)].name : QString();
}

bool SchedulePicker::pick(int index, QString* status) {
    status->clear();
    if (!edited_->schedule() || index < 0 || index >= count()) return false;
    const auto& src = sources_[static_cast<std::size_t>(index)];
    const std::vector<fxmem::NodeId> order = src.isEdit ? edited_->userEdit() : src.order;
    if (order.empty()) return false;
    if (order == edited_->order()) return true;
    const MoveOutcome out = edited_->setOrder(
        order, tr("Use %1").arg(src.isEdit ? tr("your edit") : tr("schedule '%1'").arg(src.name)), false);
    if (!out.ok) {
        *status = tr("Could not use %1: %2").arg(src.name, out.why);
        return false;
    }
    *status = tr("Now editing %1: peak %2").arg(src.name, formatBytes(edited_->peak()));
    return true;
}

void SchedulePicker::sync(bool optimizing) {
    const QSignalBlocker block(combo);
    combo->setCurrentIndex(current());
    // "Your edit" can be picked only once there is one.
    for (QComboBox* box : boxes_) {
        if (auto* items = qobject_cast<QStandardItemModel*>(box->model()); items && box->count() > 0)
            if (QStandardItem* edit = items->item(box->count() - 1)) edit->setEnabled(!edited_->userEdit().empty());
    }
    const bool open = edited_->schedule() != nullptr;
    combo->setEnabled(open);
    compare->setEnabled(open);
    optimize->setEnabled(open && !optimizing);
    suggest->setEnabled(open);
}
