#include "schedule/schedulecommands.h"

#include "state/editedschedule.h"
#include "util/text.h"

#include <fxmem/schedule.h>

#include <QCoreApplication>

MoveNodeCommand::MoveNodeCommand(EditedSchedule* schedule, std::size_t from, std::size_t to, bool stepwise)
    : schedule_(schedule), node_(schedule->schedule()->at(from)), from_(from), to_(to), stepwise_(stepwise) {
    updateText();
}

void MoveNodeCommand::updateText() {
    const QString name = elided(schedule_->analysis()->graph().node(node_).name);
    setText(QCoreApplication::translate("ScheduleEditor", "Move '%1' to position %2").arg(name).arg(to_));
}

void MoveNodeCommand::redo() { schedule_->applyMove(from_, to_); }
void MoveNodeCommand::undo() { schedule_->applyMove(to_, from_); }

bool MoveNodeCommand::mergeWith(const QUndoCommand* other) {
    const auto* next = static_cast<const MoveNodeCommand*>(other); // same id(): same class
    if (!stepwise_ || !next->stepwise_ || next->node_ != node_ || next->from_ != to_) return false;
    to_ = next->to_;
    // Down then up again: nothing left to undo.
    setObsolete(from_ == to_);
    updateText();
    return true;
}

SetOrderCommand::SetOrderCommand(EditedSchedule* schedule, std::vector<fxmem::NodeId> order, const QString& text)
    : QUndoCommand(text), schedule_(schedule), before_(schedule->schedule()->order()), after_(std::move(order)) {}

void SetOrderCommand::redo() { schedule_->applyOrder(after_); }
void SetOrderCommand::undo() { schedule_->applyOrder(before_); }

ResetScheduleCommand::ResetScheduleCommand(EditedSchedule* schedule)
    : SetOrderCommand(schedule, fxmem::original_order(schedule->analysis()->graph()),
                      QCoreApplication::translate("ScheduleEditor", "Reset schedule")) {}
