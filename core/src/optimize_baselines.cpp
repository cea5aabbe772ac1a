// Inductor's three peak-memory orders (torch/_inductor/memory.py: topological_sort_lpmf, _bfs,
// _dfs), transcribed onto the optimizer's problem (optimize_problem.h; the mapping is in
// optimize.h). Names follow the Python so the two can be read side by side.
#include "fxmem/optimize.h"

#include "optimize_problem.h"

#include <algorithm>
#include <queue>
#include <tuple>

namespace fxmem {

using detail::OptProblem;

namespace {

// Inductor's buffers here: every buffer (counted storage) of the problem. size_free = its size;
// a pinned buffer (not freeable under MemoryTracker) gets one extra unmet successor, as Inductor
// does for graph outputs, so its outdegree never reaches zero through its users.
std::vector<std::uint32_t> buffer_outdegree(const OptProblem& p) {
    std::vector<std::uint32_t> out(p.size.size());
    for (std::size_t b = 0; b < out.size(); ++b) out[b] = static_cast<std::uint32_t>(p.users_of(b).size()) + (p.freeable[b] ? 0 : 1);
    return out;
}

} // namespace

std::vector<NodeId> inductor_lpmf_order(const GraphFile& file, const Graph& graph, const AliasInfo& alias,
                                        const NodeMask& releasable, const StorageMask& counted) {
    const OptProblem p = detail::build_opt_problem(file, graph, alias, releasable, counted);
    const std::size_t K = p.size_k();
    std::vector<std::uint32_t> indegree(K);
    std::vector<std::int64_t> memory_to_free(K, 0);
    std::vector<std::uint32_t> nodes_to_schedule;  // ready set; the pick is a min with a unique key
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
        // 1. a buffer read by this node is last used by this node
        for (std::uint32_t b : p.uses_of(k))
            if (outdegree[b] == 1) memory_to_free[k] += p.size[b];
        // 2. a buffer written by this node is not used later (never true: such buffers are pinned)
        for (std::uint32_t b : p.outs_of(k))
            if (outdegree[b] == 0) memory_to_free[k] += p.size[b];
    }

    std::vector<std::uint32_t> schedule;
    schedule.reserve(K);
    while (!nodes_to_schedule.empty()) {
        std::size_t best = 0;
        auto key = [&](std::uint32_t k) {
            const std::int64_t size = p.alloc[k];
            return std::make_tuple(size > memory_gap ? size : 0, size - memory_to_free[k], k);
        };
        for (std::size_t i = 1; i < nodes_to_schedule.size(); ++i)
            if (key(nodes_to_schedule[i]) < key(nodes_to_schedule[best])) best = i;
        const std::uint32_t selected = nodes_to_schedule[best];
        nodes_to_schedule[best] = nodes_to_schedule.back();
        nodes_to_schedule.pop_back();
        schedule.push_back(selected);

        live_memory += p.alloc[selected];
        max_memory = std::max(max_memory, live_memory);
        live_memory -= memory_to_free[selected];
        memory_gap = max_memory - live_memory;

        for (std::uint32_t succ : p.succs_of(selected))
            if (--indegree[succ] == 0) nodes_to_schedule.push_back(succ);
        for (std::uint32_t b : p.uses_of(selected))
            if (--outdegree[b] == 1)
                for (std::uint32_t succ : p.users_of(b)) memory_to_free[succ] += p.size[b];
    }
    return p.full_order(schedule);
}

std::vector<NodeId> inductor_bfs_order(const GraphFile& file, const Graph& graph, const AliasInfo& alias,
                                       const NodeMask& releasable, const StorageMask& counted) {
    const OptProblem p = detail::build_opt_problem(file, graph, alias, releasable, counted);
    const std::size_t K = p.size_k();
    struct NodeWithPriority {
        std::vector<std::uint32_t> priority;  // sorted execution orders of the predecessors
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
        std::sort(exec.begin(), exec.end());  // preds are distinct nodes, so orders are distinct
        return exec;
    };
    std::priority_queue<NodeWithPriority> nodes_to_schedule;
    for (std::size_t k = 0; k < K; ++k) {
        indegree[k] = static_cast<std::uint32_t>(p.preds_of(k).size());
        if (indegree[k] == 0) nodes_to_schedule.push({node_priority(static_cast<std::uint32_t>(k)), static_cast<std::uint32_t>(k)});
    }
    std::vector<std::uint32_t> schedule;
    schedule.reserve(K);
    while (!nodes_to_schedule.empty()) {
        const std::uint32_t selected = nodes_to_schedule.top().node;
        nodes_to_schedule.pop();
        order[selected] = static_cast<std::uint32_t>(schedule.size());
        schedule.push_back(selected);
        for (std::uint32_t succ : p.succs_of(selected))
            if (--indegree[succ] == 0) nodes_to_schedule.push({node_priority(succ), succ});
    }
    return p.full_order(schedule);
}

std::vector<NodeId> inductor_dfs_order(const GraphFile& file, const Graph& graph, const AliasInfo& alias,
                                       const NodeMask& releasable, const StorageMask& counted) {
    const OptProblem p = detail::build_opt_problem(file, graph, alias, releasable, counted);
    const std::size_t K = p.size_k();
    std::vector<std::int64_t> size_with_reads(K);
    for (std::size_t k = 0; k < K; ++k) {
        size_with_reads[k] = p.alloc[k];
        for (std::uint32_t b : p.uses_of(k)) size_with_reads[k] += p.size[b];
    }
    auto by_priority = [&](std::uint32_t a, std::uint32_t b) {
        return std::tie(size_with_reads[a], a) < std::tie(size_with_reads[b], b);
    };
    // The dependencies of every node, sorted once as visit() sorts them.
    std::vector<std::uint32_t> deps(p.preds.begin(), p.preds.end());
    for (std::size_t k = 0; k < K; ++k)
        std::sort(deps.begin() + p.pred_begin[k], deps.begin() + p.pred_begin[k + 1], by_priority);

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
    for (std::uint32_t k : all) visit(k);
    return p.full_order(result);
}

} // namespace fxmem
