// The schedule editor: a list of one graph's nodes in schedule order that the user reorders by
// drag and drop or Alt+Up/Alt+Down. Only moves that keep every dependency are accepted; each
// accepted move is re-scored incrementally under MemoryTracker semantics and pushed on an undo
// stack. The main window docks it and reads profile()/peak() to overlay the edited curve.
#pragma once
#include "analysis/graphanalysis.h"

#include <fxmem/ids.h>

#include <QString>
#include <QWidget>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

class QEvent;
class QLabel;
class QUndoStack;
class QToolButton;
class ScheduleModel;
class ScheduleView;

class ScheduleEditor : public QWidget {
    Q_OBJECT
public:
    explicit ScheduleEditor(QWidget* parent = nullptr);
    ~ScheduleEditor() override;

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

    // Positions count every node. Pushes an undo command; on refusal returns false and, when
    // whyRefused is given, says which node blocks.
    bool moveNode(std::size_t from, std::size_t to, QString* whyRefused = nullptr);
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

signals:
    void scheduleChanged();
    void nodeSelected(fxmem::NodeId node);

public slots:
    void selectNode(fxmem::NodeId node);

protected:
    void changeEvent(QEvent* event) override;

private:
    struct State;
    std::unique_ptr<State> d_;
    ScheduleModel* model_ = nullptr;
    ScheduleView* view_ = nullptr;
    QLabel* originalLabel_ = nullptr;
    QLabel* editedLabel_ = nullptr;
    QLabel* changeLabel_ = nullptr;
    QLabel* statusLabel_ = nullptr;
    QToolButton* undoButton_ = nullptr;
    QToolButton* redoButton_ = nullptr;
    QToolButton* resetButton_ = nullptr;
    class QComboBox* moveKind_ = nullptr;
    class QLineEdit* moveTarget_ = nullptr;
    QToolButton* moveButton_ = nullptr;

    bool move(std::size_t from, std::size_t to, QString* whyRefused, bool stepwise);
    void onOrderChanged();
    void applyPalette();
    void updateSummary();
    void showStatus(const QString& text, bool refusal);
    void runMoveCommand();  // the "Move to" row
    void updateMoveCompleter();
};
