#include "graphview/collectives.h"

std::vector<CollectivePair> findCollectives(const fxmem::Graph& g, const std::vector<fxmem::OpCategory>& byTarget) {
    using C = fxmem::OpCategory;
    std::vector<CollectivePair> out;
    for (std::size_t i = 0; i < g.size(); ++i) {
        const fxmem::NodeId w(static_cast<std::int32_t>(i));
        if (fxmem::node_category(g, w, byTarget) != C::Wait) continue;
        for (fxmem::NodeId u : g.inputs(w)) {
            fxmem::NodeId at = u;
            for (int hop = 0; hop < 3 && at.valid(); ++hop) {
                const C c = fxmem::node_category(g, at, byTarget);
                if (c == C::Collective) {
                    out.push_back({at, w});
                    break;
                }
                // Through a view of the result (getitem of a coalesced collective's list).
                const auto in = g.inputs(at);
                at = c == C::View && !in.empty() ? in.front() : fxmem::NodeId{};
            }
        }
    }
    return out;
}
