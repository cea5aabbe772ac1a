#include "dataflow/dataflowbinding.h"

#include "dataflow/dataflowview.h"
#include "dataflow/graphmodepane.h"
#include "mainwindow/appsettings.h"
#include "mainwindow/mainactions.h"
#include "mainwindow/maintoolbar.h"
#include "mainwindow/windowparts.h"
#include "panels/findbar.h"
#include "recompute/recomputepanel.h"
#include "state/viewstate.h"
#include "timeline/timelineplot.h"

#include <QAction>

void bindDataflow(const WindowParts& p, ViewState* state) {
    DataflowView* view = p.dataflow;
    view->setColorMode(p.toolbar->colorMode());
    QObject::connect(p.toolbar, &MainToolbar::colorModeChosen, view, &DataflowView::setColorMode);
    QObject::connect(p.findBar, &FindBar::matchesChanged, view,
                     [view](const std::vector<NodeRef>& m) { view->setSearchMatches(m); });
    RecomputePanel* recompute = p.recompute;
    const auto markRecomputed = [state, view, recompute] {
        if (const auto& s = state->scene()) view->setRecomputedNodes(recompute->recomputedNodes(*s));
    };
    QObject::connect(state, &ViewState::sceneChanged, view, markRecomputed);
    QObject::connect(recompute, &RecomputePanel::pointsChanged, view, markRecomputed);
    // Hovering a node shows its step everywhere, as hovering it in the Time mode does.
    TimelinePlot* timeline = p.timeline;
    QObject::connect(view, &DataflowView::nodeHovered, timeline,
                     [state, timeline](NodeRef ref) { timeline->setCursorStep(state->stepOf(ref)); });
    GraphModePane* modes = p.graphModes;
    QObject::connect(p.actions->resetZoom, &QAction::triggered, view, [modes, view] {
        if (modes->mode() == GraphModePane::Mode::Dataflow) view->zoomToFit();
    });
    modes->setMode(AppSettings::dataflowMode() ? GraphModePane::Mode::Dataflow : GraphModePane::Mode::Time);
    QObject::connect(modes, &GraphModePane::modeChanged, modes,
                     [](GraphModePane::Mode m) { AppSettings::setDataflowMode(m == GraphModePane::Mode::Dataflow); });
}
