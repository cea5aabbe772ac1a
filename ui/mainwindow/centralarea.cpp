#include "mainwindow/centralarea.h"

#include "dataflow/dataflowview.h"
#include "dataflow/graphmodepane.h"
#include "graphview/graphview.h"
#include "mainwindow/loadbanner.h"
#include "mainwindow/mainactions.h"
#include "mainwindow/windowparts.h"
#include "panels/findbar.h"
#include "panels/summarybar.h"
#include "sizes/sizesbar.h"
#include "timeline/timelinemodebar.h"
#include "timeline/timelineplot.h"

#include <QSplitter>
#include <QVBoxLayout>

CentralArea::CentralArea(ViewState* state, WindowParts& p, QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    banner_ = new LoadBanner;
    layout->addWidget(banner_);
    p.summary = new SummaryBar(state);
    layout->addWidget(p.summary);
    p.findBar = new FindBar(state);
    layout->addWidget(p.findBar);
    p.sizes = new SizesBar(state);
    layout->addWidget(p.sizes);

    splitter_ = new QSplitter(Qt::Vertical);
    splitter_->setObjectName(QStringLiteral("centralSplitter"));
    splitter_->setChildrenCollapsible(false);
    // Made in this order (graph view, timeline, mode bar) for the focus chain.
    p.graphView = new GraphView(state);
    p.timeline = new TimelinePlot;
    p.timeline->setMinimumHeight(160);
    p.dataflow = new DataflowView(state);
    p.graphModes = new GraphModePane(p.graphView, p.dataflow, p.actions ? p.actions->dataflowMode : nullptr);
    splitter_->addWidget(p.graphModes);
    auto* timelinePane = new QWidget;
    auto* tl = new QVBoxLayout(timelinePane);
    tl->setContentsMargins(0, 0, 0, 0);
    tl->setSpacing(0);
    p.modeBar = new TimelineModeBar;
    tl->addWidget(p.modeBar);
    tl->addWidget(p.timeline, 1);
    splitter_->addWidget(timelinePane);
    splitter_->setStretchFactor(0, 3);
    splitter_->setStretchFactor(1, 2);
    layout->addWidget(splitter_, 1);
}

QByteArray CentralArea::saveSplitter() const { return splitter_->saveState(); }

void CentralArea::restoreSplitter(const QByteArray& state) {
    if (!splitter_->restoreState(state)) splitter_->setSizes({560, 340});
}
