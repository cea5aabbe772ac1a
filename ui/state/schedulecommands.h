// Undo commands of the edited schedule. Each restores exactly the previous order: a move is
// undone by the inverse move (the other nodes kept their relative order), a whole-order change
// by the order saved before it. They change the order only through ScheduleEditTarget, which
// EditedSchedule implements privately: only it can make them, so every change of order is a
// command on its stack. This header knows nothing of EditedSchedule.
#pragma once
#include <fxmem/ids.h>

#include <QString>
#include <QUndoCommand>

#include <cstddef>
#include <vector>

// What a command may do to the order, with no undo entry of its own.
class ScheduleEditTarget {
public:
    // Throws fxmem::Error when the move is illegal (nothing changes).
    virtual void applyMove(std::size_t from, std::size_t to) = 0;
    // Throws fxmem::Error when the order is illegal (nothing changes).
    virtual void applyOrder(std::vector<fxmem::NodeId> order) = 0;

protected:
    ~ScheduleEditTarget() = default;
};

class MoveNodeCommand : public QUndoCommand {
public:
    // `node` is the one at `from`, `name` its (elided) name for the undo text. `stepwise` moves
    // (Alt+Up/Alt+Down) of the same node merge into one undo step.
    MoveNodeCommand(ScheduleEditTarget& target, fxmem::NodeId node, const QString& name, std::size_t from,
                    std::size_t to, bool stepwise);
    void redo() override;
    void undo() override;
    int id() const override { return kId; }
    bool mergeWith(const QUndoCommand* other) override;

    fxmem::NodeId node() const { return node_; }
    std::size_t from() const { return from_; }
    std::size_t to() const { return to_; }

private:
    static constexpr int kId = 0x5ced;
    ScheduleEditTarget& target_;
    fxmem::NodeId node_;
    QString name_;
    std::size_t from_, to_;
    bool stepwise_;
    void updateText();
};

// Replaces the whole order (a pick, Open, Optimize, Reset).
class SetOrderCommand : public QUndoCommand {
public:
    SetOrderCommand(ScheduleEditTarget& target, std::vector<fxmem::NodeId> before, std::vector<fxmem::NodeId> after,
                    const QString& text);
    void redo() override;
    void undo() override;

private:
    ScheduleEditTarget& target_;
    std::vector<fxmem::NodeId> before_, after_;
};
