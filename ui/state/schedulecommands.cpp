#include "state/schedulecommands.h"

#include <QCoreApplication>

MoveNodeCommand::MoveNodeCommand(ScheduleEditTarget& target, fxmem::NodeId node, const QString& name, std::size_t from,
                                 std::size_t to, bool stepwise)
    : target_(target), node_(node), name_(name), from_(from), to_(to), stepwise_(stepwise) {
    updateText();
}

void MoveNodeCommand::updateText() {
    setText(QCoreApplication::translate("ScheduleEditor", "Move '%1' to position %2").arg(name_).arg(to_));
}

void MoveNodeCommand::redo() { target_.applyMove(from_, to_); }
void MoveNodeCommand::undo() { target_.applyMove(to_, from_); }

bool MoveNodeCommand::mergeWith(const QUndoCommand* other) {
    const auto* next = static_cast<const MoveNodeCommand*>(other); // same id(): same class
    if (!stepwise_ || !next->stepwise_ || next->node_ != node_ || next->from_ != to_) return false;
    to_ = next->to_;
    // Down then up again: nothing left to undo.
    setObsolete(from_ == to_);
    updateText();
    return true;
}

SetOrderCommand::SetOrderCommand(ScheduleEditTarget& target, std::vector<fxmem::NodeId> before,
                                 std::vector<fxmem::NodeId> after, const QString& text)
    : QUndoCommand(text), target_(target), before_(std::move(before)), after_(std::move(after)) {}

void SetOrderCommand::redo() { target_.applyOrder(after_); }
void SetOrderCommand::undo() { target_.applyOrder(before_); }
