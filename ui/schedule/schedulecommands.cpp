#include "schedule/schedulecommands.h"

#include "schedule/schedulemodel.h"
#include "util/text.h"

#include <fxmem/schedule.h>

#include <QCoreApplication>

MoveNodeCommand::MoveNodeCommand(ScheduleModel* model, std::size_t from, std::size_t to, bool stepwise)
    : model_(model), node_(model->schedule()->at(from)), from_(from), to_(to), stepwise_(stepwise) {
    updateText();
}

void MoveNodeCommand::updateText() {
    const QString name = elided(model_->analysis()->graph().node(node_).name);
    setText(QCoreApplication::translate("ScheduleEditor", "Move '%1' to position %2").arg(name).arg(to_));
}

void MoveNodeCommand::redo() { model_->moveNode(from_, to_); }
void MoveNodeCommand::undo() { model_->moveNode(to_, from_); }

bool MoveNodeCommand::mergeWith(const QUndoCommand* other) {
    const auto* next = static_cast<const MoveNodeCommand*>(other);  // same id(): same class
    if (!stepwise_ || !next->stepwise_ || next->node_ != node_ || next->from_ != to_) return false;
    to_ = next->to_;
    // Down then up again: nothing left to undo.
    setObsolete(from_ == to_);
    updateText();
    return true;
}

SetOrderCommand::SetOrderCommand(ScheduleModel* model, std::vector<fxmem::NodeId> order, const QString& text)
    : QUndoCommand(text), model_(model), before_(model->schedule()->order()), after_(std::move(order)) {}

void SetOrderCommand::redo() { model_->setOrder(after_); }
void SetOrderCommand::undo() { model_->setOrder(before_); }

ResetScheduleCommand::ResetScheduleCommand(ScheduleModel* model)
    : SetOrderCommand(model, fxmem::original_order(model->analysis()->graph()),
                      QCoreApplication::translate("ScheduleEditor", "Reset schedule")) {}

OpenScheduleCommand::OpenScheduleCommand(ScheduleModel* model, std::vector<fxmem::NodeId> order,
                                         const QString& fileName)
    : SetOrderCommand(model, std::move(order),
                      QCoreApplication::translate("ScheduleEditor", "Open schedule '%1'").arg(fileName)) {}
