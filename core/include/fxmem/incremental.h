// A schedule being edited: moves of one node, each kept legal and re-scored incrementally
// under MemoryTracker semantics. Per position we keep the bytes allocated and freed there; a
// segment tree over positions holds (sum of net change, max of prefix + allocation), so the peak
// after a move costs O(|from - to| + log N) instead of a full re-score.
//
// Lifetime and threads: an IncrementalSchedule keeps references to its file, graph and alias
// info, which must outlive it; it is mutable, so one thread at a time.
#pragma once
#include "fxmem/estimator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fxmem {

class IncrementalSchedule {
public:
    // `order` must be legal for `graph` (check_schedule); throws Error otherwise.
    IncrementalSchedule(const GraphFile& file, const Graph& graph, const AliasInfo& alias, NodeMask releasable,
                        StorageMask counted, std::vector<NodeId> order);

    std::size_t size() const { return order_.size(); }
    NodeId at(std::size_t position) const { return order_[position]; }
    std::size_t position_of(NodeId node) const { return position_[node.index()]; }
    const std::vector<NodeId>& order() const { return order_; }

    // Where the node now at `position` may go (inclusive bounds): after all its inputs and before
    // all its users; the output node stays last. The blockers are the input right before `lo` and
    // the user right after `hi` (invalid when the bound is the schedule's edge).
    struct LegalRange {
        std::size_t lo = 0, hi = 0;
        NodeId blocker_before, blocker_after;
    };
    LegalRange legal_range(std::size_t position) const;

    struct MoveCheck {
        bool ok = false;
        NodeId blocker;     // the node that forbids the move, when one does
        std::string reason; // user-facing, e.g. "'relu' must stay after its input 'addmm' (step 12)"
    };
    MoveCheck check_move(std::size_t from, std::size_t to) const;
    // Moves the node at `from` to `to` (the others keep their relative order). Throws Error when
    // illegal, leaving the schedule unchanged.
    void move(std::size_t from, std::size_t to);

    // The inputs that can travel with the node at `position`: view-like ops (view, reshape, t,
    // transpose, permute, expand, ... : OpCategory::View) that run, whose only user it is, and
    // theirs in turn; in schedule order. A matmul pinned by its own transpose moves with it.
    std::vector<NodeId> companions(std::size_t position) const;
    // The single moves that take the node at `from` to `to` with its companions, so that they
    // land together, companions first in their order: moving up, the first companion goes to `to`
    // and the node right after the last; moving down, the node goes to `to` and the companions
    // right before it. Each step's positions are those of the order the steps before it left.
    // Empty, with the refusal in `check`, when a step is illegal. O(N) (tried on a copy).
    struct Step {
        std::size_t from = 0, to = 0;
    };
    std::vector<Step> plan_move_with(std::size_t from, std::size_t to, MoveCheck* check = nullptr) const;

    std::int64_t start() const { return start_; }   // memory before the first node
    std::int64_t peak() const;                      // MemoryTracker peak of the current order
    std::size_t peak_position() const;              // first position where the peak is reached
    std::int64_t after(std::size_t position) const; // memory after the node at `position`
    std::vector<std::int64_t> current() const;      // memory after each position, O(N)
    // The current order's memory in build_memory_profile's layout (what the timeline draws): the
    // start, then for each node that runs, memory after its allocations and after its frees
    // (1 + 2K points for K running nodes). O(N).
    std::vector<std::int64_t> profile() const;
    // Counted bytes `node` allocates when it runs (0 for placeholders, get_attr and the output).
    std::int64_t alloc_of(NodeId node) const { return alloc_of_[node.index()]; }

private:
    // Per node: counted bytes it allocates when it runs, and bytes it frees as the last-scheduled
    // user of releasable storages. A leaf of the tree is the node at that position.
    struct Bounds;
    const GraphFile& file_;
    const Graph& graph_;
    const AliasInfo& alias_;
    NodeMask releasable_;
    StorageMask counted_;
    std::vector<NodeId> order_;
    std::vector<std::size_t> position_;
    std::int64_t start_ = 0;
    NodeId output_;                      // the graph's last node when it is an output node
    std::vector<std::uint8_t> op_;       // per node: its OpKind, compact (a Node is large)
    std::vector<std::int64_t> alloc_of_; // per node
    std::vector<std::int64_t> free_of_;  // per node
    std::vector<std::uint8_t> freeable_; // per storage: counted, releasable allocator, used
    std::vector<NodeId> last_scheduled_; // per freeable storage: its user at the highest position
    std::vector<std::int64_t> tree_sum_, tree_best_;
    std::size_t leaves_ = 1;
    OpKind op(NodeId n) const { return static_cast<OpKind>(op_[n.index()]); }
    Bounds bounds(std::size_t position) const;
    void set_leaf(std::size_t position);
    void rebuild_positions(std::size_t lo, std::size_t hi);
};

} // namespace fxmem
