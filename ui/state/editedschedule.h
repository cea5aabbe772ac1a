// The one owner of a single graph's edited schedule. It holds the IncrementalSchedule (the order,
// each node's position, legal ranges and MemoryTracker scores), the undo stack of edits, the clean
// order (the original, or the last one saved or opened), the last order the user made ("Your
// edit") and the graph layout of the current order. The schedule table, the graph view, the
// timeline and the panels read the order, the positions and the legal range from here, so no view
// keeps a copy that could drift; every edit is one undoable command pushed here.
#pragma once
#include "analysis/graphanalysis.h"

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

class EditedSchedule : public QObject {
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

    // Edits: each is one command on undoStack(). A refused move pushes nothing and returns false.
    // `stepwise` moves of one node (Alt+Up/Down) merge into one undo step.
    QUndoStack* undoStack() const { return stack_; }
    bool move(std::size_t from, std::size_t to, bool stepwise = false);
    // The node at `from` to `to` with its single-use view inputs (IncrementalSchedule::
    // companions), as one undo step; false, and the refusal in `check`, when that is illegal too.
    bool moveWithInputs(std::size_t from, std::size_t to, fxmem::IncrementalSchedule::MoveCheck* check = nullptr);
    // The inputs that would travel with the node at `from` when the single move to `to` is
    // refused only because of them (empty: no such offer).
    std::vector<fxmem::NodeId> companionsToOffer(std::size_t from, std::size_t to) const;
    // A whole order (must be legal, else fxmem::Error and nothing changes). `userMade`: it becomes
    // "Your edit" when it is none of the stored orders; a pick of a stored one is not.
    void replaceOrder(std::vector<fxmem::NodeId> order, const QString& text, bool userMade);
    bool resetToOriginal(); // false when already original
    // The current order is what is on disk now (after Save or Open): the undo stack is clean
    // whenever the order equals it again.
    void markSaved();
    bool isModified() const;
    // The last order the user made that is not a stored one (original or a schedule of the
    // file); empty before the first.
    const std::vector<fxmem::NodeId>& userEdit() const { return userEdit_; }

    // Applied by the undo commands only (no undo entry). applyMove throws fxmem::Error when illegal.
    void applyMove(std::size_t from, std::size_t to);
    void applyOrder(std::vector<fxmem::NodeId> order);

signals:
    // Around setAnalysis (views drop what they derived from the previous graph).
    void analysisAboutToChange();
    void analysisChanged();
    // Around one node's move (positions as in applyMove), for fine-grained row moves.
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
    std::shared_ptr<const GraphAnalysis> analysis_;
    std::unique_ptr<fxmem::IncrementalSchedule> schedule_;
    QUndoStack* stack_ = nullptr;
    std::vector<fxmem::NodeId> cleanOrder_, userEdit_;
    std::vector<std::int64_t> profileStep_; // per position, for the current order
    std::vector<std::uint8_t> inProfile_;   // per NodeId
    std::int64_t lastStep_ = 0;             // the output node's step
    std::size_t running_ = 0;
    bool picking_ = false; // a replaceOrder that is not the user's own order
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
