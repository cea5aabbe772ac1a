#include "graphview/visibleitems.h"

#include "graphview/elide.h"

#include <QFontMetricsF>

#include <algorithm>
#include <cmath>

namespace {

// Wires are drawn only when there are few enough to tell apart.
constexpr std::size_t kMaxWires = 40000;

void addWires(const SegmentInput& seg, const GraphViewport& v, std::int64_t lo, std::int64_t hi, std::int32_t laneLo,
              std::int32_t laneHi, double nodeW, VisibleItems& out) {
    const fxmem::GraphLayout& L = *seg.layout;
    const fxmem::Graph& g = *seg.graph;
    const auto off = static_cast<double>(seg.offset);
    std::vector<fxmem::NodeId> crossing;
    L.wires_crossing(lo, hi, crossing);
    if (crossing.size() >= kMaxWires) return;
    // Horizontal along the producer's lane to its last user, then a short diagonal into each
    // user on another lane.
    for (fxmem::NodeId u : crossing) {
        const std::int32_t lu = L.lane(u);
        const bool live = seg.live && (*seg.live)[u.index()];
        const double yu = v.py(lu);
        if (lu >= laneLo && lu <= laneHi)
            out.wires.push_back({QLineF(v.px(off + static_cast<double>(L.step(u))), yu,
                                        v.px(off + static_cast<double>(std::min(L.wire_end(u), hi))), yu),
                                 live});
        for (fxmem::NodeId w : g.users(u)) {
            const std::int64_t sw = L.step(w);
            const std::int32_t lw = L.lane(w);
            if (sw < lo || sw > hi || lw == lu) continue;
            if ((lu < laneLo && lw < laneLo) || (lu > laneHi && lw > laneHi)) continue;
            const double xw = v.px(off + static_cast<double>(sw));
            out.wires.push_back({QLineF(xw - nodeW * 1.1, yu, xw - nodeW * 0.5, v.py(lw)), live});
        }
    }
}

} // namespace

VisibleItems prepareVisibleItems(const PrepareInput& in) {
    VisibleItems out;
    const GraphViewport& v = in.view;
    const double sx = v.pxPerStep();
    out.nodeW = std::max(1.0, 1.6 * sx);
    out.nodeH = std::max(1.0, v.laneHeight * 0.7);
    out.dotRows = std::clamp(static_cast<int>(out.nodeH), 1, 3);
    const auto laneLo = static_cast<std::int32_t>(std::floor(v.top)) - 1;
    const auto laneHi = static_cast<std::int32_t>(std::ceil(v.top + v.visibleLanes())) + 1;
    const int w = std::max(v.width, 0), h = std::max(v.height, 0);
    std::vector<std::int32_t> dotAt;  // per pixel: 1 + index into out.dots, 0 when empty

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
        if (!dense && sx >= 0.6) addWires(seg, v, lo, hi, laneLo, laneHi, out.nodeW, out);

        if (dense) {
            // One dot per pixel: a graph with thousands of lanes becomes an overview.
            if (dotAt.empty()) dotAt.assign(static_cast<std::size_t>(w) * static_cast<std::size_t>(h), 0);
            for (fxmem::NodeId n : nodes) {
                const std::int32_t lane = L.lane(n);
                if (lane < laneLo || lane > laneHi) continue;
                const int x = static_cast<int>(v.px(off + static_cast<double>(L.step(n))));
                const int y = static_cast<int>(v.py(lane));
                if (x < 0 || x >= w || y < 0 || y >= h) continue;
                const bool live = seg.live && (*seg.live)[n.index()];
                std::int32_t& at = dotAt[static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x)];
                const NodeRef ref{static_cast<int>(s), n};
                if (at == 0) {
                    out.dots.push_back({x, y, ref, live});
                    at = static_cast<std::int32_t>(out.dots.size());
                } else if (live && !out.dots[static_cast<std::size_t>(at - 1)].live) {
                    out.dots[static_cast<std::size_t>(at - 1)].ref = ref;
                    out.dots[static_cast<std::size_t>(at - 1)].live = true;
                }
            }
            continue;
        }
        for (fxmem::NodeId n : nodes) {
            const std::int32_t lane = L.lane(n);
            if (lane < laneLo || lane > laneHi) continue;
            const NodeRef ref{static_cast<int>(s), n};
            const double cx = v.px(off + static_cast<double>(L.step(n))), cy = v.py(lane);
            VisibleItems::Box box{QRectF(cx - out.nodeW / 2, cy - out.nodeH / 2, out.nodeW, out.nodeH), ref, 0};
            if (seg.live && (*seg.live)[n.index()]) box.flags |= VisibleItems::Live;
            if (seg.match && (*seg.match)[n.index()]) box.flags |= VisibleItems::Match;
            if (ref == in.selected) box.flags |= VisibleItems::Selected;
            if (ref == in.hovered) box.flags |= VisibleItems::Hovered;
            out.boxes.push_back(box);
            if (labelled) {
                const QRectF r = box.rect.adjusted(3, 0, -2, 0);
                out.labels.push_back({r, elidedName(seg.graph->node(n).name, fm, r.width()), VisibleItems::LabelKind::Node});
            }
        }
    }

    // Graph names of a joined pair, each kept inside its own part of the axis so that they
    // never overprint when zoomed.
    const QFontMetricsF headFm(in.font);
    for (std::size_t k = 0; k < out.segmentMarks.size(); ++k) {
        const double a = std::max(out.segmentMarks[k].x, 0.0) + 4;
        const double b = (k + 1 < out.segmentMarks.size() ? std::min(out.segmentMarks[k + 1].x, double(w)) : double(w)) - 4;
        if (b - a < 24) continue;
        const SegmentInput& seg = in.segments[static_cast<std::size_t>(out.segmentMarks[k].segment)];
        out.labels.push_back({QRectF(a, 0, b - a, 16), elidedName(seg.graph->name, headFm, b - a), VisibleItems::LabelKind::Segment});
    }
    return out;
}
