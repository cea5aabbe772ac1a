#include "graphview/navigation.h"

#include <algorithm>
#include <cmath>
#include <limits>

GraphViewport GraphNavigation::viewport(const Extent& e) const {
    GraphViewport v;
    v.x0 = x0;
    v.x1 = x1;
    v.left = left;
    v.right = right;
    v.top = top;
    v.laneHeight = laneHeight;
    v.topPad = e.topPad;
    v.width = e.width;
    v.height = e.height;
    return v;
}

double GraphNavigation::fitLaneHeight(const Extent& e) const {
    return std::max(1e-3, e.height - e.topPad - 6) / e.lanes;
}

void GraphNavigation::reset(std::size_t profileSteps, const Extent& e) {
    fitted = true;
    laneHeight = std::min(24.0, fitLaneHeight(e));
    top = 0;
    x0 = -0.5;
    x1 = std::max<double>(static_cast<double>(profileSteps), 2.0) - 0.5;
}

void GraphNavigation::refit(const Extent& e) {
    if (fitted) laneHeight = std::min(24.0, fitLaneHeight(e));
}

void GraphNavigation::clampTop(const Extent& e) {
    top = std::clamp(top, 0.0, std::max(0.0, e.lanes - visibleLanes(e) + 0.5));
}

void GraphNavigation::zoomTime(double factor, double x, const Extent& e) {
    const double at = viewport(e).stepAt(x);
    x0 = at - (at - x0) * factor;
    x1 = at + (x1 - at) * factor;
}

void GraphNavigation::zoomLanes(double factor, double y, const Extent& e) {
    const double lane = viewport(e).laneAt(y);
    laneHeight = std::clamp(laneHeight * factor, std::min(2.0, fitLaneHeight(e)), 60.0);
    fitted = laneHeight <= fitLaneHeight(e);
    top = lane + 0.5 - (y - e.topPad) / laneHeight;
    clampTop(e);
}

void GraphNavigation::scrollLanes(double notches, const Extent& e) {
    top += notches * std::max(1.0, visibleLanes(e) / 6);
    clampTop(e);
}

bool GraphNavigation::centerStep(double step) {
    const double width = x1 - x0;
    if (step >= x0 + width * 0.05 && step <= x1 - width * 0.05) return false;
    x0 = step - width / 2;
    x1 = step + width / 2;
    return true;
}

void GraphNavigation::centerLane(double lane, const Extent& e) {
    const double visible = visibleLanes(e);
    if (lane < top || lane > top + visible - 1) top = lane - visible / 2;
}

bool GraphNavigation::followNodes(std::span<const HitSegment> segments, const Extent& e) {
    const double visible = visibleLanes(e);
    std::int32_t topmost = std::numeric_limits<std::int32_t>::max();
    for (const HitSegment& seg : segments) {
        const fxmem::GraphLayout& L = *seg.layout;
        const auto off = static_cast<double>(seg.offset);
        const auto nodes =
            L.nodes_in(static_cast<std::int64_t>(std::ceil(x0 - off)), static_cast<std::int64_t>(std::floor(x1 - off)));
        if (nodes.size() > 50000) return false; // an overview: leave the scroll position alone
        for (fxmem::NodeId n : nodes) {
            if (seg.groups && seg.groups->hidden(n)) continue; // inside a collapsed module's box
            const std::int32_t lane = L.lane(n);
            if (lane >= top - 0.5 && lane <= top + visible - 1) return false; // something is in view
            topmost = std::min(topmost, lane);
        }
    }
    if (topmost == std::numeric_limits<std::int32_t>::max()) return false;
    top = std::max(0.0, topmost - 1.0);
    return true;
}
