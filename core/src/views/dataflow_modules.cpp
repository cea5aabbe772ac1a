// The dataflow layout's view of the module tree (views/dataflow_modules.h).
#include "views/dataflow_modules.h"

#include "fxmem/error.h"

#include <algorithm>
#include <numeric>

namespace fxmem::detail {

ModuleIndex::ModuleIndex(const Graph& graph, const ModuleTree& t) : tree(t) {
    const std::size_t m = tree.size();
    if (graph.size() > 0 && tree.size() > 0 && (tree.node_module(NodeId(0)) >= m))
        throw PreconditionError("dataflow layout: the module tree is not the graph's");
    pre.assign(m, 0);
    end.assign(m, 0);
    // Preorder by an explicit stack (a hostile file may nest thousands of levels).
    std::vector<std::pair<std::uint32_t, std::size_t>> stack; // (module, next child)
    std::uint32_t next = 0;
    if (m > 0) {
        stack.emplace_back(ModuleTree::kRoot, 0);
        pre[ModuleTree::kRoot] = next++;
    }
    while (!stack.empty()) {
        auto& [mod, child] = stack.back();
        if (child < tree[mod].children.size()) {
            const std::uint32_t c = tree[mod].children[child++];
            pre[c] = next++;
            stack.emplace_back(c, 0);
        } else {
            end[mod] = next;
            stack.pop_back();
        }
    }
    module_of.resize(graph.size());
    for (std::size_t n = 0; n < graph.size(); ++n) {
        module_of[n] = tree.node_module(NodeId(static_cast<std::int32_t>(n)));
        if (module_of[n] >= m) throw PreconditionError("dataflow layout: the module tree is not the graph's");
    }
    // First node of each subtree: its own first, then children into parents (children follow
    // their parents in the tree's index order). By the nodes' own modules, before loose nodes
    // move: one moves only into a module that runs a neighbour of it, so it empties or fills none.
    first_node.assign(m, -1);
    for (std::size_t n = graph.size(); n-- > 0;) first_node[module_of[n]] = static_cast<std::int64_t>(n);
    for (std::size_t i = m; i-- > 1;) {
        const std::uint32_t parent = tree[static_cast<std::uint32_t>(i)].parent;
        const std::int64_t f = first_node[i];
        if (f >= 0 && (first_node[parent] < 0 || f < first_node[parent])) first_node[parent] = f;
    }
    move_loose_nodes(graph);
    node_start.assign(m + 1, 0);
    for (std::size_t n = 0; n < graph.size(); ++n) ++node_start[pre[module_of[n]] + 1];
    std::partial_sum(node_start.begin(), node_start.end(), node_start.begin());
    nodes.resize(graph.size());
    std::vector<std::uint32_t> fill(node_start.begin(), node_start.end() - 1);
    for (std::size_t n = 0; n < graph.size(); ++n)
        nodes[fill[pre[module_of[n]]]++] = NodeId(static_cast<std::int32_t>(n));
}

// Nodes the model's code did not run carry no module: the graph's inputs (weights, saved
// values), the partitioner's transposes saved for the backward, autograd's gradient sums. At the
// top level each sat in a few very wide rows (an 8B model's weights, saved transposes and
// gradient sums made its overview a thin strip). Such a node whose neighbours that do run in a
// module (edges to the graph's output left out: returning a value is where it leaves, not where
// it is used) all run inside one module is drawn in the innermost such module, beside them; the
// others stay at the top level, and so does a value the graph only returns unless it is a view
// (a loss computed outside the model). One pass, by the neighbours' own modules, so a chain of
// such nodes does not drift. O(N + E + climbs), a node climbing at most its first neighbour's depth.
namespace {
// Every storage v outputs is one of its inputs' (a view, as the estimator shares storages).
// O((inputs' outputs + outputs) log).
bool is_view(const Graph& graph, NodeId v) {
    const auto outs = graph.outputs(v);
    if (outs.empty()) return false;
    std::vector<std::int32_t> held;
    for (const NodeId u : graph.inputs(v))
        for (const StorageId t : graph.outputs(u)) held.push_back(t.index());
    std::sort(held.begin(), held.end());
    return std::all_of(outs.begin(), outs.end(),
                       [&](StorageId s) { return std::binary_search(held.begin(), held.end(), s.index()); });
}
} // namespace

void ModuleIndex::move_loose_nodes(const Graph& graph) {
    // The innermost module holding a and m: up from a until its preorder range holds m. Each
    // step up is for good, so a node's neighbours cost their count plus one climb (a hostile
    // nesting thousands deep is not walked once per edge).
    const auto lca = [&](std::uint32_t a, std::uint32_t m) {
        while (pre[m] < pre[a] || pre[m] >= end[a]) a = tree[a].parent;
        return a;
    };
    const std::vector<std::uint32_t> own = module_of;
    for (std::size_t v = 0; v < graph.size(); ++v) {
        const NodeId id(static_cast<std::int32_t>(v));
        if (own[v] != ModuleTree::kRoot || graph.node(id).op == OpKind::Output) continue;
        // A value only returned is the graph's result (a loss), unless it is a view of another
        // (the partitioner's transposes saved for the backward).
        const auto users = graph.users(id);
        if (!users.empty() && !graph.inputs(id).empty() &&
            std::all_of(users.begin(), users.end(), [&](NodeId w) { return graph.node(w).op == OpKind::Output; }) &&
            !is_view(graph, id))
            continue;
        std::uint32_t at = ModuleTree::npos;
        const auto meet = [&](NodeId other) {
            const std::uint32_t m = own[other.index()];
            if (m == ModuleTree::kRoot) return; // the output, or another node without a module
            at = at == ModuleTree::npos ? m : lca(at, m);
        };
        for (const NodeId u : graph.inputs(id)) meet(u);
        for (const NodeId w : graph.users(id)) meet(w);
        if (at != ModuleTree::npos) module_of[v] = at; // the root when they span top-level modules
    }
}

std::vector<ModuleRepeat> module_repeats(const Graph& graph, const ModuleIndex& index) {
    const ModuleTree& tree = index.tree;
    const std::size_t m = tree.size();
    std::vector<std::uint64_t> h1(m, 0x9E3779B97F4A7C15ull), h2(m, 0xC2B2AE3D27D4EB4Full), count(m, 0);
    for (std::size_t n = 0; n < graph.size(); ++n) {
        // By the node's own module: the nodes drawn into a block (its weights) do not count.
        const std::uint32_t own = tree.node_module(NodeId(static_cast<std::int32_t>(n)));
        const std::uint32_t own_depth = tree[own].depth;
        const std::uint64_t target = graph.nodes[n].target;
        for (std::uint32_t a = own; a != ModuleTree::npos; a = tree[a].parent) {
            const std::uint64_t token = (target + 1) * 0x100000001B3ull + (own_depth - tree[a].depth);
            h1[a] = (h1[a] ^ token) * 0x100000001B3ull;
            h2[a] = (h2[a] + token) * 0xFF51AFD7ED558CCDull + 0x2545F4914F6CDD1Dull;
            ++count[a];
        }
    }
    std::vector<ModuleRepeat> repeats(m);
    for (std::uint32_t i = 0; i < m; ++i) repeats[i] = {i, i, 1, 0};
    const auto same = [&](std::uint32_t a, std::uint32_t b) {
        return count[a] > 0 && count[a] == count[b] && h1[a] == h1[b] && h2[a] == h2[b];
    };
    for (std::uint32_t p = 0; p < m; ++p) {
        const std::vector<std::uint32_t>& kids = tree[p].children;
        for (std::size_t i = 0; i < kids.size();) {
            std::size_t j = i + 1;
            while (j < kids.size() && same(kids[i], kids[j])) ++j;
            for (std::size_t k = i; k < j; ++k)
                repeats[kids[k]] = {kids[i], kids[j - 1], static_cast<std::uint32_t>(j - i),
                                    static_cast<std::uint32_t>(k - i)};
            i = j;
        }
    }
    return repeats;
}

std::vector<std::int64_t> node_output_bytes(const GraphFile& file, const Graph& graph, const StorageMask* counted) {
    std::vector<std::int64_t> bytes(graph.size(), 0);
    for (std::size_t n = 0; n < graph.size(); ++n)
        for (const StorageId s : graph.outputs(NodeId(static_cast<std::int32_t>(n))))
            if (!counted || (*counted)[s.index()]) bytes[n] += file.nbytes(s);
    return bytes;
}

std::vector<std::int64_t> module_allocated(const GraphFile& file, const Graph& graph, const ModuleIndex& index,
                                           const StorageMask* counted) {
    std::vector<std::int64_t> bytes(index.tree.size(), 0);
    std::vector<std::uint8_t> seen(file.storages.size(), 0);
    for (std::size_t n = 0; n < graph.size(); ++n) {
        const NodeId id(static_cast<std::int32_t>(n));
        const OpKind op = graph.node(id).op;
        const bool computes = op != OpKind::Placeholder && op != OpKind::GetAttr && op != OpKind::Output;
        for (const StorageId s : graph.outputs(id)) {
            if (seen[s.index()]) continue;
            seen[s.index()] = 1;
            // By the node's own module, as the breakdown counts it (not the one it is drawn in).
            if (computes && (!counted || (*counted)[s.index()])) bytes[index.tree.node_module(id)] += file.nbytes(s);
        }
    }
    // Inclusive: children follow their parents in index order.
    for (std::size_t i = bytes.size(); i-- > 1;) bytes[index.tree[static_cast<std::uint32_t>(i)].parent] += bytes[i];
    return bytes;
}

} // namespace fxmem::detail
