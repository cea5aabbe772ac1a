// Undo commands of the edited schedule. Each restores exactly the previous order: a move is
// undone by the inverse move (the other nodes kept their relative order), a whole-order change
// by the order saved before it.
#pragma once
#include <fxmem/ids.h>

#include <QUndoCommand>

#include <cstddef>
#include <vector>

class EditedSchedule;

class MoveNodeCommand : public QUndoCommand {
public:
    // `stepwise` moves (Alt+Up/Alt+Down) of the same node merge into one undo step.
    MoveNodeCommand(EditedSchedule* schedule, std::size_t from, std::size_t to, bool stepwise);
    void redo() override;
    void undo() override;
    int id() const override { return kId; }
    bool mergeWith(const QUndoCommand* other) override;

    fxmem::NodeId node() const { return node_; }
    std::size_t from() const { return from_; }
    std::size_t to() const { return to_; }

private:
    static constexpr int kId = 0x5ced;
    EditedSchedule* schedule_;
    fxmem::NodeId node_;
    std::size_t from_, to_;
    bool stepwise_;
    void updateText();
};

// Replaces the whole order; the base of Reset and Open.
class SetOrderCommand : public QUndoCommand {
public:
    SetOrderCommand(EditedSchedule* schedule, std::vector<fxmem::NodeId> order, const QString& text);
    void redo() override;
    void undo() override;

private:
    EditedSchedule* schedule_;
    std::vector<fxmem::NodeId> before_, after_;
};

class ResetScheduleCommand : public SetOrderCommand {
public:
    explicit ResetScheduleCommand(EditedSchedule* schedule);
};
