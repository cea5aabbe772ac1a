#include "graphview/scenecategories.h"

void SceneCategories::reset(const Scene* scene) {
    byTarget.clear();
    collectives.clear();
    legend = {};
    if (!scene) return;
    for (const Segment& seg : scene->segments) {
        const fxmem::Graph& g = seg.analysis->graph();
        byTarget.push_back(fxmem::target_categories(g));
        collectives.push_back(fxmem::find_collectives(g, byTarget.back()));
        for (std::size_t i = 0; i < g.size(); ++i) {
            const fxmem::NodeId n(static_cast<std::int32_t>(i));
            legend.categories.set(static_cast<std::size_t>(fxmem::node_category(g, n, byTarget.back())));
            legend.kinds.set(static_cast<std::size_t>(g.nodes[i].op));
            const auto outs = g.outputs(n);
            legend.roles.set(static_cast<std::size_t>(
                outs.empty() || !seg.attribution ? fxmem::StorageRole::Unknown : seg.attribution->role(outs.front())));
        }
    }
}
