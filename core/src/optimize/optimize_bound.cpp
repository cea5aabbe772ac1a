// peak_lower_bound: bytes that are live while a node runs in every legal order, max over nodes.
// Proof and figures: docs/estimator.md, "Optimizer and lower bound".
#include "fxmem/optimize.h"

#include "optimize_problem.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace fxmem {

namespace {

using detail::CancelPoll;
using detail::OptProblem;

std::int64_t end_memory(const OptProblem& p) {
    std::int64_t end = p.start;
    for (std::int64_t a : p.alloc) end += a;
    for (std::size_t b = 0; b < p.size.size(); ++b)
        if (p.freeable[b]) end -= p.size[b];
    return end;
}

// Per running node v, the sum over buffers b with (b's allocator is v, an ancestor of v, or the
// prefix) and (b is pinned, or v or a descendant of v uses b).
std::int64_t bitset_bound(const OptProblem& p, CancelPoll& poll) {
    const std::size_t K = p.size_k();
    const std::size_t W = (K + 63) / 64;
    std::vector<std::uint64_t> anc(K * W, 0); // strict ancestors; graph order is topological
    auto row = [&](std::size_t k) { return anc.data() + k * W; };
    for (std::size_t k = 0; k < K; ++k) {
        if (poll.stop(1 + p.preds_of(k).size() * W)) return 0;
        for (std::uint32_t j : p.preds_of(k)) {
            std::uint64_t* r = row(k);
            const std::uint64_t* q = row(j);
            for (std::size_t w = 0; w < W; ++w) r[w] |= q[w];
            r[j / 64] |= std::uint64_t{1} << (j % 64);
        }
    }
    auto is_anc = [&](std::size_t a, std::size_t v) { return (row(v)[a / 64] >> (a % 64)) & 1; };

    std::vector<std::int64_t> total(K, 0);
    std::vector<std::uint64_t> reach(W);
    for (std::size_t b = 0; b < p.size.size(); ++b) {
        const std::int32_t a = p.allocator[b];
        const std::size_t from = a < 0 ? 0 : static_cast<std::size_t>(a);
        if (poll.stop(K - from + (1 + p.users_of(b).size()) * W)) return 0;
        if (!p.freeable[b]) {
            for (std::size_t v = from; v < K; ++v)
                if (a < 0 || v == from || is_anc(from, v)) total[v] += p.size[b];
            continue;
        }
        // Nodes that are a user or an ancestor of one.
        std::fill(reach.begin(), reach.end(), 0);
        for (std::uint32_t u : p.users_of(b)) {
            const std::uint64_t* r = row(u);
            for (std::size_t w = 0; w < W; ++w) reach[w] |= r[w];
            reach[u / 64] |= std::uint64_t{1} << (u % 64);
        }
        for (std::size_t w = from / 64; w < W; ++w)
            for (std::uint64_t bits = reach[w]; bits; bits &= bits - 1) {
                const std::size_t v = w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits));
                if (v < from) continue;
                if (a < 0 || v == from || is_anc(from, v)) total[v] += p.size[b];
            }
    }
    std::int64_t best = 0;
    for (std::size_t v = 0; v < K; ++v)
        if (p.runs[v]) best = std::max(best, total[v]);
    return best;
}

// O(N + E): per running node v, disjoint parts of what is live while it runs: its allocations, the
// buffers it uses, the pinned prefix buffers it does not use, and the pinned buffers allocated
// along its heaviest chain of ancestors less the pinned ones it uses (they may be on the chain).
std::int64_t chain_bound(const OptProblem& p, CancelPoll& poll) {
    const std::size_t K = p.size_k();
    std::int64_t prefix_pinned = 0;
    std::vector<std::int64_t> pinned_alloc(K, 0);
    for (std::size_t b = 0; b < p.size.size(); ++b) {
        if (p.freeable[b]) continue;
        if (p.allocator[b] < 0)
            prefix_pinned += p.size[b];
        else
            pinned_alloc[static_cast<std::size_t>(p.allocator[b])] += p.size[b];
    }
    std::vector<std::int64_t> chain(K, 0); // pinned bytes along the heaviest chain ending at k (inclusive)
    std::int64_t best = 0;
    for (std::size_t v = 0; v < K; ++v) {
        if (poll.stop(1 + p.preds_of(v).size() + p.uses_of(v).size())) return 0;
        std::int64_t before = 0;
        for (std::uint32_t j : p.preds_of(v)) before = std::max(before, chain[j]);
        chain[v] = before + pinned_alloc[v];
        if (!p.runs[v]) continue;
        std::int64_t used = 0, used_prefix_pinned = 0, used_pinned = 0;
        for (std::uint32_t b : p.uses_of(v)) {
            used += p.size[b];
            if (p.freeable[b]) continue;
            (p.allocator[b] < 0 ? used_prefix_pinned : used_pinned) += p.size[b];
        }
        const std::int64_t live =
            p.alloc[v] + used + (prefix_pinned - used_prefix_pinned) + std::max<std::int64_t>(0, before - used_pinned);
        best = std::max(best, live);
    }
    return best;
}

// The last node that runs, w, has no descendant that runs. When it runs every pinned buffer has
// been allocated, and the freeable buffers it uses are still live (it is one of their users). So
// the peak is at least every pinned byte plus the least, over such w, of the freeable bytes w uses.
// O(N + E).
std::int64_t last_node_bound(const OptProblem& p, CancelPoll& poll) {
    const std::size_t K = p.size_k();
    std::int64_t pinned = 0;
    for (std::size_t b = 0; b < p.size.size(); ++b)
        if (!p.freeable[b]) pinned += p.size[b];
    std::vector<std::uint8_t> running_below(K, 0); // a descendant runs; graph order is topological
    std::int64_t least = INT64_MAX;
    for (std::size_t k = K; k-- > 0;) {
        if (poll.stop(1 + p.succs_of(k).size() + p.uses_of(k).size())) return 0;
        for (std::uint32_t u : p.succs_of(k))
            if (p.runs[u] || running_below[u]) running_below[k] = 1;
        if (!p.runs[k] || running_below[k]) continue;
        std::int64_t used = 0;
        for (std::uint32_t b : p.uses_of(k))
            if (p.freeable[b]) used += p.size[b];
        least = std::min(least, used);
    }
    return least == INT64_MAX ? 0 : pinned + least;
}

} // namespace

std::int64_t detail::lower_bound(const OptProblem& p, std::size_t ancestor_sets_max_nodes, CancelPoll& poll) {
    // Each part is a valid bound by itself; a part cut short by a cancel counts as 0.
    const std::int64_t nodes = p.size_k() <= ancestor_sets_max_nodes ? bitset_bound(p, poll) : chain_bound(p, poll);
    const std::int64_t last = last_node_bound(p, poll);
    return std::max({p.start, end_memory(p), nodes, last});
}

std::int64_t peak_lower_bound(const GraphFile& file, const Graph& graph, const AliasInfo& alias,
                              const NodeMask& releasable, const StorageMask& counted,
                              std::size_t ancestor_sets_max_nodes) {
    detail::CancelPoll never;
    return detail::lower_bound(detail::build_opt_problem(file, graph, alias, releasable, counted),
                               ancestor_sets_max_nodes, never);
}

} // namespace fxmem
