// The scheduling problem the optimizer works on, distilled once from a graph under MemoryTracker
// semantics (see optimize.h for the mapping to Inductor's terms):
//  - "prefix": placeholders and get_attr nodes, in graph order; they run first and change no memory
//    while running (their counted storages are in `start`), and use nothing;
//  - the final output node (when the graph ends with one) runs last;
//  - every other node is a "scheduler node" with a dense index k in graph order. `runs` is 0 for the
//    rare output-op node that is not last (the tracker neither allocates nor frees there);
//  - a "buffer" is a counted storage allocated by the prefix or by a scheduler node that runs;
//    `alloc[k]` sums the buffers node k allocates. A buffer is freeable when its allocator is
//    releasable, it has users, and the final output node does not use it: it is freed when its
//    last user runs (if that user runs). The others are pinned: never freed.
//  - predecessors of a scheduler node: its inputs and, for a node that runs, the allocators of the
//    counted storages it uses (IncrementalSchedule's tracker invariant), among scheduler nodes.
#pragma once
#include "fxmem/cancel.h"
#include "fxmem/estimator.h"
#include "fxmem/optimize.h"

#include <cstdint>
#include <span>
#include <vector>

namespace fxmem::detail {

struct OptProblem {
    std::vector<NodeId> prefix;
    std::vector<NodeId> nodes;                    // scheduler nodes, graph order; k = index here
    NodeId output;                                // invalid when the graph does not end with an output node
    std::vector<std::int32_t> index_of;           // per graph node: k, or -1
    std::vector<std::uint8_t> runs;               // per k
    std::vector<std::int64_t> alloc;              // per k: counted bytes it allocates
    std::vector<std::uint32_t> pred_begin, preds; // CSR per k (deduplicated, graph order)
    std::vector<std::uint32_t> succ_begin, succs; // CSR per k (reverse of preds)

    // Buffers: b = dense index.
    std::vector<StorageId> buffer_storage;
    std::vector<std::int64_t> size;               // per b
    std::vector<std::int32_t> allocator;          // per b: k, or -1 for the prefix
    std::vector<std::uint8_t> freeable;           // per b
    std::vector<std::uint32_t> user_begin, users; // CSR per b: users among scheduler nodes (graph order)
    std::vector<std::uint32_t> use_begin, uses;   // CSR per k: buffers it uses (alias order)
    std::vector<std::uint32_t> out_begin, outs;   // CSR per k: buffers it allocates

    std::int64_t start = 0;        // tracker's start memory
    std::int64_t output_bytes = 0; // counted bytes of the buffers the output node uses
    bool nonrunning_users = false; // some freeable buffer has a user that does not run

    std::size_t size_k() const { return nodes.size(); }
    std::span<const std::uint32_t> preds_of(std::size_t k) const {
        return {preds.data() + pred_begin[k], pred_begin[k + 1] - pred_begin[k]};
    }
    std::span<const std::uint32_t> succs_of(std::size_t k) const {
        return {succs.data() + succ_begin[k], succ_begin[k + 1] - succ_begin[k]};
    }
    std::span<const std::uint32_t> users_of(std::size_t b) const {
        return {users.data() + user_begin[b], user_begin[b + 1] - user_begin[b]};
    }
    std::span<const std::uint32_t> uses_of(std::size_t k) const {
        return {uses.data() + use_begin[k], use_begin[k + 1] - use_begin[k]};
    }
    std::span<const std::uint32_t> outs_of(std::size_t k) const {
        return {outs.data() + out_begin[k], out_begin[k + 1] - out_begin[k]};
    }

    // prefix + scheduler nodes in `sched` order (indices k) + output.
    std::vector<NodeId> full_order(std::span<const std::uint32_t> sched) const;
};

OptProblem build_opt_problem(const GraphFile& file, const Graph& graph, const AliasInfo& alias,
                             const NodeMask& releasable, const StorageMask& counted);

// Asks a cancel check once per kCancelPollWork steps of work (optimize.h); once it said stop, it
// stays stopped and is not asked again. An empty check never stops.
class CancelPoll {
public:
    CancelPoll() = default;
    explicit CancelPoll(CancelCheck check) : check_(std::move(check)) {}
    bool stop(std::uint64_t work = 1) {
        if (stopped_) return true;
        if (!check_) return false;
        work_ += work;
        if (work_ < kCancelPollWork) return false;
        work_ = 0;
        stopped_ = check_();
        return stopped_;
    }
    bool stopped() const { return stopped_; }

private:
    CancelCheck check_;
    std::uint64_t work_ = 0;
    bool stopped_ = false;
};

// The public functions of optimize.h on a problem built once (optimize_schedule needs them all).
// The baselines return an empty order when `poll` stopped them; the lower bound then returns the
// cheap bound max(start, end memory), still valid.
std::vector<NodeId> lpmf_order(const OptProblem& p, CancelPoll& poll);
std::vector<NodeId> bfs_order(const OptProblem& p, CancelPoll& poll);
std::vector<NodeId> dfs_order(const OptProblem& p, CancelPoll& poll);
std::int64_t lower_bound(const OptProblem& p, std::size_t ancestor_sets_max_nodes, CancelPoll& poll);
// `cancelled` is asked once per kCancelPollWork steps (a step: one candidate node of one set).
ExactResult exact(const OptProblem& p, std::size_t max_nodes, std::size_t max_states, std::int64_t upper_bound,
                  const CancelCheck& cancelled);

} // namespace fxmem::detail
