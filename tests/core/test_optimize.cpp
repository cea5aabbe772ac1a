// The optimizer: Inductor's baselines, the lower bound, the exact search and the local search.
// Oracles: hand-computed values on a small graph, and a brute force over every legal order
// (scored by MemoryTracker) on random small graphs.
#include "test_estimator_random.h"

#include "fxmem/error.h"
#include "fxmem/incremental.h"
#include "fxmem/io.h"
#include "fxmem/optimize.h"
#include "fxmem/schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <tuple>

namespace fxmem {
namespace {

// The graph of tests/data/good/optimize.json:
//   primals_1 (100, never released), a = f(primals_1) -> A 10, b = f(primals_1) -> B 50,
//   c = f(primals_1) -> a CPU storage (not counted), a2 = f(a) -> 5, b2 = f(b, c) -> 5,
//   output(a2, b2).
GraphFile hand_graph() {
    GraphFile file;
    const StorageId x = file.add_storage(1, "cuda:0", 100);
    const StorageId a = file.add_storage(2, "cuda:0", 10);
    const StorageId b = file.add_storage(3, "cuda:0", 50);
    const StorageId a2 = file.add_storage(4, "cuda:0", 5);
    const StorageId b2 = file.add_storage(5, "cuda:0", 5);
    const StorageId c = file.add_storage(6, "cpu", 1000);
    GraphBuilder g(file, "g", GraphKind::Forward);
    g.add("primals_1", OpKind::Placeholder, "primals_1", {}, {x});
    g.add("a", OpKind::CallFunction, "relu", {"primals_1"}, {a});
    g.add("b", OpKind::CallFunction, "cat", {"primals_1"}, {b});
    g.add("c", OpKind::CallFunction, "to", {"primals_1"}, {c});
    g.add("a2", OpKind::CallFunction, "sum", {"a"}, {a2});
    g.add("b2", OpKind::CallFunction, "sum", {"b", "c"}, {b2});
    g.add("output", OpKind::Output, "output", {"a2", "b2"}, {});
    g.finish();
    return file;
}

std::size_t file_storages(const struct Fixture& s);

struct Fixture {
    const GraphFile& file;
    const Graph& graph;
    AliasInfo alias;
    NodeMask releasable;
    StorageMask counted;
    Fixture(const GraphFile& f, const Graph& g)
        : file(f), graph(g), alias(build_alias_info(f, g)), releasable(default_releasable(g)),
          counted(default_counted(f)) {}
    std::int64_t score(const std::vector<NodeId>& order) const {
        return score_schedule(file, graph, alias, order, releasable, counted).peak;
    }
    std::vector<std::string> names(const std::vector<NodeId>& order) const {
        std::vector<std::string> out;
        for (NodeId n : order) out.push_back(graph.node(n).name);
        return out;
    }
};

std::size_t file_storages(const Fixture& s) { return s.file.storages.size(); }

using Names = std::vector<std::string>;

TEST(Optimize, HandGraphBaselinesBoundAndOptimum) {
    const GraphFile file = hand_graph();
    const Fixture s(file, file.graphs[0]);
    // Original a, b, c, a2, b2: 110, 160, 160, 165 (-> 155), 160: peak 165.
    EXPECT_EQ(s.score(original_order(s.graph)), 165);
    // LPMF (start 100, gap 0): c allocates nothing counted and goes first; then a (10) before b
    // (50); then a2, whose key (5, 5 - 10) beats b; then b, b2: 100, 110, 115 -> 105, 155, 160.
    const auto lpmf = inductor_lpmf_order(s.file, s.graph, s.alias, s.releasable, s.counted);
    EXPECT_EQ(s.names(lpmf), (Names{"primals_1", "c", "a", "a2", "b", "b2", "output"}));
    EXPECT_EQ(s.score(lpmf), 160);
    // BFS: a, b, c (no predecessors, by index), then a2 (priority [0]) before b2 ([1, 2]).
    const auto bfs = inductor_bfs_order(s.file, s.graph, s.alias, s.releasable, s.counted);
    EXPECT_EQ(s.names(bfs), (Names{"primals_1", "a", "b", "c", "a2", "b2", "output"}));
    EXPECT_EQ(s.score(bfs), 165);
    // DFS: size with reads a2 15, b2 55, c 100, a 110, b 150; visit a2 (a first), then b2 (c, b).
    const auto dfs = inductor_dfs_order(s.file, s.graph, s.alias, s.releasable, s.counted);
    EXPECT_EQ(s.names(dfs), (Names{"primals_1", "a", "a2", "c", "b", "b2", "output"}));
    EXPECT_EQ(s.score(dfs), 160);
    // Bound: while b2 runs, primals_1 (100, pinned), B (50, used) and its own 5 are live: 155.
    EXPECT_EQ(peak_lower_bound(s.file, s.graph, s.alias, s.releasable, s.counted), 155);
    // Optimum: b and b2 first (150, 155 -> 105), then a, a2 (115, 120): 155.
    const ExactResult e = exact_schedule(s.file, s.graph, s.alias, s.releasable, s.counted, 64, 1000);
    ASSERT_TRUE(e.complete);
    EXPECT_EQ(e.peak, 155);
    EXPECT_EQ(s.score(e.order), 155);
    const OptimizeResult r = optimize_schedule(s.file, s.graph, s.alias, s.releasable, s.counted);
    EXPECT_EQ(r.original_peak, 165);
    EXPECT_EQ(r.lpmf_peak, 160);
    EXPECT_EQ(r.bfs_peak, 165);
    EXPECT_EQ(r.dfs_peak, 160);
    EXPECT_EQ(r.peak, 155);
    EXPECT_EQ(r.lower_bound, 155);
    EXPECT_TRUE(r.exact);
    EXPECT_EQ(s.score(r.order), 155);
    // With the upper bound at the optimum, nothing beats it: complete, not improved.
    const ExactResult pruned = exact_schedule(s.file, s.graph, s.alias, s.releasable, s.counted, 64, 1000, 155);
    EXPECT_TRUE(pruned.complete);
    EXPECT_FALSE(pruned.improved);
}

TEST(Optimize, SuggestMovesOnTheHandGraph) {
    const GraphFile file = hand_graph();
    const Fixture s(file, file.graphs[0]);
    // Original: primals_1, a, b, c, a2, b2, output; the peak (165) is at a2 (position 4).
    // Best single moves: b after a2 (primals_1, a, c, a2, b, b2: 110, 110, 115 -> 105, 155, 160)
    // and a2 right after a (110, 115 -> 105, 155, 155, 160): both 160.
    const IncrementalSchedule sched(s.file, s.graph, s.alias, s.releasable, s.counted, original_order(s.graph));
    const auto moves = suggest_moves(sched, 5);
    ASSERT_GE(moves.size(), 2u);
    EXPECT_EQ(moves[0].peak_after, 160);
    EXPECT_EQ(moves[1].peak_after, 160);
    for (const MoveSuggestion& m : moves) {
        EXPECT_LT(m.peak_after, 165);
        EXPECT_EQ(sched.at(m.from), m.node);
        IncrementalSchedule copy = sched;
        copy.move(m.from, m.to);
        EXPECT_EQ(s.score(copy.order()), m.peak_after);
    }
    for (std::size_t i = 1; i < moves.size(); ++i) EXPECT_LE(moves[i - 1].peak_after, moves[i].peak_after);
    // The schedule itself is untouched.
    EXPECT_EQ(sched.order(), original_order(s.graph));
}

TEST(Optimize, SuggestedMovesAreLegalAndScoreAsSaidOnRandomGraphs) {
    fxmem::testing::RandomGraphs gen(4242);
    std::size_t suggested = 0;
    for (int i = 0; i < 60; ++i) {
        GraphFile file;
        fxmem::testing::RandomGraphOptions o;
        o.nodes = 30;
        o.rogue = 0;
        const Graph& g = gen.make(file, "g" + std::to_string(i), o);
        const Fixture s(file, g);
        const IncrementalSchedule sched(s.file, s.graph, s.alias, s.releasable, s.counted, gen.topological(g));
        const auto moves = suggest_moves(sched, 4, 8);
        EXPECT_LE(moves.size(), 4u);
        std::vector<NodeId> seen;
        for (std::size_t k = 0; k < moves.size(); ++k) {
            const MoveSuggestion& m = moves[k];
            EXPECT_TRUE(sched.check_move(m.from, m.to).ok);
            EXPECT_LT(m.peak_after, sched.peak());
            if (k > 0) {
                EXPECT_LE(moves[k - 1].peak_after, m.peak_after);
            }
            EXPECT_EQ(std::count(seen.begin(), seen.end(), m.node), 0) << "one suggestion per node";
            seen.push_back(m.node);
            IncrementalSchedule copy = sched;
            copy.move(m.from, m.to);
            EXPECT_EQ(s.score(copy.order()), m.peak_after);
            ++suggested;
        }
    }
    EXPECT_GT(suggested, 20u);
}

// Inductor's topological_sort_lpmf as written (a linear scan of the ready set per pick), on FX
// terms derived here from AliasInfo, for comparison with the O(log N) pick of the library.
std::vector<NodeId> reference_lpmf(const Fixture& s) {
    const Graph& g = s.graph;
    const std::size_t n = g.size();
    const bool has_output = n > 0 && g.nodes.back().op == OpKind::Output;
    auto runs = [&](NodeId v) {
        const OpKind op = g.node(v).op;
        return op != OpKind::Placeholder && op != OpKind::GetAttr && op != OpKind::Output;
    };
    auto prefix = [&](NodeId v) { return g.node(v).op == OpKind::Placeholder || g.node(v).op == OpKind::GetAttr; };
    auto scheduler = [&](NodeId v) { return !prefix(v) && !(has_output && v.index() == n - 1); };
    std::vector<NodeId> nodes, head;
    for (std::size_t i = 0; i < n; ++i) {
        const NodeId v(static_cast<std::int32_t>(i));
        if (prefix(v))
            head.push_back(v);
        else if (scheduler(v))
            nodes.push_back(v);
    }
    // Buffers: counted storages allocated by the prefix or a node that runs.
    auto is_buffer = [&](StorageId b) {
        const NodeId a = s.alias.allocator[b.index()];
        return a.valid() && s.counted[b.index()] && (prefix(a) || (scheduler(a) && runs(a)));
    };
    std::vector<std::uint8_t> used_by_output(file_storages(s), 0);
    if (has_output)
        for (StorageId b : s.alias.uses_of(NodeId(static_cast<std::int32_t>(n - 1)))) used_by_output[b.index()] = 1;
    std::map<std::int32_t, std::int64_t> outdegree; // per buffer
    std::int64_t live = 0, output_memory = 0;
    for (std::size_t b = 0; b < file_storages(s); ++b) {
        const StorageId id(static_cast<std::int32_t>(b));
        if (!is_buffer(id)) continue;
        std::int64_t users = 0;
        for (NodeId u : s.alias.users_of(id)) users += scheduler(u);
        const bool freeable =
            s.releasable[s.alias.allocator[b].index()] && !s.alias.users_of(id).empty() && !used_by_output[b];
        outdegree[id.value] = users + (freeable ? 0 : 1);
        if (prefix(s.alias.allocator[b])) live += s.file.nbytes(id);
        if (used_by_output[b]) output_memory += s.file.nbytes(id);
    }
    std::map<std::int32_t, std::set<std::int32_t>> preds, succs;
    std::map<std::int32_t, std::int64_t> size, to_free;
    std::map<std::int32_t, std::size_t> index;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const NodeId v = nodes[i];
        index[v.value] = i;
        for (NodeId in : g.inputs(v))
            if (scheduler(in)) preds[v.value].insert(in.value);
        if (runs(v))
            for (StorageId b : s.alias.uses_of(v))
                if (is_buffer(b) && scheduler(s.alias.allocator[b.index()]))
                    preds[v.value].insert(s.alias.allocator[b.index()].value);
        for (std::int32_t p : preds[v.value]) succs[p].insert(v.value);
        if (runs(v))
            for (StorageId b : s.alias.fresh_of(v))
                if (is_buffer(b)) size[v.value] += s.file.nbytes(b);
        for (StorageId b : s.alias.uses_of(v))
            if (is_buffer(b) && outdegree[b.value] == 1) to_free[v.value] += s.file.nbytes(b);
    }
    std::int64_t max_memory = std::max(live, output_memory), gap = max_memory - live;
    std::map<std::int32_t, std::size_t> indegree;
    std::vector<std::int32_t> ready;
    for (NodeId v : nodes) {
        indegree[v.value] = preds[v.value].size();
        if (indegree[v.value] == 0) ready.push_back(v.value);
    }
    std::vector<NodeId> order = head;
    while (!ready.empty()) {
        auto key = [&](std::int32_t v) {
            return std::make_tuple(size[v] > gap ? size[v] : 0, size[v] - to_free[v], index[v]);
        };
        auto best = std::min_element(ready.begin(), ready.end(),
                                     [&](std::int32_t a, std::int32_t b) { return key(a) < key(b); });
        const std::int32_t v = *best;
        ready.erase(best);
        order.emplace_back(v);
        live += size[v];
        max_memory = std::max(max_memory, live);
        live -= to_free[v];
        gap = max_memory - live;
        for (std::int32_t u : succs[v])
            if (--indegree[u] == 0) ready.push_back(u);
        for (StorageId b : s.alias.uses_of(NodeId(v)))
            if (is_buffer(b) && --outdegree[b.value] == 1)
                for (NodeId u : s.alias.users_of(b))
                    if (scheduler(u)) to_free[u.value] += s.file.nbytes(b);
    }
    if (has_output) order.emplace_back(static_cast<std::int32_t>(n - 1));
    return order;
}

TEST(Optimize, LpmfPicksAsInductorsLinearScan) {
    fxmem::testing::RandomGraphs gen(31337);
    int reordered = 0;
    for (int i = 0; i < 150; ++i) {
        GraphFile file;
        fxmem::testing::RandomGraphOptions o;
        o.nodes = 20 + gen.pick(200);
        o.max_inputs = 1 + static_cast<int>(gen.pick(4)); // some wide graphs: many ready nodes
        const Graph& g = gen.make(file, "g" + std::to_string(i), o);
        const Fixture s(file, g);
        const auto lpmf = inductor_lpmf_order(s.file, s.graph, s.alias, s.releasable, s.counted);
        EXPECT_EQ(lpmf, reference_lpmf(s)) << i;
        reordered += lpmf != original_order(g);
    }
    EXPECT_GT(reordered, 100); // the picks matter: most orders differ from the graph's
}

// Every legal order (inputs first, the output node last, and accepted by MemoryTracker), scored.
std::int64_t brute_force_optimum(const Fixture& s, std::size_t& orders) {
    const Graph& g = s.graph;
    const std::size_t n = g.size();
    const bool has_output = n > 0 && g.nodes.back().op == OpKind::Output;
    const std::size_t free_nodes = has_output ? n - 1 : n;
    std::vector<std::uint32_t> missing(n);
    for (std::size_t i = 0; i < n; ++i) missing[i] = g.nodes[i].inputs.size();
    std::vector<std::uint8_t> done(n, 0);
    std::vector<NodeId> order;
    std::int64_t best = INT64_MAX;
    orders = 0;
    std::function<void()> rec = [&] {
        if (order.size() == free_nodes) {
            std::vector<NodeId> full = order;
            if (has_output) full.emplace_back(static_cast<std::int32_t>(n - 1));
            try {
                best = std::min(best, s.score(full));
                ++orders;
            } catch (const Error&) {
                // the tracker refuses it (a storage used before its allocator ran)
            }
            return;
        }
        for (std::size_t i = 0; i < free_nodes; ++i) {
            if (done[i] || missing[i] != 0) continue;
            done[i] = 1;
            order.emplace_back(static_cast<std::int32_t>(i));
            for (NodeId u : g.users(NodeId(static_cast<std::int32_t>(i)))) --missing[u.index()];
            rec();
            for (NodeId u : g.users(NodeId(static_cast<std::int32_t>(i)))) ++missing[u.index()];
            order.pop_back();
            done[i] = 0;
        }
    };
    rec();
    return best;
}

// The checks every optimizer result must pass on any graph.
void check_result(const Fixture& s, const OptimizeResult& r, const std::string& where) {
    SCOPED_TRACE(where);
    EXPECT_NO_THROW(check_schedule(s.graph, r.order));
    EXPECT_NO_THROW(IncrementalSchedule(s.file, s.graph, s.alias, s.releasable, s.counted, r.order));
    EXPECT_EQ(s.score(r.order), r.peak);
    EXPECT_EQ(r.original_peak, s.score(original_order(s.graph)));
    EXPECT_LE(r.peak, r.original_peak);
    for (const std::optional<std::int64_t>& baseline : {r.lpmf_peak, r.bfs_peak, r.dfs_peak}) {
        if (!baseline)
            EXPECT_TRUE(r.cancelled); // empty: cancelled before it was computed
        else
            EXPECT_LE(r.peak, *baseline);
    }
    EXPECT_LE(r.lower_bound, r.peak);
}

void check_baselines(const Fixture& s, std::int64_t optimum, const std::string& where) {
    SCOPED_TRACE(where);
    for (const auto& order : {inductor_lpmf_order(s.file, s.graph, s.alias, s.releasable, s.counted),
                              inductor_bfs_order(s.file, s.graph, s.alias, s.releasable, s.counted),
                              inductor_dfs_order(s.file, s.graph, s.alias, s.releasable, s.counted)}) {
        EXPECT_NO_THROW(check_schedule(s.graph, order));
        EXPECT_NO_THROW(IncrementalSchedule(s.file, s.graph, s.alias, s.releasable, s.counted, order));
        EXPECT_GE(s.score(order), optimum);
    }
}

// Start and end memory: the first and the last value of any legal order's profile.
void check_bound_limits(const Fixture& s, std::int64_t bound, const std::string& where) {
    SCOPED_TRACE(where);
    const ScheduleScore sc = score_schedule(s.file, s.graph, s.alias, original_order(s.graph), s.releasable, s.counted);
    MemoryTracker t(s.file, s.graph, s.alias, s.releasable, s.counted);
    EXPECT_GE(bound, t.current()); // start
    if (!sc.current.empty()) {
        EXPECT_GE(bound, sc.current.back()); // end
    }
}

TEST(Optimize, ExactEqualsBruteForceOnRandomSmallGraphs) {
    fxmem::testing::RandomGraphs gen(20261203);
    std::size_t graphs = 0, improved_over_baselines = 0, bound_tight = 0;
    for (int i = 0; graphs < 220; ++i) {
        GraphFile file;
        fxmem::testing::RandomGraphOptions o;
        o.nodes = 5 + gen.pick(4); // 5..8 nodes before the output
        const Graph& g = gen.make(file, "g" + std::to_string(i), o);
        const Fixture s(file, g);
        std::size_t orders = 0;
        const std::int64_t optimum = brute_force_optimum(s, orders);
        if (orders == 0) continue; // only the rare rogue graphs with no order the tracker accepts
        ++graphs;
        const std::string where = "graph " + std::to_string(i);
        const ExactResult e = exact_schedule(s.file, s.graph, s.alias, s.releasable, s.counted, 64, 100000);
        ASSERT_TRUE(e.complete) << where;
        EXPECT_EQ(e.peak, optimum) << where;
        EXPECT_EQ(s.score(e.order), optimum) << where;
        const OptimizeResult r = optimize_schedule(s.file, s.graph, s.alias, s.releasable, s.counted);
        check_result(s, r, where);
        EXPECT_EQ(r.peak, optimum) << where;
        EXPECT_TRUE(r.exact) << where;
        const std::int64_t bound = peak_lower_bound(s.file, s.graph, s.alias, s.releasable, s.counted);
        EXPECT_LE(bound, optimum) << where;
        check_bound_limits(s, bound, where);
        const std::int64_t chain = peak_lower_bound(s.file, s.graph, s.alias, s.releasable, s.counted, 0);
        EXPECT_LE(chain, bound) << where;
        check_bound_limits(s, chain, where);
        check_baselines(s, optimum, where);
        improved_over_baselines +=
            optimum < std::min({r.original_peak, r.lpmf_peak.value(), r.bfs_peak.value(), r.dfs_peak.value()});
        bound_tight += bound == optimum;
    }
    // The oracle must have had work to do: some graphs where every baseline misses the optimum.
    EXPECT_GT(improved_over_baselines, 5u);
    EXPECT_GT(bound_tight, 50u);
    std::cout << "[ info ] " << graphs << " graphs; the optimum beats every baseline on " << improved_over_baselines
              << ", the bound equals it on " << bound_tight << "\n";
}

TEST(Optimize, LocalSearchAgainstTheExactSearchOnRandomGraphs) {
    fxmem::testing::RandomGraphs gen(77);
    std::size_t graphs = 0, matched = 0, beat_baselines = 0;
    for (int i = 0; i < 120; ++i) {
        GraphFile file;
        fxmem::testing::RandomGraphOptions o;
        o.nodes = 12 + gen.pick(14); // 12..25 nodes before the output
        const Graph& g = gen.make(file, "g" + std::to_string(i), o);
        const Fixture s(file, g);
        const std::string where = "graph " + std::to_string(i);
        try {
            s.score(original_order(g));
        } catch (const Error&) {
            continue; // the original order of a rogue graph that the tracker refuses
        }
        const ExactResult e = exact_schedule(s.file, s.graph, s.alias, s.releasable, s.counted, 64, 2'000'000);
        ASSERT_TRUE(e.complete) << where;
        ++graphs;
        const std::int64_t bound = peak_lower_bound(s.file, s.graph, s.alias, s.releasable, s.counted);
        EXPECT_LE(bound, e.peak) << where;
        check_bound_limits(s, bound, where);
        const std::int64_t chain = peak_lower_bound(s.file, s.graph, s.alias, s.releasable, s.counted, 0);
        EXPECT_LE(chain, bound) << where;
        check_bound_limits(s, chain, where);
        check_baselines(s, e.peak, where);

        const OptimizeResult exact = optimize_schedule(s.file, s.graph, s.alias, s.releasable, s.counted);
        check_result(s, exact, where);
        EXPECT_EQ(exact.peak, e.peak) << where;
        EXPECT_TRUE(exact.exact) << where;

        OptimizeOptions heuristic;
        heuristic.exact_max_nodes = 0;
        heuristic.time_limit_s = 5;
        const OptimizeResult h = optimize_schedule(s.file, s.graph, s.alias, s.releasable, s.counted, heuristic);
        check_result(s, h, where);
        EXPECT_GE(h.peak, e.peak) << where;
        EXPECT_EQ(h.exact, h.peak == h.lower_bound) << where;
        matched += h.peak == e.peak;
        beat_baselines +=
            h.peak < std::min({h.original_peak, h.lpmf_peak.value(), h.bfs_peak.value(), h.dfs_peak.value()});
    }
    EXPECT_GE(graphs, 100u);
    // Measured: the local search alone finds the optimum on nearly every graph.
    EXPECT_GE(matched * 100, graphs * 95) << matched << " of " << graphs;
    std::cout << "[ info ] local search alone: optimum on " << matched << " of " << graphs
              << " graphs; better than every baseline on " << beat_baselines << "\n";
}

TEST(Optimize, NeverWorseThanTheBaselinesOnBundledExamples) {
    const std::filesystem::path dir = std::filesystem::path(FXMEM_TEST_DATA) / ".." / ".." / "resources" / "examples";
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() != ".json") continue;
        ++files;
        const GraphFile file = load_file(entry.path().string());
        for (const Graph& g : file.graphs) {
            const Fixture s(file, g);
            const std::string where = entry.path().filename().string() + " " + g.name;
            OptimizeOptions o;
            o.time_limit_s = 1;
            OptimizeResult r = optimize_schedule(s.file, s.graph, s.alias, s.releasable, s.counted, o);
            const std::int64_t bound = peak_lower_bound(s.file, s.graph, s.alias, s.releasable, s.counted);
            EXPECT_LE(bound, r.peak) << where;
            EXPECT_LE(peak_lower_bound(s.file, s.graph, s.alias, s.releasable, s.counted, 0), bound) << where;
            // Where the exact search completes, the optimizer's answer is its optimum. Its exact
            // phase runs on the clock (what is left of time_limit_s): on a slow build (sanitizers,
            // a loaded CI machine) one second may not be enough, so it is given time enough once
            // more, and its answer then must be the optimum (no clock in what is asserted).
            const ExactResult e = exact_schedule(s.file, s.graph, s.alias, s.releasable, s.counted, 256, 300'000);
            if (e.complete && !r.exact) {
                o.time_limit_s = 60;
                r = optimize_schedule(s.file, s.graph, s.alias, s.releasable, s.counted, o);
            }
            check_result(s, r, where);
            check_bound_limits(s, r.lower_bound, where);
            if (e.complete) {
                EXPECT_EQ(r.peak, e.peak) << where;
                EXPECT_TRUE(r.exact) << where;
            }
            std::cout << "[ info ] " << where << ": original " << r.original_peak << ", lpmf "
                      << r.lpmf_peak.value_or(-1) << ", bfs " << r.bfs_peak.value_or(-1) << ", dfs "
                      << r.dfs_peak.value_or(-1) << ", best " << r.peak << " (" << r.method
                      << (r.exact ? ", optimal" : "") << "), bound " << bound
                      << (e.complete ? ", exact search complete" : "") << "\n";
        }
    }
    EXPECT_GE(files, 6u);
}

TEST(Optimize, CancelReturnsTheBestSoFar) {
    fxmem::testing::RandomGraphs gen(5);
    GraphFile file;
    fxmem::testing::RandomGraphOptions o;
    o.nodes = 3000;
    o.rogue = 0;
    const Graph& g = gen.make(file, "big", o);
    const Fixture s(file, g);
    int calls = 0;
    bool stop = false;
    OptimizeOptions opt;
    opt.time_limit_s = 30;
    opt.progress = [&](const OptimizeProgress& p) {
        ++calls;
        EXPECT_GE(p.elapsed_s, 0);
        stop = p.phase != OptimizeProgress::Phase::Baselines; // cancel as soon as the baselines are done
    };
    opt.cancelled = [&] { return stop; };
    const OptimizeResult r = optimize_schedule(s.file, s.graph, s.alias, s.releasable, s.counted, opt);
    EXPECT_TRUE(r.cancelled);
    EXPECT_GE(calls, 2);
    check_result(s, r, "cancelled");

    // Cancelled at once: the original order.
    opt.progress = {};
    opt.cancelled = [] { return true; };
    const OptimizeResult first = optimize_schedule(s.file, s.graph, s.alias, s.releasable, s.counted, opt);
    EXPECT_TRUE(first.cancelled);
    EXPECT_EQ(first.order, original_order(g));
    EXPECT_EQ(first.peak, first.original_peak);
    EXPECT_FALSE(first.lpmf_peak);
    EXPECT_FALSE(first.bfs_peak);
    EXPECT_FALSE(first.dfs_peak);
}

// Cancel lands inside the long phases (the lower bound, each baseline, the search), not only
// between them: the cancel check is asked once per kCancelPollWork steps of work, so the work done
// after a cancel is bounded by that many steps. Counted in polls, never timed: the first run is
// stopped by a cancel at the first poll of the search, not by a time limit, so a slow machine (or
// the asan build, where the bound and baselines take a second) reaches the search all the same.
TEST(Optimize, CancelLandsInsideEachPhaseOnALargeGraph) {
    fxmem::testing::RandomGraphs gen(17);
    GraphFile file;
    fxmem::testing::RandomGraphOptions o;
    o.nodes = 100000;
    o.rogue = 0;
    const Graph& g = gen.make(file, "big", o);
    const Fixture s(file, g);
    using Phase = OptimizeProgress::Phase;
    using Clock = std::chrono::steady_clock;

    // How often each phase asks, up to the first question of the search.
    Phase phase = Phase::Baselines;
    std::map<Phase, std::size_t> polls;
    OptimizeOptions opt;
    opt.time_limit_s = 1e6;
    opt.exact_max_nodes = 0;
    opt.progress = [&](const OptimizeProgress& p) { phase = p.phase; };
    opt.cancelled = [&] {
        ++polls[phase];
        return phase == Phase::Search;
    };
    const OptimizeResult full = optimize_schedule(s.file, s.graph, s.alias, s.releasable, s.counted, opt);
    std::cout << "100k nodes: " << polls[Phase::Baselines] << " polls in the bound and baselines\n";
    EXPECT_TRUE(full.cancelled);
    EXPECT_EQ(polls[Phase::Search], 1u);
    EXPECT_TRUE(full.lpmf_peak);
    EXPECT_TRUE(full.bfs_peak);
    EXPECT_TRUE(full.dfs_peak);
    check_result(s, full, "cancelled in the search");
    // Each baseline picks every scheduler node (more than half the nodes here): one poll at least
    // per kCancelPollWork of them.
    const std::size_t per_baseline = g.size() / 2 / kCancelPollWork;
    ASSERT_GE(per_baseline, 10u);
    EXPECT_GE(polls[Phase::Baselines], 3 * per_baseline);

    // Cancelled at the j-th poll: the check is not asked again, the result is a legal order no
    // worse than the original, and the baselines not finished report -1.
    const std::size_t total = polls[Phase::Baselines];
    for (const std::size_t j : {std::size_t(1), total / 3, 2 * total / 3, total + 1}) {
        SCOPED_TRACE("cancel at poll " + std::to_string(j));
        std::size_t calls = 0;
        Clock::time_point cancelled_at{};
        opt.progress = {};
        opt.time_limit_s = 30;
        opt.cancelled = [&] {
            if (++calls < j) return false;
            if (calls == j) cancelled_at = Clock::now();
            return true;
        };
        const OptimizeResult r = optimize_schedule(s.file, s.graph, s.alias, s.releasable, s.counted, opt);
        const double after_ms = std::chrono::duration<double, std::milli>(Clock::now() - cancelled_at).count();
        std::cout << "cancel at poll " << j << " of " << total << ": returned " << after_ms << " ms later (lpmf "
                  << r.lpmf_peak.value_or(-1) << ", bfs " << r.bfs_peak.value_or(-1) << ", dfs "
                  << r.dfs_peak.value_or(-1) << ")\n";
        EXPECT_TRUE(r.cancelled);
        EXPECT_EQ(calls, j); // asked once per poll until it said stop, never after
        check_result(s, r, "cancelled");
        EXPECT_LE(r.peak, r.original_peak);
        if (j == 1) {
            EXPECT_EQ(r.order, original_order(g));
            EXPECT_FALSE(r.lpmf_peak); // inside the lower bound: no baseline ran
        }
        if (j <= total) {
            EXPECT_FALSE(r.dfs_peak); // dfs, the last baseline, was cut short or never ran
        } else {
            EXPECT_TRUE(r.dfs_peak); // in the search: all three done
        }
    }
}

// The time limit counts the lower bound and the baselines, not only the search: with a limit of
// 0 s, a large graph's bound stops at its first poll and no baseline runs (before, all three ran
// outside the limit: 3.5 s of CPU at 1M nodes). Counted in cancel checks and baselines computed.
TEST(Optimize, TimeLimitCountsTheBoundAndTheBaselines) {
    fxmem::testing::RandomGraphs gen(29);
    GraphFile file;
    fxmem::testing::RandomGraphOptions o;
    o.nodes = 50000;
    o.rogue = 0;
    const Graph& g = gen.make(file, "big", o);
    const Fixture s(file, g);
    OptimizeOptions opt;
    opt.time_limit_s = 0;
    std::size_t asked = 0;
    opt.cancelled = [&] {
        ++asked;
        return false;
    };
    const OptimizeResult r = optimize_schedule(s.file, s.graph, s.alias, s.releasable, s.counted, opt);
    EXPECT_FALSE(r.cancelled);
    EXPECT_EQ(asked, 0u); // the first poll found the time spent, before asking the cancel flag
    EXPECT_FALSE(r.lpmf_peak);
    EXPECT_FALSE(r.bfs_peak);
    EXPECT_FALSE(r.dfs_peak);
    EXPECT_EQ(r.order, original_order(g));
    EXPECT_EQ(r.peak, r.original_peak);
    EXPECT_LE(r.lower_bound, r.peak); // the cheap bound, still valid

    // A graph under kCancelPollWork steps never polls: it always gets the baselines.
    fxmem::testing::RandomGraphOptions small;
    small.nodes = 40;
    small.rogue = 0;
    GraphFile small_file;
    const Graph& sg = gen.make(small_file, "small", small);
    const Fixture ss(small_file, sg);
    const OptimizeResult sr = optimize_schedule(ss.file, ss.graph, ss.alias, ss.releasable, ss.counted, opt);
    EXPECT_TRUE(sr.lpmf_peak);
    EXPECT_TRUE(sr.dfs_peak);
}

TEST(Optimize, ExactSearchStopsWithinAPollOfWork) {
    // A wide graph: many sets of scheduled nodes. The cancel check says stop at its first question.
    fxmem::testing::RandomGraphs gen(23);
    GraphFile file;
    fxmem::testing::RandomGraphOptions o;
    o.nodes = 60;
    o.rogue = 0;
    o.max_inputs = 1;
    const Graph& g = gen.make(file, "wide", o);
    const Fixture s(file, g);
    std::size_t asked = 0;
    const ExactResult stopped =
        exact_schedule(s.file, s.graph, s.alias, s.releasable, s.counted, 256, 100'000, INT64_MAX, [&] {
            ++asked;
            return true;
        });
    const ExactResult done = exact_schedule(s.file, s.graph, s.alias, s.releasable, s.counted, 256, 100'000);
    std::cout << "exact search: " << done.states << " sets in all, " << stopped.states
              << " when stopped at the first question\n";
    ASSERT_GT(done.states, 2 * kCancelPollWork);
    EXPECT_FALSE(stopped.complete);
    EXPECT_EQ(asked, 1u);
    // Each set tried costs one step per node: the first question comes within kCancelPollWork steps.
    EXPECT_LE(stopped.states, kCancelPollWork);
}

TEST(Optimize, DegenerateGraphs) {
    // No nodes; only placeholders and the output; an output-op node in the middle that shares a
    // storage with a node that runs (the storage is freed only when the node that runs comes last
    // among its users, so the exact search stands aside).
    GraphFile file;
    const StorageId x = file.add_storage(1, "cuda:0", 8);
    const StorageId a = file.add_storage(2, "cuda:0", 16);
    const StorageId b = file.add_storage(3, "cuda:0", 32);
    GraphBuilder(file, "empty", GraphKind::Other).finish();
    {
        GraphBuilder g(file, "inputs", GraphKind::Other);
        g.add("arg0", OpKind::Placeholder, "arg0", {}, {x});
        g.add("output", OpKind::Output, "output", {"arg0"}, {});
        g.finish();
    }
    {
        GraphBuilder g(file, "odd", GraphKind::Other);
        g.add("arg0", OpKind::Placeholder, "arg0", {}, {x});
        g.add("a", OpKind::CallFunction, "f", {"arg0"}, {a});
        g.add("mid", OpKind::Output, "output", {"a"}, {});
        g.add("b", OpKind::CallFunction, "f", {"a"}, {b});
        g.add("output", OpKind::Output, "output", {"b"}, {});
        g.finish();
    }
    // odd: arg0 8; a +16 = 24, frees arg0 -> 16; b +32 = 48 whether or not it frees a's storage.
    // The bound is 48 too (while b runs: a's 16, which it uses, and its own 32).
    const std::int64_t expected_peak[] = {0, 8, 48};
    for (std::size_t i = 0; i < file.graphs.size(); ++i) {
        const Fixture s(file, file.graphs[i]);
        const OptimizeResult r = optimize_schedule(s.file, s.graph, s.alias, s.releasable, s.counted);
        check_result(s, r, s.graph.name);
        EXPECT_EQ(r.peak, expected_peak[i]) << s.graph.name;
        EXPECT_TRUE(r.exact) << s.graph.name; // the bound is reached in all three
    }
    const Fixture odd(file, file.graphs[2]);
    EXPECT_FALSE(exact_schedule(odd.file, odd.graph, odd.alias, odd.releasable, odd.counted, 64, 1000).complete);
}

TEST(Optimize, LargeGraphWithinTheTimeLimit) {
    fxmem::testing::RandomGraphs gen(11);
    GraphFile file;
    fxmem::testing::RandomGraphOptions o;
    o.nodes = 5000;
    o.rogue = 0;
    const Graph& g = gen.make(file, "big", o);
    const Fixture s(file, g);
    OptimizeOptions opt;
    opt.time_limit_s = 2;
    const OptimizeResult r = optimize_schedule(s.file, s.graph, s.alias, s.releasable, s.counted, opt);
    check_result(s, r, "5000 nodes");
    EXPECT_FALSE(r.cancelled);
}

} // namespace
} // namespace fxmem
