#include "graphview/hittest.h"

#include <algorithm>
#include <cmath>

NodeRef hitNode(std::span<const HitSegment> segments, const GraphViewport& view, QPoint pos) {
    const double step = view.stepAt(pos.x());
    const double lane = view.laneAt(pos.y());
    const double pxPerStep = view.pxPerStep();
    const double halfWidthSteps = std::max(0.8, 3.0 / pxPerStep);
    // Within 3 pixels, or the pointer's own lane when lanes are taller: in an overview many
    // lanes share a pixel row, so the nearest node on screen wins.
    const double laneReach = std::max(0.5, 3.0 / view.laneHeight);
    NodeRef best;
    double bestDist = 1e300;
    for (std::size_t s = 0; s < segments.size(); ++s) {
        const fxmem::GraphLayout& L = *segments[s].layout;
        const ModuleGroups* groups = segments[s].groups;
        const double local = step - static_cast<double>(segments[s].offset);
        for (fxmem::NodeId n : L.nodes_in(static_cast<std::int64_t>(std::floor(local - halfWidthSteps)),
                                          static_cast<std::int64_t>(std::ceil(local + halfWidthSteps)))) {
            if (groups && groups->hidden(n)) continue;
            const double dl = std::abs(static_cast<double>(L.lane(n)) - lane);
            const double ds = std::abs(static_cast<double>(L.step(n)) - local);
            if (dl > laneReach || ds > halfWidthSteps) continue;
            const double dx = ds * pxPerStep, dy = dl * view.laneHeight;
            const double d = dx * dx + dy * dy;
            if (d < bestDist) {
                bestDist = d;
                best = {static_cast<int>(s), n};
            }
        }
    }
    return best;
}

std::pair<int, std::uint32_t> hitModule(const VisibleItems& items, QPoint pos) {
    for (const VisibleItems::Band& b : items.bands)
        if (b.rect.adjusted(0, 0, 0, 1).contains(pos)) return {b.segment, b.module};
    for (const VisibleItems::GroupBox& g : items.groups)
        if (g.rect.contains(pos)) return {g.segment, g.module};
    return {-1, ModuleGroups::npos};
}

const VisibleItems::Span* hitSpan(const VisibleItems& items, QPoint pos) {
    for (const VisibleItems::Span& sp : items.spans)
        if (sp.rect.adjusted(0, -2, 0, 2).contains(pos)) return &sp;
    return nullptr;
}
