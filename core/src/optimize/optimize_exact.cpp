// exact_schedule: dynamic programming over the sets of scheduled nodes. Under MemoryTracker
// semantics the memory after a set S of scheduled nodes does not depend on their order:
//   mem(S) = start + alloc(S) - size of the freeable buffers all of whose users are in S
// (a freeable buffer is freed when its last user runs, and every user runs). So the least peak
// over the orders of S, f(S), satisfies f(S + v) = min over v of max(f(S), mem(S) + alloc(v)),
// over the nodes v whose predecessors are all in S. Sets are built level by level (|S| = 0, 1, ...)
// in hash maps keyed by the bitset; each state keeps its parent's index for the reconstruction.
// With an upper bound U, states with f >= U are dropped: what remains can only lead to orders
// strictly better than U, and an empty last level proves that U is optimal. A state is also dropped
// when some node not yet scheduled must peak at U or more: while it runs, the pinned buffers
// allocated so far (never freed), the buffers it uses and its own allocations are all live.
#include "fxmem/optimize.h"

#include "optimize_problem.h"

#include <algorithm>
#include <array>
#include <unordered_map>
#include <vector>

namespace fxmem {

namespace {

using detail::OptProblem;

template <std::size_t W>
struct Key {
    std::array<std::uint64_t, W> w{};
    bool has(std::size_t i) const { return (w[i / 64] >> (i % 64)) & 1; }
    void set(std::size_t i) { w[i / 64] |= std::uint64_t{1} << (i % 64); }
    bool covers(const Key& o) const { // o is a subset of this
        for (std::size_t i = 0; i < W; ++i)
            if (o.w[i] & ~w[i]) return false;
        return true;
    }
    friend bool operator==(const Key&, const Key&) = default;
};

template <std::size_t W>
struct KeyHash {
    std::size_t operator()(const Key<W>& k) const noexcept {
        std::uint64_t h = 0x9e3779b97f4a7c15ull;
        for (std::uint64_t x : k.w) {
            h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
            h *= 0xff51afd7ed558ccdull;
        }
        return static_cast<std::size_t>(h ^ (h >> 33));
    }
};

template <std::size_t W>
struct State {
    Key<W> key;
    std::int64_t f = 0;      // least peak over the orders of the set
    std::int64_t mem = 0;    // memory after the set
    std::int64_t pinned = 0; // pinned buffers allocated by the set or the prefix
    std::uint32_t parent = 0;
    std::uint32_t last = 0; // node added last
};

template <std::size_t W>
ExactResult solve(const OptProblem& p, std::size_t max_states, std::int64_t upper_bound, const CancelCheck& cancelled) {
    ExactResult out;
    const std::size_t K = p.size_k();
    // Asked inside the loops (a level can hold up to max_states sets, each tried with K nodes).
    detail::CancelPoll poll(cancelled);
    std::vector<Key<W>> pred(K);
    for (std::size_t k = 0; k < K; ++k)
        for (std::uint32_t j : p.preds_of(k)) pred[k].set(j);
    std::vector<Key<W>> users(p.size.size());
    for (std::size_t b = 0; b < p.size.size(); ++b)
        for (std::uint32_t u : p.users_of(b)) users[b].set(u);

    std::vector<std::int64_t> pinned_alloc(K, 0);
    std::int64_t prefix_pinned = 0;
    for (std::size_t b = 0; b < p.size.size(); ++b)
        if (!p.freeable[b])
            (p.allocator[b] < 0 ? prefix_pinned : pinned_alloc[static_cast<std::size_t>(p.allocator[b])]) += p.size[b];
    // Least peak still to come after the set `key` (pinned bytes `pinned`), by the argument above.
    auto to_come = [&](const Key<W>& key, std::int64_t pinned) {
        std::int64_t most = 0;
        for (std::size_t v = 0; v < K; ++v) {
            if (key.has(v) || !p.runs[v]) continue;
            std::int64_t live = pinned + p.alloc[v];
            for (std::uint32_t b : p.uses_of(v)) {
                const std::int32_t a = p.allocator[b];
                if (p.freeable[b] || (a >= 0 && !key.has(static_cast<std::size_t>(a)))) live += p.size[b];
            }
            most = std::max(most, live);
        }
        return most;
    };

    std::vector<std::vector<State<W>>> levels(1);
    levels[0].push_back(State<W>{Key<W>{}, p.start, p.start, prefix_pinned, 0, 0});
    if (p.start >= upper_bound) {
        out.complete = true;
        out.peak = upper_bound;
        return out;
    }
    std::size_t states = 1;
    std::unordered_map<Key<W>, std::uint32_t, KeyHash<W>> index;
    for (std::size_t level = 0; level < K; ++level) {
        const auto& cur = levels[level];
        std::vector<State<W>> next;
        index.clear();
        for (std::uint32_t i = 0; i < cur.size(); ++i) {
            const State<W>& s = cur[i];
            if (poll.stop(K)) {
                out.states = states;
                return out;
            }
            for (std::size_t v = 0; v < K; ++v) {
                if (s.key.has(v) || !s.key.covers(pred[v])) continue;
                const std::int64_t f = std::max(s.f, s.mem + p.alloc[v]);
                if (f >= upper_bound) continue;
                Key<W> key = s.key;
                key.set(v);
                auto [it, fresh] = index.try_emplace(key, static_cast<std::uint32_t>(next.size()));
                if (!fresh) {
                    State<W>& t = next[it->second];
                    if (f < t.f && t.f < upper_bound) {
                        t.f = f;
                        t.parent = i;
                        t.last = static_cast<std::uint32_t>(v);
                    }
                    continue;
                }
                std::int64_t mem = s.mem + p.alloc[v];
                if (p.runs[v])
                    for (std::uint32_t b : p.uses_of(v))
                        if (p.freeable[b] && key.covers(users[b])) mem -= p.size[b];
                const std::int64_t pinned = s.pinned + pinned_alloc[v];
                // A dead state stays in the level (so that other paths to it are not rebuilt) with
                // f at the bound: it has no successors and is dropped before the next level.
                const bool dead = to_come(key, pinned) >= upper_bound;
                next.push_back(State<W>{key, dead ? upper_bound : f, mem, pinned, i, static_cast<std::uint32_t>(v)});
                if (++states > max_states || poll.stop(K)) {
                    out.states = states;
                    return out;
                }
            }
        }
        std::erase_if(next, [&](const State<W>& t) { return t.f >= upper_bound; });
        if (next.empty()) { // nothing beats the upper bound
            out.complete = true;
            out.peak = upper_bound;
            out.states = states;
            return out;
        }
        levels.push_back(std::move(next));
    }
    const State<W>& last = levels[K][0];
    std::vector<std::uint32_t> sched(K);
    std::uint32_t at = 0;
    for (std::size_t level = K; level > 0; --level) {
        const State<W>& s = levels[level][at];
        sched[level - 1] = s.last;
        at = s.parent;
    }
    out.complete = true;
    out.improved = true;
    out.peak = last.f;
    out.order = p.full_order(sched);
    out.states = states;
    return out;
}

} // namespace

ExactResult detail::exact(const OptProblem& p, std::size_t max_nodes, std::size_t max_states, std::int64_t upper_bound,
                          const CancelCheck& cancelled) {
    const std::size_t K = p.size_k();
    // A freeable buffer whose last user does not run is never freed: the memory after a set then
    // depends on the order inside it, and the DP above does not apply.
    if (K > max_nodes || p.nonrunning_users) return {};
    if (K <= 64) return solve<1>(p, max_states, upper_bound, cancelled);
    if (K <= 128) return solve<2>(p, max_states, upper_bound, cancelled);
    if (K <= 256) return solve<4>(p, max_states, upper_bound, cancelled);
    if (K <= 512) return solve<8>(p, max_states, upper_bound, cancelled);
    return {};
}

ExactResult exact_schedule(const GraphFile& file, const Graph& graph, const AliasInfo& alias,
                           const NodeMask& releasable, const StorageMask& counted, std::size_t max_nodes,
                           std::size_t max_states, std::int64_t upper_bound, const CancelCheck& cancelled) {
    return detail::exact(detail::build_opt_problem(file, graph, alias, releasable, counted), max_nodes, max_states,
                         upper_bound, cancelled);
}

} // namespace fxmem
