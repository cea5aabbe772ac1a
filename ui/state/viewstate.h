// The state the panels share: the scene, the cursor step, the selected node and module, the
// edited schedule of a single graph (EditedSchedule, the one owner of the order; with its
// live-set index, built off the GUI thread) and the window's edit history. Panels
// and views wire themselves to it instead of to each other; the main window only assembles them.
// Setters emit their signal only when the value changes, so two-way wiring does not loop.
#pragma once
#include "analysis/liveatstep.h"
#include "analysis/orderedlive.h"
#include "loading/scene.h"
#include "state/editedschedule.h"
#include "util/units.h"

#include <QObject>
#include <QString>

#include <cstdint>
#include <memory>
#include <vector>

class OrderedLiveBuilder;
class QUndoGroup;
class QUndoStack;

class ViewState : public QObject {
    Q_OBJECT
public:
    explicit ViewState(QObject* parent = nullptr);
    ~ViewState() override;

    const std::shared_ptr<const Scene>& scene() const { return scene_; }
    std::int64_t cursorStep() const { return cursor_; }
    NodeRef selectedNode() const { return node_; }
    // The selected module's qualified name ("" is the root module); null when none is selected.
    const QString& selectedModule() const { return module_; }

    // The single graph's schedule, its editing and undo stack (a graph of a joined pair has none).
    EditedSchedule* schedule() const { return schedule_; }
    // The window's one edit history: Edit ▸ Undo and Redo act on its active stack, the one of what
    // is shown. A single graph's scene makes the schedule's stack active (its moves, picks, Open,
    // Optimize); a joined pair's or the whole step's makes pairEdits() active, the recompute
    // edits of the file's pairs (RematCommand). Each keeps its own entries while the other is
    // active: a recompute edit shows another pair, which resets the schedule's stack, and never
    // touches pairEdits' entries. pairEdits is cleared when another file is shown (RecomputePanel).
    QUndoGroup* history() const { return history_; }
    QUndoStack* pairEdits() const { return pairEdits_; }
    // The single graph's current order and curve: empty when it is the graph's own order.
    const std::vector<fxmem::NodeId>& editedOrder() const;
    const std::vector<std::int64_t>& editedProfile() const;
    bool orderEdited() const { return edited_; }
    // The edited order's live-set index once built; nullptr before, or without an edit.
    const OrderedLive* orderedLive() const { return ordered_.get(); }
    const std::shared_ptr<const OrderedLive>& sharedOrderedLive() const { return ordered_; }
    // An edit whose live-set index is still being built.
    bool liveStale() const;
    // Back to the graph's own order: its live set is announced (orderedLiveChanged) right after
    // the frame that shows the edit.
    bool liveFollowsAfterPaint() const { return backToOriginalPending_; }

    // The node of a located step: in the edited order when its index is in use (`edited`).
    fxmem::NodeId nodeAt(const Scene::Where& where, bool edited = true) const;
    // "name (after alloc)" for a global step, names elided; `edited` as for nodeAt.
    QString describeStep(std::int64_t step, bool edited = true) const;
    // The bytes plotted at a step: the edited curve once the live table follows it, else the scene's.
    std::int64_t plottedAt(std::int64_t step) const;
    // The storages live at the cursor step in the order shown (liveAtStep), worked out once per
    // step and order and shared by every panel that lists them; empty without a scene or cursor.
    const std::shared_ptr<const LiveAtStep>& liveAtCursor() const;
    // The live set the views show (the live table's rows, the graph view's live marks): the
    // cursor's (liveAtCursor), except that it stays as it was while an edit's live-set index is
    // being built, and on the way back to the graph's own order until the frame that shows it.
    // Null without a scene or cursor. shownLiveChanged says when it is another.
    const std::shared_ptr<const LiveAtStep>& shownLive() const { return shown_; }
    // The global step where a node runs now: in the edited order for the single graph.
    std::int64_t stepOf(NodeRef ref) const;
    // The byte units every view formats with; views that show bytes refresh on unitsChanged.
    ByteUnits units() const { return units_; }

public slots:
    void setScene(std::shared_ptr<const Scene> scene);
    void setCursorStep(std::int64_t step);
    // `center`: the views should bring the node into view.
    void selectNode(NodeRef ref, bool center = false);
    void selectModule(const QString& module);
    void setUnits(ByteUnits units);

signals:
    void sceneChanged(const std::shared_ptr<const Scene>& scene);
    void cursorStepChanged(std::int64_t step);
    void nodeSelected(NodeRef ref, bool center);
    void moduleSelected(const QString& module);
    // The edited order changed (or went back to the graph's own); its live index follows later.
    void orderChanged();
    // The live-set index of the edited order arrived, or was dropped: step answers may differ now.
    void orderedLiveChanged();
    void orderedLiveFailed(const QString& message);
    void unitsChanged(ByteUnits units);
    void shownLiveChanged();

private:
    std::shared_ptr<const Scene> scene_;
    std::int64_t cursor_ = -1;
    NodeRef node_;
    QString module_;
    ByteUnits units_ = byteUnits();
    EditedSchedule* schedule_ = nullptr;
    QUndoGroup* history_ = nullptr;
    QUndoStack* pairEdits_ = nullptr;
    bool edited_ = false; // the schedule differs from the graph's own order
    bool settingScene_ = false;
    bool backToOriginalPending_ = false;
    quint64 orderGeneration_ = 0;
    std::shared_ptr<const OrderedLive> ordered_;
    OrderedLiveBuilder* builder_ = nullptr;
    mutable std::shared_ptr<const LiveAtStep> liveAt_; // null: not worked out for this step and order yet
    std::shared_ptr<const LiveAtStep> shown_;
    // Makes the cursor's live set the shown one: always when `follow`, else unless it is still
    // being built or waits for a frame (an order change).
    void showLive(bool follow);
    void announceOrderedLive(); // orderedLiveChanged, then the shown live set follows
    void onScheduleChanged();
};
