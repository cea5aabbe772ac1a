#include "graphview/visibleitems.h"

#include "graphview/elide.h"

#include <fxmem/op_category.h>

#include <QFontMetricsF>

#include <algorithm>
#include <cmath>

namespace {

// Wires are drawn only when there are few enough to tell apart.
constexpr std::size_t kMaxWires = 40000;

bool hiddenNode(const SegmentInput& seg, fxmem::NodeId n) { return seg.groups && seg.groups->hidden(n); }

void addWires(const SegmentInput& seg, int segment, const GraphViewport& v, std::int64_t lo, std::int64_t hi,
              std::int32_t laneLo, std::int32_t laneHi, double nodeW, VisibleItems& out) {
    const fxmem::GraphLayout& L = *seg.layout;
    const fxmem::Graph& g = *seg.graph;
    const auto off = static_cast<double>(seg.offset);
    std::vector<fxmem::NodeId> crossing;
    L.wires_crossing(lo, hi, crossing);
    if (crossing.size() >= kMaxWires) return;
    // Horizontal along the producer's lane to its last user, then a short diagonal into each
    // user on another lane.
    // A collapsed module's box covers its inner wires; wires into hidden nodes are dropped and a
    // hidden node's wire is kept only when it leads to a visible user.
    for (fxmem::NodeId u : crossing) {
        const std::int32_t lu = L.lane(u);
        const bool live = seg.live && (*seg.live)[u.index()];
        const NodeRef producer{segment, u};
        const double yu = v.py(lu);
        bool leaves = !hiddenNode(seg, u);
        if (!leaves)
            for (fxmem::NodeId w : g.users(u)) leaves |= !hiddenNode(seg, w);
        if (!leaves) continue;
        if (lu >= laneLo && lu <= laneHi)
            out.wires.push_back({QLineF(v.px(off + static_cast<double>(L.step(u))), yu,
                                        v.px(off + static_cast<double>(std::min(L.wire_end(u), hi))), yu),
                                 live, producer});
        for (fxmem::NodeId w : g.users(u)) {
            const std::int64_t sw = L.step(w);
            const std::int32_t lw = L.lane(w);
            if (sw < lo || sw > hi || lw == lu || hiddenNode(seg, w)) continue;
            if ((lu < laneLo && lw < laneLo) || (lu > laneHi && lw > laneHi)) continue;
            const double xw = v.px(off + static_cast<double>(sw));
            out.wires.push_back({QLineF(xw - nodeW * 1.1, yu, xw - nodeW * 0.5, v.py(lw)), live, producer});
        }
    }
}

// "name · op" when it fits; else the name elided before the op; else the name alone, elided.
// The op is left out when the name already starts with it.
QString nodeLabel(const fxmem::Graph& g, fxmem::NodeId n, const QFontMetricsF& fm, double width) {
    const fxmem::Node& node = g.node(n);
    if (node.op != fxmem::OpKind::CallFunction && node.op != fxmem::OpKind::CallMethod)
        return elidedName(node.name, fm, width);
    // FX names most nodes after their op ("mul_12", "view_3"): the op adds nothing then.
    const std::string_view shortOp = fxmem::short_op(g.target(n));
    if (std::string_view(node.name).starts_with(shortOp)) return elidedName(node.name, fm, width);
    const QString op = QStringLiteral(" \u00b7 ") + elided(shortOp, 40);
    const double opWidth = fm.horizontalAdvance(op);
    if (width - opWidth >= fm.averageCharWidth() * 4) return elidedName(node.name, fm, width - opWidth) + op;
    return elidedName(node.name, fm, width);
}

// The selected node's inputs and users, wherever they are (the painter clips).
void addEdges(const PrepareInput& in, std::size_t s, VisibleItems& out) {
    if (in.selected.segment != static_cast<int>(s) || !in.selected.node.valid()) return;
    const SegmentInput& seg = in.segments[s];
    const fxmem::GraphLayout& L = *seg.layout;
    const GraphViewport& v = in.view;
    const auto off = static_cast<double>(seg.offset);
    const fxmem::NodeId sel = in.selected.node;
    auto at = [&](fxmem::NodeId n) { return QPointF(v.px(off + static_cast<double>(L.step(n))), v.py(L.lane(n))); };
    for (fxmem::NodeId u : seg.graph->inputs(sel)) out.edges.push_back({at(u), at(sel), false});
    for (fxmem::NodeId u : seg.graph->users(sel)) out.edges.push_back({at(sel), at(u), true});
}

bool inModule(const SegmentInput& seg, fxmem::NodeId n) {
    return seg.groups && seg.highlight != ModuleGroups::npos &&
           seg.groups->tree().contains(seg.highlight, seg.groups->tree().node_module(n));
}

void addModuleItems(const PrepareInput& in, std::size_t s, std::int64_t lo, std::int64_t hi, const VisibleItems& sizes,
                    VisibleItems& out) {
    const SegmentInput& seg = in.segments[s];
    const ModuleGroups& mg = *seg.groups;
    const fxmem::ModuleTree& tree = mg.tree();
    const GraphViewport& v = in.view;
    const auto off = static_cast<double>(seg.offset);
    auto lit = [&](std::uint32_t m) { return seg.highlight != ModuleGroups::npos && tree.contains(seg.highlight, m); };
    // A run covers its first to its last node, half a step either side.
    auto xs = [&](const ModuleGroups::Run& r) {
        return std::pair{v.px(off + static_cast<double>(r.stepLo) - 0.5),
                         v.px(off + static_cast<double>(r.stepHi) + 0.5)};
    };
    if (in.stripeDepth > 0)
        for (const ModuleGroups::Run& r : mg.runsIn(in.stripeDepth, lo, hi)) {
            const auto [a, b] = xs(r);
            out.stripes.push_back({a, b, r.ordinal, lit(r.module)});
        }
    for (std::uint32_t d = 1; d <= std::min(in.bandRows, mg.depths()); ++d) {
        const double y = in.bandTop + (d - 1) * PrepareInput::kBandRow;
        for (const ModuleGroups::Run& r : mg.runsIn(d, lo, hi)) {
            const auto [a, b] = xs(r);
            if (b - a < 1 && !out.bands.empty() && out.bands.back().depth == d &&
                out.bands.back().rect.right() >= a - 1)
                continue;
            out.bands.push_back({QRectF(a, y, std::max(1.0, b - a), PrepareInput::kBandRow - 2), static_cast<int>(s),
                                 r.module, d, r.ordinal, mg.collapsed(r.module), lit(r.module)});
        }
    }
    if (!mg.anyCollapsed()) return;
    const std::size_t first = out.groups.size();
    for (std::uint32_t d = 1; d <= mg.depths(); ++d)
        for (const ModuleGroups::Run& r : mg.runsIn(d, lo, hi)) {
            if (mg.collapsedRoot(r.module) != r.module) continue;
            const double x0 = v.px(off + static_cast<double>(r.stepLo)) - sizes.nodeW / 2;
            const double x1 = v.px(off + static_cast<double>(r.stepHi)) + sizes.nodeW / 2;
            const double y0 = v.py(r.laneLo) - sizes.nodeH / 2, y1 = v.py(r.laneHi) + sizes.nodeH / 2;
            // What the box hides that the user is looking for: live storages, matches, the selection.
            std::uint8_t flags = 0;
            for (fxmem::NodeId n : seg.layout->nodes_in(r.stepLo, r.stepHi)) {
                if (mg.collapsedRoot(tree.node_module(n)) != r.module) continue;
                if (seg.live && (*seg.live)[n.index()]) flags |= VisibleItems::Live;
                if (seg.match && (*seg.match)[n.index()]) flags |= VisibleItems::Match;
                if (in.selected == NodeRef{static_cast<int>(s), n}) flags |= VisibleItems::Selected;
            }
            out.groups.push_back(
                {QRectF(x0, y0, x1 - x0, y1 - y0), static_cast<int>(s), r.module, r.nodes, lit(r.module), flags});
        }
    // In step order, whatever their depth.
    std::sort(
        out.groups.begin() + static_cast<std::ptrdiff_t>(first), out.groups.end(),
        [](const VisibleItems::GroupBox& a, const VisibleItems::GroupBox& b) { return a.rect.left() < b.rect.left(); });
}

} // namespace

QString moduleCaption(const fxmem::ModuleTree& tree, std::uint32_t m, const QFontMetricsF& fm, double width) {
    const fxmem::ModuleTree::Module& mod = tree[m];
    const QString type = mod.type.empty() ? QString() : QStringLiteral("  ") + elided(mod.type, 60);
    const QString full = elided(mod.name, 200);
    if (fm.horizontalAdvance(full + type) <= width) return full + type;
    if (fm.horizontalAdvance(full) <= width) return full;
    // The last component tells siblings apart ("0", "attn").
    const auto dot = mod.name.rfind('.');
    const std::string_view last =
        dot == std::string::npos ? std::string_view(mod.name) : std::string_view(mod.name).substr(dot + 1);
    return elidedName(last, fm, width);
}

QFont bandFontOf(const QFont& font) {
    QFont f = font;
    f.setPointSizeF(std::max(6.5, font.pointSizeF() * 0.85));
    return f;
}

VisibleItems prepareVisibleItems(const PrepareInput& in) {
    VisibleItems out;
    const GraphViewport& v = in.view;
    const double sx = v.pxPerStep();
    out.nodeW = std::max(1.0, 1.6 * sx);
    out.nodeH = std::max(1.0, v.laneHeight * 0.7);
    out.dotRows = std::clamp(static_cast<int>(out.nodeH), 2, 3); // 2 rows at least: visible on any screen
    const auto laneLo = static_cast<std::int32_t>(std::floor(v.top)) - 1;
    const auto laneHi = static_cast<std::int32_t>(std::ceil(v.top + v.visibleLanes())) + 1;
    const int w = std::max(v.width, 0), h = std::max(v.height, 0);
    std::vector<std::int32_t> dotAt; // per pixel: 1 + index into out.dots, 0 when empty

    QFont small = in.font;
    small.setPointSizeF(std::max(6.5, std::min(in.font.pointSizeF(), out.nodeH * 0.62)));
    const QFontMetricsF fm(small);
    const bool labelled = out.nodeW >= 36 && out.nodeH >= 9;

    for (std::size_t s = 0; s < in.segments.size(); ++s) {
        const SegmentInput& seg = in.segments[s];
        const fxmem::GraphLayout& L = *seg.layout;
        const auto off = static_cast<double>(seg.offset);
        if (in.segments.size() > 1) out.segmentMarks.push_back({v.px(off - 0.5), static_cast<int>(s)});
        const auto lo = static_cast<std::int64_t>(std::floor(v.x0 - off)) - 2;
        const auto hi = static_cast<std::int64_t>(std::ceil(v.x1 - off)) + 2;
        const auto nodes = L.nodes_in(lo, hi);
        const bool dense = sx < 1.2 || static_cast<double>(nodes.size()) > 3.0 * w;
        if (seg.groups) addModuleItems(in, s, lo, hi, out, out);
        if (seg.collectives) {
            // A bar along the start's lane (its result's wire) up to the wait, at least 3 px thick.
            const double thick = std::clamp(out.nodeH * 0.55, 3.0, 12.0);
            for (const fxmem::CollectivePair& c : *seg.collectives) {
                const std::int64_t a = L.step(c.start), b = L.step(c.wait);
                const std::int32_t lane = L.lane(c.start);
                if (b < lo || a > hi || lane < laneLo || lane > laneHi) continue;
                const double x0 = v.px(off + static_cast<double>(a)), x1 = v.px(off + static_cast<double>(b));
                if (x1 < 0 || x0 > w) continue;
                out.spans.push_back({QRectF(x0, v.py(lane) - thick / 2, std::max(x1 - x0, 2.0), thick),
                                     {static_cast<int>(s), c.start},
                                     {static_cast<int>(s), c.wait}});
            }
        }
        addEdges(in, s, out);
        if (!dense && sx >= 0.6) addWires(seg, static_cast<int>(s), v, lo, hi, laneLo, laneHi, out.nodeW, out);

        if (dense) {
            // One dot per pixel: a graph with thousands of lanes becomes an overview.
            if (dotAt.empty()) dotAt.assign(static_cast<std::size_t>(w) * static_cast<std::size_t>(h), 0);
            for (fxmem::NodeId n : nodes) {
                const std::int32_t lane = L.lane(n);
                if (lane < laneLo || lane > laneHi || hiddenNode(seg, n)) continue;
                const int x = static_cast<int>(v.px(off + static_cast<double>(L.step(n))));
                const int y = static_cast<int>(v.py(lane));
                if (x < 0 || x >= w || y < 0 || y >= h) continue;
                const bool live = seg.live && (*seg.live)[n.index()];
                std::int32_t& at =
                    dotAt[static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x)];
                const NodeRef ref{static_cast<int>(s), n};
                out.dotNodes.push_back(
                    {static_cast<std::uint32_t>(at == 0 ? out.dots.size() : static_cast<std::size_t>(at - 1)), ref,
                     inModule(seg, n)});
                if (at == 0) {
                    out.dots.push_back({x, y, ref, live, inModule(seg, n)});
                    at = static_cast<std::int32_t>(out.dots.size());
                } else if (live && !out.dots[static_cast<std::size_t>(at - 1)].live) {
                    out.dots[static_cast<std::size_t>(at - 1)].ref = ref;
                    out.dots[static_cast<std::size_t>(at - 1)].live = true;
                    out.dots[static_cast<std::size_t>(at - 1)].highlight = inModule(seg, n);
                }
            }
            continue;
        }
        for (fxmem::NodeId n : nodes) {
            const std::int32_t lane = L.lane(n);
            if (lane < laneLo || lane > laneHi || hiddenNode(seg, n)) continue;
            const NodeRef ref{static_cast<int>(s), n};
            const double cx = v.px(off + static_cast<double>(L.step(n))), cy = v.py(lane);
            VisibleItems::Box box{QRectF(cx - out.nodeW / 2, cy - out.nodeH / 2, out.nodeW, out.nodeH), ref, 0};
            if (seg.live && (*seg.live)[n.index()]) box.flags |= VisibleItems::Live;
            if (seg.match && (*seg.match)[n.index()]) box.flags |= VisibleItems::Match;
            if (seg.recomputed && (*seg.recomputed)[n.index()]) box.flags |= VisibleItems::Recomputed;
            if (ref == in.selected) box.flags |= VisibleItems::Selected;
            if (ref == in.hovered) box.flags |= VisibleItems::Hovered;
            if (inModule(seg, n)) box.flags |= VisibleItems::Highlight;
            out.boxes.push_back(box);
            if (labelled) {
                const QRectF r = box.rect.adjusted(3, 0, -2, 0);
                out.labels.push_back({r, nodeLabel(*seg.graph, n, fm, r.width()), VisibleItems::LabelKind::Node});
            }
        }
    }

    // Graph names of a joined pair, each kept inside its own part of the axis so that they
    // never overprint when zoomed.
    const QFontMetricsF headFm(in.font);
    for (std::size_t k = 0; k < out.segmentMarks.size(); ++k) {
        const double a = std::max(out.segmentMarks[k].x, 0.0) + 4;
        const double b =
            (k + 1 < out.segmentMarks.size() ? std::min(out.segmentMarks[k + 1].x, double(w)) : double(w)) - 4;
        if (b - a < 24) continue;
        const SegmentInput& seg = in.segments[static_cast<std::size_t>(out.segmentMarks[k].segment)];
        out.labels.push_back(
            {QRectF(a, 0, b - a, 16),
             elidedName(seg.name.empty() ? std::string_view(seg.graph->name) : seg.name, headFm, b - a),
             VisibleItems::LabelKind::Segment});
    }
    const QFontMetricsF bandFm(bandFontOf(in.font));
    for (const VisibleItems::Span& sp : out.spans) {
        // "all_gather_into_tensor in flight" beside the bar, when there is room for it.
        const QRectF r = sp.rect.intersected(QRectF(0, 0, w, h)).adjusted(out.nodeW / 2 + 3, 0, -out.nodeW / 2 - 3, 0);
        if (r.width() < 60 || out.nodeH < 9) continue;
        const SegmentInput& seg = in.segments[static_cast<std::size_t>(sp.start.segment)];
        const QString text =
            elided(fxmem::short_op(seg.graph->target(sp.start.node)), 60) + QStringLiteral(" in flight");
        const QRectF line(r.left(), r.top() - bandFm.height() - 1, r.width(), bandFm.height());
        out.labels.push_back(
            {line, bandFm.elidedText(text, Qt::ElideRight, line.width()), VisibleItems::LabelKind::Span});
    }
    for (const VisibleItems::Band& b : out.bands) {
        if (b.rect.width() < 24) continue;
        const QRectF r = b.rect.intersected(QRectF(0, 0, w, h)).adjusted(3, 0, -2, 0);
        if (r.width() < 16) continue;
        const auto& tree = in.segments[static_cast<std::size_t>(b.segment)].groups->tree();
        const QString mark = b.collapsed ? QStringLiteral("\u25b8 ") : QString();
        out.labels.push_back({r,
                              mark + moduleCaption(tree, b.module, bandFm, r.width() - bandFm.horizontalAdvance(mark)),
                              VisibleItems::LabelKind::Band});
    }
    for (const VisibleItems::GroupBox& gb : out.groups) {
        const QRectF r = gb.rect.intersected(QRectF(0, 0, w, h)).adjusted(4, 1, -3, 0);
        if (r.width() < 24 || r.height() < 8) continue;
        const auto& tree = in.segments[static_cast<std::size_t>(gb.segment)].groups->tree();
        const QString count = QStringLiteral("  (%1)").arg(gb.nodes);
        const QRectF line(r.left(), r.top(), r.width(), std::min(r.height(), bandFm.height() + 2));
        out.labels.push_back(
            {line, moduleCaption(tree, gb.module, bandFm, line.width() - bandFm.horizontalAdvance(count)) + count,
             VisibleItems::LabelKind::Group});
    }
    return out;
}

bool refreshMarks(VisibleItems& items, const PrepareInput& in) {
    if (!items.groups.empty()) return false;
    items.edges.clear();
    for (std::size_t s = 0; s < in.segments.size(); ++s) addEdges(in, s, items);
    auto live = [&](const NodeRef& r) {
        const std::vector<std::uint8_t>* marks = in.segments[static_cast<std::size_t>(r.segment)].live;
        return marks && (*marks)[r.node.index()] != 0;
    };
    for (VisibleItems::Wire& w : items.wires) w.live = live(w.producer);
    for (VisibleItems::Box& b : items.boxes) {
        std::uint8_t f = b.flags & ~(VisibleItems::Live | VisibleItems::Selected | VisibleItems::Hovered);
        if (live(b.ref)) f |= VisibleItems::Live;
        if (b.ref == in.selected) f |= VisibleItems::Selected;
        if (b.ref == in.hovered) f |= VisibleItems::Hovered;
        b.flags = f;
    }
    // The dots: the same choice as prepareVisibleItems, replayed in the same order.
    std::vector<std::uint8_t> placed(items.dots.size(), 0);
    for (const VisibleItems::DotNode& c : items.dotNodes) {
        VisibleItems::Dot& d = items.dots[c.dot];
        const bool isLive = live(c.ref);
        if (!placed[c.dot]) {
            placed[c.dot] = 1;
            d.ref = c.ref;
            d.live = isLive;
            d.highlight = c.highlight;
        } else if (isLive && !d.live) {
            d.ref = c.ref;
            d.live = true;
            d.highlight = c.highlight;
        }
    }
    return true;
}
