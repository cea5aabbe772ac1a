// build_memory_profile: one pass over the nodes, O(N + fresh + last uses).
#include "fxmem/estimator.h"

#include "estimator_checks.h"

namespace fxmem {

std::vector<std::int64_t> build_memory_profile(const GraphFile& file, const Graph& graph, const AliasInfo& alias,
                                               const NodeMask& releasable, const StorageMask& counted) {
    detail::check_inputs(file, graph, alias, releasable, counted, "build_memory_profile");
    const std::size_t n = graph.size();
    std::int64_t current = 0;
    // Placeholders and get_attr nodes are allocated up front, wherever they stand in the graph.
    for (std::size_t i = 0; i < n; ++i) {
        const OpKind op = graph.nodes[i].op;
        if (op != OpKind::Placeholder && op != OpKind::GetAttr) continue;
        for (StorageId s : alias.fresh_of(NodeId(static_cast<std::int32_t>(i))))
            if (counted[s.index()]) current += file.nbytes(s);
    }
    std::vector<std::int64_t> profile;
    profile.reserve(1 + 2 * n);
    profile.push_back(current);
    for (std::size_t i = 0; i < n; ++i) {
        if (!detail::is_profile_op(graph.nodes[i].op)) continue;
        const NodeId node(static_cast<std::int32_t>(i));
        for (StorageId s : alias.fresh_of(node))
            if (counted[s.index()]) current += file.nbytes(s);
        profile.push_back(current);
        for (StorageId s : alias.last_used_at(node))
            if (releasable[alias.allocator[s.index()].index()] && counted[s.index()]) current -= file.nbytes(s);
        profile.push_back(current);
    }
    return profile;
}

} // namespace fxmem
