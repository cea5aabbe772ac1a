#include "dataflow/dataflowview.h"

#include "graphview/graphmodules.h"
#include "jobs/jobtracker.h"
#include "state/viewstate.h"
#include "util/text.h"
#include "util/units.h"

#include <QBackingStore>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace {
using Kind = fxmem::DataflowDrawing::Kind;
constexpr double kReadableScale = 0.3, kOpenScale = 0.8;
constexpr QSizeF kMinimap(220, 140);
fxmem::NodeId nodeId(std::uint32_t v) { return fxmem::NodeId(static_cast<std::int32_t>(v)); }

// The layouts cross from the worker once; the view then owns them (expand and collapse change them).
struct Built {
    std::shared_ptr<DataflowLayouts> layouts;
};

// One byte per node and segment: those of `nodes` set, the rest cleared.
void markNodes(std::vector<std::vector<std::uint8_t>>& marks, const std::vector<NodeRef>& nodes) {
    for (auto& m : marks) std::fill(m.begin(), m.end(), 0);
    for (NodeRef r : nodes)
        if (r.valid() && static_cast<std::size_t>(r.segment) < marks.size())
            marks[static_cast<std::size_t>(r.segment)][r.node.index()] = 1;
}

double distanceToSegment(QPointF p, QPointF a, QPointF b) {
    const QPointF ab = b - a;
    const double len2 = QPointF::dotProduct(ab, ab);
    const double t = len2 > 0 ? std::clamp(QPointF::dotProduct(p - a, ab) / len2, 0.0, 1.0) : 0.0;
    const QPointF d = p - (a + t * ab);
    return std::hypot(d.x(), d.y());
}
} // namespace

DataflowView::DataflowView(ViewState* state, QWidget* parent) : QWidget(parent), jobs_(new JobTracker(this)) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumHeight(120);
    connect(jobs_, &JobTracker::failed, this, [this](const QString& message) {
        layouts_.reset();
        QToolTip::showText(mapToGlobal(rect().center()), tr("Dataflow layout: %1").arg(elided(message, 300)), this);
    });
    if (state) bindState(state);
}

DataflowView::~DataflowView() = default;

void DataflowView::bindState(ViewState* state) {
    state_ = state;
    connect(state, &ViewState::sceneChanged, this, &DataflowView::setScene);
    connect(state, &ViewState::cursorStepChanged, this, &DataflowView::setCursorStep);
    connect(state, &ViewState::nodeSelected, this, [this](NodeRef ref, bool center) {
        selectNode(ref);
        if (center) centerOn(ref);
    });
    connect(state, &ViewState::moduleSelected, this, &DataflowView::setHighlightedModuleName);
    // The live set the views show (ViewState decides which; it follows the cursor, and stays
    // while an edit's index is being built): the marks describe it, as the live table's rows.
    connect(state, &ViewState::shownLiveChanged, this, [this] {
        refreshMarks();
        update();
    });
    // The boxes' sizes are formatted when painted.
    connect(state, &ViewState::unitsChanged, this, qOverload<>(&QWidget::update));
    connect(this, &DataflowView::nodeClicked, state, [state](NodeRef ref) { state->selectNode(ref, false); });
    connect(this, &DataflowView::moduleClicked, state, [state](int segment, std::uint32_t module) {
        if (const auto name = GraphModules::qualifiedName(state->scene().get(), segment, module))
            state->selectModule(*name);
    });
}

void DataflowView::setColorMode(NodeColorMode mode) {
    colorMode_ = mode;
    update();
}

void DataflowView::setScene(std::shared_ptr<const Scene> scene) {
    // While a binding's layouts are still on the worker, what was open before it stays pending.
    if (!scene || !scene_ || !scene->sameGraphs(*scene_))
        keepOpen_.reset();
    else if (layouts_)
        keepOpen_ = openModules();
    scene_ = std::move(scene);
    jobs_->cancel();
    layouts_.reset();
    marks_ = {};
    selected_ = {};
    hovered_ = {};
    cursor_ = -1;
    categories_.reset(scene_.get());
    recomputed_.clear();
    matches_.clear();
    if (scene_)
        for (const Segment& seg : scene_->segments) {
            recomputed_.emplace_back(seg.analysis->graph().size(), 0);
            matches_.emplace_back(seg.analysis->graph().size(), 0);
        }
    ++flagsRevision_;
    flags_.clear();
    pathEdges_.clear();
    layoutPending_ = true;
    if (isVisible()) startLayout();
    update();
}

void DataflowView::startLayout() {
    layoutPending_ = false;
    if (!scene_ || scene_->empty()) return;
    std::shared_ptr<const Scene> scene = scene_;
    jobs_->start<Built>(
        [scene](JobContext& job) {
            auto built = std::make_shared<Built>();
            built->layouts = DataflowLayouts::build(*scene, job.cancelCheck());
            return std::shared_ptr<const Built>(std::move(built));
        },
        [this, scene](std::shared_ptr<const Built> built) {
            Q_ASSERT(QThread::currentThread() == thread());
            if (scene != scene_) return;
            layouts_ = built->layouts;
            ++layoutGeneration_;
            const bool rebound = keepOpen_.has_value();
            if (rebound) restoreOpenModules(*std::exchange(keepOpen_, std::nullopt));
            refreshMarks();
            refreshFlags();
            if (!rebound) zoomToFit();
            // A drawing too wide to read whole (a layer's weights side by side) opens readable,
            // at the selected node; F fits it.
            if (!rebound && camera_.scale < kReadableScale) {
                camera_.scale = kOpenScale;
                if (selected_.valid())
                    centerOn(selected_);
                else
                    camera_.origin = {layouts_->width() / 2 - width() / 2.0 / camera_.scale, -20};
            }
            if (!pendingExpand_.isEmpty()) expandModules(std::exchange(pendingExpand_, {}));
            if (std::exchange(pendingFit_, false)) zoomToFit();
            emit layoutChanged();
        });
}

std::vector<std::vector<std::string>> DataflowView::openModules() const {
    std::vector<std::vector<std::string>> open;
    for (std::size_t s = 0; layouts_ && s < layouts_->size(); ++s) {
        const fxmem::DataflowLayout& l = *layouts_->piece(s).layout;
        auto& names = open.emplace_back();
        for (std::uint32_t m = 0; m < l.tree().size(); ++m)
            if (m != fxmem::ModuleTree::kRoot && l.expanded(m)) names.emplace_back(l.tree()[m].name);
    }
    return open;
}

void DataflowView::restoreOpenModules(const std::vector<std::vector<std::string>>& open) {
    for (std::size_t s = 0; s < std::min(open.size(), layouts_->size()); ++s) {
        const fxmem::ModuleTree& tree = layouts_->piece(s).layout->tree();
        std::vector<std::uint8_t> wanted(tree.size(), 0);
        for (const std::string& name : open[s])
            if (const std::uint32_t m = tree.find(name); m != fxmem::ModuleTree::npos) wanted[m] = 1;
        // Opening a module opens its ancestors: open first, then close what was not open.
        for (std::uint32_t m = 0; m < tree.size(); ++m)
            if (wanted[m] && !layouts_->piece(s).layout->expanded(m)) layouts_->expand(s, m);
        for (std::uint32_t m = 0; m < tree.size(); ++m)
            if (m != fxmem::ModuleTree::kRoot && !wanted[m] && layouts_->piece(s).layout->expanded(m))
                layouts_->collapse(s, m);
    }
}

void DataflowView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (layoutPending_) startLayout();
    refreshMarks(); // the cursor may have moved while hidden
    refreshFlags();
}

void DataflowView::setCursorStep(std::int64_t step) {
    if (cursor_ == step) return;
    cursor_ = step;
    if (state_) return; // the state's shown live set follows (shownLiveChanged)
    refreshMarks();
    update();
}

void DataflowView::refreshMarks() {
    if (!scene_ || !layouts_ || !isVisible()) {
        if (!layouts_) marks_ = {};
        return;
    }
    // The live set every view shows (ViewState::shownLive), else, alone, the cursor's.
    std::shared_ptr<const LiveAtStep> live = state_ ? state_->shownLive() : nullptr;
    if (!live) live = std::make_shared<const LiveAtStep>(liveAtStep(*scene_, nullptr, cursor_));
    fxmem::NodeId executing;
    if (live->where.segment >= 0 && state_) executing = state_->nodeAt(live->where);
    updateDataflowMarks(marks_, *scene_, *layouts_, *live, executing);
}

void DataflowView::selectNode(NodeRef ref) {
    selected_ = ref;
    refreshFlags();
    update();
}

void DataflowView::setHighlightedModuleName(const QString& name) {
    module_ = name;
    revealModule(name);
    refreshFlags();
    update();
}

// A module selected elsewhere (the find bar, the breakdown) inside collapsed modules: its parent is
// opened down to it, and the view centred on its box in the first graph run that has it.
void DataflowView::revealModule(const QString& name) {
    if (!layouts_ || !scene_ || name.isEmpty()) return;
    for (std::size_t s = 0; s < layouts_->size(); ++s) {
        const std::uint32_t m = scene_->findModule(s, name);
        if (m == fxmem::ModuleTree::npos || m == fxmem::ModuleTree::kRoot) continue;
        if (layouts_->piece(s).moduleBox[m] == DataflowLayouts::kNone) {
            layouts_->expand(s, layouts_->piece(s).layout->tree()[m].parent);
            ++layoutGeneration_;
            refreshMarks();
            emit layoutChanged();
        }
        const DataflowPiece& p = layouts_->piece(s);
        const std::uint32_t box = p.moduleBox[m];
        if (box == DataflowLayouts::kNone) return;
        centreOnBox(p, box);
        return;
    }
}

void DataflowView::setRecomputedNodes(const std::vector<NodeRef>& nodes) {
    markNodes(recomputed_, nodes);
    refreshFlags();
    update();
}

void DataflowView::setSearchMatches(const std::vector<NodeRef>& matches) {
    markNodes(matches_, matches);
    refreshFlags();
    update();
}

void DataflowView::setKeepBase(bool keep) {
    keepBase_ = keep;
    if (!keep) base_ = QImage();
    baseKey_ = lastKey_ = {};
}

DataflowView::BaseKey DataflowView::baseKey() const {
    return {layouts_ ? layouts_->revision() : 0,
            flagsRevision_,
            camera_.origin.x(),
            camera_.origin.y(),
            camera_.scale,
            width(),
            height(),
            palette().cacheKey(),
            font().key()};
}

void DataflowView::refreshFlags() {
    ++flagsRevision_;
    flags_.clear();
    pathEdges_.clear();
    if (!scene_ || !layouts_) return;
    for (std::size_t s = 0; s < layouts_->size(); ++s) {
        const DataflowPiece& p = layouts_->piece(s);
        const fxmem::Graph& g = p.analysis->graph();
        auto& f = flags_.emplace_back(p.drawing.boxes.size(), 0);
        auto& pe = pathEdges_.emplace_back();
        const auto mark = [&](std::uint32_t box, std::uint8_t flag) {
            if (box != DataflowLayouts::kNone) f[box] |= flag;
        };
        for (std::uint32_t v = 0; v < g.size(); ++v) {
            if (recomputed_[s][v]) mark(p.nodeBox[v], kBoxRecomputed);
            if (matches_[s][v]) mark(p.nodeBox[v], kBoxMatch);
        }
        if (hovered_.segment == static_cast<int>(s)) mark(hovered_.box, kBoxHovered);
        if (!module_.isNull())
            if (const std::uint32_t m = scene_->findModule(s, module_);
                m != fxmem::ModuleTree::npos && m < p.moduleBox.size())
                mark(p.moduleBox[m], kBoxModule);
        if (selected_.segment != static_cast<int>(s) || !selected_.node.valid()) continue;
        // The selection's path: every producer it depends on and every user of what it makes.
        std::vector<std::uint8_t> on(g.size(), 0);
        std::vector<fxmem::NodeId> todo{selected_.node};
        on[selected_.node.index()] = 1;
        while (!todo.empty()) {
            const fxmem::NodeId v = todo.back();
            todo.pop_back();
            for (fxmem::NodeId u : g.inputs(v))
                if (!on[u.index()]) on[u.index()] = 1, todo.push_back(u);
        }
        todo.push_back(selected_.node);
        while (!todo.empty()) {
            const fxmem::NodeId v = todo.back();
            todo.pop_back();
            for (fxmem::NodeId u : g.users(v))
                if (!on[u.index()]) on[u.index()] = 1, todo.push_back(u);
        }
        std::vector<std::uint64_t> pairs;
        for (std::uint32_t v = 0; v < g.size(); ++v) {
            if (!on[v]) continue;
            mark(p.nodeBox[v], kBoxPath);
            for (fxmem::NodeId u : g.users(nodeId(v)))
                if (on[u.index()] && p.nodeBox[u.index()] != p.nodeBox[v])
                    pairs.push_back(std::uint64_t{p.nodeBox[v]} << 32 | p.nodeBox[u.index()]);
        }
        std::sort(pairs.begin(), pairs.end());
        pe.assign(p.drawing.edges.size(), 0);
        for (std::size_t e = 0; e < p.drawing.edges.size(); ++e) {
            const auto& edge = p.drawing.edges[e];
            pe[e] = std::binary_search(pairs.begin(), pairs.end(), std::uint64_t{edge.from} << 32 | edge.to) ? 1 : 0;
        }
        mark(p.nodeBox[selected_.node.index()], kBoxSelected);
    }
}

DataflowView::Hit DataflowView::boxAt(QPointF pos) const {
    if (!layouts_) return {};
    const QPointF l = camera_.toLayout(pos);
    for (std::size_t s = 0; s < layouts_->size(); ++s) {
        const DataflowPiece& p = layouts_->piece(s);
        const double x = l.x() - p.x, y = l.y() - p.top;
        if (x < 0 || x > p.drawing.width || y < 0 || y > p.drawing.height) continue;
        std::vector<std::uint32_t> near;
        p.index.boxes({x, y, x, y}, near);
        // Children come after their parents: the last box holding the point is the innermost.
        for (std::size_t k = near.size(); k-- > 0;) {
            const std::uint32_t i = near[k];
            const auto& b = p.drawing.boxes[i];
            if (x >= b.x && x <= b.x + b.w && y >= b.y && y <= b.y + b.h)
                return {static_cast<int>(s), static_cast<std::uint32_t>(i)};
        }
    }
    return {};
}

QPointF DataflowView::boxCenter(int segment, std::uint32_t box) const {
    if (!layouts_ || segment < 0 || static_cast<std::size_t>(segment) >= layouts_->size()) return {};
    const DataflowPiece& p = layouts_->piece(static_cast<std::size_t>(segment));
    const auto& b = p.drawing.boxes[box];
    return camera_.toWidget(p.x + b.x + b.w / 2, p.top + b.y + b.h / 2);
}

std::pair<int, std::size_t> DataflowView::edgeAt(QPointF pos) const {
    if (!layouts_) return {-1, 0};
    for (std::size_t s = 0; s < layouts_->size(); ++s) {
        const DataflowPiece& p = layouts_->piece(s);
        for (std::size_t e = 0; e < p.drawing.edges.size(); ++e) {
            const auto& edge = p.drawing.edges[e];
            const double reach = 3 + edgeWidth(edge.bytes) * std::clamp(camera_.scale, 0.2, 2.0) / 2;
            for (std::size_t k = 1; k < edge.points.size(); ++k) {
                const QPointF a = camera_.toWidget(p.x + edge.points[k - 1].x, p.top + edge.points[k - 1].y);
                const QPointF b = camera_.toWidget(p.x + edge.points[k].x, p.top + edge.points[k].y);
                if (distanceToSegment(pos, a, b) <= reach) return {static_cast<int>(s), e};
            }
        }
    }
    return {-1, 0};
}

NodeRef DataflowView::nodeOfBox(const Hit& hit) const {
    if (!hit.valid()) return {};
    const auto& b = layouts_->piece(static_cast<std::size_t>(hit.segment)).drawing.boxes[hit.box];
    return b.kind == Kind::Node ? NodeRef{hit.segment, nodeId(b.ref)} : NodeRef{};
}

QString DataflowView::tooltipAt(QPointF pos) const {
    if (!scene_ || !layouts_) return {};
    const auto name = [&](std::size_t s, const fxmem::DataflowDrawing::Box& b) {
        const DataflowPiece& p = layouts_->piece(s);
        return b.kind == Kind::Node ? elided(p.analysis->graph().node(nodeId(b.ref)).name, 200)
                                    : scene_->moduleName(s, p.layout->tree()[b.ref].name);
    };
    if (const Hit hit = boxAt(pos); hit.valid()) {
        const auto s = static_cast<std::size_t>(hit.segment);
        const DataflowPiece& p = layouts_->piece(s);
        const auto& b = p.drawing.boxes[hit.box];
        if (b.kind == Kind::Node) {
            const fxmem::Graph& g = p.analysis->graph();
            const fxmem::NodeId n = nodeId(b.ref);
            const Segment& seg = scene_->segments[s];
            return tr("<b>%1</b><br>%2<br>allocates %3, frees %4")
                .arg(name(s, b).toHtmlEscaped(), elided(g.target(n), 200).toHtmlEscaped(),
                     formatBytes(seg.allocated[n.index()]), formatBytes(seg.freed[n.index()]));
        }
        const fxmem::ModuleTree& tree = p.layout->tree();
        QString text = tr("<b>%1</b> %2<br>allocates %3")
                           .arg(name(s, b).toHtmlEscaped(), QString::fromStdString(tree[b.ref].type).toHtmlEscaped(),
                                formatBytes(p.layout->allocated_bytes(b.ref)));
        if (marks_.segment == hit.segment && b.ref < marks_.moduleLive.size())
            text += tr(", holds %1 at the cursor").arg(formatBytes(marks_.moduleLive[b.ref]));
        text += b.expanded ? tr("<br>double-click to collapse") : tr("<br>double-click to expand");
        return text;
    }
    if (const auto [s, e] = edgeAt(pos); s >= 0) {
        const DataflowPiece& p = layouts_->piece(static_cast<std::size_t>(s));
        const auto& edge = p.drawing.edges[e];
        return tr("%1 → %2<br><b>%3</b>")
            .arg(name(static_cast<std::size_t>(s), p.drawing.boxes[edge.from]).toHtmlEscaped(),
                 name(static_cast<std::size_t>(s), p.drawing.boxes[edge.to]).toHtmlEscaped(), formatBytes(edge.bytes));
    }
    return {};
}

bool DataflowView::toggleModule(int segment, std::uint32_t module) {
    if (!layouts_ || segment < 0 || !layouts_->toggle(static_cast<std::size_t>(segment), module)) return false;
    ++layoutGeneration_;
    hovered_ = {};
    refreshMarks();
    refreshFlags();
    update();
    emit layoutChanged();
    return true;
}

void DataflowView::expandModules(const QStringList& names) {
    if (!layouts_) {
        pendingExpand_ = names;
        return;
    }
    ++layoutGeneration_;
    std::pair<std::size_t, std::uint32_t> first{0, fxmem::ModuleTree::npos};
    for (const QString& name : names)
        for (std::size_t s = 0; s < layouts_->size(); ++s)
            if (const std::uint32_t m = scene_->findModule(s, name); m != fxmem::ModuleTree::npos) {
                layouts_->expand(s, m);
                if (first.second == fxmem::ModuleTree::npos) first = {s, m};
            }
    refreshMarks();
    refreshFlags();
    // The first module opened fills the view.
    if (first.second != fxmem::ModuleTree::npos) {
        const DataflowPiece& p = layouts_->piece(first.first);
        const auto& b = p.drawing.boxes[p.moduleBox[first.second]];
        camera_.scale = std::clamp(std::min((width() - 24) / b.w, (height() - 24) / b.h), 1e-5, 1.2);
        centreOnBox(p, p.moduleBox[first.second]);
    }
    emit layoutChanged();
}

void DataflowView::fitWhenLaidOut() {
    if (layouts_)
        zoomToFit();
    else
        pendingFit_ = true;
}

void DataflowView::zoomToFit() {
    if (!layouts_ || layouts_->width() <= 0 || layouts_->height() <= 0) return;
    const double w = std::max(40, width() - 24), h = std::max(40, height() - 24);
    camera_.scale = std::clamp(std::min(w / layouts_->width(), h / layouts_->height()), 1e-5, 1.5);
    camera_.origin = {layouts_->width() / 2 - width() / 2.0 / camera_.scale,
                      layouts_->height() / 2 - height() / 2.0 / camera_.scale};
    update();
}

void DataflowView::zoomBy(double factor, QPointF at) {
    const QPointF l = camera_.toLayout(at);
    camera_.scale = std::clamp(camera_.scale * factor, 1e-5, 8.0);
    camera_.origin = l - at / camera_.scale;
    update();
}

void DataflowView::centreOnBox(const DataflowPiece& p, std::uint32_t box) {
    const auto& b = p.drawing.boxes[box];
    camera_.origin =
        QPointF(p.x + b.x + b.w / 2, p.top + b.y + b.h / 2) - QPointF(width() / 2.0, height() / 2.0) / camera_.scale;
    update();
}

void DataflowView::centerOn(NodeRef ref) {
    if (!layouts_ || !ref.valid() || static_cast<std::size_t>(ref.segment) >= layouts_->size()) return;
    const auto s = static_cast<std::size_t>(ref.segment);
    // A node inside collapsed modules: open them down to it (the find bar's next match).
    if (const std::uint32_t box = layouts_->piece(s).nodeBox[ref.node.index()];
        box != DataflowLayouts::kNone && layouts_->piece(s).drawing.boxes[box].kind == Kind::Module) {
        layouts_->expand(s, layouts_->piece(s).layout->module_of(ref.node));
        ++layoutGeneration_;
        refreshMarks();
        refreshFlags();
        emit layoutChanged();
    }
    const DataflowPiece& p = layouts_->piece(s);
    const std::uint32_t box = p.nodeBox[ref.node.index()];
    if (box == DataflowLayouts::kNone) return;
    centreOnBox(p, box);
}

void DataflowView::paintEvent(QPaintEvent* event) {
    QPainter p(this);
    // A scrolled frame's strips: the whole frame is worked out as usual (the choices that depend
    // on what is in view are the whole view's) and drawn only where exposed.
    const bool strips = event->region() != QRegion(rect());
    if (strips) p.setClipRegion(event->region());
    if (scene_) colors_.sync(*scene_, colorMode_, palette(), categories_.byTarget);
    if (scene_ && !layouts_) {
        p.fillRect(rect(), palette().color(QPalette::Base));
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("Laying out the dataflow…"));
        painted_ = 0;
        return;
    }
    p.setRenderHint(QPainter::Antialiasing, camera_.scale > 0.25);
    DataflowPaintInput in;
    in.scene = scene_.get();
    in.layouts = layouts_.get();
    in.marks = &marks_;
    in.camera = camera_;
    in.palette = palette();
    in.colors = &colors_;
    in.boxFlags = &flags_;
    in.pathEdges = &pathEdges_;
    in.labels = &labels_;
    std::uint64_t style = 0;
    in.style = &style;
    const BaseKey key = baseKey();
    reusedBase_ = keepBase_ && !strips && key == baseKey_ && !base_.isNull();
    if (reusedBase_) {
        p.drawImage(0, 0, base_);
        style = baseStyle_;
    } else if (keepBase_ && !strips && key == lastKey_) {
        // The second whole frame of the same view: keep its base. The image has the format of
        // what the window paints into, so drawing it back changes no pixel.
        const auto* device = backingStore() ? dynamic_cast<QImage*>(backingStore()->paintDevice()) : nullptr;
        base_ = QImage(size() * devicePixelRatio(), device ? device->format() : QImage::Format_RGB32);
        base_.setDevicePixelRatio(devicePixelRatio());
        QPainter b(&base_);
        b.setFont(p.font());
        b.setRenderHints(p.renderHints());
        paintDataflow(b, in, size(), DataflowLayer::Base);
        b.end();
        baseKey_ = key;
        baseStyle_ = style;
        p.drawImage(0, 0, base_);
    } else {
        paintDataflow(p, in, size(), DataflowLayer::Base);
    }
    if (!strips) lastKey_ = key;
    painted_ = paintDataflow(p, in, size(), DataflowLayer::Marks);
    paintMinimap(p);
    // The strips chose otherwise than the pixels scrolled with them (edges came into view past a
    // limit, say): the next frame paints everything again.
    if (strips && style != paintedStyle_) update();
    paintedStyle_ = style;
}

void DataflowView::panTo(QPointF origin) {
    const QPointF d = (camera_.origin - origin) * camera_.scale;
    const QRectF oldMinimap = minimapRect();
    camera_.origin = origin;
    const double dx = std::round(d.x()), dy = std::round(d.y());
    const bool wholePixels = std::abs(d.x() - dx) < 1e-6 && std::abs(d.y() - dy) < 1e-6;
    if (!layouts_ || !isVisible() || !wholePixels || std::abs(dx) >= width() || std::abs(dy) >= height()) {
        update();
        return;
    }
    if (dx == 0 && dy == 0) return;
    scroll(static_cast<int>(dx), static_cast<int>(dy));
    // The minimap stays in its corner: where it was, where its pixels were moved to, where it is.
    for (const QRectF& r : {oldMinimap, oldMinimap.translated(dx, dy), minimapRect()})
        if (!r.isEmpty()) update(r.toAlignedRect().adjusted(-1, -1, 1, 1));
}

QRectF DataflowView::minimapRect() const {
    if (!layouts_ || layouts_->width() <= 0 || layouts_->height() <= 0) return {};
    const QPointF a = camera_.toLayout({0, 0}), b = camera_.toLayout({double(width()), double(height())});
    if (a.x() <= 0 && a.y() <= 0 && b.x() >= layouts_->width() && b.y() >= layouts_->height()) return {};
    const double s = std::min(kMinimap.width() / layouts_->width(), kMinimap.height() / layouts_->height());
    const QSizeF size(std::max(8.0, layouts_->width() * s), std::max(8.0, layouts_->height() * s));
    return {QPointF(width() - size.width() - 10, height() - size.height() - 10), size};
}

void DataflowView::paintMinimap(QPainter& p) {
    const QRectF r = minimapRect();
    if (r.isEmpty()) return;
    const QSize px = r.size().toSize();
    if (minimapOf_ != layouts_.get() || minimapGeneration_ != layoutGeneration_ ||
        minimapPalette_ != palette().cacheKey() || minimap_.size() != px) {
        // One pixel or more per box: an overview of where the drawing is, not of its text.
        minimap_ = QImage(px, QImage::Format_ARGB32_Premultiplied);
        minimap_.fill(palette().color(QPalette::AlternateBase));
        QPainter mp(&minimap_);
        const double sx = px.width() / layouts_->width(), sy = px.height() / layouts_->height();
        const QColor node = palette().color(QPalette::Mid), module = palette().color(QPalette::Dark);
        for (std::size_t s = 0; s < layouts_->size(); ++s) {
            const DataflowPiece& piece = layouts_->piece(s);
            for (const auto& b : piece.drawing.boxes) {
                if (b.expanded) continue;
                mp.fillRect(QRectF((piece.x + b.x) * sx, (piece.top + b.y) * sy, std::max(1.0, b.w * sx),
                                   std::max(1.0, b.h * sy)),
                            b.kind == Kind::Node ? node : module);
            }
        }
        minimapOf_ = layouts_.get();
        minimapGeneration_ = layoutGeneration_;
        minimapPalette_ = palette().cacheKey();
    }
    p.setRenderHint(QPainter::Antialiasing, false);
    p.drawImage(r.topLeft(), minimap_);
    p.setPen(palette().color(QPalette::Mid));
    p.setBrush(Qt::NoBrush);
    p.drawRect(r);
    // The part of the drawing in view.
    const double s = r.width() / layouts_->width();
    const QPointF a = camera_.toLayout({0, 0}), b = camera_.toLayout({double(width()), double(height())});
    p.setPen(QPen(palette().color(QPalette::Highlight), 1.5));
    p.drawRect(QRectF(r.topLeft() + a * s, r.topLeft() + b * s).intersected(r.adjusted(0, 0, -1, -1)));
}

void DataflowView::centreOnMinimap(QPointF pos) {
    const QRectF r = minimapRect();
    if (r.isEmpty()) return;
    const QPointF l = (pos - r.topLeft()) / (r.width() / layouts_->width());
    camera_.origin = l - QPointF(width() / 2.0, height() / 2.0) / camera_.scale;
    update();
}

void DataflowView::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return;
    if (minimapRect().contains(event->position())) {
        minimapDrag_ = true;
        centreOnMinimap(event->position());
        return;
    }
    pressed_ = true;
    panning_ = false;
    pressPos_ = event->position().toPoint();
    pressOrigin_ = camera_.origin;
}

void DataflowView::mouseMoveEvent(QMouseEvent* event) {
    const QPointF pos = event->position();
    if (minimapDrag_) {
        centreOnMinimap(pos);
        return;
    }
    if (pressed_) {
        if (!panning_ && (pos.toPoint() - pressPos_).manhattanLength() > 3) panning_ = true;
        if (panning_) {
            panTo(pressOrigin_ - (pos - QPointF(pressPos_)) / camera_.scale);
        }
        return;
    }
    const Hit hit = boxAt(pos);
    if (hit.segment == hovered_.segment && hit.box == hovered_.box) return;
    hovered_ = hit;
    refreshFlags();
    update();
    if (const NodeRef ref = nodeOfBox(hit); ref.valid()) emit nodeHovered(ref);
}

void DataflowView::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton) minimapDrag_ = false;
    if (event->button() != Qt::LeftButton || !pressed_) return;
    pressed_ = false;
    if (std::exchange(panning_, false)) {
        update(); // a drag ends on a whole frame: scrolled strips may differ from it by a pixel
        return;
    }
    const Hit hit = boxAt(event->position());
    if (!hit.valid()) return;
    const auto& b = layouts_->piece(static_cast<std::size_t>(hit.segment)).drawing.boxes[hit.box];
    if (b.kind == Kind::Node)
        emit nodeClicked({hit.segment, nodeId(b.ref)});
    else
        emit moduleClicked(hit.segment, b.ref);
}

void DataflowView::mouseDoubleClickEvent(QMouseEvent* event) {
    const Hit hit = boxAt(event->position());
    if (!hit.valid()) return;
    const auto& b = layouts_->piece(static_cast<std::size_t>(hit.segment)).drawing.boxes[hit.box];
    if (b.kind == Kind::Module) toggleModule(hit.segment, b.ref);
}

void DataflowView::wheelEvent(QWheelEvent* event) {
    zoomBy(std::pow(1.0015, event->angleDelta().y()), event->position());
    event->accept();
}

void DataflowView::keyPressEvent(QKeyEvent* event) {
    const QPointF centre(width() / 2.0, height() / 2.0);
    switch (event->key()) {
    case Qt::Key_F:
    case Qt::Key_Home: zoomToFit(); return;
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoomBy(1.25, centre); return;
    case Qt::Key_Minus: zoomBy(0.8, centre); return;
    default: QWidget::keyPressEvent(event);
    }
}

bool DataflowView::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = tooltipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}
