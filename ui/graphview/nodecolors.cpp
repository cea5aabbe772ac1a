#include "graphview/nodecolors.h"

#include "util/colors.h"

#include <algorithm>
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
        layerDepth_ = std::max<std::uint32_t>(1, scene.layerDepth());
        shade_.clear();
        for (const Segment& seg : scene.segments) {
            auto& shade = shade_.emplace_back();
            if (!seg.attribution) continue;
            const fxmem::ModuleTree& tree = seg.attribution->tree();
            shade.assign(tree.size(), -1);
            int rank = 0;
            for (std::uint32_t m = 0; m < tree.size(); ++m)
                if (tree[m].depth == layerDepth_) shade[m] = static_cast<std::int8_t>(rank++ % 2);
        }
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
    if (mode_ == NodeColorMode::Role) {
        const auto outs = g.outputs(ref.node);
        return roleNodeColor(
            outs.empty() || !seg.attribution ? fxmem::StorageRole::Unknown : seg.attribution->role(outs.front()), pal_);
    }
    if (mode_ == NodeColorMode::Module) {
        const auto& shade = shade_[static_cast<std::size_t>(ref.segment)];
        if (shade.empty()) return moduleShadeColor(-1, pal_);
        const fxmem::ModuleTree& tree = seg.attribution->tree();
        const std::uint32_t m = tree.node_module(ref.node);
        if (m == fxmem::ModuleTree::npos || tree[m].depth < layerDepth_) return moduleShadeColor(-1, pal_);
        return moduleShadeColor(shade[tree.ancestor_at_depth(m, layerDepth_)], pal_);
    }
    if (mode_ == NodeColorMode::OpCategory)
        return colors::categoryColor(
            fxmem::node_category(g, ref.node, (*categories_)[static_cast<std::size_t>(ref.segment)]), pal_);
    return colors::opColor(g.node(ref.node).op, pal_);
}
