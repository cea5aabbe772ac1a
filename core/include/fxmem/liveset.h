// Live-set queries for the app: at any profile index, which counted storages are live and why.
// Preparation is O(N+E); a query costs O(log N + live). The index describes the graph's own
// order (build_memory_profile) or any legal schedule of it (MemoryTracker on that order).
//
// Lifetime and threads: a LiveSetIndex keeps references to its file, graph and alias info, which
// must outlive it (GraphAnalysis owns all four together); after construction it is read-only,
// and its queries may run on any number of threads at once.
#pragma once
#include "fxmem/estimator.h"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace fxmem {

enum class LiveReason : std::uint8_t {
    WaitingForUse, // released after its last user runs (at free_step)
    GraphOutput,   // reaches the output node: never released
    NotReleasable, // allocated by a primal or a do-not-delete placeholder: never released
    NeverUsed,     // no node uses it: never released
};

struct LiveStorage {
    StorageId storage;
    std::int64_t nbytes = 0;
    NodeId allocator;
    NodeId last_user;            // the user that runs last in the order; invalid when never used
    NodeId next_user;            // first user at or after the queried step's node, in the order; invalid when none
    std::int64_t alloc_step = 0; // profile index where it became live (0: from the start)
    std::optional<std::int64_t> free_step; // profile index where it is gone; none when never released
    LiveReason reason = LiveReason::WaitingForUse;
};

class LiveSetIndex {
public:
    // `order` empty: the graph's order, and profile index i matches build_memory_profile(...)[i].
    // Otherwise a legal schedule of every node (check_schedule; Error when it is not): profile
    // index 1+2k is after the k-th running node of the order allocates, 2+2k after it frees, as
    // MemoryTracker scores that order (the schedule editor's curve).
    LiveSetIndex(const GraphFile& file, const Graph& graph, const AliasInfo& alias, const NodeMask& releasable,
                 const StorageMask& counted, std::span<const NodeId> order = {});
    std::size_t profile_size() const { return step_node_.size(); }
    // The node of a profile index (invalid for index 0) and the profile index of a node's
    // allocation point (0 for placeholder, get_attr and output).
    NodeId node_at(std::size_t profile_index) const { return step_node_[profile_index]; }
    std::size_t step_of(NodeId node) const { return node_step_[node.index()]; }
    // Live storages at a profile index, ordered by size (largest first). Their nbytes sum to
    // build_memory_profile(...)[profile_index].
    std::vector<LiveStorage> live_at(std::size_t profile_index) const;
    // Bytes live at every profile index, O(P + storages): build_memory_profile(...) for the
    // graph's order, the MemoryTracker curve (1 + 2K entries) for a schedule.
    std::vector<std::int64_t> profile() const;
    // The same split into groups, for a stacked timeline: row-major, entry [i * groups + g] is
    // the bytes at profile index i of the storages with group_of_storage[s] == g (indexed by
    // StorageId, e.g. Attribution::storage_groups). For every i the row sums to profile()[i].
    // O(P * groups + storages). Error when the array is shorter than the storage table or an id
    // of a counted storage is >= groups.
    std::vector<std::int64_t> profile_by(std::span<const std::uint32_t> group_of_storage, std::size_t groups) const;
    // Every counted storage the graph allocates, once, in storage order: live on profile indices
    // [begin, end), end == profile_size() when it is never released. O(storages).
    struct Range {
        StorageId storage;
        NodeId allocator;
        std::int64_t begin = 0, end = 0;
    };
    std::vector<Range> ranges() const;

private:
    struct Interval {
        std::int64_t begin, end; // live on [begin, end)
        StorageId storage;
    };
    const GraphFile& file_;
    const Graph& graph_;
    const AliasInfo& alias_;
    NodeMask releasable_;
    std::vector<NodeId> step_node_;
    std::vector<std::size_t> node_step_;
    std::vector<Interval> intervals_;
    // Only for a given order: per node its position; per storage its last user in the order and
    // its users' positions, ascending (CSR over users_begin_). Graph order reads the alias info.
    bool reordered_ = false;
    std::vector<std::uint32_t> position_;
    std::vector<NodeId> order_;
    std::vector<NodeId> last_user_;
    std::vector<std::uint32_t> users_begin_, user_positions_;
    // A centred interval tree over profile indices, implicit: the tree node of centre c (1 <= c <
    // 2^levels_) covers the block of 2^(h+1) indices around c, h = ctz(c), and holds the intervals
    // with begin < c <= end inside that block. Buckets are CSR ranges into by_begin_ (ascending
    // begin) and by_end_ (descending end); see liveset.cpp.
    unsigned levels_ = 0;
    std::vector<std::uint32_t> bucket_; // 2^levels_ + 1 offsets
    std::vector<std::uint32_t> by_begin_, by_end_;
    std::vector<std::uint32_t> rank_; // per interval: place in (size descending, storage) order
    LiveStorage describe(const Interval& iv, std::size_t profile_index) const;
};

} // namespace fxmem
