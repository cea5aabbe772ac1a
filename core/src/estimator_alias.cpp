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

    // The cost on big graphs is cache misses, so each pass touches one random place per use:
    // a storage's dedup stamp sits next to its user count, and its fill cursor next to its end.
    struct PerStorage {
        std::int32_t stamp = -1;   // last node that added this storage to its uses
        std::uint32_t users = 0;   // number of nodes using it
    };
    std::vector<PerStorage> acc(n_storages);

    // First pass, as PyTorch: fresh allocations (first node in graph order to output a storage),
    // then uses = the inputs' output storages in input order, deduplicated with the stamp. The
    // inputs' output ranges come from a compact copy filled as we go (a Node is large).
    std::vector<Range> outs(n_nodes);
    a.fresh_pool.reserve(n_storages);
    a.uses_pool.reserve(graph.input_ids.size());
    const StorageId* out_pool = graph.output_storages.data();
    constexpr std::size_t kAhead = 8;  // Node structs are large: fetch the ones a few steps ahead
    for (std::size_t i = 0; i < n_nodes; ++i) {
        if (i + kAhead < n_nodes) __builtin_prefetch(&graph.nodes[i + kAhead].inputs);
        const Node& nd = graph.nodes[i];
        const NodeId node(static_cast<std::int32_t>(i));
        outs[i] = nd.outputs;
        Range fresh{checked_size(a.fresh_pool.size(), graph), 0};
        for (std::uint32_t k = nd.outputs.begin; k < nd.outputs.end; ++k) {
            const StorageId s = out_pool[k];
            if (!a.allocator[s.index()].valid()) {
                a.allocator[s.index()] = node;
                a.fresh_pool.push_back(s);
            }
        }
        fresh.end = checked_size(a.fresh_pool.size(), graph);
        a.fresh[i] = fresh;

        Range uses{checked_size(a.uses_pool.size(), graph), 0};
        for (std::uint32_t j = nd.inputs.begin; j < nd.inputs.end; ++j) {
            const Range r = outs[graph.input_ids[j].index()];
            for (std::uint32_t k = r.begin; k < r.end; ++k) {
                const StorageId s = out_pool[k];
                PerStorage& ps = acc[s.index()];
                if (ps.stamp != static_cast<std::int32_t>(i)) {
                    ps.stamp = static_cast<std::int32_t>(i);
                    ++ps.users;
                    a.uses_pool.push_back(s);
                }
            }
        }
        uses.end = checked_size(a.uses_pool.size(), graph);
        a.uses[i] = uses;
    }

    // storage_to_uses as a CSR by counting sort: storage_users[s].begin serves as the fill
    // cursor, so scanning nodes in graph order fills each list in graph order (OrderedSet order).
    std::uint32_t offset = 0;
    for (std::size_t s = 0; s < n_storages; ++s) {
        a.storage_users[s] = {offset, offset + acc[s].users};
        offset += acc[s].users;
    }
    a.storage_users_pool.resize(a.uses_pool.size());
    // PyTorch's second pass scans the nodes in reverse: the first node it meets using a storage
    // is its last user, and it adds a node's storages in the order of that node's uses. So a
    // node's last-used list is its uses filtered to the storages whose users list it completes.
    a.last_used_pool.reserve(n_storages);
    for (std::size_t i = 0; i < n_nodes; ++i) {
        const auto begin = checked_size(a.last_used_pool.size(), graph);
        for (std::uint32_t k = a.uses[i].begin; k < a.uses[i].end; ++k) {
            const StorageId s = a.uses_pool[k];
            Range& cursor = a.storage_users[s.index()];
            a.storage_users_pool[cursor.begin++] = NodeId(static_cast<std::int32_t>(i));
            if (cursor.begin == cursor.end) a.last_used_pool.push_back(s);
        }
        a.last_used[i] = {begin, checked_size(a.last_used_pool.size(), graph)};
    }
    for (std::size_t s = 0; s < n_storages; ++s) {
        Range& r = a.storage_users[s];
        r.begin = r.end - acc[s].users;
        if (r.end > r.begin) a.last_user[s] = a.storage_users_pool[r.end - 1];
    }
    return a;
}

} // namespace fxmem
