// The module tree of a graph arranged for the dataflow layout: modules in preorder (a subtree is
// a range), the nodes grouped by module in that order (a subtree's nodes are a range too), each
// module's first node in graph order, structurally equal sibling runs and allocated bytes.
#pragma once
#include "fxmem/attribution.h"
#include "fxmem/dataflow_layout.h"
#include "fxmem/model.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace fxmem::detail {

struct ModuleIndex {
    ModuleTree tree;
    std::vector<std::uint32_t> pre, end;   // per module: preorder number, one past its subtree's
    std::vector<std::uint32_t> node_start; // per preorder number + 1: CSR into nodes
    std::vector<NodeId> nodes;             // by module preorder, graph order within a module
    std::vector<std::int64_t> first_node;  // per module: its subtree's first node index, -1 if none
    std::vector<std::uint32_t> module_of;  // per node: tree index of the module it is drawn in

    ModuleIndex(const Graph& graph, const ModuleTree& tree);
    bool inside(std::uint32_t m, NodeId n) const {
        const std::uint32_t p = pre[module_of[n.index()]];
        return p >= pre[m] && p < end[m];
    }
    std::span<const NodeId> subtree_nodes(std::uint32_t m) const {
        return {nodes.data() + node_start[pre[m]], nodes.data() + node_start[end[m]]};
    }
    std::span<const NodeId> direct_nodes(std::uint32_t m) const {
        return {nodes.data() + node_start[pre[m]], nodes.data() + node_start[pre[m] + 1]};
    }
    // The child of `m` on the way to `deeper`, a strict descendant of m: the last child whose
    // preorder number is not after deeper's (children are numbered in order). O(log children),
    // whatever the depth between them.
    std::uint32_t child_toward(std::uint32_t m, std::uint32_t deeper) const {
        const std::vector<std::uint32_t>& kids = tree[m].children;
        const auto it = std::upper_bound(kids.begin(), kids.end(), pre[deeper],
                                         [&](std::uint32_t p, std::uint32_t child) { return p < pre[child]; });
        return *(it - 1);
    }

private:
    void move_loose_nodes(const Graph& graph);
};

// Per module, the run of structurally equal consecutive siblings it belongs to. O(N * depth).
std::vector<ModuleRepeat> module_repeats(const Graph& graph, const ModuleIndex& index);
// Per module, inclusive bytes of the counted storages first held by a computing node inside it.
std::vector<std::int64_t> module_allocated(const GraphFile& file, const Graph& graph, const ModuleIndex& index,
                                           const StorageMask* counted);
// Per node, the bytes of its output storages that count (what an edge from it carries).
std::vector<std::int64_t> node_output_bytes(const GraphFile& file, const Graph& graph, const StorageMask* counted);

} // namespace fxmem::detail
