// GraphAliasTracker on dense ids: O(N + E) where E counts, per node, the output storages of its
// inputs. Stamp arrays replace PyTorch's OrderedSets; per-storage users are a CSR built by
// counting, so graph order falls out of the scan order.
#include "fxmem/estimator.h"

#include "fxmem/error.h"

#include <limits>

namespace fxmem {

namespace {

std::uint32_t checked_size(std::size_t n, const Graph& graph) {
    if (n > std::numeric_limits<std::uint32_t>::max())
        throw Error("graph '" + graph.name + "': too many storage uses to index");
    return static_cast<std::uint32_t>(n);
}

} // namespace

AliasInfo build_alias_info(const GraphFile& file, const Graph& graph) {
    const std::size_t n_nodes = graph.size();
    const std::size_t n_storages = file.storages.size();
    AliasInfo a;
    a.fresh.resize(n_nodes);
    a.uses.resize(n_nodes);
    a.last_used.resize(n_nodes);
    a.allocator.assign(n_storages, NodeId{});
    a.last_user.assign(n_storages, NodeId{});
    a.storage_users.assign(n_storages, Range{});

    // First pass, as PyTorch: fresh allocations (first node in graph order to output a storage),
    // then uses = the inputs' output storages in input order, deduplicated with a stamp.
    std::vector<std::int32_t> stamp(n_storages, -1);
    a.fresh_pool.reserve(n_storages);
    for (std::size_t i = 0; i < n_nodes; ++i) {
        const NodeId node(static_cast<std::int32_t>(i));
        Range fresh{checked_size(a.fresh_pool.size(), graph), 0};
        for (StorageId s : graph.outputs(node)) {
            if (!a.allocator[s.index()].valid()) {
                a.allocator[s.index()] = node;
                a.fresh_pool.push_back(s);
            }
        }
        fresh.end = checked_size(a.fresh_pool.size(), graph);
        a.fresh[i] = fresh;

        Range uses{checked_size(a.uses_pool.size(), graph), 0};
        for (NodeId in : graph.inputs(node)) {
            for (StorageId s : graph.outputs(in)) {
                if (stamp[s.index()] != static_cast<std::int32_t>(i)) {
                    stamp[s.index()] = static_cast<std::int32_t>(i);
                    a.uses_pool.push_back(s);
                }
            }
        }
        uses.end = checked_size(a.uses_pool.size(), graph);
        a.uses[i] = uses;
    }

    // storage_to_uses: counting sort of the use pool by storage; scanning nodes in graph order
    // fills each storage's list in graph order (OrderedSet insertion order).
    std::vector<std::uint32_t> start(n_storages + 1, 0);
    for (StorageId s : a.uses_pool) ++start[s.index() + 1];
    for (std::size_t s = 0; s < n_storages; ++s) start[s + 1] += start[s];
    a.storage_users_pool.assign(a.uses_pool.size(), NodeId{});
    std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
    for (std::size_t i = 0; i < n_nodes; ++i)
        for (std::uint32_t k = a.uses[i].begin; k < a.uses[i].end; ++k)
            a.storage_users_pool[fill[a.uses_pool[k].index()]++] = NodeId(static_cast<std::int32_t>(i));
    for (std::size_t s = 0; s < n_storages; ++s) a.storage_users[s] = {start[s], start[s + 1]};

    // Second pass, as PyTorch: a reverse scan; the first node met that uses a storage is its last user.
    for (std::size_t i = n_nodes; i-- > 0;)
        for (std::uint32_t k = a.uses[i].begin; k < a.uses[i].end; ++k) {
            const StorageId s = a.uses_pool[k];
            if (!a.last_user[s.index()].valid()) a.last_user[s.index()] = NodeId(static_cast<std::int32_t>(i));
        }
    // node_to_storages_last_used, in the order of the node's uses (the order the reverse scan adds them).
    a.last_used_pool.reserve(n_storages);
    for (std::size_t i = 0; i < n_nodes; ++i) {
        const auto begin = checked_size(a.last_used_pool.size(), graph);
        for (std::uint32_t k = a.uses[i].begin; k < a.uses[i].end; ++k) {
            const StorageId s = a.uses_pool[k];
            if (a.last_user[s.index()].index() == i) a.last_used_pool.push_back(s);
        }
        a.last_used[i] = {begin, checked_size(a.last_used_pool.size(), graph)};
    }
    return a;
}

} // namespace fxmem
