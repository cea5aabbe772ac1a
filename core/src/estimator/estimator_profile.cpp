// build_memory_profile: one pass over the nodes, O(N + fresh + last uses).
#include "fxmem/estimator.h"

#include "estimator_checks.h"

namespace fxmem {

std::vector<std::int64_t> build_memory_profile(const GraphFile& file, const Graph& graph, const AliasInfo& alias,
                                               const NodeMask& releasable, const StorageMask& counted) {
    detail::check_inputs(file, graph, alias, releasable, counted, "build_memory_profile");
    const std::size_t n = graph.size();
    // What a storage's allocation adds and what its last use frees (0 when not counted, or when
    // the allocator is not releasable), read where the event happens: nothing here is sized by
    // the file's storage table, so a graph costs its own size.
    const auto added = [&](StorageId s) { return counted[s.index()] ? file.storages[s.index()].nbytes : 0; };
    const auto freed = [&](StorageId s) {
        const NodeId a = alias.allocator[s.index()];
        return a.valid() && releasable[a.index()] ? added(s) : 0;
    };
    // Placeholders and get_attr nodes are allocated up front, wherever they stand in the graph.
    // One pass over the nodes: points are kept relative to that start, which is added at the end.
    std::int64_t start = 0, current = 0;
    std::vector<std::int64_t> profile(1, 0);
    profile.reserve(1 + 2 * n);
    for (std::size_t i = 0; i < n; ++i) {
        const OpKind op = graph.nodes[i].op;
        const NodeId node(static_cast<std::int32_t>(i));
        if (op == OpKind::Placeholder || op == OpKind::GetAttr) {
            for (StorageId s : alias.fresh_of(node)) start += added(s);
            continue;
        }
        if (op == OpKind::Output) continue;
        for (StorageId s : alias.fresh_of(node)) current += added(s);
        profile.push_back(current);
        for (StorageId s : alias.last_used_at(node)) current -= freed(s);
        profile.push_back(current);
    }
    for (std::int64_t& v : profile) v += start;
    return profile;
}

} // namespace fxmem
