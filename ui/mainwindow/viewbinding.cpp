#include "mainwindow/viewbinding.h"

#include "graphview/graphview.h"
#include "inspector/nodeinspector.h"
#include "mainwindow/windowparts.h"
#include "panels/findbar.h"
#include "panels/livestoragepanel.h"
#include "recompute/livetablemenu.h"
#include "recompute/recomputepanel.h"
#include "schedule/scheduleeditor.h"
#include "state/viewstate.h"
#include "timeline/timelinebinding.h"
#include "timeline/timelineplot.h"

ViewBinding::ViewBinding(const WindowParts& p, ViewState* state, QObject* parent) : QObject(parent) {
    // The graph view and the inspector bound themselves (setState) when they were made.
    // One time axis: zooming or panning either view moves the other; hovering a node moves the cursor.
    GraphView* graph = p.graphView;
    TimelinePlot* timeline = p.timeline;
    connect(timeline, &TimelinePlot::xRangeChanged, graph, &GraphView::setXRange);
    connect(timeline, &TimelinePlot::plotAreaChanged, graph, &GraphView::setPlotArea);
    connect(graph, &GraphView::xRangeChanged, timeline, &TimelinePlot::setXRange);
    connect(graph, &GraphView::nodeHovered, timeline,
            [graph, timeline](NodeRef ref) { timeline->setCursorStep(graph->stepOf(ref)); });

    // A drop on the graph view is a move of the edited schedule (the editor shows its outcome); a
    // refusal shows on the view and the status bar.
    connect(graph, &GraphView::dropRefused, this, [this](const QString& why) { emit message(why, 8000); });

    // What the graph view highlights: the find bar's matches (the live set's producers it follows
    // in ViewState itself).
    connect(p.findBar, &FindBar::matchesChanged, graph,
            [graph](const std::vector<NodeRef>& m) { graph->setSearchMatches(m); });
    connect(p.findBar, &FindBar::dismissed, graph, qOverload<>(&QWidget::setFocus));
    LiveStoragePanel* live = p.livePanel;

    // The recompute plan: its nodes marked in the graph view and noted in the inspector; the live
    // table's context menu recomputes a storage.
    RecomputePanel* recompute = p.recompute;
    connect(recompute, &RecomputePanel::rematEdited, this, [this](const QString& text) { emit message(text, 10000); });
    attachRematMenu(live->table(), recompute);
    p.inspector->setNote(
        [recompute](const Scene& scene, NodeRef ref) { return recompute->recomputedNote(scene, ref); });
    const auto markRecomputed = [state, graph, recompute] {
        if (const auto& s = state->scene()) graph->setRecomputedNodes(recompute->recomputedNodes(*s));
    };
    connect(state, &ViewState::sceneChanged, graph, markRecomputed);
    connect(recompute, &RecomputePanel::pointsChanged, graph, markRecomputed);

    // Last: Qt runs a signal's slots in the order they were connected, so the timeline follows a
    // change of the state after the panels and views (bound when they were made) have.
    bindTimeline(timeline, state, p.editor);
}
