#include "graphview/graphview.h"

#include "graphview/graphpainter.h"
#include "graphview/graphtooltips.h"
#include "state/editedschedule.h"
#include "state/viewstate.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>

GraphView::GraphView(ViewState* state, QWidget* parent) : QWidget(parent), bars_(this) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumHeight(120);
    bars_.onTimeScrolled = [this](int value) {
        const double w = nav_.x1 - nav_.x0;
        nav_.x0 = value - 0.5;
        nav_.x1 = nav_.x0 + w;
        emitRange();
    };
    bars_.onLanesScrolled = [this](int value) {
        nav_.top = value;
        clampVertical();
        updateCanvas();
    };
    input_.nodeAt = [this](QPoint pos) { return nodeAt(pos); };
    input_.editable = [this] { return layouts_.editable(); };
    if (state) bindState(state);
}

void GraphView::setScene(std::shared_ptr<const Scene> scene) {
    // Other sizes of the same graphs move no node: the lanes in view stay.
    const bool rebound = scene_ && scene && scene_->sameGraphs(*scene);
    scene_ = std::move(scene);
    layouts_.update(scene_.get(), schedule_);
    marks_.reset(scene_.get());
    selected_ = hovered_ = {};
    cursor_ = -1;
    input_.reset();
    refusal_.clear();
    if (!rebound) nav_.top = 0;
    bars_.setShown(scene_ && !scene_->empty());
    bars_.place();
    modules_.reset(scene_.get());
    categories_.reset(scene_.get());
    if (scene_ && !rebound) {
        // Every lane in view: readable boxes for small graphs, an overview (a dot per pixel) for
        // graphs with hundreds of lanes; Ctrl+wheel zooms the lanes from there.
        nav_.reset(scene_->profile.size(), extent());
        if (const fxmem::GraphLayout* edited = layouts_.edited()) modules_.relayoutFirst(*edited);
    }
    syncScrollBars();
    updateCanvas();
}

void GraphView::setEditedSchedule(EditedSchedule* schedule) {
    if (schedule_) disconnect(schedule_, nullptr, this, nullptr);
    schedule_ = schedule;
    if (schedule_) {
        connect(schedule_, &EditedSchedule::orderChanged, this, &GraphView::onScheduleChanged);
        // The lanes of an edited order, laid out on a worker after a move.
        connect(schedule_, &EditedSchedule::layoutChanged, this, &GraphView::onScheduleChanged);
    }
    onScheduleChanged();
}

void GraphView::onScheduleChanged() {
    // Segment 0 is laid out in the edited order (the scene's own layout while it is the original).
    layouts_.update(scene_.get(), schedule_);
    if (scene_ && !scene_->empty()) modules_.relayoutFirst(layouts_.of(0));
    // The module groups were laid out again in place: the prepared items' key cannot see that.
    cache_.invalidate();
    updateCanvas();
}

void GraphView::bindState(ViewState* state) {
    setEditedSchedule(state->schedule());
    connect(state, &ViewState::sceneChanged, this, &GraphView::setScene);
    connect(state, &ViewState::cursorStepChanged, this, &GraphView::setCursorStep);
    // The producers of the live set the live table shows (ViewState decides which).
    connect(state, &ViewState::shownLiveChanged, this, [this, state] {
        const auto& shown = state->shownLive();
        setLiveNodes(shown && state->scene() ? liveProducers(*state->scene(), *shown) : std::vector<NodeRef>{});
    });
    connect(state, &ViewState::nodeSelected, this, [this](NodeRef ref, bool center) {
        selectNode(ref);
        if (center) centerOn(ref);
    });
    // A module selected anywhere (breakdown tree, graph view) is outlined here.
    connect(state, &ViewState::moduleSelected, this,
            [this](const QString& module) { setHighlightedModuleName(module.isNull() ? QString() : module); });
    connect(this, &GraphView::nodeClicked, state, [state](NodeRef ref) { state->selectNode(ref, false); });
    connect(this, &GraphView::moduleClicked, state, [state](int segment, std::uint32_t module) {
        if (const auto name = GraphModules::qualifiedName(state->scene().get(), segment, module))
            state->selectModule(*name);
    });
}

void GraphView::setColorMode(ColorMode mode) {
    colorMode_ = mode;
    updateCanvas();
}

void GraphView::setLiveNodes(std::vector<NodeRef> nodes) {
    marks_.setLive(std::move(nodes));
    updateCanvas();
}

void GraphView::setRecomputedNodes(const std::vector<NodeRef>& nodes) {
    marks_.setRecomputed(nodes);
    updateCanvas();
}

bool GraphView::isMarkedRecomputed(NodeRef ref) const { return marks_.recomputed(ref); }
bool GraphView::isMarkedLive(NodeRef ref) const { return marks_.isLive(ref); }

void GraphView::setSearchMatches(std::vector<NodeRef> matches) {
    marks_.setMatches(matches);
    updateCanvas();
}

void GraphView::showRefusal(const QString& why) {
    refusal_ = why;
    QToolTip::showText(mapToGlobal(input_.lastPos()), why, this);
    updateCanvas();
}

void GraphView::setXRange(double lo, double hi) {
    if (lo == nav_.x0 && hi == nav_.x1) return;
    nav_.x0 = lo;
    nav_.x1 = hi;
    followNodes();
    syncScrollBars();
    updateCanvas();
}

void GraphView::followNodes() {
    if (!scene_ || input_.drag() == GraphInput::Drag::Pan) return;
    if (nav_.followNodes(layouts_.hitSegments(modules_), extent())) clampVertical();
}

void GraphView::setPlotArea(int left, int right) {
    nav_.left = left;
    nav_.right = std::max(right, left + 10);
    updateCanvas();
}

void GraphView::setCursorStep(std::int64_t step) {
    if (cursor_ == step) return;
    cursor_ = step;
    updateCanvas();
}

void GraphView::selectNode(NodeRef ref) {
    selected_ = ref;
    updateCanvas();
}

std::int64_t GraphView::stepOf(NodeRef ref) const { return layouts_.stepOf(ref); }

QPointF GraphView::nodeCenter(NodeRef ref) const {
    const GraphViewport v = viewport();
    return {v.px(static_cast<double>(stepOf(ref))), v.py(layouts_.of(ref.segment).lane(ref.node))};
}

void GraphView::centerOn(NodeRef ref) {
    if (!scene_ || !ref.valid()) return;
    modules_.reveal(ref); // a node inside collapsed modules: open them down to it
    if (nav_.centerStep(static_cast<double>(stepOf(ref)))) emitRange();
    nav_.centerLane(layouts_.of(ref.segment).lane(ref.node), extent());
    clampVertical();
    updateCanvas();
}

void GraphView::emitRange() {
    updateCanvas();
    syncScrollBars();
    emit xRangeChanged(nav_.x0, nav_.x1);
}

void GraphView::syncScrollBars() {
    const bool on = scene_ && !scene_->empty();
    if (bars_.shown() != on) {
        bars_.setShown(on);
        bars_.place();
    }
    if (!on) return;
    const GraphNavigation::Extent e = extent();
    bars_.sync({scene_->profile.size(), nav_.x0, nav_.x1, nav_.top, nav_.visibleLanes(e), e.lanes});
}

void GraphView::resetZoom() {
    if (!scene_ || scene_->empty()) return;
    nav_.reset(scene_->profile.size(), extent());
    emitRange();
}

GraphNavigation::Extent GraphView::extent() const {
    GraphNavigation::Extent e;
    e.width = width() - bars_.rightWidth();
    e.height = height() - bars_.bottomHeight();
    e.topPad = modules_.topPad(scene_ && scene_->joined());
    e.lanes = layouts_.lanes();
    return e;
}

void GraphView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    bars_.place();
    if (scene_) nav_.refit(extent());
    clampVertical();
}

void GraphView::clampVertical() {
    nav_.clampTop(extent());
    syncScrollBars();
}

GraphView::NodeRef GraphView::nodeAt(QPoint pos) const {
    if (!scene_) return {};
    return hitNode(layouts_.hitSegments(modules_), viewport(), pos);
}

GraphViewport GraphView::viewport() const { return nav_.viewport(extent()); }

ViewSources GraphView::sources() const {
    return {scene_.get(), &layouts_, &marks_, &modules_, &categories_, viewport(), font(), selected_, hovered_};
}

VisibleItems GraphView::visibleItems() const { return prepareVisibleItems(prepareInputOf(sources())); }

const VisibleItems& GraphView::paintItems() {
    // Collapsed modules change without a trace in the key (and summarise live marks): no reuse.
    const ViewSources v = sources();
    return cache_.get(prepareInputOf(v), itemsKeyOf(v), {marks_.liveGeneration(), selected_, hovered_},
                      !modules_.anyCollapsed());
}

std::vector<LegendEntry> GraphView::legend() const {
    if (!scene_ || scene_->empty()) return {};
    return legendEntries(colorMode_, categories_.legend, palette());
}

const ModuleGroups* GraphView::moduleGroups(int segment) const { return modules_.of(segment); }

void GraphView::setGroupDepth(int depth) {
    modules_.setDepth(depth);
    updateCanvas();
}

void GraphView::setModuleCollapsed(int segment, std::uint32_t module, bool collapsed) {
    if (ModuleGroups* g = modules_.of(segment)) {
        g->setCollapsed(module, collapsed);
        updateCanvas();
    }
}

void GraphView::expandModule(int segment, std::uint32_t module) {
    if (ModuleGroups* g = modules_.of(segment)) {
        g->expandOneLevel(module);
        updateCanvas();
    }
}

void GraphView::setHighlightedModule(int segment, std::uint32_t module) {
    modules_.setHighlighted(segment, module);
    updateCanvas();
}

void GraphView::setHighlightedModuleName(const QString& name) {
    modules_.setHighlightedName(name);
    updateCanvas();
}

std::pair<int, std::uint32_t> GraphView::moduleAt(QPoint pos) const {
    if (!scene_ || modules_.empty()) return {-1, ModuleGroups::npos};
    return hitModule(visibleItems(), pos);
}

void GraphView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    paintedNodes_ = 0;
    if (!scene_ || scene_->empty()) {
        GraphPainter::paintEmpty(p, rect(), palette(),
                                 tr("Open an FX graph file (File ▸ Open, Ctrl+O) or drop one here.\n"
                                    "Files come from the fxmem exporter (fxmem_export)."));
        return;
    }
    GraphFrame frame;
    frame.items = &paintItems();
    frame.view = viewport();
    frame.rect = rect();
    frame.palette = palette();
    frame.font = font();
    frame.peakStep = static_cast<double>(scene_->peakStep);
    frame.cursor = cursor_;
    frame.legend = legend();
    if (input_.drag() == GraphInput::Drag::Node && input_.pressed().valid()) {
        const NodeRef pressed = input_.pressed();
        frame.drag = {true,
                      dragRange_.ok,
                      dragRange_.loStep,
                      dragRange_.hiStep,
                      input_.dragStep(),
                      static_cast<double>(layouts_.of(pressed.segment).lane(pressed.node)),
                      dragRange_.why};
    }
    colors_.sync(*scene_, colorMode_, frame.palette, categories_.byTarget);
    paintedNodes_ = frame.items->nodeCount();
    GraphPainter(p, frame, colors_).paint();
}

GraphView::DropBand GraphView::dropBand(NodeRef ref) const {
    if (!layouts_.editable() || ref.segment != 0) {
        DropBand d;
        d.why = tr("Schedule editing needs a single graph (not a joined pair).");
        return d;
    }
    return dropBandOf(*schedule_, scene_->segments.front().analysis->graph(), ref.node);
}

void GraphView::mousePressEvent(QMouseEvent* event) {
    refusal_.clear();
    apply(input_.press(*event));
}

void GraphView::mouseMoveEvent(QMouseEvent* event) { apply(input_.move(*event, viewport())); }

void GraphView::mouseReleaseEvent(QMouseEvent* event) { apply(input_.release(*event, viewport())); }

void GraphView::wheelEvent(QWheelEvent* event) {
    if (!scene_ || scene_->empty()) return;
    apply(input_.wheel(*event, viewport()));
    event->accept();
}

void GraphView::keyPressEvent(QKeyEvent* event) {
    const std::vector<GraphIntent> intents = input_.key(*event, viewport());
    if (intents.empty()) QWidget::keyPressEvent(event);
    apply(intents);
}

void GraphView::apply(const std::vector<GraphIntent>& intents) {
    for (const GraphIntent& i : intents) {
        switch (i.kind) {
        case GraphIntent::Hover:
            if (const NodeRef h = nodeAt(i.pos); !(h == hovered_)) {
                hovered_ = h;
                if (h.valid()) emit nodeHovered(h);
                updateCanvas();
            }
            break;
        case GraphIntent::Select:
            selected_ = i.node;
            updateCanvas();
            emit nodeClicked(i.node);
            break;
        case GraphIntent::ModuleClick: {
            // A band toggles its module; a collapsed box opens one level.
            const auto [segment, module] = moduleAt(i.pos);
            if (segment < 0) break;
            modules_.click(segment, module, i.pos.y() < viewport().topPad);
            updateCanvas();
            emit moduleClicked(segment, module);
            break;
        }
        case GraphIntent::StartPan: setCursor(Qt::ClosedHandCursor); break;
        case GraphIntent::Pan:
            nav_.pan(i.a, i.b);
            clampVertical();
            emitRange();
            break;
        case GraphIntent::ShiftTime:
            nav_.pan(-i.a, 0);
            emitRange();
            break;
        case GraphIntent::SetTime:
            nav_.x0 = i.a;
            nav_.x1 = i.b;
            emitRange();
            break;
        case GraphIntent::ZoomTime: zoomTime(i.a, i.b); break;
        case GraphIntent::ZoomLanes: zoomLanes(i.a, i.b); break;
        case GraphIntent::ScrollLanes: scrollLanes(i.a); break;
        case GraphIntent::ResetZoom: resetZoom(); break;
        case GraphIntent::StartDrag: dragRange_ = dropBand(i.node); break;
        case GraphIntent::DragTo: updateCanvas(); break;
        case GraphIntent::Drop: drop(i.node, i.a, i.withInputs); break;
        case GraphIntent::EndGesture:
            unsetCursor();
            updateCanvas();
            break;
        }
    }
}

void GraphView::drop(NodeRef node, double step, bool withInputs) {
    if (!dragRange_.ok) {
        showRefusal(dragRange_.why);
        return;
    }
    const auto move = dropMove(*schedule_, node.node, step);
    if (!move) return;
    const MoveOutcome out =
        withInputs ? schedule_->moveWithInputs(move->first, move->second) : schedule_->move(move->first, move->second);
    if (out.ok) return;
    // A view input that pins the node: Shift+drop takes it along.
    const QString why = !withInputs && !out.offer.empty() ? out.why + tr(" (Shift+drop)") : out.why;
    showRefusal(why);
    emit dropRefused(why);
}

void GraphView::zoomTime(double factor, double x) {
    // The step under x stays under x, as in the timeline.
    nav_.zoomTime(factor, x, extent());
    followNodes();
    emitRange();
}

void GraphView::zoomLanes(double factor, double y) {
    nav_.zoomLanes(factor, y, extent());
    syncScrollBars();
    updateCanvas();
}

void GraphView::scrollLanes(double notches) {
    nav_.scrollLanes(notches, extent());
    syncScrollBars();
    updateCanvas();
}

QString GraphView::tooltipAt(QPoint pos) const {
    if (!scene_) return {};
    return graphTooltipAt(
        {scene_.get(), layouts_.hitSegments(modules_), &modules_, &categories_, visibleItems(), viewport()}, pos);
}

bool GraphView::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip && scene_) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString tip = tooltipAt(help->pos());
        if (!tip.isEmpty())
            QToolTip::showText(help->globalPos(), tip, this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

void GraphView::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) updateCanvas();
}
