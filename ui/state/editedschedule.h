// The one owner of a single graph's edited schedule. It holds the IncrementalSchedule (the order,
// each node's position, legal ranges and MemoryTracker scores), the undo stack of edits, the clean
// order (the original, or the last one saved or opened), the last order the user made ("Your
// edit") and the graph layout of the current order. The schedule table, the graph view, the
// timeline and the panels read the order, the positions and the legal range from here, so no view
// keeps a copy that could drift. Every edit (the list's drag, the graph view's drop, "Move to",
// a pick, Open, Optimize, a suggestion) is a request here that answers with a MoveOutcome and,
// when accepted, is one undoable command (state/schedulecommands.h) on this object's stack: the
// commands are the only callers of the private apply*. The window makes one, in ViewState.
#pragma once
#include "analysis/graphanalysis.h"
#include "state/schedulecommands.h"

#include <fxmem/incremental.h>
#include <fxmem/layout.h>

#include <QObject>
#include <QString>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

class JobTracker;
class QUndoStack;

// What an edit request came to. The views only show it.
struct MoveOutcome {
    bool ok = false;
    QString why;  // refused: core's reason (names elided), with the offer when there is one
    QString hint; // refused: where the node may go instead ("it may go to positions 2–3"), if anywhere
    // Refused only because of the node's own single-use view inputs: those, which moveWithInputs
    // takes along, and the offer in words ("move with 't_25'").
    std::vector<fxmem::NodeId> offer;
    QString offerText;
    QString done;                 // accepted and changed: what moved, and the peak before and after
    fxmem::NodeId node;           // the node asked to move (invalid for a whole order)
    std::size_t from = 0, to = 0; // the move asked for (positions)
    bool withInputs = false;
};

class EditedSchedule : public QObject, private ScheduleEditTarget {
    Q_OBJECT
public:
    explicit EditedSchedule(QObject* parent = nullptr);
    ~EditedSchedule() override;

    // The graph's original order, an empty undo stack. nullptr: no graph (a joined pair, no file).
    // `originalLayout`: the layout of the graph's own order (the scene has one), from which the
    // first move's layout is derived without laying out the whole graph again.
    void setAnalysis(std::shared_ptr<const GraphAnalysis> analysis,
                     std::shared_ptr<const fxmem::GraphLayout> originalLayout = nullptr);
    const std::shared_ptr<const GraphAnalysis>& analysis() const { return analysis_; }
    // nullptr without a graph.
    const fxmem::IncrementalSchedule* schedule() const { return schedule_.get(); }
    std::size_t size() const { return schedule_ ? schedule_->size() : 0; }
    const std::vector<fxmem::NodeId>& order() const; // empty without a graph
    // The order differs from the graph's own.
    bool isEdited() const;

    // Positions count every node (placeholders included); profile steps are the timeline's
    // numbering (1 + 2k for the k-th node that runs, 0 for placeholders and get_attr, the last
    // step for the output node).
    std::size_t positionOf(fxmem::NodeId node) const { return schedule_->position_of(node); }
    std::int64_t profileStep(std::size_t position) const;
    std::int64_t stepOf(fxmem::NodeId node) const { return profileStep(positionOf(node)); }
    // The position of the node whose profile points include `step` (0: the first position; past
    // the end: the last).
    std::size_t positionOfProfileStep(std::int64_t step) const;
    // How many nodes with profile points run before `position`.
    std::size_t runningBefore(std::size_t position) const;
    std::size_t runningCount() const { return running_; }

    // Core's rules (fxmem::IncrementalSchedule): where the node at `position` may go, and why not.
    fxmem::IncrementalSchedule::LegalRange legalRange(std::size_t position) const;
    fxmem::IncrementalSchedule::MoveCheck checkMove(std::size_t from, std::size_t to) const;

    // The current order's memory (build_memory_profile's layout), cached until the order changes.
    const std::vector<std::int64_t>& profile() const;
    std::size_t peakStep() const; // first profile index at the peak
    std::int64_t peak() const { return schedule_ ? schedule_->peak() : 0; }
    std::int64_t originalPeak() const { return analysis_ ? analysis_->peak() : 0; }
    // The layout of the current order; nullptr while it is the graph's own (the scene has that one).
    // After a move it is the previous layout with the moved range's steps updated and every lane
    // kept (O(N) copy plus O(moved range)), until the whole order, laid out again on a worker
    // (JobTracker), replaces it: layoutChanged() then. Until that, wires may share a lane.
    std::shared_ptr<const fxmem::GraphLayout> layout() const;
    // The lanes of layout() are those of an earlier order (the whole layout is being built).
    bool layoutPending() const;
    // How many whole-graph layouts were built on this (the GUI) thread: a move builds none.
    std::size_t layoutsBuiltHere() const { return layoutsBuiltHere_; }

    // Edits, the only ways to change the order: each checks the edit against core's rules and
    // pushes one command on undoStack() when accepted (none when nothing changes; a macro for a
    // move with inputs); a refusal pushes nothing. The outcome says which and why; a move's
    // outcome is also announced (moveAnswered) for the views that show it.
    QUndoStack* undoStack() const { return stack_; }
    // The node at `from` to final position `to`. `stepwise` moves of one node (Alt+Up/Down)
    // merge into one undo step.
    MoveOutcome move(std::size_t from, std::size_t to, bool stepwise = false);
    // The same with the node's single-use view inputs (IncrementalSchedule::companions), as one
    // undo step.
    MoveOutcome moveWithInputs(std::size_t from, std::size_t to);
    // `node` to a final position, or just after `after` ("Move selected to").
    MoveOutcome moveNodeTo(fxmem::NodeId node, std::size_t position);
    MoveOutcome moveNodeAfter(fxmem::NodeId node, fxmem::NodeId after);
    // A whole order (a pick, Open, Optimize); refused, with core's reason, when it is not legal.
    // `userMade`: it becomes "Your edit" when it is none of the stored orders; a pick of a stored
    // one is not.
    MoveOutcome setOrder(std::vector<fxmem::NodeId> order, const QString& text, bool userMade);
    // Back to the graph's own order (ok and nothing pushed when it already is).
    MoveOutcome resetToOriginal();
    // The current order is what is on disk now (after Save or Open): the undo stack is clean
    // whenever the order equals it again.
    void markSaved();
    bool isModified() const;
    // The last order the user made that is not a stored one (original or a schedule of the
    // file); empty before the first.
    const std::vector<fxmem::NodeId>& userEdit() const { return userEdit_; }

signals:
    // Around setAnalysis (views drop what they derived from the previous graph).
    void analysisAboutToChange();
    void analysisChanged();
    // The outcome of every move request, accepted or refused (the schedule dock's status line).
    void moveAnswered(const MoveOutcome& outcome);
    // Around one node's move (positions as in move()), for fine-grained row moves.
    void aboutToMove(std::size_t from, std::size_t to);
    void moved(std::size_t from, std::size_t to);
    // Around a whole-order change; between them, schedule() still holds the old order.
    void orderAboutToBeReplaced(const std::vector<fxmem::NodeId>& next);
    void orderReplaced();
    // After every change of order (move, replace, new graph).
    void orderChanged();
    // The whole layout of the current order arrived from the worker (see layout()).
    void layoutChanged();

private:
    // The commands' side (ScheduleEditTarget): no undo entry. Illegal: fxmem::Error, no change.
    void applyMove(std::size_t from, std::size_t to) override;
    void applyOrder(std::vector<fxmem::NodeId> order) override;
    // The inputs that would travel with the node at `from` when the single move to `to` is
    // refused only because of them (empty: no such offer).
    std::vector<fxmem::NodeId> companionsToOffer(std::size_t from, std::size_t to) const;
    MoveOutcome answer(MoveOutcome outcome); // announces a move's outcome, returns it
    QString nodeName(fxmem::NodeId node) const;

    std::shared_ptr<const GraphAnalysis> analysis_;
    std::unique_ptr<fxmem::IncrementalSchedule> schedule_;
    QUndoStack* stack_ = nullptr;
    std::vector<fxmem::NodeId> cleanOrder_, userEdit_;
    std::vector<std::int64_t> profileStep_; // per position, for the current order
    std::vector<std::uint8_t> inProfile_;   // per NodeId
    std::int64_t lastStep_ = 0;             // the output node's step
    std::size_t running_ = 0;
    bool picking_ = false; // a setOrder that is not the user's own order
    // setOrder's order, checked by building it; the command's first applyOrder takes it.
    std::unique_ptr<fxmem::IncrementalSchedule> prepared_;
    mutable std::optional<std::vector<std::int64_t>> profile_;
    mutable std::optional<std::size_t> peakStep_; // of profile_, worked out once per order
    mutable std::shared_ptr<const fxmem::GraphLayout> layout_;
    mutable bool layoutValid_ = false;
    mutable std::size_t layoutsBuiltHere_ = 0;
    std::shared_ptr<const fxmem::GraphLayout> originalLayout_;
    JobTracker* layoutJobs_ = nullptr;

    // After a move of [lo, hi]: the steps of that range moved in the layout, lanes kept; the
    // whole layout is requested from the worker.
    void moveLayout(std::size_t lo, std::size_t hi);
    void dropLayout(); // laid out again on demand

    void updateProfileSteps(std::size_t lo, std::size_t hi);
    void changed();
    bool isStored(const std::vector<fxmem::NodeId>& order) const;
};
