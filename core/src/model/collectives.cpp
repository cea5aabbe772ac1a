#include "fxmem/collectives.h"

namespace fxmem {

std::vector<CollectivePair> find_collectives(const Graph& g, const std::vector<OpCategory>& by_target) {
    using C = OpCategory;
    std::vector<CollectivePair> out;
    for (std::size_t i = 0; i < g.size(); ++i) {
        const NodeId w(static_cast<std::int32_t>(i));
        if (node_category(g, w, by_target) != C::Wait) continue;
        for (NodeId u : g.inputs(w)) {
            NodeId at = u;
            for (int hop = 0; hop < 3 && at.valid(); ++hop) {
                const C c = node_category(g, at, by_target);
                if (c == C::Collective) {
                    out.push_back({at, w});
                    break;
                }
                // Through a view of the result (getitem of a coalesced collective's list).
                const auto in = g.inputs(at);
                at = c == C::View && !in.empty() ? in.front() : NodeId{};
            }
        }
    }
    return out;
}

} // namespace fxmem
