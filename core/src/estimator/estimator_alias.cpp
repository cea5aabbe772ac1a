// GraphAliasTracker on dense ids: O(N + E) where E counts, per node, the output storages of its
// inputs. Stamp arrays replace PyTorch's OrderedSets; per-storage users are a CSR built by
// counting, so graph order falls out of the scan order.
#include "fxmem/estimator.h"

#include "fxmem/error.h"
#include "storage_passes.h"

#include <algorithm>
#include <limits>

namespace fxmem {

namespace {

std::uint32_t checked_size(std::size_t n, const Graph& graph) {
    if (n > std::numeric_limits<std::uint32_t>::max())
        throw Error("graph '" + graph.name + "': too many storage uses to index");
    return static_cast<std::uint32_t>(n);
}

} // namespace

void build_alias_info(const GraphFile& file, const Graph& graph, AliasInfo& a) {
    const std::size_t n_nodes = graph.size();
    const std::size_t n_storages = file.storages.size();
    // Per-storage arrays: reused when `a` was built for another graph of this file, clearing only
    // the storages that graph touched (every storage a graph uses, it also allocates: its fresh
    // list), so a file of many small graphs costs the sum of their sizes, not graphs x storages.
    if (a.allocator.size() == n_storages && a.last_user.size() == n_storages && a.storage_users.size() == n_storages) {
        for (StorageId s : a.fresh_pool) {
            a.allocator[s.index()] = NodeId{};
            a.last_user[s.index()] = NodeId{};
            a.storage_users[s.index()] = Range{};
        }
    } else {
        detail::count_storage_table_pass();
        a.allocator.assign(n_storages, NodeId{});
        a.last_user.assign(n_storages, NodeId{});
        a.storage_users.assign(n_storages, Range{});
    }
    a.fresh.assign(n_nodes, Range{});
    a.uses.assign(n_nodes, Range{});
    a.last_used.assign(n_nodes, Range{});
    a.fresh_pool.clear();
    a.uses_pool.clear();
    a.last_used_pool.clear();
    a.storage_users_pool.clear();

    // The cost on big graphs is cache misses, so each pass touches one random place per use.
    // Until the users lists are laid out, storage_users[s] holds {dedup stamp, user count} side
    // by side: begin = 1 + the last node that added s to its uses (0: none), end = its users.
    // First pass, as PyTorch: fresh allocations (first node in graph order to output a storage),
    // then uses = the inputs' output storages in input order, deduplicated with the stamp. The
    // inputs' output ranges come from a compact copy filled as we go (a Node is large).
    std::vector<Range> outs(n_nodes);
    a.fresh_pool.reserve(std::min(n_storages, graph.output_storages.size()));
    a.uses_pool.reserve(graph.input_ids.size());
    const StorageId* out_pool = graph.output_storages.data();
    constexpr std::size_t kAhead = 8; // Node structs are large: fetch the ones a few steps ahead
    for (std::size_t i = 0; i < n_nodes; ++i) {
        if (i + kAhead < n_nodes) __builtin_prefetch(&graph.nodes[i + kAhead].inputs);
        const Node& nd = graph.nodes[i];
        const NodeId node(static_cast<std::int32_t>(i));
        const auto stamp = static_cast<std::uint32_t>(i + 1);
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
                Range& acc = a.storage_users[s.index()];
                if (acc.begin != stamp) {
                    acc.begin = stamp;
                    ++acc.end;
                    a.uses_pool.push_back(s);
                }
            }
        }
        uses.end = checked_size(a.uses_pool.size(), graph);
        a.uses[i] = uses;
    }

    // storage_to_uses as a CSR by counting sort over the storages this graph allocates (the only
    // ones it uses): storage_users[s].begin serves as the fill cursor, so scanning nodes in graph
    // order fills each list in graph order (OrderedSet order).
    std::uint32_t offset = 0;
    for (StorageId s : a.fresh_pool) {
        Range& r = a.storage_users[s.index()];
        const std::uint32_t users = r.end;
        r = {offset, offset + users};
        offset += users;
    }
    a.storage_users_pool.resize(a.uses_pool.size());
    // PyTorch's second pass scans the nodes in reverse: the first node it meets using a storage
    // is its last user, and it adds a node's storages in the order of that node's uses. So a
    // node's last-used list is its uses filtered to the storages whose users list it completes.
    a.last_used_pool.reserve(a.fresh_pool.size());
    for (std::size_t i = 0; i < n_nodes; ++i) {
        const auto begin = checked_size(a.last_used_pool.size(), graph);
        const NodeId node(static_cast<std::int32_t>(i));
        for (std::uint32_t k = a.uses[i].begin; k < a.uses[i].end; ++k) {
            const StorageId s = a.uses_pool[k];
            Range& cursor = a.storage_users[s.index()];
            a.storage_users_pool[cursor.begin++] = node;
            if (cursor.begin == cursor.end) {
                a.last_used_pool.push_back(s);
                a.last_user[s.index()] = node;
            }
        }
        a.last_used[i] = {begin, checked_size(a.last_used_pool.size(), graph)};
    }
    // The lists lie end to end in fresh order: each begins where the previous one ends.
    std::uint32_t begin = 0;
    for (StorageId s : a.fresh_pool) {
        Range& r = a.storage_users[s.index()];
        r.begin = begin;
        begin = r.end;
    }
}

AliasInfo build_alias_info(const GraphFile& file, const Graph& graph) {
    AliasInfo a;
    build_alias_info(file, graph, a);
    return a;
}

} // namespace fxmem
