// optimize_schedule: the best of the original order and Inductor's three, then the exact search
// on small graphs, else an iterated local search with IncrementalSchedule moves around the peak.
//
// Local search: at the first peak position p, try each node within a window around p at a few
// targets (the ends of its legal range, just across the peak, one random legal spot), and as a
// group with its dependants (or inputs) that lie between it and the peak, moved across the peak
// (a node whose users sit right after it cannot cross the peak alone); keep a move
// when the peak drops, or when it stays equal and the peak's position changes (plateau moves, so
// that several positions sharing the peak can be worked on), else move it back. A round without
// improvement ends the descent; then a "kick" of a few random legal moves near the peak restarts
// from the best order so far. It stops at the time limit, on cancel, when the peak reaches the
// lower bound, or after max(kStallKicks, N / 50) kicks in a row that found nothing better.
#include "fxmem/optimize.h"

#include "fxmem/incremental.h"
#include "fxmem/schedule.h"
#include "optimize_problem.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <random>

namespace fxmem {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kWindow = 24;     // positions on each side of the peak
constexpr std::size_t kStallKicks = 60; // kicks in a row without a better order (at least; n / 50 on large graphs)
constexpr std::size_t kMaxGroup = 48;   // nodes moved together in one group move
constexpr double kProgressEvery_s = 0.05;

class Search {
public:
    Search(IncrementalSchedule& schedule, const Graph& graph, const detail::OptProblem& problem, std::uint64_t seed,
           std::int64_t lower_bound, Clock::time_point deadline, const std::function<bool(std::int64_t)>& stop)
        : s_(schedule), graph_(graph), p_(problem), rng_(seed), lower_bound_(lower_bound), deadline_(deadline),
          stop_(stop) {
        if (p_.output.valid()) output_position_ = s_.position_of(p_.output);
    }

    // Returns false when stopped by the deadline or a cancel (the best order is kept either way).
    bool run() {
        best_peak_ = s_.peak();
        best_order_ = s_.order();
        if (s_.size() < 2) return true;
        std::size_t stall = 0;
        const std::size_t patience = std::max(kStallKicks, s_.size() / 50);
        while (best_peak_ > lower_bound_ && stall < patience) {
            const bool finished = descend();
            if (s_.peak() < best_peak_) {
                best_peak_ = s_.peak();
                best_order_ = s_.order();
                undo_.clear();
                stall = 0;
            } else {
                ++stall;
                restore_best();
            }
            if (!finished) return false;
            if (best_peak_ <= lower_bound_) break;
            kick();
        }
        return true;
    }

    std::int64_t best_peak() const { return best_peak_; }
    const std::vector<NodeId>& best_order() const { return best_order_; }

private:
    IncrementalSchedule& s_;
    const Graph& graph_;
    const detail::OptProblem& p_;
    std::optional<std::size_t> output_position_; // the output node stays last
    std::vector<std::size_t> group_;
    std::mt19937_64 rng_;
    std::int64_t lower_bound_;
    Clock::time_point deadline_;
    // Asked now and then with the best peak so far (the caller reports it); true: stop, as a CancelCheck.
    const std::function<bool(std::int64_t)>& stop_;
    std::int64_t best_peak_ = 0;
    std::vector<NodeId> best_order_;
    std::vector<std::pair<std::size_t, std::size_t>> undo_; // moves kept since the best order
    std::size_t checks_ = 0;

    bool alive() {
        if ((++checks_ & 15) != 0) return true;
        if (Clock::now() >= deadline_) return false;
        return !stop_(std::min(best_peak_, s_.peak()));
    }

    std::size_t pick(std::size_t lo, std::size_t hi) { // inclusive
        return std::uniform_int_distribution<std::size_t>(lo, hi)(rng_);
    }

    void keep(std::size_t from, std::size_t to) {
        s_.move(from, to);
        undo_.emplace_back(from, to);
    }

    using Moves = std::vector<std::pair<std::size_t, std::size_t>>;

    // Applies `moves` and keeps them when the peak drops (1), or stays equal at another position
    // (2, a plateau move, taken one time in four); else undoes them (0).
    int attempt(const Moves& moves, std::int64_t& peak, std::size_t& peak_at) {
        if (moves.empty()) return 0;
        for (const auto& [from, to] : moves) s_.move(from, to);
        const std::int64_t now = s_.peak();
        int kept = 0;
        if (now < peak) {
            kept = 1;
        } else if (now == peak) {
            const std::size_t at = s_.peak_position();
            if (at != peak_at && std::uniform_int_distribution<int>(0, 3)(rng_) == 0) kept = 2;
        }
        if (kept) {
            peak = now;
            peak_at = s_.peak_position();
            undo_.insert(undo_.end(), moves.begin(), moves.end());
            return kept;
        }
        for (auto it = moves.rbegin(); it != moves.rend(); ++it) s_.move(it->second, it->first);
        return 0;
    }

    int attempt(std::size_t from, std::size_t to, std::int64_t& peak, std::size_t& peak_at) {
        if (from == to) return 0;
        return attempt(Moves{{from, to}}, peak, peak_at);
    }

    // The node at `q` together with every descendant of it placed in (q, t], moved so that the
    // group ends at t in its own order (later = true); or with every ancestor in [t, q), moved so
    // that the group starts at t (later = false). Each single move of the sequence is legal: a
    // group member's successors inside the span are group members already moved past it.
    // Empty when the group would exceed kMaxGroup nodes or cross the output node.
    Moves group_moves(std::size_t q, std::size_t t, bool later) {
        Moves moves;
        const std::size_t lo = later ? q : t, hi = later ? t : q;
        if (output_position_ && hi >= *output_position_) return moves;
        group_.clear();
        group_.push_back(q);
        auto add = [&](NodeId node) {
            const std::size_t pos = s_.position_of(node);
            if (pos < lo || pos > hi || std::find(group_.begin(), group_.end(), pos) != group_.end()) return true;
            group_.push_back(pos);
            return group_.size() <= kMaxGroup;
        };
        for (std::size_t i = 0; i < group_.size(); ++i) {
            const NodeId node = s_.at(group_[i]);
            const std::int32_t k = p_.index_of[node.index()];
            if (k < 0) {
                if (later) return {}; // a placeholder or get_attr: nothing depends on its place
                continue;             // pulled along as an input; it has no inputs itself
            }
            for (std::uint32_t other :
                 later ? p_.succs_of(static_cast<std::size_t>(k)) : p_.preds_of(static_cast<std::size_t>(k)))
                if (!add(p_.nodes[other])) return {};
            if (!later) // inputs outside the scheduler nodes (placeholders, get_attr) sit in the schedule too
                for (NodeId in : graph_.inputs(node))
                    if (p_.index_of[in.index()] < 0 && !add(in)) return {};
        }
        if (later) {
            std::sort(group_.begin(), group_.end(), std::greater<>());
            std::size_t target = t;
            for (std::size_t pos : group_) moves.emplace_back(pos, target--);
        } else {
            std::sort(group_.begin(), group_.end());
            std::size_t target = t;
            for (std::size_t pos : group_) moves.emplace_back(pos, target++);
        }
        std::erase_if(moves, [](const auto& m) { return m.first == m.second; });
        return moves;
    }

    // Local descent until a window round changes nothing (or too many plateau moves).
    // False when time is up or cancelled.
    bool descend() {
        std::int64_t peak = s_.peak();
        std::size_t peak_at = s_.peak_position();
        const std::size_t n = s_.size();
        std::size_t plateau = 0;
        for (;;) {
            int changed = 0;
            const std::size_t lo = peak_at > kWindow ? peak_at - kWindow : 0;
            const std::size_t hi = std::min(n - 1, peak_at + kWindow);
            for (std::size_t q = lo; q <= hi && !changed; ++q) {
                if (!alive()) return false;
                const auto r = s_.legal_range(q);
                if (r.lo < r.hi) {
                    std::size_t targets[3];
                    std::size_t count = 0;
                    if (q <= peak_at) {
                        targets[count++] = r.hi;
                        if (peak_at <= r.hi) targets[count++] = peak_at;
                    } else {
                        targets[count++] = r.lo;
                        if (peak_at >= r.lo) targets[count++] = peak_at;
                    }
                    targets[count++] = pick(r.lo, r.hi);
                    for (std::size_t t = 0; t < count && !changed; ++t) changed = attempt(q, targets[t], peak, peak_at);
                }
                // Groups across the peak: a node before it with its dependants in between, moved
                // just after it (or a little further); a node after it with its inputs in between,
                // moved just before it.
                if (changed) break;
                if (q <= peak_at && peak_at + 1 < n) {
                    const std::size_t t = q == peak_at ? peak_at + 1 : peak_at;
                    changed = attempt(group_moves(q, t, true), peak, peak_at);
                    if (!changed && t + 1 < n)
                        changed =
                            attempt(group_moves(q, pick(t + 1, std::min(n - 1, t + kWindow)), true), peak, peak_at);
                } else if (q > peak_at) {
                    changed = attempt(group_moves(q, peak_at, false), peak, peak_at);
                    if (!changed && peak_at > 0)
                        changed =
                            attempt(group_moves(q, pick(peak_at > kWindow ? peak_at - kWindow : 0, peak_at - 1), false),
                                    peak, peak_at);
                }
            }
            if (changed == 0) return true;
            if (changed == 2 && ++plateau > 4 * kWindow) return true;
        }
    }

    // Back to the best order: undo the kept moves, last first (each move is a rotation that the
    // opposite move reverts exactly).
    void restore_best() {
        for (auto it = undo_.rbegin(); it != undo_.rend(); ++it) s_.move(it->second, it->first);
        undo_.clear();
    }

    void kick() {
        const std::size_t n = s_.size();
        const std::size_t at = s_.peak_position();
        const int moves = 1 + static_cast<int>(pick(0, 3));
        for (int i = 0; i < moves; ++i) {
            const std::size_t q = pick(at > 2 * kWindow ? at - 2 * kWindow : 0, std::min(n - 1, at + 2 * kWindow));
            const auto r = s_.legal_range(q);
            if (r.lo < r.hi) keep(q, pick(r.lo, r.hi));
        }
    }
};

} // namespace

OptimizeResult optimize_schedule(const GraphFile& file, const Graph& graph, const AliasInfo& alias,
                                 const NodeMask& releasable, const StorageMask& counted,
                                 const OptimizeOptions& options) {
    const auto started = Clock::now();
    // At most 1e7 s (a larger one would overflow the clock); negative or NaN: none.
    const double limit_s = options.time_limit_s >= 0 ? std::min(options.time_limit_s, 1e7) : 0.0;
    const auto deadline = started + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit_s));
    OptimizeResult r;
    OptimizeProgress progress;
    auto last_report = started - std::chrono::seconds(1);
    // Reports progress (throttled unless forced).
    auto report = [&](OptimizeProgress::Phase phase, std::int64_t best, bool force) {
        if (!options.progress) return;
        const auto now = Clock::now();
        if (!force && std::chrono::duration<double>(now - last_report).count() < kProgressEvery_s) return;
        last_report = now;
        progress.phase = phase;
        progress.elapsed_s = std::chrono::duration<double>(now - started).count();
        progress.fraction = options.time_limit_s > 0 ? std::min(1.0, progress.elapsed_s / options.time_limit_s) : 1.0;
        progress.best_peak = best;
        progress.lower_bound = r.lower_bound;
        options.progress(progress);
    };
    // The caller's cancel flag (cheap, unthrottled); sticky: once it said stop it is not asked again.
    auto cancelled = [&] {
        if (!r.cancelled && options.cancelled && options.cancelled()) r.cancelled = true;
        return r.cancelled;
    };
    OptimizeProgress::Phase phase = OptimizeProgress::Phase::Baselines;
    // Inside the long phases: the time limit (it counts the lower bound and the baselines too), the
    // cancel flag, and progress (throttled) now and then.
    detail::CancelPoll poll([&] {
        if (Clock::now() >= deadline || cancelled()) return true;
        report(phase, r.peak, false);
        return false;
    });

    auto score = [&](const std::vector<NodeId>& order) {
        return score_schedule(file, graph, alias, order, releasable, counted).peak;
    };
    r.order = original_order(graph);
    r.original_peak = r.peak = score(r.order);
    r.method = "original";
    const detail::OptProblem problem = detail::build_opt_problem(file, graph, alias, releasable, counted);
    r.lower_bound = detail::lower_bound(problem, kAncestorSetsMaxNodes, poll); // valid even when cut short
    if (poll.stopped() || cancelled()) return r;
    report(OptimizeProgress::Phase::Baselines, r.peak, true);
    if (cancelled()) return r;
    auto consider = [&](std::vector<NodeId> order, std::optional<std::int64_t>& slot, const char* method) {
        if (poll.stopped()) return false; // cut short: no order
        check_schedule(graph, order);
        slot = score(order);
        if (*slot < r.peak) {
            r.peak = *slot;
            r.order = std::move(order);
            r.method = method;
        }
        return !cancelled();
    };
    // Each baseline costs up to about a second at 1M nodes: the poll stops them inside.
    if (!consider(detail::lpmf_order(problem, poll), r.lpmf_peak, "lpmf")) return r;
    if (!consider(detail::bfs_order(problem, poll), r.bfs_peak, "bfs")) return r;
    if (!consider(detail::dfs_order(problem, poll), r.dfs_peak, "dfs")) return r;

    auto finish = [&] {
        if (r.exact) r.lower_bound = r.peak;
        report(OptimizeProgress::Phase::Done, r.peak, true);
        return r;
    };
    if (r.peak <= r.lower_bound) {
        r.exact = true;
        return finish();
    }
    const bool try_exact = problem.size_k() <= options.exact_max_nodes && !problem.nonrunning_users;

    // The local search first: on small graphs it gets 30 % of the time (it usually stops much
    // earlier) and hands the exact search a tight bound to prune with.
    phase = OptimizeProgress::Phase::Search;
    report(OptimizeProgress::Phase::Search, r.peak, true);
    if (cancelled()) return r;
    {
        IncrementalSchedule schedule(file, graph, alias, releasable, counted, r.order);
        const std::function<bool(std::int64_t)> stop = [&](std::int64_t best) {
            if (cancelled()) return true;
            report(OptimizeProgress::Phase::Search, best, false);
            return false;
        };
        const auto search_deadline = try_exact ? started + (deadline - started) * 3 / 10 : deadline;
        Search search(schedule, graph, problem, options.seed, r.lower_bound, search_deadline, stop);
        search.run();
        if (search.best_peak() < r.peak) {
            r.order = search.best_order();
            r.peak = score(r.order);
            r.method = "search";
        }
    }
    if (r.cancelled) return r;
    if (r.peak <= r.lower_bound) {
        r.exact = true;
        return finish();
    }
    phase = OptimizeProgress::Phase::Exact;
    if (try_exact) report(OptimizeProgress::Phase::Exact, r.peak, true);
    if (try_exact && !cancelled()) {
        const CancelCheck stop = [&] {
            if (Clock::now() >= deadline || cancelled()) return true;
            report(OptimizeProgress::Phase::Exact, r.peak, false);
            return false;
        };
        ExactResult e = detail::exact(problem, options.exact_max_nodes, options.exact_max_states, r.peak, stop);
        if (e.complete) {
            if (e.improved) {
                r.order = std::move(e.order);
                r.peak = score(r.order);
                r.method = "exact";
            }
            r.exact = true;
        }
    }
    if (r.cancelled) return r;
    return finish();
}

} // namespace fxmem
