#include "graphview/graphview.h"

#include "graphview/graphpainter.h"
#include "graphview/graphtooltips.h"
#include "state/editedschedule.h"
#include "state/viewstate.h"
#include "util/text.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <limits>

namespace {
constexpr double kTopPad = 18; // room for the graph names of a joined pair
constexpr std::uint32_t kMaxBandRows = 4;
} // namespace

GraphView::GraphView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumHeight(120);
    hbar_ = new QScrollBar(Qt::Horizontal, this);
    vbar_ = new QScrollBar(Qt::Vertical, this);
    hbar_->hide();
    vbar_->hide();
    connect(hbar_, &QScrollBar::valueChanged, this, [this](int value) {
        if (syncingBars_) return;
        const double w = x1_ - x0_;
        x0_ = value - 0.5;
        x1_ = x0_ + w;
        emitRange();
    });
    connect(vbar_, &QScrollBar::valueChanged, this, [this](int value) {
        if (syncingBars_) return;
        top_ = value;
        clampVertical();
        update();
    });
    input_.nodeAt = [this](QPoint pos) { return nodeAt(pos); };
    input_.editable = [this] { return editable(); };
}

const fxmem::GraphLayout& GraphView::layoutOf(int segment) const {
    if (segment == 0 && editable())
        if (const fxmem::GraphLayout* edited = editedLayout_.get()) return *edited;
    return *scene_->segments[static_cast<std::size_t>(segment)].layout;
}

void GraphView::setScene(std::shared_ptr<const Scene> scene) {
    scene_ = std::move(scene);
    editedLayout_ = editable() ? schedule_->layout() : nullptr;
    marks_.reset(scene_.get());
    selected_ = hovered_ = {};
    cursor_ = -1;
    input_.reset();
    refusal_.clear();
    top_ = 0;
    groups_.clear();
    categories_.clear();
    collectives_.clear();
    highlight_.clear();
    legendContent_ = {};
    stripeDepth_ = bandRows_ = 0;
    groupDepth_ = 0;
    hbar_->setHidden(!scene_ || scene_->empty());
    vbar_->setHidden(!scene_ || scene_->empty());
    placeScrollBars();
    if (scene_) {
        std::uint32_t depths = 0;
        for (std::size_t s = 0; s < scene_->segments.size(); ++s) {
            const fxmem::Graph& g = scene_->segments[s].analysis->graph();
            categories_.push_back(fxmem::target_categories(g));
            collectives_.push_back(findCollectives(g, categories_.back()));
            for (std::size_t i = 0; i < g.size(); ++i) {
                const fxmem::NodeId n(static_cast<std::int32_t>(i));
                legendContent_.categories.set(static_cast<std::size_t>(fxmem::node_category(g, n, categories_.back())));
                legendContent_.kinds.set(static_cast<std::size_t>(g.nodes[i].op));
            }
            auto groups = std::make_unique<ModuleGroups>(g, *scene_->segments[s].layout);
            if (groups->depths() == 0) groups.reset();
            if (groups) depths = std::max(depths, groups->depths());
            groups_.push_back(std::move(groups));
        }
        // Stripes at the depth of the model's repeated blocks (the layers), bands down to one
        // level below them.
        if (depths > 0) stripeDepth_ = std::min(scene_->layerDepth(), depths);
        highlight_.assign(scene_->segments.size(), ModuleGroups::npos);
        bandRows_ = std::min({depths, stripeDepth_ + 1, kMaxBandRows});
        // Every lane in view: readable boxes for small graphs, an overview (a dot per pixel) for
        // graphs with hundreds of lanes; Ctrl+wheel zooms the lanes from there.
        fitted_ = true;
        laneHeight_ = std::min(24.0, fitLaneHeight());
        x0_ = -0.5;
        x1_ = std::max<double>(static_cast<double>(scene_->profile.size()), 2.0) - 0.5;
        if (editedLayout_ && groups_[0]) groups_[0]->relayout(*editedLayout_);
    }
    syncScrollBars();
    update();
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

bool GraphView::editable() const {
    return schedule_ && scene_ && !scene_->empty() && !scene_->joined() &&
           schedule_->analysis() == scene_->segments.front().analysis && schedule_->size() > 0;
}

void GraphView::onScheduleChanged() {
    // Segment 0 is laid out in the edited order (the scene's own layout while it is the original).
    editedLayout_ = editable() ? schedule_->layout() : nullptr;
    if (scene_ && !scene_->empty() && !groups_.empty() && groups_[0]) groups_[0]->relayout(layoutOf(0));
    // The module groups were laid out again in place: the prepared items' key cannot see that.
    cache_.invalidate();
    update();
}

void GraphView::setState(ViewState* state) {
    setEditedSchedule(state->schedule());
    connect(state, &ViewState::sceneChanged, this, &GraphView::setScene);
    connect(state, &ViewState::cursorStepChanged, this, &GraphView::setCursorStep);
    connect(state, &ViewState::nodeSelected, this, [this](NodeRef ref, bool center) {
        selectNode(ref);
        if (center) centerOn(ref);
    });
    // A module selected anywhere (breakdown tree, graph view) is outlined here.
    connect(state, &ViewState::moduleSelected, this,
            [this](const QString& module) { setHighlightedModuleName(module.isNull() ? QString() : module); });
    connect(this, &GraphView::nodeClicked, state, [state](NodeRef ref) { state->selectNode(ref, false); });
    connect(this, &GraphView::moduleClicked, state, [state](int segment, std::uint32_t module) {
        const auto& scene = state->scene();
        if (!scene || segment < 0 || static_cast<std::size_t>(segment) >= scene->segments.size()) return;
        const fxmem::ModuleTree& tree = scene->segments[static_cast<std::size_t>(segment)].attribution->tree();
        if (module >= tree.size() || module == fxmem::ModuleTree::kRoot) {
            state->selectModule(QString());
            return;
        }
        state->selectModule(toQString(tree[module].name));
    });
}

void GraphView::setColorMode(ColorMode mode) {
    colorMode_ = mode;
    update();
}

void GraphView::setLiveNodes(std::vector<NodeRef> nodes) {
    marks_.setLive(std::move(nodes));
    updateLanes();
}

void GraphView::setRecomputedNodes(const std::vector<NodeRef>& nodes) {
    marks_.setRecomputed(nodes);
    update();
}

bool GraphView::isMarkedRecomputed(NodeRef ref) const { return marks_.recomputed(ref); }

void GraphView::setSearchMatches(std::vector<NodeRef> matches) {
    marks_.setMatches(matches);
    update();
}

void GraphView::showRefusal(const QString& why) {
    refusal_ = why;
    QToolTip::showText(mapToGlobal(input_.lastPos()), why, this);
    update();
}

double GraphView::px(double globalStep) const { return viewport().px(globalStep); }
double GraphView::stepAt(double x) const { return viewport().stepAt(x); }
double GraphView::py(double lane) const { return viewport().py(lane); }
double GraphView::laneAt(double y) const { return viewport().laneAt(y); }

void GraphView::setXRange(double lo, double hi) {
    if (lo == x0_ && hi == x1_) return;
    x0_ = lo;
    x1_ = hi;
    followNodes();
    syncScrollBars();
    update();
}

void GraphView::followNodes() {
    if (!scene_ || input_.drag() == GraphInput::Drag::Pan) return;
    const double visible = viewport().visibleLanes();
    std::int32_t topmost = std::numeric_limits<std::int32_t>::max();
    for (std::size_t s = 0; s < scene_->segments.size(); ++s) {
        const fxmem::GraphLayout& L = layoutOf(static_cast<int>(s));
        const auto off = static_cast<double>(scene_->segments[s].offset);
        const auto nodes = L.nodes_in(static_cast<std::int64_t>(std::ceil(x0_ - off)),
                                      static_cast<std::int64_t>(std::floor(x1_ - off)));
        if (nodes.size() > 50000) return; // an overview: leave the scroll position alone
        for (fxmem::NodeId n : nodes) {
            if (groups_[s] && groups_[s]->hidden(n)) continue; // inside a collapsed module's box
            const std::int32_t lane = L.lane(n);
            if (lane >= top_ - 0.5 && lane <= top_ + visible - 1) return; // something is in view
            topmost = std::min(topmost, lane);
        }
    }
    if (topmost == std::numeric_limits<std::int32_t>::max()) return;
    top_ = std::max(0.0, topmost - 1.0);
    clampVertical();
}

void GraphView::setPlotArea(int left, int right) {
    left_ = left;
    right_ = std::max(right, left + 10);
    plotAreaSet_ = true;
    update();
}

void GraphView::setCursorStep(std::int64_t step) {
    if (cursor_ == step) return;
    cursor_ = step;
    updateLanes();
}

void GraphView::updateLanes() {
    // The scroll bars (children) need no repaint for a cursor step or new live marks.
    const GraphViewport v = viewport();
    update(QRect(0, 0, v.width, v.height));
}

void GraphView::selectNode(NodeRef ref) {
    selected_ = ref;
    updateLanes(); // a key step selects the node at the cursor: the scroll bars stay as they are
}

std::int64_t GraphView::stepOf(NodeRef ref) const {
    if (!scene_ || !ref.valid()) return -1;
    return scene_->segments[static_cast<std::size_t>(ref.segment)].offset + layoutOf(ref.segment).step(ref.node);
}

QPointF GraphView::nodeCenter(NodeRef ref) const {
    return {px(static_cast<double>(stepOf(ref))), py(layoutOf(ref.segment).lane(ref.node))};
}

void GraphView::centerOn(NodeRef ref) {
    if (!scene_ || !ref.valid()) return;
    // A node inside collapsed modules: open them level by level down to it.
    if (ModuleGroups* g = moduleGroupsOf(ref.segment))
        while (g->hidden(ref.node)) g->expandOneLevel(g->collapsedRoot(g->tree().node_module(ref.node)));
    const double step = static_cast<double>(stepOf(ref));
    const double width = x1_ - x0_;
    if (step < x0_ + width * 0.05 || step > x1_ - width * 0.05) {
        x0_ = step - width / 2;
        x1_ = step + width / 2;
        emitRange();
    }
    const double visible = viewport().visibleLanes();
    const double lane = layoutOf(ref.segment).lane(ref.node);
    if (lane < top_ || lane > top_ + visible - 1) top_ = lane - visible / 2;
    clampVertical();
    update();
}

void GraphView::emitRange() {
    update();
    syncScrollBars();
    emit xRangeChanged(x0_, x1_);
}

void GraphView::syncScrollBars() {
    const bool on = scene_ && !scene_->empty();
    if (hbar_->isHidden() == on) {
        hbar_->setVisible(on);
        vbar_->setVisible(on);
        placeScrollBars();
    }
    if (!on) return;
    syncingBars_ = true;
    // Horizontal: in steps over the whole profile; vertical: in lanes.
    const double steps = static_cast<double>(std::max<std::size_t>(scene_->profile.size(), 2));
    const int page = std::max(1, static_cast<int>(std::lround(x1_ - x0_)));
    hbar_->setRange(0, std::max(0, static_cast<int>(std::lround(steps)) - page));
    hbar_->setPageStep(page);
    hbar_->setSingleStep(std::max(1, page / 10));
    hbar_->setValue(static_cast<int>(std::lround(x0_ + 0.5)));
    const double visible = viewport().visibleLanes();
    const int lanePage = std::max(1, static_cast<int>(visible));
    vbar_->setRange(0, std::max(0, static_cast<int>(std::ceil(laneCount() - visible + 0.5))));
    vbar_->setPageStep(lanePage);
    vbar_->setSingleStep(std::max(1, lanePage / 10));
    vbar_->setValue(static_cast<int>(std::lround(top_)));
    syncingBars_ = false;
}

void GraphView::placeScrollBars() {
    const int bw = vbar_->sizeHint().width(), bh = hbar_->sizeHint().height();
    const int vw = !vbar_->isHidden() ? bw : 0;
    hbar_->setGeometry(0, height() - bh, width() - vw, bh);
    vbar_->setGeometry(width() - bw, 0, bw, height() - (!hbar_->isHidden() ? bh : 0));
}

void GraphView::resetZoom() {
    if (!scene_ || scene_->empty()) return;
    fitted_ = true;
    laneHeight_ = std::min(24.0, fitLaneHeight());
    top_ = 0;
    x0_ = -0.5;
    x1_ = std::max<double>(static_cast<double>(scene_->profile.size()), 2.0) - 0.5;
    emitRange();
}

std::int32_t GraphView::laneCount() const {
    std::int32_t lanes = 1;
    if (scene_)
        for (std::size_t s = 0; s < scene_->segments.size(); ++s)
            lanes = std::max(lanes, layoutOf(static_cast<int>(s)).lanes());
    return lanes;
}

double GraphView::fitLaneHeight() const {
    return std::max(1e-3, viewport().height - viewport().topPad - 6) / laneCount();
}

void GraphView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    placeScrollBars();
    if (fitted_ && scene_) laneHeight_ = std::min(24.0, fitLaneHeight());
    clampVertical();
}

void GraphView::clampVertical() {
    const std::int32_t lanes = laneCount();
    const double visible = viewport().visibleLanes();
    top_ = std::clamp(top_, 0.0, std::max(0.0, lanes - visible + 0.5));
    syncScrollBars();
}

GraphView::NodeRef GraphView::nodeAt(QPoint pos) const {
    if (!scene_) return {};
    const double step = stepAt(pos.x());
    const double lane = laneAt(pos.y());
    const double pxPerStep = (right_ - left_) / std::max(x1_ - x0_, 1e-9);
    const double halfWidthSteps = std::max(0.8, 3.0 / pxPerStep);
    // Within 3 pixels, or the pointer's own lane when lanes are taller: in an overview many
    // lanes share a pixel row, so the nearest node on screen wins.
    const double laneReach = std::max(0.5, 3.0 / laneHeight_);
    NodeRef best;
    double bestDist = 1e300;
    for (std::size_t s = 0; s < scene_->segments.size(); ++s) {
        const fxmem::GraphLayout& L = layoutOf(static_cast<int>(s));
        const double local = step - static_cast<double>(scene_->segments[s].offset);
        for (fxmem::NodeId n : L.nodes_in(static_cast<std::int64_t>(std::floor(local - halfWidthSteps)),
                                          static_cast<std::int64_t>(std::ceil(local + halfWidthSteps)))) {
            if (groups_[s] && groups_[s]->hidden(n)) continue;
            const double dl = std::abs(static_cast<double>(L.lane(n)) - lane);
            const double ds = std::abs(static_cast<double>(L.step(n)) - local);
            if (dl > laneReach || ds > halfWidthSteps) continue;
            const double dx = ds * pxPerStep, dy = dl * laneHeight_;
            const double d = dx * dx + dy * dy;
            if (d < bestDist) {
                bestDist = d;
                best = {static_cast<int>(s), n};
            }
        }
    }
    return best;
}

GraphViewport GraphView::viewport() const {
    GraphViewport v;
    v.x0 = x0_;
    v.x1 = x1_;
    v.left = left_;
    v.right = right_;
    v.top = top_;
    v.laneHeight = laneHeight_;
    v.topPad = topPad();
    v.width = width() - (!vbar_->isHidden() ? vbar_->width() : 0);
    v.height = height() - (!hbar_->isHidden() ? hbar_->height() : 0);
    return v;
}

PrepareInput GraphView::prepareInput() const {
    PrepareInput in;
    in.view = viewport();
    in.selected = selected_;
    in.hovered = hovered_;
    in.font = font();
    if (!scene_) return in;
    for (std::size_t s = 0; s < scene_->segments.size(); ++s) {
        const Segment& seg = scene_->segments[s];
        in.segments.push_back({&seg.analysis->graph(), &layoutOf(static_cast<int>(s)), seg.offset, &marks_.live(s),
                               &marks_.matches(s), groups_[s].get(), highlight_[s],
                               collectives_[s].empty() ? nullptr : &collectives_[s]});
        in.segments.back().recomputed = &marks_.recomputed(s);
        in.segments.back().name = seg.name;
    }
    in.bandRows = bandRows_;
    in.bandTop = bandTop();
    in.stripeDepth = stripeDepth_;
    return in;
}

VisibleItems GraphView::visibleItems() const { return prepareVisibleItems(prepareInput()); }

ItemsCache::Key GraphView::itemsKey() const {
    ItemsCache::Key k;
    k.view = viewport();
    k.font = font();
    k.scene = scene_.get();
    if (scene_)
        for (std::size_t s = 0; s < scene_->segments.size(); ++s) k.layouts.push_back(&layoutOf(static_cast<int>(s)));
    k.highlight = highlight_;
    k.bandRows = bandRows_;
    k.stripeDepth = stripeDepth_;
    k.matches = marks_.otherGeneration();
    return k;
}

const VisibleItems& GraphView::paintItems() {
    // Collapsed modules change without a trace in the key (and summarise live marks): no reuse.
    bool reusable = true;
    for (const auto& g : groups_) reusable &= !(g && g->anyCollapsed());
    return cache_.get(prepareInput(), itemsKey(), {marks_.liveGeneration(), selected_, hovered_}, reusable);
}

double GraphView::bandTop() const { return scene_ && scene_->joined() ? kTopPad : 3; }

double GraphView::topPad() const {
    if (bandRows_ == 0) return kTopPad;
    return bandTop() + bandRows_ * PrepareInput::kBandRow + 4;
}

std::vector<LegendEntry> GraphView::legend() const {
    if (!scene_ || scene_->empty()) return {};
    return legendEntries(colorMode_, legendContent_, palette());
}

const ModuleGroups* GraphView::moduleGroups(int segment) const {
    if (segment < 0 || static_cast<std::size_t>(segment) >= groups_.size()) return nullptr;
    return groups_[static_cast<std::size_t>(segment)].get();
}

ModuleGroups* GraphView::moduleGroupsOf(int segment) {
    if (segment < 0 || static_cast<std::size_t>(segment) >= groups_.size()) return nullptr;
    return groups_[static_cast<std::size_t>(segment)].get();
}

void GraphView::setGroupDepth(int depth) {
    groupDepth_ = std::max(depth, 0);
    for (auto& g : groups_)
        if (g) g->collapseDepth(static_cast<std::uint32_t>(groupDepth_));
    if (groupDepth_ > 0) {
        stripeDepth_ = static_cast<std::uint32_t>(groupDepth_);
        std::uint32_t depths = 0;
        for (auto& g : groups_)
            if (g) depths = std::max(depths, g->depths());
        stripeDepth_ = std::min(stripeDepth_, depths);
        bandRows_ = std::min({depths, stripeDepth_ + 1, kMaxBandRows});
    }
    update();
}

void GraphView::setModuleCollapsed(int segment, std::uint32_t module, bool collapsed) {
    if (ModuleGroups* g = moduleGroupsOf(segment)) {
        g->setCollapsed(module, collapsed);
        update();
    }
}

void GraphView::expandModule(int segment, std::uint32_t module) {
    if (ModuleGroups* g = moduleGroupsOf(segment)) {
        g->expandOneLevel(module);
        update();
    }
}

void GraphView::setHighlightedModule(int segment, std::uint32_t module) {
    for (std::size_t s = 0; s < highlight_.size(); ++s)
        highlight_[s] = static_cast<int>(s) == segment && groups_[s] && module < groups_[s]->tree().size()
                            ? module
                            : ModuleGroups::npos;
    update();
}

void GraphView::setHighlightedModuleName(const QString& name) {
    const std::string key = name.toStdString();
    for (std::size_t s = 0; s < highlight_.size(); ++s)
        highlight_[s] = name.isEmpty() || !groups_[s] ? ModuleGroups::npos : groups_[s]->tree().find(key);
    update();
}

std::pair<int, std::uint32_t> GraphView::moduleAt(QPoint pos) const {
    if (!scene_ || groups_.empty()) return {-1, ModuleGroups::npos};
    const VisibleItems items = visibleItems();
    for (const VisibleItems::Band& b : items.bands)
        if (b.rect.adjusted(0, 0, 0, 1).contains(pos)) return {b.segment, b.module};
    for (const VisibleItems::GroupBox& g : items.groups)
        if (g.rect.contains(pos)) return {g.segment, g.module};
    return {-1, ModuleGroups::npos};
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
                      static_cast<double>(layoutOf(pressed.segment).lane(pressed.node)),
                      dragRange_.why};
    }
    colors_.sync(*scene_, colorMode_, frame.palette, categories_);
    paintedNodes_ = frame.items->nodeCount();
    GraphPainter(p, frame, colors_).paint();
}

GraphView::DropBand GraphView::dropBand(NodeRef ref) const {
    if (!editable() || ref.segment != 0) {
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
                update();
            }
            break;
        case GraphIntent::Select:
            selected_ = i.node;
            update();
            emit nodeClicked(i.node);
            break;
        case GraphIntent::ModuleClick: {
            // A band toggles its module; a collapsed box opens one level.
            const auto [segment, module] = moduleAt(i.pos);
            if (segment < 0) break;
            ModuleGroups& g = *groups_[static_cast<std::size_t>(segment)];
            if (i.pos.y() < topPad())
                g.setCollapsed(module, !g.collapsed(module));
            else
                g.expandOneLevel(module);
            update();
            emit moduleClicked(segment, module);
            break;
        }
        case GraphIntent::StartPan: setCursor(Qt::ClosedHandCursor); break;
        case GraphIntent::Pan:
            x0_ -= i.a;
            x1_ -= i.a;
            top_ -= i.b;
            clampVertical();
            emitRange();
            break;
        case GraphIntent::ShiftTime:
            x0_ += i.a;
            x1_ += i.a;
            emitRange();
            break;
        case GraphIntent::SetTime:
            x0_ = i.a;
            x1_ = i.b;
            emitRange();
            break;
        case GraphIntent::ZoomTime: zoomTime(i.a, i.b); break;
        case GraphIntent::ZoomLanes: zoomLanes(i.a, i.b); break;
        case GraphIntent::ScrollLanes: scrollLanes(i.a); break;
        case GraphIntent::ResetZoom: resetZoom(); break;
        case GraphIntent::StartDrag: dragRange_ = dropBand(i.node); break;
        case GraphIntent::DragTo: update(); break;
        case GraphIntent::Drop: drop(i.node, i.a, i.withInputs); break;
        case GraphIntent::EndGesture:
            unsetCursor();
            update();
            break;
        }
    }
}

void GraphView::drop(NodeRef node, double step, bool withInputs) {
    if (!dragRange_.ok) {
        showRefusal(dragRange_.why);
        return;
    }
    const std::size_t from = schedule_->positionOf(node.node);
    const std::size_t to = dropPosition(*schedule_, step);
    if (to == from) return;
    if (withInputs)
        emit moveWithInputsRequested(from, to);
    else
        emit moveRequested(from, to);
}

void GraphView::zoomTime(double factor, double x) {
    // The step under x stays under x, as in the timeline.
    const double at = stepAt(x);
    x0_ = at - (at - x0_) * factor;
    x1_ = at + (x1_ - at) * factor;
    followNodes();
    emitRange();
}

void GraphView::zoomLanes(double factor, double y) {
    // The lane under y stays under y: from the overview where every lane fits up to large boxes.
    const double lane = laneAt(y);
    laneHeight_ = std::clamp(laneHeight_ * factor, std::min(2.0, fitLaneHeight()), 60.0);
    fitted_ = laneHeight_ <= fitLaneHeight();
    top_ = lane + 0.5 - (y - viewport().topPad) / laneHeight_;
    clampVertical();
    update();
}

void GraphView::scrollLanes(double notches) {
    // A notch moves a sixth of the visible lanes (at least one).
    top_ += notches * std::max(1.0, viewport().visibleLanes() / 6);
    clampVertical();
    update();
}

QString GraphView::tooltipAt(QPoint pos) const {
    if (!scene_) return {};
    const auto [segment, module] = moduleAt(pos);
    if (segment >= 0) {
        const ModuleGroups& g = *groups_[static_cast<std::size_t>(segment)];
        std::vector<std::uint32_t> boxNodes;
        const bool inBand = pos.y() < topPad();
        if (!inBand)
            for (const VisibleItems::GroupBox& gb : visibleItems().groups)
                if (gb.segment == segment && gb.module == module && gb.rect.contains(pos)) boxNodes.push_back(gb.nodes);
        return moduleTooltip(g.tree(), module, inBand, g.collapsed(module), boxNodes);
    }
    if (const NodeRef ref = nodeAt(pos); ref.valid())
        return nodeTooltip(scene_->segments[static_cast<std::size_t>(ref.segment)],
                           categories_.empty() ? nullptr : &categories_[static_cast<std::size_t>(ref.segment)],
                           ref.node, stepOf(ref));
    for (const VisibleItems::Span& sp : visibleItems().spans)
        if (sp.rect.adjusted(0, -2, 0, 2).contains(pos))
            return spanTooltip(scene_->segments[static_cast<std::size_t>(sp.start.segment)].analysis->graph(),
                               sp.start.node, sp.wait.node, stepOf(sp.start), stepOf(sp.wait));
    return {};
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
    if (event->type() == QEvent::PaletteChange) update();
}
