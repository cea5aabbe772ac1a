#include "graphview/graphview.h"

#include "graphview/elide.h"
#include "state/editedschedule.h"
#include "state/viewstate.h"

#include "util/colors.h"
#include "util/text.h"
#include "util/units.h"

#include <fxmem/profile_steps.h>

#include <QHelpEvent>
#include <QImage>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <array>
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
}

const fxmem::GraphLayout& GraphView::layoutOf(int segment) const {
    if (segment == 0 && editable())
        if (const fxmem::GraphLayout* edited = editedLayout_.get()) return *edited;
    return *scene_->segments[static_cast<std::size_t>(segment)].layout;
}

void GraphView::setScene(std::shared_ptr<const Scene> scene) {
    scene_ = std::move(scene);
    editedLayout_ = editable() ? schedule_->layout() : nullptr;
    live_.clear();
    liveMark_.clear();
    matchMark_.clear();
    recomputedMark_.clear();
    selected_ = hovered_ = pressed_ = {};
    cursor_ = -1;
    drag_ = Drag::None;
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
        for (std::size_t s = 0; s < scene_->segments.size(); ++s) {
            liveMark_.emplace_back(scene_->segments[s].analysis->graph().size(), 0);
            matchMark_.emplace_back(scene_->segments[s].analysis->graph().size(), 0);
            recomputedMark_.emplace_back(scene_->segments[s].analysis->graph().size(), 0);
        }
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
    if (schedule_) connect(schedule_, &EditedSchedule::orderChanged, this, &GraphView::onScheduleChanged);
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
    itemsValid_ = false;
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
    for (const NodeRef& r : live_) liveMark_[static_cast<std::size_t>(r.segment)][r.node.index()] = 0;
    live_ = std::move(nodes);
    for (const NodeRef& r : live_)
        if (r.valid()) liveMark_[static_cast<std::size_t>(r.segment)][r.node.index()] = 1;
    std::erase_if(live_, [](const NodeRef& r) { return !r.valid(); });
    ++liveGen_;
    updateLanes();
}

void GraphView::setRecomputedNodes(const std::vector<NodeRef>& nodes) {
    for (auto& m : recomputedMark_) std::fill(m.begin(), m.end(), 0);
    for (const NodeRef& r : nodes)
        if (r.valid() && static_cast<std::size_t>(r.segment) < recomputedMark_.size())
            recomputedMark_[static_cast<std::size_t>(r.segment)][r.node.index()] = 1;
    ++matchGen_; // marks outside the live set: the prepared items are stale, as for new matches
    update();
}

bool GraphView::isMarkedRecomputed(NodeRef ref) const {
    return ref.valid() && static_cast<std::size_t>(ref.segment) < recomputedMark_.size() &&
           recomputedMark_[static_cast<std::size_t>(ref.segment)][ref.node.index()] != 0;
}

void GraphView::setSearchMatches(std::vector<NodeRef> matches) {
    for (auto& m : matchMark_) std::fill(m.begin(), m.end(), 0);
    for (const NodeRef& r : matches)
        if (r.valid()) matchMark_[static_cast<std::size_t>(r.segment)][r.node.index()] = 1;
    ++matchGen_;
    update();
}

void GraphView::showRefusal(const QString& why) {
    refusal_ = why;
    QToolTip::showText(mapToGlobal(lastPos_), why, this);
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
    if (!scene_ || drag_ == Drag::Pan) return;
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
        in.segments.push_back({&seg.analysis->graph(), &layoutOf(static_cast<int>(s)), seg.offset, &liveMark_[s],
                               &matchMark_[s], groups_[s].get(), highlight_[s],
                               collectives_[s].empty() ? nullptr : &collectives_[s]});
        in.segments.back().recomputed = &recomputedMark_[s];
        in.segments.back().name = seg.name;
    }
    in.bandRows = bandRows_;
    in.bandTop = bandTop();
    in.stripeDepth = stripeDepth_;
    return in;
}

VisibleItems GraphView::visibleItems() const { return prepareVisibleItems(prepareInput()); }

bool GraphView::ItemsKey::operator==(const ItemsKey& o) const {
    const GraphViewport& a = view;
    const GraphViewport& b = o.view;
    return a.x0 == b.x0 && a.x1 == b.x1 && a.left == b.left && a.right == b.right && a.top == b.top &&
           a.laneHeight == b.laneHeight && a.topPad == b.topPad && a.width == b.width && a.height == b.height &&
           font == o.font && scene == o.scene && layouts == o.layouts && highlight == o.highlight &&
           bandRows == o.bandRows && stripeDepth == o.stripeDepth && matches == o.matches;
}

GraphView::ItemsKey GraphView::itemsKey() const {
    ItemsKey k;
    k.view = viewport();
    k.font = font();
    k.scene = scene_.get();
    if (scene_)
        for (std::size_t s = 0; s < scene_->segments.size(); ++s) k.layouts.push_back(&layoutOf(static_cast<int>(s)));
    k.highlight = highlight_;
    k.bandRows = bandRows_;
    k.stripeDepth = stripeDepth_;
    k.matches = matchGen_;
    return k;
}

const VisibleItems& GraphView::paintItems() {
    // Collapsed modules change without a trace in the key (and summarise live marks): no reuse.
    bool reusable = true;
    for (const auto& g : groups_) reusable &= !(g && g->anyCollapsed());
    ItemsKey key = itemsKey();
    if (reusable && itemsValid_ && key == itemsKey_) {
        const bool marks = itemsLiveGen_ != liveGen_ || itemsSelected_ != selected_ || itemsHovered_ != hovered_;
        if (marks && !refreshMarks(items_, prepareInput())) {
            items_ = visibleItems();
            ++preparedCount_;
        }
    } else {
        items_ = visibleItems();
        ++preparedCount_;
    }
    itemsValid_ = reusable;
    itemsKey_ = std::move(key);
    itemsLiveGen_ = liveGen_;
    itemsSelected_ = selected_;
    itemsHovered_ = hovered_;
    return items_;
}

void GraphView::syncColors(const QPalette& pal) {
    if (colorsScene_ != scene_.get() || colorsMode_ != colorMode_ || colorsPalette_ != pal.cacheKey()) {
        colors_.clear();
        for (const Segment& seg : scene_->segments) colors_.emplace_back(seg.analysis->graph().size(), 0);
        colorsScene_ = scene_.get();
        colorsMode_ = colorMode_;
        colorsPalette_ = pal.cacheKey();
    }
}

QRgb GraphView::colorOf(NodeRef ref, const QPalette& pal) {
    QRgb& c = colors_[static_cast<std::size_t>(ref.segment)][ref.node.index()];
    if (c == 0) c = nodeColor(ref, pal).rgba(); // node colours are opaque: 0 is never a colour
    return c;
}

QColor GraphView::nodeColor(NodeRef ref, const QPalette& pal) const {
    const Segment& seg = scene_->segments[static_cast<std::size_t>(ref.segment)];
    if (colorMode_ == ColorMode::MemoryChange) {
        const double d = static_cast<double>(seg.allocated[ref.node.index()] - seg.freed[ref.node.index()]);
        return colors::deltaColor(d == 0 ? 0 : std::copysign(std::min(1.0, std::log2(std::abs(d) + 1) / 32), d), pal);
    }
    const fxmem::Graph& g = seg.analysis->graph();
    if (colorMode_ == ColorMode::OpCategory)
        return colors::categoryColor(
            fxmem::node_category(g, ref.node, categories_[static_cast<std::size_t>(ref.segment)]), pal);
    return colors::opColor(g.node(ref.node).op, pal);
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
    const QPalette pal = palette();
    const QColor base = pal.color(QPalette::Base), text = pal.color(QPalette::Text);
    p.fillRect(rect(), base);
    paintedNodes_ = 0;
    if (!scene_ || scene_->empty()) {
        p.setPen(colors::mix(base, text, 0.6));
        p.drawText(rect(), Qt::AlignCenter,
                   tr("Open an FX graph file (File ▸ Open, Ctrl+O) or drop one here.\n"
                      "Files come from the fxmem exporter (fxmem_export)."));
        return;
    }
    const VisibleItems& items = paintItems();
    syncColors(pal);
    paintedNodes_ = items.nodeCount();
    p.setClipRect(QRect(QPoint(0, 0), size()));
    const double sx = viewport().pxPerStep();
    const QColor liveCol = colors::live(pal);

    // Layer 1: the peak column, under everything else.
    QColor peakCol = colors::peak(pal);
    peakCol.setAlphaF(0.25f);
    p.fillRect(
        QRectF(px(static_cast<double>(scene_->peakStep)) - std::max(1.0, sx / 2), 0, std::max(2.0, sx), height()),
        peakCol);

    // Layer 2: the model's blocks (layers) as alternating shades behind the lanes, a highlighted
    // module tinted; graph dividers of a joined pair.
    {
        const double y0 = topPad() - 2;
        QColor tint = pal.color(QPalette::Highlight);
        tint.setAlphaF(0.16f);
        const QColor shade = colors::mix(base, text, 0.05);
        for (const VisibleItems::Stripe& st : items.stripes)
            if (st.highlight || st.ordinal % 2 == 1)
                p.fillRect(QRectF(st.x0, y0, st.x1 - st.x0, height() - y0), st.highlight ? tint : shade);
    }
    p.setPen(QPen(colors::mix(base, text, 0.45), 1, Qt::DotLine));
    for (const VisibleItems::SegmentMark& m : items.segmentMarks)
        if (m.segment > 0) p.drawLine(QPointF(m.x, 0), QPointF(m.x, height()));

    // Layer 3: wires, plain then live on top.
    {
        QVector<QLineF> plain, lit;
        for (const VisibleItems::Wire& w : items.wires) (w.live ? lit : plain).push_back(w.line);
        p.setRenderHint(QPainter::Antialiasing, sx > 4);
        p.setPen(QPen(colors::mix(base, text, 0.22), 1));
        p.drawLines(plain);
        p.setPen(QPen(liveCol, 2));
        p.drawLines(lit);
    }

    // Layer 4: collectives in flight, over their wire; collapsed modules, over the wires they hide.
    {
        QColor flight = colors::categoryColor(fxmem::OpCategory::Collective, pal);
        flight.setAlphaF(0.45f);
        p.setRenderHint(QPainter::Antialiasing, true);
        p.setPen(QPen(colors::categoryColor(fxmem::OpCategory::Collective, pal), 1));
        p.setBrush(flight);
        for (const VisibleItems::Span& sp : items.spans) p.drawRoundedRect(sp.rect, 2, 2);
        p.setBrush(Qt::NoBrush);
        p.setRenderHint(QPainter::Antialiasing, false);
    }
    for (const VisibleItems::GroupBox& gb : items.groups) {
        p.setRenderHint(QPainter::Antialiasing, true);
        p.setPen(
            QPen(gb.highlight ? pal.color(QPalette::Highlight) : colors::mix(base, text, 0.5), gb.highlight ? 2 : 1));
        p.setBrush(colors::mix(base, text, 0.16));
        p.drawRoundedRect(gb.rect, 3, 3);
        p.setBrush(Qt::NoBrush);
        // Marks for what it hides, as on boxes: live (inner), match (dashed), selected (outer).
        if (gb.flags & VisibleItems::Live) {
            p.setPen(QPen(liveCol, 2.5));
            p.drawRoundedRect(gb.rect.adjusted(2, 2, -2, -2), 2, 2);
        }
        if (gb.flags & VisibleItems::Match) {
            p.setPen(QPen(pal.color(QPalette::Highlight), 2, Qt::DashLine));
            p.drawRoundedRect(gb.rect.adjusted(-3, -3, 3, 3), 4, 4);
        }
        if (gb.flags & VisibleItems::Selected) {
            p.setPen(QPen(pal.color(QPalette::Highlight), 3));
            p.drawRoundedRect(gb.rect.adjusted(-2, -2, 2, 2), 4, 4);
        }
        p.setRenderHint(QPainter::Antialiasing, false);
    }

    // Layer 5: dots, written straight into an image (one draw call, no overdraw).
    p.setRenderHint(QPainter::Antialiasing, false);
    if (!items.dots.empty()) {
        const int w = width(), h = height();
        QImage dots(w, h, QImage::Format_ARGB32_Premultiplied);
        dots.fill(Qt::transparent);
        const int rows = items.dotRows;
        for (const VisibleItems::Dot& d : items.dots) {
            const QRgb c = d.live        ? liveCol.rgba()
                           : d.highlight ? pal.color(QPalette::Highlight).rgba()
                                         : colorOf(d.ref, pal);
            // A 2x`rows` dot (live ones 3 wide), clipped to the image.
            for (int dy = -rows / 2; dy < rows - rows / 2; ++dy) {
                if (d.y + dy < 0 || d.y + dy >= h) continue;
                auto* r = reinterpret_cast<QRgb*>(dots.scanLine(d.y + dy));
                for (int dx = 0; dx < (d.live ? 3 : 2) && d.x + dx < w; ++dx) r[d.x + dx] = c;
            }
        }
        p.drawImage(0, 0, dots);
    }

    // Layer 6: boxes with their marks.
    for (const VisibleItems::Box& b : items.boxes) {
        p.fillRect(b.rect, QColor::fromRgba(colorOf(b.ref, pal)));
        if (b.flags & VisibleItems::Live) {
            p.setPen(QPen(liveCol, 2.5));
            p.drawRect(b.rect.adjusted(-1.5, -1.5, 1.5, 1.5));
        }
        if (b.flags & VisibleItems::Highlight) {
            p.setPen(QPen(pal.color(QPalette::Highlight), 2));
            p.drawRect(b.rect.adjusted(-1, -1, 1, 1));
        }
        if (b.flags & VisibleItems::Match) {
            p.setPen(QPen(pal.color(QPalette::Highlight), 2, Qt::DashLine));
            p.drawRect(b.rect.adjusted(-3, -3, 3, 3));
        }
        if (b.flags & VisibleItems::Recomputed) {
            p.setPen(QPen(colors::edited(pal), 1.5, Qt::DotLine));
            p.drawRect(b.rect.adjusted(-4.5, -4.5, 4.5, 4.5));
        }
        if (b.flags & (VisibleItems::Selected | VisibleItems::Hovered)) {
            const bool sel = b.flags & VisibleItems::Selected;
            p.setPen(QPen(sel ? pal.color(QPalette::Highlight) : text, sel ? 3 : 1));
            p.drawRect(b.rect.adjusted(-2, -2, 2, 2));
        }
    }

    // Layer 7: the selected node's edges: inputs in one colour, users in another, as curves
    // ending in an arrow.
    if (!items.edges.empty()) {
        p.setRenderHint(QPainter::Antialiasing, true);
        const QColor inCol = colors::curve(pal), outCol = colors::edited(pal);
        for (const VisibleItems::Edge& e : items.edges) {
            // Far ends are clamped: the painter clips, but huge coordinates lose precision.
            auto clampPt = [](QPointF q) {
                return QPointF(std::clamp(q.x(), -1e5, 1e5), std::clamp(q.y(), -1e5, 1e5));
            };
            const QPointF a = clampPt(e.from), b = clampPt(e.to);
            const double bend = std::max(12.0, std::abs(b.x() - a.x()) / 3);
            QPainterPath path(a);
            path.cubicTo(a + QPointF(bend, 0), b - QPointF(bend, 0), b);
            const QColor c = e.toUser ? outCol : inCol;
            p.setPen(QPen(c, 2));
            p.setBrush(Qt::NoBrush);
            p.drawPath(path);
            // The arrow at the consumer's end, pointing right (time flows right).
            const double r = 5;
            const QPointF tip = b - QPointF(items.nodeW / 2, 0);
            p.setBrush(c);
            p.setPen(Qt::NoPen);
            p.drawPolygon(QPolygonF({tip, tip + QPointF(-r * 1.6, -r), tip + QPointF(-r * 1.6, r)}));
            p.setBrush(Qt::NoBrush);
        }
        p.setRenderHint(QPainter::Antialiasing, false);
    }

    // Layer 8: the module bands, then every label.
    for (const VisibleItems::Band& b : items.bands) {
        QColor fill = colors::mix(base, text, b.ordinal % 2 ? 0.20 : 0.12);
        if (b.highlight) fill = pal.color(QPalette::Highlight);
        p.fillRect(b.rect, fill);
        if (b.collapsed) {
            p.setPen(QPen(colors::mix(base, text, 0.6), 1));
            p.drawRect(b.rect.adjusted(0, 0, -1, -1));
        }
    }
    QFont small = font();
    small.setPointSizeF(std::max(6.5, std::min(font().pointSizeF(), items.nodeH * 0.62)));
    for (const VisibleItems::Label& l : items.labels) {
        if (l.kind == VisibleItems::LabelKind::Node) {
            p.setFont(small);
            p.setPen(colors::isDark(pal) ? QColor(10, 10, 10) : QColor(255, 255, 255));
            p.drawText(l.rect, Qt::AlignVCenter | Qt::AlignLeft, l.text);
        } else if (l.kind == VisibleItems::LabelKind::Span) {
            p.setFont(bandFont());
            p.setPen(colors::categoryColor(fxmem::OpCategory::Collective, pal));
            p.drawText(l.rect, Qt::AlignVCenter | Qt::AlignLeft, l.text);
        } else if (l.kind == VisibleItems::LabelKind::Segment) {
            p.setFont(font());
            p.setPen(colors::mix(base, text, 0.6));
            p.drawText(l.rect, Qt::AlignVCenter | Qt::AlignLeft, l.text);
        } else {
            p.setFont(bandFont());
            p.setPen(text);
            p.drawText(l.rect, Qt::AlignVCenter | Qt::AlignLeft, l.text);
        }
    }
    p.setFont(font());

    paintLegend(p, items);

    // Layer 9: the cursor and a node being dragged.
    if (cursor_ >= 0) {
        p.setPen(QPen(colors::cursor(pal), 1, Qt::DashLine));
        const double x = px(static_cast<double>(cursor_));
        p.drawLine(QPointF(x, 0), QPointF(x, height()));
    }
    if (drag_ == Drag::Node && pressed_.valid()) {
        const double nodeW = items.nodeW, nodeH = items.nodeH;
        QColor band = dragRange_.ok ? QColor(60, 180, 90) : colors::peak(pal);
        band.setAlphaF(0.18f);
        const double a = px(static_cast<double>(dragRange_.loStep) - 1),
                     b = px(static_cast<double>(dragRange_.hiStep) + 1);
        p.fillRect(QRectF(a, 0, b - a, height()), band);
        const bool inside = dragStep_ >= static_cast<double>(dragRange_.loStep) - 1 &&
                            dragStep_ <= static_cast<double>(dragRange_.hiStep) + 1;
        const double y = py(layoutOf(pressed_.segment).lane(pressed_.node));
        const QRectF ghost(px(dragStep_) - nodeW / 2, y - nodeH / 2, nodeW, nodeH);
        p.setPen(QPen(inside ? pal.color(QPalette::Highlight) : colors::peak(pal), 2, Qt::DashLine));
        p.drawRect(ghost);
        if (!inside) {
            p.setPen(colors::peak(pal));
            p.drawText(QRectF(px(dragStep_) + 8, y + nodeH, 420, 40), Qt::TextWordWrap, dragRange_.why);
        }
    }
}

QFont GraphView::bandFont() const { return bandFontOf(font()); }

void GraphView::paintLegend(QPainter& p, const VisibleItems&) {
    // One row at the bottom-left of the lanes, on a veil of the background, wrapping if needed.
    const std::vector<LegendEntry> entries = legend();
    if (entries.empty()) return;
    const QPalette pal = palette();
    const QFont f = bandFont();
    const QFontMetricsF fm(f);
    const double sw = 9, gap = 10, rowH = fm.height() + 4;
    const GraphViewport v = viewport();
    const double maxW = std::max(120.0, v.width - 8.0);
    std::vector<std::pair<double, double>> pos; // per entry: x, row
    double x = 0, row = 0, widest = 0;
    for (const LegendEntry& e : entries) {
        const double w = sw + 4 + fm.horizontalAdvance(e.text);
        if (x > 0 && x + w > maxW) x = 0, row += 1;
        pos.push_back({x, row});
        x += w + gap;
        widest = std::max(widest, x - gap);
    }
    const double h = (row + 1) * rowH + 2;
    const QRectF box(4, v.height - h - 3, widest + 8, h);
    QColor veil = pal.color(QPalette::Base);
    veil.setAlphaF(0.85f);
    p.fillRect(box, veil);
    p.setFont(f);
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const double ex = box.left() + 4 + pos[i].first, ey = box.top() + 1 + pos[i].second * rowH;
        p.fillRect(QRectF(ex, ey + (rowH - sw) / 2, sw, sw), entries[i].color);
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QRectF(ex + sw + 4, ey, fm.horizontalAdvance(entries[i].text) + 2, rowH),
                   Qt::AlignVCenter | Qt::AlignLeft, entries[i].text);
    }
    p.setFont(font());
}

GraphView::DropBand GraphView::dropBand(NodeRef ref) const {
    DropBand d;
    if (!editable() || ref.segment != 0) {
        d.why = tr("Schedule editing needs a single graph (not a joined pair).");
        return d;
    }
    const fxmem::Graph& g = scene_->segments.front().analysis->graph();
    if (!fxmem::has_profile_points(g.node(ref.node).op)) {
        d.why = tr("'%1' is a %2: it is not scheduled (live from the start or at the end).")
                    .arg(elided(g.node(ref.node).name, 80),
                         QString::fromStdString(std::string(fxmem::to_string(g.node(ref.node).op))));
        return d;
    }
    // Core's legal range (inputs, users, the output node last, and the storages the node
    // allocates or uses), drawn on the profile steps of the nodes that run inside it.
    const fxmem::IncrementalSchedule::LegalRange range = schedule_->legalRange(schedule_->positionOf(ref.node));
    const std::size_t k0 = schedule_->runningBefore(range.lo);
    const std::size_t k1 = std::max<std::size_t>(schedule_->runningBefore(range.hi + 1), k0 + 1);
    d.ok = true;
    d.loStep = fxmem::alloc_step(k0);
    d.hiStep = fxmem::alloc_step(k1 - 1);
    const QString name = elided(g.node(ref.node).name, 80);
    const auto has = [](std::span<const fxmem::NodeId> nodes, fxmem::NodeId n) {
        return std::find(nodes.begin(), nodes.end(), n) != nodes.end();
    };
    QStringList parts;
    if (const fxmem::NodeId b = range.blocker_before; b.valid())
        parts << (has(g.inputs(ref.node), b) ? tr("after its input '%1'")
                                             : tr("after '%1', which allocates a storage it uses"))
                     .arg(elided(g.node(b).name, 80));
    if (const fxmem::NodeId a = range.blocker_after; a.valid())
        parts << (has(g.users(ref.node), a)               ? tr("before its user '%1'")
                  : g.node(a).op == fxmem::OpKind::Output ? tr("before the output node '%1'")
                                                          : tr("before '%1', which uses a storage it allocates"))
                     .arg(elided(g.node(a).name, 80));
    d.why = parts.isEmpty() ? tr("'%1' can go anywhere").arg(name)
                            : tr("'%1' must stay %2").arg(name, parts.join(tr(" and ")));
    return d;
}

std::size_t GraphView::targetPosition(double step) const {
    if (!editable() || schedule_->runningCount() == 0) return 0;
    const auto k = std::clamp<std::int64_t>(std::llround((step - 1) / 2), 0,
                                            static_cast<std::int64_t>(schedule_->runningCount()) - 1);
    return schedule_->positionOfProfileStep(fxmem::alloc_step(static_cast<std::size_t>(k)));
}

void GraphView::mousePressEvent(QMouseEvent* event) {
    pressPos_ = lastPos_ = event->pos();
    pressed_ = event->button() == Qt::LeftButton ? nodeAt(event->pos()) : NodeRef{};
    drag_ = Drag::None;
    refusal_.clear();
}

void GraphView::mouseMoveEvent(QMouseEvent* event) {
    const QPoint pos = event->pos();
    if (event->buttons() & (Qt::LeftButton | Qt::MiddleButton)) {
        if (drag_ == Drag::None && (pos - pressPos_).manhattanLength() > 4) {
            if (pressed_.valid() && editable() && (event->buttons() & Qt::LeftButton)) {
                drag_ = Drag::Node;
                dragRange_ = dropBand(pressed_);
            } else {
                drag_ = Drag::Pan;
                setCursor(Qt::ClosedHandCursor);
            }
        }
        if (drag_ == Drag::Pan) {
            const double dx = (pos.x() - lastPos_.x()) * (x1_ - x0_) / std::max(right_ - left_, 1);
            x0_ -= dx;
            x1_ -= dx;
            top_ -= (pos.y() - lastPos_.y()) / laneHeight_;
            clampVertical();
            emitRange();
        } else if (drag_ == Drag::Node) {
            dragStep_ = stepAt(pos.x());
            update();
        }
        lastPos_ = pos;
        return;
    }
    lastPos_ = pos;
    const NodeRef h = nodeAt(pos);
    if (!(h == hovered_)) {
        hovered_ = h;
        if (h.valid()) emit nodeHovered(h);
        update();
    }
}

void GraphView::mouseReleaseEvent(QMouseEvent* event) {
    unsetCursor();
    if (drag_ == Drag::None && pressed_.valid() && event->button() == Qt::LeftButton) {
        selected_ = pressed_;
        update();
        emit nodeClicked(pressed_);
    } else if (drag_ == Drag::None && event->button() == Qt::LeftButton) {
        // A band toggles its module; a collapsed box opens one level.
        const auto [segment, module] = moduleAt(event->pos());
        if (segment >= 0) {
            ModuleGroups& g = *groups_[static_cast<std::size_t>(segment)];
            const bool inBand = event->pos().y() < topPad();
            if (inBand)
                g.setCollapsed(module, !g.collapsed(module));
            else
                g.expandOneLevel(module);
            update();
            emit moduleClicked(segment, module);
        }
    } else if (drag_ == Drag::Node && pressed_.valid()) {
        drag_ = Drag::None;
        if (!dragRange_.ok) {
            showRefusal(dragRange_.why);
        } else {
            const std::size_t from = schedule_->positionOf(pressed_.node);
            const std::size_t to = targetPosition(dragStep_);
            if (to == from) {
            } else if (event->modifiers() & Qt::ShiftModifier) {
                emit moveWithInputsRequested(from, to);
            } else {
                emit moveRequested(from, to);
            }
        }
    }
    drag_ = Drag::None;
    update();
}

void GraphView::wheelEvent(QWheelEvent* event) {
    const QPoint delta = event->angleDelta();
    const QPointF at = event->position();
    if (!scene_ || scene_->empty()) return;
    if (event->modifiers() & Qt::ControlModifier) {
        zoomLanes(std::pow(1.15, delta.y() / 120.0), at.y());
    } else if (event->modifiers() & Qt::ShiftModifier) {
        // Some platforms turn Shift+wheel into a horizontal delta: either way it scrolls lanes.
        scrollLanes(-(delta.y() != 0 ? delta.y() : delta.x()) / 120.0);
    } else if (delta.x() != 0 && std::abs(delta.x()) > std::abs(delta.y())) {
        // A horizontal wheel or touchpad swipe pans time, a tenth of the view per notch.
        const double d = -delta.x() / 120.0 * (x1_ - x0_) / 10;
        x0_ += d;
        x1_ += d;
        emitRange();
    } else {
        zoomTime(std::pow(0.8, delta.y() / 120.0), at.x());
    }
    event->accept();
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

void GraphView::keyPressEvent(QKeyEvent* event) {
    const double w = x1_ - x0_;
    switch (event->key()) {
    case Qt::Key_Left:
        x0_ -= w / 10, x1_ -= w / 10;
        emitRange();
        return;
    case Qt::Key_Right:
        x0_ += w / 10, x1_ += w / 10;
        emitRange();
        return;
    case Qt::Key_Up: scrollLanes(-1); return;
    case Qt::Key_Down: scrollLanes(1); return;
    case Qt::Key_PageUp: scrollLanes(-5); return;
    case Qt::Key_PageDown: scrollLanes(5); return;
    case Qt::Key_R:
    case Qt::Key_0: resetZoom(); return;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        x0_ += w / 5, x1_ -= w / 5;
        emitRange();
        return;
    case Qt::Key_Minus:
        x0_ -= w / 4, x1_ += w / 4;
        emitRange();
        return;
    default: QWidget::keyPressEvent(event);
    }
}

QString GraphView::tooltipFor(NodeRef ref) const {
    const Segment& seg = scene_->segments[static_cast<std::size_t>(ref.segment)];
    const fxmem::Graph& g = seg.analysis->graph();
    const fxmem::Node& n = g.node(ref.node);
    QString t = QStringLiteral("<b>%1</b><br>%2 <code>%3</code>")
                    .arg(elided(n.name, 120).toHtmlEscaped(), toQString(fxmem::to_string(n.op)),
                         elided(g.target(ref.node), 120).toHtmlEscaped());
    if (!categories_.empty())
        t += QStringLiteral(" (%1)").arg(toQString(
            fxmem::to_string(fxmem::node_category(g, ref.node, categories_[static_cast<std::size_t>(ref.segment)]))));
    if (const fxmem::ModuleInfo* m = g.module(ref.node)) {
        const QString name = m->name.empty() ? tr("(model)") : elided(m->name, 120).toHtmlEscaped();
        t += tr("<br>module %1").arg(name);
        if (!m->type.empty()) t += QStringLiteral(" <i>%1</i>").arg(elided(m->type, 60).toHtmlEscaped());
    }
    // Output tensors: dtype and shape, a few at most.
    const auto tensors = g.node_tensors(ref.node);
    QStringList shapes;
    for (std::size_t i = 0; i < tensors.size() && i < 4; ++i) {
        QStringList dims;
        for (std::int64_t d : g.shape(tensors[i])) dims << QString::number(d);
        shapes << QStringLiteral("%1[%2]").arg(
            elided(seg.analysis->file().dtypes[tensors[i].dtype], 20).toHtmlEscaped(), dims.join(QStringLiteral(", ")));
    }
    if (tensors.size() > 4) shapes << tr("… %1 more").arg(tensors.size() - 4);
    if (!shapes.isEmpty()) t += QStringLiteral("<br>") + shapes.join(QStringLiteral(", "));
    t += tr("<br>step %1").arg(stepOf(ref));
    t += tr("<br>allocates %1, frees %2")
             .arg(formatBytes(seg.allocated[ref.node.index()]), formatBytes(seg.freed[ref.node.index()]));
    return t;
}

QString GraphView::tooltipAt(QPoint pos) const {
    if (!scene_) return {};
    const auto [segment, module] = moduleAt(pos);
    if (segment >= 0) {
        const ModuleGroups& g = *groups_[static_cast<std::size_t>(segment)];
        const fxmem::ModuleTree::Module& m = g.tree()[module];
        QString t =
            QStringLiteral("<b>%1</b>").arg(m.name.empty() ? tr("(model)") : elided(m.name, 120).toHtmlEscaped());
        if (!m.type.empty()) t += QStringLiteral(" <i>%1</i>").arg(elided(m.type, 60).toHtmlEscaped());
        if (pos.y() < topPad()) {
            t += g.collapsed(module) ? tr("<br>Click to expand") : tr("<br>Click to collapse");
        } else {
            for (const VisibleItems::GroupBox& gb : visibleItems().groups)
                if (gb.segment == segment && gb.module == module && gb.rect.contains(pos))
                    t += tr("<br>%1 nodes").arg(gb.nodes);
            t += tr("<br>Collapsed: click to open one level");
        }
        return t;
    }
    const NodeRef ref = nodeAt(pos);
    if (ref.valid()) return tooltipFor(ref);
    for (const VisibleItems::Span& sp : visibleItems().spans)
        if (sp.rect.adjusted(0, -2, 0, 2).contains(pos)) {
            const fxmem::Graph& g = scene_->segments[static_cast<std::size_t>(sp.start.segment)].analysis->graph();
            const std::int64_t a = stepOf(sp.start), b = stepOf(sp.wait);
            return tr("<b>%1</b> in flight from step %2 to %3 (%4 nodes run meanwhile)<br>started by %5, waited by %6")
                .arg(elided(fxmem::short_op(g.target(sp.start.node)), 60).toHtmlEscaped())
                .arg(a)
                .arg(b)
                .arg(std::max<std::int64_t>(0, (b - a) / 2 - 1))
                .arg(elided(g.node(sp.start.node).name, 80).toHtmlEscaped(),
                     elided(g.node(sp.wait.node).name, 80).toHtmlEscaped());
        }
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
