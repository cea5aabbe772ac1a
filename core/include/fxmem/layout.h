// A graph layout that reads in execution order and lines up with the memory timeline:
// x is the node's profile index (1 + 2k for the k-th profile node, 0 for placeholder and
// get_attr, the last index for output), y is a lane. Each node's output runs as a horizontal
// wire along its lane from the node to its last user; lanes are given greedily in x order so
// that wires never overlap (interval colouring: the lane count is the largest number of wires
// alive at one step). A node continues the lane of an input whose wire ends at it, so chains
// stay on one line. O(N + E) time and memory. A schedule other than graph order lays the
// nodes out in that order (x follows the edited schedule's profile).
//
// Lifetime and threads: a GraphLayout is a value (it keeps no reference to the graph); its
// const queries may run on any number of threads.
#pragma once
#include "fxmem/cancel.h"
#include "fxmem/model.h"

#include <cstdint>
#include <span>
#include <vector>

namespace fxmem {

class GraphLayout {
public:
    // `order`: a legal schedule of every node (check_schedule); empty means graph order.
    // `cancelled` is polled between passes (fxmem::Cancelled).
    explicit GraphLayout(const Graph& graph, std::span<const NodeId> order = {}, const CancelCheck& cancelled = {});

    std::int64_t steps() const { return steps_; } // profile size (1 + 2K)
    std::int32_t lanes() const { return lanes_; }
    std::int64_t step(NodeId n) const { return step_[n.index()]; }
    std::int32_t lane(NodeId n) const { return lane_[n.index()]; }
    // Largest step among the node's users (its own step when it has none).
    std::int64_t wire_end(NodeId n) const { return wire_end_[n.index()]; }

    // This layout with `nodes` moved to `steps` (one each), every lane kept: what a move of one
    // node in the schedule changes at once. The moved nodes must be running nodes that trade their
    // steps among themselves (a move permutes the steps of the range it crosses). Wires whose ends
    // moved may then share a lane until the order is laid out again. O(N) copy plus
    // O(k log k + edges of the k nodes and of their inputs + log N).
    // Throws Error when the nodes' steps are not a permutation of one another.
    GraphLayout with_steps(const Graph& graph, std::span<const NodeId> nodes,
                           std::span<const std::int64_t> steps) const;

    // Nodes ordered by step (graph order within a step).
    std::span<const NodeId> by_step() const { return by_step_; }
    // The nodes whose step lies in [x0, x1], as a slice of by_step(). O(log N).
    std::span<const NodeId> nodes_in(std::int64_t x0, std::int64_t x1) const;
    // Appends the nodes whose wire [step, wire_end] intersects [x0, x1]. O((k + 1) log N).
    void wires_crossing(std::int64_t x0, std::int64_t x1, std::vector<NodeId>& out) const;

private:
    std::int64_t steps_ = 1;
    std::int32_t lanes_ = 0;
    std::vector<std::int64_t> step_, wire_end_;
    std::vector<std::int32_t> lane_;
    std::vector<NodeId> by_step_;
    std::vector<std::int64_t> max_end_; // max wire_end over by_step_, as an implicit segment tree
    std::size_t leaves_ = 1;
    void collect(std::size_t node, std::size_t lo, std::size_t hi, std::size_t limit, std::int64_t x0,
                 std::vector<NodeId>& out) const;
};

} // namespace fxmem
