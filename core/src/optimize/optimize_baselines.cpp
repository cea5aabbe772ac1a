// Inductor's three peak-memory orders (torch/_inductor/memory.py: topological_sort_lpmf, _bfs,
// _dfs), transcribed onto the optimizer's problem (optimize_problem.h; the mapping is in
// optimize.h). Names follow the Python so the two can be read side by side.
#include "fxmem/optimize.h"

#include "optimize_problem.h"

#include <algorithm>
#include <queue>
#include <tuple>

namespace fxmem {

using detail::CancelPoll;
using detail::OptProblem;

namespace {

// Inductor's buffers here: every buffer (counted storage) of the problem. size_free = its size;
// a pinned buffer (not freeable under MemoryTracker) gets one extra unmet successor, as Inductor
// does for graph outputs, so its outdegree never reaches zero through its users.
std::vector<std::uint32_t> buffer_outdegree(const OptProblem& p) {
    std::vector<std::uint32_t> out(p.size.size());
    for (std::size_t b = 0; b < out.size(); ++b)
        out[b] = static_cast<std::uint32_t>(p.users_of(b).size()) + (p.freeable[b] ? 0 : 1);
    return out;
}

// Minimum over index ranges, with point updates: an iterative segment tree.
template <class T>
class MinTree {
public:
    MinTree(std::size_t n, T none) : n_(std::max<std::size_t>(n, 1)), none_(none), t_(2 * n_, none) {}
    void set(std::size_t i, T v) {
        i += n_;
        t_[i] = v;
        for (i /= 2; i >= 1; i /= 2) t_[i] = std::min(t_[2 * i], t_[2 * i + 1]);
    }
    T min(std::size_t lo, std::size_t hi) const { // [lo, hi)
        T r = none_;
        for (lo += n_, hi += n_; lo < hi; lo /= 2, hi /= 2) {
            if (lo & 1) r = std::min(r, t_[lo++]);
            if (hi & 1) r = std::min(r, t_[--hi]);
        }
        return r;
    }

private:
    std::size_t n_;
    T none_;
    std::vector<T> t_;
};

} // namespace

std::vector<NodeId> detail::lpmf_order(const OptProblem& p, CancelPoll& poll) {
    const std::size_t K = p.size_k();
    std::vector<std::uint32_t> indegree(K);
    std::vector<std::int64_t> memory_to_free(K, 0);
    std::vector<std::uint32_t> nodes_to_schedule; // initially ready
    for (std::size_t k = 0; k < K; ++k) {
        indegree[k] = static_cast<std::uint32_t>(p.preds_of(k).size());
        if (indegree[k] == 0) nodes_to_schedule.push_back(static_cast<std::uint32_t>(k));
    }
    std::vector<std::uint32_t> outdegree = buffer_outdegree(p);

    std::int64_t live_memory = p.start;
    const std::int64_t output_memory = p.output_bytes;
    std::int64_t max_memory = std::max(live_memory, output_memory);
    std::int64_t memory_gap = max_memory - live_memory;

    for (std::size_t k = 0; k < K; ++k) {
        if (poll.stop(1 + p.uses_of(k).size() + p.outs_of(k).size())) return {};
        // 1. a buffer read by this node is last used by this node
        for (std::uint32_t b : p.uses_of(k))
            if (outdegree[b] == 1) memory_to_free[k] += p.size[b];
        // 2. a buffer written by this node is not used later (never true: such buffers are pinned)
        for (std::uint32_t b : p.outs_of(k))
            if (outdegree[b] == 0) memory_to_free[k] += p.size[b];
    }

    // Inductor scans the ready set for min(key) at every pick: O(N x ready), hours on a wide
    // graph of a million nodes. The same pick in O(log N): ready nodes sit in two min-trees over
    // their rank by (size, index); nodes with size <= gap (first key 0) form a prefix of that
    // order, where the min of (size - memory_to_free, index) wins; when there are none, the min
    // of (size, size - memory_to_free, index) over the rest.
    std::vector<std::uint32_t> by_size(K), rank(K);
    for (std::size_t k = 0; k < K; ++k) by_size[k] = static_cast<std::uint32_t>(k);
    std::sort(by_size.begin(), by_size.end(),
              [&](std::uint32_t a, std::uint32_t b) { return std::tie(p.alloc[a], a) < std::tie(p.alloc[b], b); });
    for (std::size_t r = 0; r < K; ++r) rank[by_size[r]] = static_cast<std::uint32_t>(r);
    using Key = std::tuple<std::int64_t, std::int64_t, std::uint32_t>;
    const Key none{INT64_MAX, INT64_MAX, UINT32_MAX};
    MinTree<Key> within_gap(K, none), above_gap(K, none);
    auto enter = [&](std::uint32_t k) {
        within_gap.set(rank[k], Key{p.alloc[k] - memory_to_free[k], k, 0}); // (size - free, index)
        above_gap.set(rank[k], Key{p.alloc[k], p.alloc[k] - memory_to_free[k], k});
    };
    std::vector<std::uint8_t> ready(K, 0);
    for (std::uint32_t k : nodes_to_schedule) {
        ready[k] = 1;
        enter(k);
    }

    std::vector<std::uint32_t> schedule;
    schedule.reserve(K);
    for (std::size_t left = nodes_to_schedule.size(); left > 0; --left) {
        if (poll.stop()) return {};
        const std::size_t split = static_cast<std::size_t>(
            std::upper_bound(by_size.begin(), by_size.end(), memory_gap,
                             [&](std::int64_t gap, std::uint32_t k) { return gap < p.alloc[k]; }) -
            by_size.begin());
        const Key a = within_gap.min(0, split);
        const std::uint32_t selected =
            a != none ? static_cast<std::uint32_t>(std::get<1>(a)) : std::get<2>(above_gap.min(split, K));
        ready[selected] = 0;
        within_gap.set(rank[selected], none);
        above_gap.set(rank[selected], none);
        schedule.push_back(selected);

        live_memory += p.alloc[selected];
        max_memory = std::max(max_memory, live_memory);
        live_memory -= memory_to_free[selected];
        memory_gap = max_memory - live_memory;

        for (std::uint32_t succ : p.succs_of(selected))
            if (--indegree[succ] == 0) {
                ready[succ] = 1;
                enter(succ);
                ++left;
            }
        poll.stop(p.succs_of(selected).size() + p.uses_of(selected).size());
        for (std::uint32_t b : p.uses_of(selected))
            if (--outdegree[b] == 1)
                for (std::uint32_t succ : p.users_of(b)) {
                    memory_to_free[succ] += p.size[b];
                    if (ready[succ]) enter(succ);
                }
    }
    return p.full_order(schedule);
}

std::vector<NodeId> detail::bfs_order(const OptProblem& p, CancelPoll& poll) {
    const std::size_t K = p.size_k();
    struct NodeWithPriority {
        std::vector<std::uint32_t> priority; // sorted execution orders of the predecessors
        std::uint32_t node;
        // std::priority_queue pops the largest: invert Python's __lt__ (a min-heap).
        bool operator<(const NodeWithPriority& o) const {
            if (priority == o.priority) return node > o.node;
            return o.priority < priority;
        }
    };
    std::vector<std::uint32_t> indegree(K), order(K, 0);
    auto node_priority = [&](std::uint32_t k) {
        std::vector<std::uint32_t> exec;
        for (std::uint32_t pred : p.preds_of(k)) exec.push_back(order[pred]);
        std::sort(exec.begin(), exec.end()); // preds are distinct nodes, so orders are distinct
        return exec;
    };
    std::priority_queue<NodeWithPriority> nodes_to_schedule;
    for (std::size_t k = 0; k < K; ++k) {
        indegree[k] = static_cast<std::uint32_t>(p.preds_of(k).size());
        if (indegree[k] == 0)
            nodes_to_schedule.push({node_priority(static_cast<std::uint32_t>(k)), static_cast<std::uint32_t>(k)});
    }
    std::vector<std::uint32_t> schedule;
    schedule.reserve(K);
    while (!nodes_to_schedule.empty()) {
        if (poll.stop(1 + nodes_to_schedule.top().priority.size())) return {};
        const std::uint32_t selected = nodes_to_schedule.top().node;
        nodes_to_schedule.pop();
        order[selected] = static_cast<std::uint32_t>(schedule.size());
        schedule.push_back(selected);
        for (std::uint32_t succ : p.succs_of(selected))
            if (--indegree[succ] == 0) nodes_to_schedule.push({node_priority(succ), succ});
    }
    return p.full_order(schedule);
}

std::vector<NodeId> detail::dfs_order(const OptProblem& p, CancelPoll& poll) {
    const std::size_t K = p.size_k();
    std::vector<std::int64_t> size_with_reads(K);
    for (std::size_t k = 0; k < K; ++k) {
        if (poll.stop(1 + p.uses_of(k).size())) return {};
        size_with_reads[k] = p.alloc[k];
        for (std::uint32_t b : p.uses_of(k)) size_with_reads[k] += p.size[b];
    }
    auto by_priority = [&](std::uint32_t a, std::uint32_t b) {
        return std::tie(size_with_reads[a], a) < std::tie(size_with_reads[b], b);
    };
    // The dependencies of every node, sorted once as visit() sorts them.
    std::vector<std::uint32_t> deps(p.preds.begin(), p.preds.end());
    for (std::size_t k = 0; k < K; ++k) {
        if (poll.stop(1 + p.preds_of(k).size())) return {};
        std::sort(deps.begin() + p.pred_begin[k], deps.begin() + p.pred_begin[k + 1], by_priority);
    }

    std::vector<std::uint8_t> seen(K, 0);
    std::vector<std::uint32_t> result;
    result.reserve(K);
    // visit() with an explicit stack (graphs can be deeper than the call stack): a frame is a node
    // and the next of its sorted dependencies to visit.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> stack;
    auto visit = [&](std::uint32_t root) {
        if (seen[root]) return;
        seen[root] = 1;
        stack.emplace_back(root, p.pred_begin[root]);
        while (!stack.empty()) {
            if (poll.stop()) return;
            auto& [n, next] = stack.back();
            if (next < p.pred_begin[n + 1]) {
                const std::uint32_t dep = deps[next++];
                if (!seen[dep]) {
                    seen[dep] = 1;
                    stack.emplace_back(dep, p.pred_begin[dep]);
                }
            } else {
                result.push_back(n);
                stack.pop_back();
            }
        }
    };
    std::vector<std::uint32_t> all(K);
    for (std::size_t k = 0; k < K; ++k) all[k] = static_cast<std::uint32_t>(k);
    std::sort(all.begin(), all.end(), by_priority);
    for (std::uint32_t k : all) {
        visit(k);
        if (poll.stopped()) return {};
    }
    return p.full_order(result);
}

std::vector<NodeId> inductor_lpmf_order(const GraphFile& file, const Graph& graph, const AliasInfo& alias,
                                        const NodeMask& releasable, const StorageMask& counted) {
    detail::CancelPoll never;
    return detail::lpmf_order(detail::build_opt_problem(file, graph, alias, releasable, counted), never);
}

std::vector<NodeId> inductor_bfs_order(const GraphFile& file, const Graph& graph, const AliasInfo& alias,
                                       const NodeMask& releasable, const StorageMask& counted) {
    detail::CancelPoll never;
    return detail::bfs_order(detail::build_opt_problem(file, graph, alias, releasable, counted), never);
}

std::vector<NodeId> inductor_dfs_order(const GraphFile& file, const Graph& graph, const AliasInfo& alias,
                                       const NodeMask& releasable, const StorageMask& counted) {
    detail::CancelPoll never;
    return detail::dfs_order(detail::build_opt_problem(file, graph, alias, releasable, counted), never);
}

} // namespace fxmem
