// search_remat: greedy search over saved sets, each partition simulated and scored exactly.
#include "fxmem/error.h"
#include "fxmem/optimize.h"
#include "fxmem/remat.h"
#include "model/quote.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <tuple>

namespace fxmem {

namespace {

using Clock = std::chrono::steady_clock;

struct State {
    std::vector<NodeId> saved; // as simulated (used saved values)
    Partition partition;
    PeakMemory peak;
    std::int64_t saved_bytes = 0; // counted bytes of the saved values' storages, each storage once
    std::int64_t extra = 0;
    std::vector<NodeId> order; // backward order when not the simulated one
};

class Search {
public:
    Search(const JointGraph& j, const RematOptions& o) : j_(j), o_(o), start_(Clock::now()) {
        counted_ = default_counted(*j.file);
        storages_ = storage_template(j);
        deadline_ = o.optimize_order ? 0.8 * o.time_limit_s : o.time_limit_s;
        stamp_.assign(j.file->storages.size(), 0);
    }

    double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
    // Stops one partition's scoring early, so the whole search ends within the limit.
    bool out_of_time() const {
        const double per = evaluations_ ? elapsed() / static_cast<double>(evaluations_) : 0.0;
        return elapsed() + 2 * per >= deadline_ || (o_.cancelled && o_.cancelled());
    }

    std::optional<State> evaluate(std::span<const NodeId> saved, bool canonical = true) {
        State s;
        try {
            s.partition = simulate_partition(j_, saved);
            // What the partitioner would recompute anyway leaves the saved set (a few rounds at most).
            for (int round = 0; canonical && round < 8; ++round) {
                if (reproducible(j_, s.partition)) break;
                s.partition = simulate_partition(j_, stable_saved(j_, s.partition));
            }
            if (canonical && !reproducible(j_, s.partition)) return std::nullopt;
            s.peak = score_partition(j_, s.partition, {}, &storages_);
        } catch (const Error&) {
            return std::nullopt; // a move that leaves the backward uncomputable
        }
        ++evaluations_;
        s.saved = s.partition.saved;
        s.extra = s.partition.flops - baseline_flops_;
        ++round_;
        for (NodeId x : s.saved)
            for (StorageId st : j_.g().outputs(x))
                if (stamp_[st.index()] != round_ && counted_[st.index()]) {
                    stamp_[st.index()] = round_;
                    s.saved_bytes += j_.file->nbytes(st);
                }
        points_.push_back({s.peak.peak, s.extra});
        if (canonical && (!best_ || choice(s) < choice(*best_))) best_ = s; // any partition scored may be the plan
        return s;
    }

    // Where a climb goes, lower is better. Guided by a FLOP limit (guide_, or none): within it,
    // then the lowest peak, then fewer saved bytes (progress on a plateau of the peak), then fewer
    // FLOPs. With a target peak: once met, the fewest FLOPs; before, the lowest peak.
    std::tuple<int, std::int64_t, std::int64_t, std::int64_t> key(const State& s) const {
        if (o_.target_peak) {
            if (s.peak.peak <= *o_.target_peak) return {0, s.extra, s.peak.peak, s.saved_bytes};
            return {1, s.peak.peak, s.saved_bytes, s.extra};
        }
        const bool within = guide_ < 0 || s.extra <= guide_;
        return {within ? 0 : 1, s.peak.peak, s.saved_bytes, s.extra};
    }

    // What the result is chosen by among everything scored: within the FLOP limit, then the lowest
    // peak, then the fewest FLOPs (a plateau of the peak is crossed for progress, but the plan
    // returned is the cheapest at its peak).
    std::tuple<int, std::int64_t, std::int64_t> choice(const State& s) const {
        const auto [a, b, c, d] = key(s);
        if (o_.target_peak && a == 0) return {a, b, c};
        const bool within = limit_ < 0 || s.extra <= limit_;
        return {within ? 0 : 1, b, d};
    }

    // Saved values live at the pair's peak, largest first: the forward's (every saved value
    // allocated before its peak node stays to the end) or the backward's (last used at or after it).
    // `wide`: every saved value that is not a primal, in any order of size, when the narrow set
    // gave no improving move.
    std::vector<NodeId> candidates(const State& s, bool wide) {
        const Graph& g = j_.g();
        const SimulatedPair pair = materialize_partition(j_, s.partition, "forward", "backward", {}, false, &storages_);
        const PairAnalysis a = analyze_pair(pair.file, pair.forward(), pair.backward(), default_counted(pair.file));
        const bool in_forward = a.peak.forward_peak >= a.peak.backward_peak;
        const auto& prof = in_forward ? a.forward_profile : a.backward_profile;
        const std::size_t step = static_cast<std::size_t>(std::max_element(prof.begin(), prof.end()) - prof.begin());
        const std::size_t at = step == 0 ? 0 : (step - 1) / 2; // profile node index at the peak
        std::vector<std::int32_t> pos(g.size(), -1);           // position among profile nodes
        const auto& nodes = in_forward ? s.partition.forward : s.partition.backward;
        std::int32_t k = 0;
        for (NodeId x : nodes)
            if (g.node(x).op != OpKind::Placeholder && g.node(x).op != OpKind::GetAttr) pos[x.index()] = k++;
        std::vector<std::pair<std::int64_t, NodeId>> c;
        for (NodeId x : s.saved) {
            if (g.node(x).op == OpKind::Placeholder) continue; // a primal cannot be recomputed
            if (j_.seeded[x.index()]) continue;                // nor a random op
            bool live = false;
            if (in_forward) {
                live = pos[x.index()] >= 0 && static_cast<std::size_t>(pos[x.index()]) <= at;
            } else {
                live = true;
                std::int32_t last = -1;
                for (NodeId u : g.users(x)) last = std::max(last, pos[u.index()]);
                if (last >= 0 && static_cast<std::size_t>(last) < at) live = false;
            }
            if (!live && !wide) continue;
            std::int64_t bytes = 0;
            for (StorageId st : g.outputs(x)) bytes += counted_[st.index()] ? j_.file->nbytes(st) : 0;
            c.push_back({bytes, x});
        }
        std::stable_sort(c.begin(), c.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        std::vector<NodeId> out;
        for (std::size_t i = 0; i < c.size() && (wide || i < kMaxCandidates); ++i) out.push_back(c[i].second);
        return out;
    }

    // Recompute x: save what it reads instead (recompute_in_backward without its checks: the
    // scoring refuses what does not work).
    std::vector<NodeId> recompute_move(const State& s, NodeId x) const {
        std::vector<NodeId> next;
        for (NodeId y : s.saved)
            if (y != x) next.push_back(y);
        for (NodeId in : j_.g().inputs(x))
            if (j_.computable[in.index()]) next.push_back(in);
        return next;
    }

    // Recompute x with everything it needs that is not saved, back to the saved values and the
    // primals (which become saved): what checkpointing a region does.
    std::vector<NodeId> deep_move(const State& s, NodeId x) {
        const Graph& g = j_.g();
        ++round_;
        if (mark_.size() < g.size()) mark_.assign(g.size(), 0);
        for (NodeId y : s.saved) mark_[y.index()] = round_;
        std::vector<NodeId> next;
        for (NodeId y : s.saved)
            if (y != x) next.push_back(y);
        std::vector<NodeId> stack(g.inputs(x).begin(), g.inputs(x).end());
        while (!stack.empty()) {
            const NodeId y = stack.back();
            stack.pop_back();
            if (mark_[y.index()] == round_) continue;
            mark_[y.index()] = round_;
            if (g.node(y).op == OpKind::Placeholder || (j_.seeded[y.index()] && j_.forward[y.index()])) {
                if (j_.computable[y.index()]) next.push_back(y); // a primal or a random op: saved
                continue;
            }
            for (NodeId in : g.inputs(y)) stack.push_back(in);
        }
        return next;
    }

    // The saved set after the first k moves together: each move's removals from and additions
    // to `s.saved`, applied at once.
    template <class Moves>
    std::vector<NodeId> compose(const State& s, const Moves& moves, std::size_t k) {
        const std::size_t n = j_.g().size();
        std::vector<std::int8_t> delta(n, 0); // -1: some move drops it, +1: some move adds it
        std::vector<std::uint8_t> in_s(n, 0), in_move(n, 0);
        for (NodeId x : s.saved) in_s[x.index()] = 1;
        for (std::size_t m = 0; m < k && m < moves.size(); ++m) {
            const std::vector<NodeId>& next = moves[m].second;
            for (NodeId x : next) in_move[x.index()] = 1;
            for (NodeId x : s.saved)
                if (!in_move[x.index()]) delta[x.index()] = -1;
            for (NodeId x : next) {
                if (!in_s[x.index()]) delta[x.index()] = 1;
                in_move[x.index()] = 0;
            }
        }
        std::vector<NodeId> out;
        for (NodeId x : s.saved)
            if (delta[x.index()] != -1) out.push_back(x);
        for (std::size_t i = 0; i < n; ++i)
            if (delta[i] == 1) out.push_back(NodeId(static_cast<std::int32_t>(i)));
        return out;
    }

    RematResult run();

private:
    static constexpr std::size_t kMaxCandidates = 48;
    const JointGraph& j_;
    const RematOptions& o_;
    Clock::time_point start_;
    StorageMask counted_;
    std::vector<std::uint32_t> stamp_;
    std::uint32_t round_ = 0;
    std::vector<std::uint32_t> mark_;
    std::int64_t baseline_flops_ = 0, limit_ = -1;
    std::int64_t guide_ = -1; // the FLOP limit the current climb is guided by (-1: none)
    std::size_t evaluations_ = 0;
    std::vector<FrontierPoint> points_;
    std::optional<State> best_;
    double deadline_ = 0;
    GraphFile storages_; // storage_template: copied per partition scored  // for the saved-set search; the order
                         // optimizer gets the rest
};

std::vector<FrontierPoint> pareto(std::vector<FrontierPoint> pts) {
    std::sort(pts.begin(), pts.end(), [](const FrontierPoint& a, const FrontierPoint& b) {
        return a.extra_flops != b.extra_flops ? a.extra_flops < b.extra_flops : a.peak < b.peak;
    });
    std::vector<FrontierPoint> out;
    for (const FrontierPoint& p : pts)
        if (out.empty() || p.peak < out.back().peak) out.push_back(p);
    return out;
}

// Forward values a backward-phase node reads: the default saved set when the file has no pair.
std::vector<NodeId> default_saved(const JointGraph& j) {
    const Graph& g = j.g();
    std::vector<NodeId> out;
    for (std::size_t i = 0; i + 1 < g.size(); ++i) {
        const NodeId id(static_cast<std::int32_t>(i));
        if (!j.forward[i] || !j.computable[i]) continue;
        for (NodeId u : g.users(id))
            if (u != j.output && !j.forward[u.index()]) {
                out.push_back(id);
                break;
            }
    }
    return out;
}

RematResult Search::run() {
    const GraphFile& file = *j_.file;
    RematResult r;
    const RematBaseline baseline = remat_baseline(j_);
    const std::vector<NodeId>& base_saved = baseline.saved;
    const std::optional<std::size_t> base_pair = baseline.pair;
    baseline_flops_ = baseline.flops;
    r.baseline = baseline.source;
    r.baseline_flops = baseline_flops_;
    if ((o_.max_extra_flops && *o_.max_extra_flops < 0) || (o_.max_extra_percent && !(*o_.max_extra_percent >= 0)) ||
        (o_.target_peak && *o_.target_peak < 0))
        throw PreconditionError("search_remat: a limit of RematOptions is negative (or NaN)");
    if (o_.max_extra_flops) limit_ = *o_.max_extra_flops;
    if (o_.max_extra_percent)
        limit_ = static_cast<std::int64_t>(static_cast<double>(baseline_flops_) * *o_.max_extra_percent / 100.0);

    // The baseline as PyTorch made it (the guard below), and as a plan apply_remat reproduces.
    std::optional<State> base = evaluate(base_saved, false);
    if (!base) {
        // Said with the reason simulate_partition gives (the node it stops at).
        std::string why = "unknown reason";
        try {
            (void)score_partition(j_, simulate_partition(j_, base_saved));
        } catch (const Error& e) {
            why = e.what();
        }
        throw Error(file.source + ": graph '" + j_.g().name + "': the baseline partition (" + baseline.source +
                    ") cannot be simulated: " + why);
    }
    r.baseline_peak = base->peak.peak;
    State best = *base;
    if (!reproducible(j_, base->partition))
        if (std::optional<State> c = evaluate(base_saved)) best = *c;
    std::vector<State> starts{best}; // the baseline and PyTorch's points: where climbs begin
    const auto consider = [&](const State& s) {
        if (choice(s) < choice(best)) best = s;
    };
    // PyTorch's own points: every other pair of this joint, whatever the time (a few scorings),
    // so that the frontier dominates each of them.
    for (std::size_t i = 0; i < file.pairs.size() && !(o_.cancelled && o_.cancelled()); ++i) {
        if (file.pairs[i].joint != j_.graph || i == base_pair) continue;
        std::vector<NodeId> saved;
        try {
            saved = saved_of_pair(j_, file.pairs[i]);
        } catch (const Error&) {
            continue;
        }
        if (std::optional<State> s = evaluate(saved)) {
            consider(*s);
            starts.push_back(*s);
        }
    }
    // Greedy: the best single recompute among the saved values live at the peak, while it helps;
    // when none does, every saved value, and chains of two (x and an input it made saved).
    const auto climb = [&](State cur) {
        bool wide = false;
        while (!out_of_time()) {
            if (o_.progress) o_.progress(std::min(1.0, elapsed() / std::max(o_.time_limit_s, 1e-9)));
            std::optional<State> step;
            using Key = decltype(key(cur));
            std::vector<std::pair<Key, std::vector<NodeId>>> improving; // moves that help on their own
            const auto attempt = [&](const std::vector<NodeId>& saved) {
                std::optional<State> next = evaluate(saved);
                if (!next) return;
                if (key(*next) < key(cur)) improving.push_back({key(*next), saved});
                if (!step || key(*next) < key(*step)) step = std::move(next);
            };
            std::vector<std::uint8_t> is_saved(j_.g().size(), 0);
            for (NodeId x : cur.saved) is_saved[x.index()] = 1;
            for (NodeId x : candidates(cur, wide)) {
                if (out_of_time()) break;
                const std::vector<NodeId> one = recompute_move(cur, x);
                attempt(one);
                attempt(deep_move(cur, x));
                if (!wide) continue;
                for (NodeId y : j_.g().inputs(x)) {
                    if (out_of_time()) break;
                    if (!j_.computable[y.index()] || j_.g().node(y).op == OpKind::Placeholder || is_saved[y.index()])
                        continue;
                    std::vector<NodeId> two;
                    for (NodeId z : one)
                        if (z != y) two.push_back(z);
                    for (NodeId in : j_.g().inputs(y))
                        if (j_.computable[in.index()]) two.push_back(in);
                    attempt(two);
                }
            }
            // Large graphs repeat themselves (layers): the best k helpful moves together, k halving
            // from all of them, often beat the best one alone at the cost of a few scorings. Tried
            // whenever there are several, not when the clock says the single moves would not fit:
            // a search that ends before its limit is then the same search on every run.
            if (improving.size() >= 2 && !out_of_time()) {
                std::sort(improving.begin(), improving.end(),
                          [](const auto& a, const auto& b) { return a.first < b.first; });
                for (std::size_t k = improving.size(); k >= 2 && !out_of_time(); k /= 2) {
                    std::optional<State> merged = evaluate(compose(cur, improving, k));
                    if (merged && key(*merged) < key(*step)) {
                        step = std::move(merged);
                        break;
                    }
                }
            }
            if (step && key(*step) < key(cur)) {
                cur = std::move(*step);
                consider(cur);
                wide = false;
            } else if (!wide) {
                wide = true;
            } else {
                break;
            }
        }
    };
    // The climbs, each guided by one FLOP limit: the caller's own first (it counts most when time
    // is short), then none, then a ladder of limits below the caller's. A search with a looser
    // limit runs every ladder climb a tighter one runs and chooses among all it scored, so its
    // plan is never worse than a tighter ladder limit's, and with no limit never worse than any
    // ladder limit's. Each climb starts from the best start by its own guide (often a budget
    // point), and again from the baseline: PyTorch's best point can be a local optimum the
    // baseline's path goes around.
    std::vector<std::int64_t> guides;
    if (o_.target_peak) {
        guides.push_back(-1);
    } else {
        guides.push_back(limit_);
        if (limit_ >= 0) guides.push_back(-1);
        for (const int percent : {1, 2, 5, 10, 20, 50}) {
            const std::int64_t g = baseline_flops_ / 100 * percent + baseline_flops_ % 100 * percent / 100;
            if (limit_ < 0 || g < limit_) guides.push_back(g);
        }
    }
    for (std::size_t k = 0; k < guides.size() && !out_of_time(); ++k) {
        guide_ = guides[k];
        const State* from = &starts.front();
        for (const State& s : starts)
            if (key(s) < key(*from)) from = &s;
        climb(*from);
        if (!out_of_time() && base->saved != from->saved)
            if (std::optional<State> b = evaluate(base->saved)) climb(*b);
    }
    if (best_ && choice(*best_) < choice(best)) best = *best_;
    if (best.peak.peak > base->peak.peak) best = *base; // never above the baseline

    // The backward order: the reorder optimizer on the chosen backward, kept when it lowers the peak.
    // The order optimizer needs a few scorings of the backward beyond its own limit.
    const double per = evaluations_ ? elapsed() / static_cast<double>(evaluations_) : 0.0;
    const double left = o_.time_limit_s - elapsed() - 4 * per;
    if (o_.optimize_order && left > 0.05 && !(o_.cancelled && o_.cancelled())) {
        const SimulatedPair pair =
            materialize_partition(j_, best.partition, "forward", "backward", {}, false, &storages_);
        const StorageMask counted = default_counted(pair.file);
        const PairAnalysis a = analyze_pair(pair.file, pair.forward(), pair.backward(), counted);
        OptimizeOptions oo;
        // All the time left: the order search ends by itself (it stops when kicks stop helping),
        // so within the limit its result does not depend on how fast this machine is.
        oo.time_limit_s = left;
        oo.cancelled = o_.cancelled;
        const OptimizeResult opt =
            optimize_schedule(pair.file, pair.backward(), a.backward_alias, a.backward_releasable, counted, oo);
        // Backward graph node k is, in joint ids: saved values, tangents, the backward, the output.
        std::vector<NodeId> joint_of(best.partition.saved);
        joint_of.insert(joint_of.end(), j_.tangents.begin(), j_.tangents.end());
        joint_of.insert(joint_of.end(), best.partition.backward.begin(), best.partition.backward.end());
        joint_of.push_back(j_.output);
        std::vector<NodeId> order;
        for (NodeId k : opt.order) {
            const OpKind op = pair.backward().node(k).op;
            if (op != OpKind::Placeholder && op != OpKind::Output) order.push_back(joint_of[k.index()]);
        }
        if (order != best.partition.backward) {
            const PeakMemory p = score_partition(j_, best.partition, order, &storages_);
            ++evaluations_;
            if (p.peak < best.peak.peak) {
                best.peak = p;
                best.order = std::move(order);
                points_.push_back({p.peak, best.extra});
            }
        }
    }

    r.saved = best.partition.saved;
    r.backward_order = best.order.empty() ? best.partition.backward : best.order;
    r.partition = std::move(best.partition);
    r.peak = best.peak;
    r.extra_flops = best.extra;
    r.met_limit = o_.target_peak >= 0 ? r.peak.peak <= o_.target_peak : (limit_ < 0 || r.extra_flops <= limit_);
    r.frontier = pareto(points_);
    r.evaluations = evaluations_;
    return r;
}

} // namespace

RematBaseline remat_baseline(const JointGraph& j) {
    const GraphFile& file = *j.file;
    RematBaseline b;
    for (std::size_t i = 0; i < file.pairs.size(); ++i) {
        const Pair& p = file.pairs[i];
        if (p.joint != j.graph) continue;
        if (!b.pair || (p.budget == 1.0 && file.pairs[*b.pair].budget != 1.0)) b.pair = i;
    }
    if (b.pair) {
        const Pair& p = file.pairs[*b.pair];
        b.saved = saved_of_pair(j, p);
        b.source = file.graph(p.forward).name + " / " + file.graph(p.backward).name;
        // A pair written beside another model's joint (or edited) would be scored under its name
        // with the simulated partition's peak but its own FLOPs: every plan then showed a bogus
        // FLOPs change. Plans are measured against the simulated partition, and the file is told.
        // A joint the pair is not a partition of (num_fwd_outputs edited) stops the simulation at
        // some node: said as the baseline's, not as if the user's plan or the joint were wrong.
        std::int64_t simulated = 0;
        try {
            simulated = simulate_partition(j, b.saved).flops;
        } catch (const Error& e) {
            throw Error(file.source + ": graph " + detail::quote(j.g().name) + ": the baseline partition (" +
                        detail::quote(b.source) + ") cannot be simulated: " + e.what());
        }
        const std::int64_t own = pair_flops(file, p);
        b.flops = simulated;
        if (own != simulated)
            b.mismatch = "pair " + b.source + " is not the partition of joint graph '" + j.g().name +
                         "' with its saved values (" + std::to_string(own) + " FLOPs where that partition has " +
                         std::to_string(simulated) + "): the baseline is the simulated partition";
    } else {
        b.saved = default_saved(j);
        b.flops = simulate_partition(j, b.saved).flops;
        b.source = "every forward value the backward reads saved";
    }
    return b;
}

RematResult search_remat(const JointGraph& joint, const RematOptions& options) {
    Search search(joint, options);
    return search.run();
}

} // namespace fxmem
