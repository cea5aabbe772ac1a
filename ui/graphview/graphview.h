// The FX graph drawn along the memory timeline: x is the profile step (the same x range as the
// timeline, which it follows and drives), y is the lane of fxmem::GraphLayout. Painted by hand
// for the visible range only: nodes come from the layout's step index, wires from its stabbing
// query; nodes under a pixel collapse into dots and wires are skipped when zoomed far out, so a
// 100k-node graph stays smooth.
// GraphPainter draws a frame layer by layer, GraphInput turns events into intents, and this view
// owns the state and wires it to ViewState and the edited schedule. Each part of that state keeps
// its own maths: GraphNavigation (range, lanes, zoom, pan, fit), GraphScrollBars, SceneLayouts
// (the edited layout), GraphModules (groups, highlight, bands), SceneCategories, NodeMarks;
// hittest.h says what is under a point. graphview.cpp stays a little over 400 lines because it is
// the public slots and the handling of every intent, a few lines of wiring each.
#pragma once
#include "graphview/colormode.h"
#include "graphview/dropband.h"
#include "graphview/graphinput.h"
#include "graphview/graphmodules.h"
#include "graphview/hittest.h"
#include "graphview/itemscache.h"
#include "graphview/modulegroups.h"
#include "graphview/navigation.h"
#include "graphview/nodecolors.h"
#include "graphview/nodemarks.h"
#include "graphview/scenecategories.h"
#include "graphview/scenelayouts.h"
#include "graphview/scrollbars.h"
#include "graphview/viewport.h"
#include "graphview/viewsources.h"
#include "graphview/visibleitems.h"
#include "loading/scene.h"

#include <fxmem/layout.h>

#include <QWidget>

#include <cstdint>
#include <memory>
#include <vector>

class EditedSchedule;
class QPainter;
class ViewState;
class QScrollBar;

class GraphView : public QWidget {
    Q_OBJECT
public:
    using ColorMode = NodeColorMode;
    using NodeRef = ::NodeRef;

    // With `state`, the view follows the shared state (scene, cursor, shown live set, selection,
    // module, the edited schedule) and selects through it; without, it shows what it is given.
    explicit GraphView(ViewState* state = nullptr, QWidget* parent = nullptr);

    void setScene(std::shared_ptr<const Scene> scene);
    // Segment 0 is laid out in this schedule's order, and its nodes can be dragged along the time
    // axis (single-graph scenes whose graph the schedule edits).
    void setEditedSchedule(EditedSchedule* schedule);
    void setColorMode(ColorMode mode);
    ColorMode colorMode() const { return colorMode_; }
    // The legend of the current colour mode (only what the scene contains); painted at the bottom.
    std::vector<LegendEntry> legend() const;
    // Storages live at the cursor: their allocators and wires are highlighted.
    void setLiveNodes(std::vector<NodeRef> nodes);
    void setSearchMatches(std::vector<NodeRef> matches);
    // Nodes a pair's backward computes again (recomputed activations): a dotted outline.
    void setRecomputedNodes(const std::vector<NodeRef>& nodes);
    bool isMarkedRecomputed(NodeRef ref) const;
    bool isMarkedLive(NodeRef ref) const; // holds a storage of the shown live set
    void showRefusal(const QString& why);
    // Where a dragged node may be dropped: the green band, from core's legal range.
    using DropBand = ::DropBand;
    DropBand dropBand(NodeRef ref) const;

    const std::shared_ptr<const Scene>& scene() const { return scene_; }
    NodeRef selectedNode() const { return selected_; }
    NodeRef nodeAt(QPoint pos) const;
    QPointF nodeCenter(NodeRef ref) const;  // widget coordinates
    std::int64_t stepOf(NodeRef ref) const; // global step
    std::size_t lastPaintedNodes() const { return paintedNodes_; }
    // How often a paint prepared its items from scratch (a cursor step only refreshes live marks).
    std::size_t preparedCount() const { return cache_.preparedCount(); }
    // A segment's module grouping; null when its graph names no modules.
    const ModuleGroups* moduleGroups(int segment) const;
    // The module band or collapsed module box at pos: {segment, tree index}, or {-1, npos}.
    std::pair<int, std::uint32_t> moduleAt(QPoint pos) const;
    int groupDepth() const { return modules_.depth(); }
    QString tooltipAt(QPoint pos) const;
    QScrollBar* horizontalScrollBar() const { return bars_.horizontal(); }
    QScrollBar* verticalScrollBar() const { return bars_.vertical(); }
    // The current mapping of steps and lanes to pixels, and what a paint would draw now.
    GraphViewport viewport() const;
    VisibleItems visibleItems() const;

public slots:
    void setXRange(double lo, double hi);
    // The plot area's edges in this widget's pixels, so that step x sits above step x.
    void setPlotArea(int left, int right);
    void setCursorStep(std::int64_t step);
    void selectNode(NodeRef ref);
    // Scrolls the node into view, opening the collapsed modules that hide it.
    void centerOn(NodeRef ref);
    // The whole time axis and every lane in view (emits xRangeChanged).
    void resetZoom();
    // Zooms time by `factor` (< 1: in) keeping the step at widget x in place; lanes likewise at y.
    void zoomTime(double factor, double x);
    void zoomLanes(double factor, double y);
    // Scrolls by `notches` sixths of the visible lanes (negative: up).
    void scrollLanes(double notches);
    // Collapses every module at `depth` (1 = top-level children of the model) to one box per run,
    // in every graph of the scene; 0 expands everything. Depths follow the dotted names.
    void setGroupDepth(int depth);
    // Collapses or expands one module (tree index of fxmem::ModuleTree of that segment's graph).
    void setModuleCollapsed(int segment, std::uint32_t module, bool collapsed);
    // Opens a collapsed module one level: its child modules become the boxes.
    void expandModule(int segment, std::uint32_t module);
    // Outlines the nodes of a module and its descendants, and its bands (npos: none).
    void setHighlightedModule(int segment, std::uint32_t module);
    // The same by qualified name in every graph of the scene ("blocks.0.attn"; "" clears).
    void setHighlightedModuleName(const QString& name);

signals:
    void xRangeChanged(double lo, double hi);
    void nodeClicked(NodeRef ref);
    void nodeHovered(NodeRef ref);
    // A module band or collapsed box was clicked (after the view collapsed or expanded it).
    void moduleClicked(int segment, std::uint32_t module);
    // A node dropped at another place of the schedule is a move request to the edited schedule
    // (with its single-use view inputs when Shift is held); a refusal is shown on the view and
    // said here, for the status bar.
    void dropRefused(const QString& why);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    bool event(QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void bindState(ViewState* state);
    // Repaints the drawing, not the scroll bars over it (they repaint themselves when they change).
    void updateCanvas() { update(bars_.uncovered()); }
    ViewSources sources() const;
    // What the navigation needs measured now.
    GraphNavigation::Extent extent() const;
    void emitRange();
    void syncScrollBars();
    void clampVertical();
    void followNodes();
    // Carries out what the input handler made of an event.
    void apply(const std::vector<GraphIntent>& intents);
    void drop(NodeRef node, double step, bool withInputs);
    void onScheduleChanged();
    const VisibleItems& paintItems();

    std::shared_ptr<const Scene> scene_;
    EditedSchedule* schedule_ = nullptr;
    SceneLayouts layouts_;
    ColorMode colorMode_ = ColorMode::OpCategory;
    SceneCategories categories_;
    GraphModules modules_;

    GraphNavigation nav_;
    GraphScrollBars bars_;
    std::int64_t cursor_ = -1;

    ItemsCache cache_;
    NodeColors colors_;
    NodeMarks marks_;
    NodeRef selected_, hovered_;
    std::size_t paintedNodes_ = 0;

    GraphInput input_;
    DropBand dragRange_;
    QString refusal_;
};
