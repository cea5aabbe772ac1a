#include "graphview/nodecolors.h"

#include "util/colors.h"

#include <cmath>

void NodeColors::sync(const Scene& scene, NodeColorMode mode, const QPalette& pal,
                      const std::vector<std::vector<fxmem::OpCategory>>& categories) {
    categories_ = &categories;
    if (scene_ != &scene || mode_ != mode || palette_ != pal.cacheKey()) {
        colors_.clear();
        for (const Segment& seg : scene.segments) colors_.emplace_back(seg.analysis->graph().size(), 0);
        scene_ = &scene;
        mode_ = mode;
        palette_ = pal.cacheKey();
        pal_ = pal;
    }
}

QRgb NodeColors::of(NodeRef ref) {
    QRgb& c = colors_[static_cast<std::size_t>(ref.segment)][ref.node.index()];
    if (c == 0) c = compute(ref).rgba(); // node colours are opaque: 0 is never a colour
    return c;
}

QColor NodeColors::compute(NodeRef ref) const {
    const Segment& seg = scene_->segments[static_cast<std::size_t>(ref.segment)];
    if (mode_ == NodeColorMode::MemoryChange) {
        const double d = static_cast<double>(seg.allocated[ref.node.index()] - seg.freed[ref.node.index()]);
        return colors::deltaColor(d == 0 ? 0 : std::copysign(std::min(1.0, std::log2(std::abs(d) + 1) / 32), d), pal_);
    }
    const fxmem::Graph& g = seg.analysis->graph();
    if (mode_ == NodeColorMode::OpCategory)
        return colors::categoryColor(
            fxmem::node_category(g, ref.node, (*categories_)[static_cast<std::size_t>(ref.segment)]), pal_);
    return colors::opColor(g.node(ref.node).op, pal_);
}
