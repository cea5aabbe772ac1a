// Orders that lower the MemoryTracker peak of one graph, and a bound no order can beat.
//
// Every order returned here is legal (check_schedule) and also respects the tracker's own
// invariant that IncrementalSchedule enforces (a node that runs comes after the allocator of every
// counted storage it uses); every peak is the MemoryTracker peak (score_schedule) of that order.
//
// Mapping of Inductor's scheduler world (torch/_inductor/memory.py) onto FX nodes and storages,
// used by the three baselines:
//  - scheduler nodes = the graph's nodes other than placeholder, get_attr and the final output
//    node, in graph order (mpi_node.index = rank in that list). Placeholders and get_attr nodes
//    are put first in graph order and the output node last: where they stand changes no memory
//    under MemoryTracker (their storages are live from the start, they use nothing).
//  - a scheduler buffer = a counted storage allocated by such a node; "size_alloc" of a node =
//    the counted bytes it allocates (its fresh storages);
//  - freeable input buffers = counted storages allocated by placeholders/get_attr;
//  - a buffer's successors = the storage's users among the scheduler nodes; pred_nodes of a node
//    = its inputs and the allocators of the counted storages it uses (both among the scheduler
//    nodes); pred_buffers = the buffers of the storages it uses;
//  - "size_free" follows MemoryTracker: a buffer is freed when its last user runs, unless its
//    allocator is not releasable, it has no user, or the output node uses it (Inductor's graph
//    outputs): those are pinned (one extra unmet successor, so they are never freed);
//  - LPMF's initial live memory is the tracker's start memory; its output memory is the counted
//    bytes the output node uses. config.size_threshold_for_succ_based_strategy is 0 (its default),
//    so that branch is not transcribed.
//
// Lifetime and threads: results are values; optimize_schedule and the searches read their
// arguments during the call only, and call OptimizeOptions::progress and cancelled on the calling
// thread.
#pragma once
#include "fxmem/cancel.h"
#include "fxmem/estimator.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fxmem {

class IncrementalSchedule;

// Inductor's topological_sort_lpmf / _bfs / _dfs, transcribed (see the mapping above). Each
// returns a complete legal order of `graph`. O((N + E) log N) each (lpmf makes Inductor's pick
// with two min-trees instead of its linear scan of the ready set; the same node is picked).
std::vector<NodeId> inductor_lpmf_order(const GraphFile& file, const Graph& graph, const AliasInfo& alias,
                                        const NodeMask& releasable, const StorageMask& counted);
std::vector<NodeId> inductor_bfs_order(const GraphFile& file, const Graph& graph, const AliasInfo& alias,
                                       const NodeMask& releasable, const StorageMask& counted);
std::vector<NodeId> inductor_dfs_order(const GraphFile& file, const Graph& graph, const AliasInfo& alias,
                                       const NodeMask& releasable, const StorageMask& counted);

// A bound valid for every legal order: never above the optimum peak, never below the start
// memory nor the end memory (what stays allocated after the last node; the same for every legal
// order). For each node v that runs, it sums storages that are live while v runs in *every* legal
// order: v's own allocations, the counted storages v uses, and each counted storage allocated by
// an ancestor of v (or at the start) that is never freed or that a descendant of v (or v) uses;
// and, for the node that runs last, every storage never freed plus the freeable ones it uses.
// Proof sketch and cost in docs/estimator.md ("Optimizer and lower bound"). Exact ancestor sets
// (K * K bits for K nodes) are used up to `ancestor_sets_max_nodes` nodes; above that, a cheaper
// O(N + E) form that is never higher (still valid): the pinned storages of one heaviest chain of
// ancestors instead of all ancestors, and no freeable storage that v does not use itself.
inline constexpr std::size_t kAncestorSetsMaxNodes = 12288; // 18 MB of bitsets at most
std::int64_t peak_lower_bound(const GraphFile& file, const Graph& graph, const AliasInfo& alias,
                              const NodeMask& releasable, const StorageMask& counted,
                              std::size_t ancestor_sets_max_nodes = kAncestorSetsMaxNodes);

struct OptimizeProgress {
    enum class Phase { Baselines, Exact, Search, Done };
    Phase phase = Phase::Baselines;
    double elapsed_s = 0;
    double fraction = 0;        // rough, 0..1 (time used / time limit during the search)
    std::int64_t best_peak = 0; // best peak found so far
    std::int64_t lower_bound = 0;
};

struct OptimizeOptions {
    // Wall clock for the whole call, every phase counted: the lower bound and the baselines stop
    // at it too (checked once per kCancelPollWork steps of work, so a graph smaller than that
    // always gets them); the best order so far is returned, and a baseline cut short is empty.
    double time_limit_s = 10;
    // The exact search runs when the graph has at most this many nodes besides placeholders,
    // get_attr and the output node (at most 512), and gives up when the number of sets of
    // scheduled nodes it keeps passes exact_max_states.
    std::size_t exact_max_nodes = 256;
    std::size_t exact_max_states = 1'000'000; // 50-130 bytes each (more words per set on larger graphs)
    std::uint64_t seed = 1;                   // the local search's random choices
    // Called now and then (at most every ~50 ms, and once per phase); it cannot cancel.
    std::function<void(const OptimizeProgress&)> progress;
    // A cheap "stop now?" (a job's cancel flag), asked inside every phase at least once per
    // kCancelPollWork steps of work (the lower bound, each baseline, the local search, the exact
    // search) and after each forced progress report: once it says true, optimize_schedule returns
    // the best order found so far with cancelled = true, without asking again.
    CancelCheck cancelled;
};

// Steps of work between two polls of OptimizeOptions::cancelled (a step: a node picked or
// visited, an edge, a buffer, a 64-bit word of a node set).
inline constexpr std::uint64_t kCancelPollWork = 4096;

struct OptimizeResult {
    std::int64_t original_peak = 0;                            // the graph's own order
    std::optional<std::int64_t> lpmf_peak, bfs_peak, dfs_peak; // empty: cancelled or out of time before it was computed
    std::int64_t peak = 0;                                     // MemoryTracker peak of `order`; <= all four above
    std::int64_t lower_bound = 0;                              // peak_lower_bound, raised to `peak` when exact
    std::vector<NodeId> order;                                 // legal, complete
    bool exact = false;                                        // `peak` is the optimum over all legal orders
    bool cancelled = false;
    std::string method; // where the order comes from: "original", "lpmf", "bfs", "dfs", "exact", "search"
};

// Best of the original order and the three baselines; then an anytime local search with
// IncrementalSchedule moves around the peak; then, on graphs small enough, the exact search with
// the best peak so far as its bound (the local search gets 30 % of time_limit_s then, all of it
// otherwise). Stops early when the peak reaches the lower bound. Throws Error when the graph's own
// order is not one MemoryTracker accepts. Deterministic for a given seed when no limit is hit.
OptimizeResult optimize_schedule(const GraphFile& file, const Graph& graph, const AliasInfo& alias,
                                 const NodeMask& releasable, const StorageMask& counted,
                                 const OptimizeOptions& options = {});

// Exact optimum by dynamic programming over the sets of scheduled nodes (memory after a set does
// not depend on the order inside it under MemoryTracker semantics). complete = false when the
// graph has more than `max_nodes` (or 512) nodes besides placeholders, get_attr and the output,
// when the sets kept pass `max_states`, or when `cancelled` (asked once per kCancelPollWork candidate nodes tried)
// says stop. `upper_bound`, when given, prunes every partial order that cannot beat it; complete without improved then
// means "nothing beats upper_bound": it is the optimum.
struct ExactResult {
    bool complete = false; // the search finished (the optimum is known)
    bool improved = false; // `order` beats upper_bound (always true without one)
    std::int64_t peak = 0; // optimum when complete (upper_bound when not improved)
    std::vector<NodeId> order;
    std::size_t states = 0; // sets of scheduled nodes visited
};
ExactResult exact_schedule(const GraphFile& file, const Graph& graph, const AliasInfo& alias,
                           const NodeMask& releasable, const StorageMask& counted, std::size_t max_nodes,
                           std::size_t max_states, std::int64_t upper_bound = INT64_MAX,
                           const CancelCheck& cancelled = {});

// Single moves that lower the current peak most. Candidates (bounded work, O(window * span)):
// the nodes within `window` positions of the first peak position; each is tried at the ends of
// its legal range and just across the peak (the node at the peak later, earlier nodes that
// allocate just after it, later nodes that free just before it). Each try is scored with the
// incremental scorer on a copy of `schedule`. Returned best first (lowest peak_after, then the
// shortest move), at most `max_count`, only moves with peak_after < the current peak, at most one
// per node.
struct MoveSuggestion {
    std::size_t from = 0, to = 0; // positions, as IncrementalSchedule::move takes them
    NodeId node;
    std::int64_t peak_after = 0;
};
std::vector<MoveSuggestion> suggest_moves(const IncrementalSchedule& schedule, std::size_t max_count = 5,
                                          std::size_t window = 64);

} // namespace fxmem
