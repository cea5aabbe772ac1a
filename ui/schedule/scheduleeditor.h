// The schedule editor: a list of one graph's nodes in schedule order that the user reorders by
// drag and drop or Alt+Up/Alt+Down. Every edit is a request to the EditedSchedule it edits (the
// app's one, shared through ViewState), which checks it, pushes it on its undo stack and answers
// with a MoveOutcome; the editor shows the outcome of every move, whichever view asked for it.
#pragma once
#include "analysis/graphanalysis.h"
#include "schedule/movetorow.h"
#include "schedule/ordercompare.h"
#include "state/editedschedule.h"

#include <fxmem/ids.h>
#include <fxmem/optimize.h>

#include <QString>
#include <QWidget>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

class ViewState;
class QUndoStack;
class QToolButton;
class ComparePanel;
class OptimizeBar;
class PeakStrip;
class ScheduleModel;
class SchedulePicker;
class ScheduleStatus;
class ScheduleView;
class SuggestionList;

class ScheduleEditor : public QWidget {
    Q_OBJECT
public:
    // Edits `schedule` (not null), which outlives it, alone (tests).
    explicit ScheduleEditor(EditedSchedule* schedule, QWidget* parent = nullptr);
    // Edits the state's schedule, follows the state's selected node (without echoing it back) and
    // units, and selects the node of a clicked row there.
    explicit ScheduleEditor(ViewState* state, QWidget* parent = nullptr);
    ~ScheduleEditor() override;
    EditedSchedule* editedSchedule() const { return edited_; }

    // Resets to the graph's original order and clears the undo stack. nullptr is clear().
    void setAnalysis(std::shared_ptr<const GraphAnalysis> analysis);
    void clear();
    std::shared_ptr<const GraphAnalysis> analysis() const;

    QUndoStack* undoStack() const;
    // Differs from the last saved, opened or original state (the undo stack's clean state).
    bool isModified() const;

    // MemoryTracker peaks, without the backward baseline.
    std::int64_t peak() const;
    std::int64_t originalPeak() const;
    // The current order's memory in build_memory_profile's layout (1 + 2K points); for the
    // original order it equals GraphAnalysis::profile(). O(N).
    std::vector<std::int64_t> profile() const;
    // Profile index of the current order's (first) peak.
    std::size_t peakStep() const;
    std::vector<fxmem::NodeId> order() const;

    // Positions count every node. EditedSchedule::move, shown; on refusal returns false and, when
    // whyRefused is given, says which node blocks.
    bool moveNode(std::size_t from, std::size_t to, QString* whyRefused = nullptr);
    // The same with the node's single-use view inputs (one undo step). A refused single move that
    // only they block says so ("move with 't_25'") and shows a button that does this.
    bool moveNodeWithInputs(std::size_t from, std::size_t to, QString* whyRefused = nullptr);
    // "Move to" for long schedules (no long drag): `node` to a final position, to the position
    // of the node at a profile step (the timeline's numbering), or just after another node.
    // Refusals are check_move's reasons, shown in the status line as well.
    bool moveNodeToPosition(fxmem::NodeId node, std::size_t position, QString* whyRefused = nullptr);
    bool moveNodeToProfileStep(fxmem::NodeId node, std::int64_t step, QString* whyRefused = nullptr);
    bool moveNodeAfter(fxmem::NodeId node, fxmem::NodeId after, QString* whyRefused = nullptr);
    // The node of the current row (invalid without one).
    fxmem::NodeId currentNode() const;

    // SCHED files (fxmem::save_schedule / load_schedule). Save marks the stack clean. Open is one
    // undoable command; on error nothing changes and `error` names the file and the problem.
    bool saveSchedule(const QString& path, QString* error = nullptr);
    bool openSchedule(const QString& path, QString* error = nullptr);
    // Back to the original order, undoable.
    void resetSchedule();

    // The schedule picker: the original order, each schedule the file names for this
    // graph (GraphFile::schedules), and "Your edit" (the last order the user made, kept while
    // another one is picked). Picking one is one undoable command. sourceIndex() follows the
    // current order (-1 only without a graph).
    QStringList sourceNames() const;
    int sourceIndex() const;
    bool pickSource(int index);
    bool pickSchedule(const QString& name); // a named schedule of the file

    // Compare any two sources (indexes as in sourceNames()): both curves and the moved nodes
    // (see ordercompare.h). The comparison follows edits while it is on; null when off.
    void setComparison(int sourceA, int sourceB);
    void clearComparison();
    std::shared_ptr<const OrderComparison> comparison() const;
    QString comparisonName(int which) const; // 0: A, 1: B

    // Optimize: fxmem::optimize_schedule on a worker with progress and Cancel. The result, when
    // it lowers the peak and was not cancelled, becomes one undoable edit; lowerBound() then
    // holds the optimizer's bound ("no order can go below").
    void optimize(double timeLimitSeconds = 10);
    void cancelOptimize();
    bool isOptimizing() const;
    std::int64_t lowerBound() const; // -1 when not known
    // Suggest moves: at the current peak, the few single moves that lower it most
    // (fxmem::suggest_moves); applySuggestion(i) makes suggestion i one undoable move.
    std::vector<fxmem::MoveSuggestion> suggestions() const;
    void refreshSuggestions();
    bool applySuggestion(std::size_t index);

signals:
    void scheduleChanged();
    void nodeSelected(fxmem::NodeId node);
    // For the timeline: the comparison (comparison(), comparisonName()) changed or ended.
    void comparisonChanged();
    // For the timeline: the optimizer's lower bound (bytes), or -1 when none is known.
    void lowerBoundChanged(qint64 bytes);
    void optimizeFinished(bool applied);

public slots:
    void selectNode(fxmem::NodeId node);

private:
    void bindState(ViewState* state);
    EditedSchedule* edited_;
    bool selecting_ = false; // selectNode() in progress: do not echo nodeSelected
    ScheduleModel* model_ = nullptr;
    ScheduleView* view_ = nullptr;
    ScheduleStatus* status_ = nullptr;
    PeakStrip* strip_ = nullptr;
    SchedulePicker* pickerRow_ = nullptr;
    ComparePanel* comparePanel_ = nullptr;
    SuggestionList* suggestionList_ = nullptr;
    OptimizeBar* optimizeRow_ = nullptr;
    MoveToRow* moveRow_ = nullptr;

    bool move(std::size_t from, std::size_t to, QString* whyRefused, bool stepwise);
    // The status line (and the move-with-inputs offer) for a move's outcome.
    void showOutcome(const MoveOutcome& outcome);
    void onOrderChanged();
    void onAnalysisChanged();
    void showStatus(const QString& text, bool refusal);
    void runMoveCommand(MoveToRow::Kind kind, const QString& text); // the "Move to" row
    void buildSourceRow();
};
