// Recompute from the outside: malformed plans (tests/data/bad/remat, each refused with its
// message by core and by fxmem-cli remat --plan), fxmem-cli budgets and remat on
// tests/data/good/joint.json with hand-computed numbers, and what search_remat promises.
#include "cli_run.h"
#include "test_paths.h"

#include "fxmem/error.h"
#include "fxmem/io.h"
#include "fxmem/remat.h"
#include "fxmem/whole_step.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

using namespace fxmem;
using fxmem_test::cli;

namespace {

const std::string kBadPlans = kData + "/bad/remat";

std::map<std::string, std::string> expected_plans() {
    std::ifstream in(kBadPlans + "/expected.txt");
    std::map<std::string, std::string> out;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        const auto tab = line.find('\t');
        if (tab != std::string::npos) out.emplace(line.substr(0, tab), line.substr(tab + 1));
    }
    return out;
}

} // namespace

TEST(RematPlans, EveryMalformedPlanIsRefusedWithItsMessage) {
    const auto expected = expected_plans();
    ASSERT_EQ(expected.size(), 10u);
    std::size_t files = 0;
    const GraphFile f = load_file(kJoint);
    const JointGraph j = analyze_joint(f, GraphId(0));
    for (const auto& e : std::filesystem::directory_iterator(kBadPlans)) {
        if (e.path().extension() != ".json") continue;
        ++files;
        const std::string name = e.path().filename().string();
        const auto it = expected.find(name);
        ASSERT_NE(it, expected.end()) << name << " has no line in expected.txt";
        std::string message = "no error";
        try {
            resolve_plan(j, load_plan(e.path().string()), e.path().string());
        } catch (const Error& err) {
            message = err.what();
        }
        EXPECT_EQ(message.rfind(e.path().string(), 0), 0u) << message;
        EXPECT_NE(message.find(it->second), std::string::npos) << name << ": " << message;
        const auto run = cli({"remat", kJoint, "--plan", e.path().string()});
        EXPECT_EQ(run.status, 1) << name;
        EXPECT_NE(run.err.find(it->second), std::string::npos) << name << ": " << run.err;
    }
    EXPECT_EQ(files, expected.size());
}

TEST(RematPlans, APlanWrittenByRematReadsBackToTheSamePartition) {
    const GraphFile f = load_file(kJoint);
    const JointGraph j = analyze_joint(f, GraphId(0));
    RematOptions o;
    o.time_limit_s = 5;
    const RematResult r = search_remat(j, o);
    const RematPlan plan = make_plan(j, r);
    const RematPlan again = parse_plan(plan_to_json(plan), "p.json");
    EXPECT_EQ(again.saved, plan.saved);
    EXPECT_EQ(again.order, plan.order);
    EXPECT_EQ(again.peak, r.peak.peak);
    EXPECT_EQ(again.extra_flops, r.extra_flops);
    const ResolvedPlan rp = resolve_plan(j, again, "p.json");
    EXPECT_EQ(rp.partition.saved, r.saved);
    EXPECT_EQ(score_partition(j, rp.partition, rp.backward_order).peak, r.peak.peak);
}

// save_plan: plan_to_json's bytes, written atomically; a failed write names the path.
TEST(RematPlans, SavePlanWritesPlanToJson) {
    const GraphFile f = load_file(kJoint);
    const JointGraph j = analyze_joint(f, GraphId(0));
    RematOptions o;
    o.time_limit_s = 5;
    const RematPlan plan = make_plan(j, search_remat(j, o));
    const std::string path = fxmem_test::scratch_dir() + "/saved.plan.json";
    save_plan(plan, path);
    EXPECT_EQ(read_regular_file(path), plan_to_json(plan));
    const std::string nowhere = fxmem_test::scratch_dir() + "/no/such/dir/plan.json";
    try {
        save_plan(plan, nowhere);
        FAIL() << "wrote " << nowhere;
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(nowhere), std::string::npos) << e.what();
    }
}

// The hand-made joint's only pair is its budget-1.0 partition (tests/core/test_remat.cpp has the
// arithmetic): 1096 bytes at the backward's mul (step 5), 320 saved bytes (primals_2 64 + relu 256).
TEST(RematCli, BudgetsJson) {
    const auto run = cli({"budgets", kJoint, "--json"});
    ASSERT_EQ(run.status, 0) << run.err;
    const auto rows = run.json()["rows"];
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0]["budget"], 1.0);
    EXPECT_EQ(rows[0]["peak"], 1096);
    EXPECT_EQ(rows[0]["step"], 5);
    EXPECT_EQ(rows[0]["node"], "mul");
    EXPECT_EQ(rows[0]["saved_bytes"], 320);
    EXPECT_EQ(rows[0]["extra_flops"], 0);
    EXPECT_EQ(rows[0]["pareto"], true);
    const auto none = cli({"budgets", kData + "/good/pair.json"});
    EXPECT_EQ(none.status, 1);
    EXPECT_NE(none.err.find("no pair has a 'budget'"), std::string::npos) << none.err;
}

TEST(RematCli, RematJsonAndPlanScoring) {
    const std::string plan = fxmem_test::scratch_dir() + "/plan.json";
    const auto run = cli({"remat", kJoint, "--time-limit", "5", "-o", plan, "--json"});
    ASSERT_EQ(run.status, 0) << run.err;
    const auto j = run.json();
    // Nothing beats the baseline here (the peak is tangent-driven: expand, cos, mul and relu live
    // together whatever is saved), so the plan is the baseline itself.
    EXPECT_EQ(j["baseline"]["peak"], 1096);
    EXPECT_EQ(j["baseline"]["flops"], 2384);
    EXPECT_LE(j["peak"].get<std::int64_t>(), 1096);
    EXPECT_EQ(j["pytorch"].size(), 1u);
    EXPECT_EQ(j["frontier"][0]["extra_flops"], 0);
    const auto scored = cli({"remat", kJoint, "--plan", plan, "--json"});
    ASSERT_EQ(scored.status, 0) << scored.err;
    EXPECT_EQ(scored.json()["peak"], j["peak"]);
    EXPECT_EQ(scored.json()["order"], j["order"]);
    EXPECT_EQ(j["reproducible"], true);
    // A hand-made plan saving cos and relu: cos (a node the forward outputs do not need) has
    // relu there, so PyTorch's partitioner would recompute it rather than save it.
    const std::string hand = fxmem_test::scratch_dir() + "/hand.json";
    {
        std::ofstream out(hand);
        out << R"({"format": "fxmem-remat", "version": 1, "joint": "joint", "saved": ["primals_2", "relu", "cos"]})";
    }
    const auto unstable = cli({"remat", kJoint, "--plan", hand, "--json"});
    ASSERT_EQ(unstable.status, 0) << unstable.err;
    EXPECT_EQ(unstable.json()["reproducible"], false);
    EXPECT_NE(cli({"remat", kJoint, "--plan", hand}).out.find("note: PyTorch's partitioner would recompute 'cos'"),
              std::string::npos);
    // Usage: two limits, a limit with --plan, a non-number.
    EXPECT_EQ(cli({"remat", kJoint, "--max-extra-flops", "1", "--target-peak", "5"}).status, 2);
    EXPECT_EQ(cli({"remat", kJoint, "--plan", plan, "--max-extra-percent", "5"}).status, 2);
    EXPECT_EQ(cli({"remat", kJoint, "--max-extra-percent", "x"}).status, 2);
    const auto nojoint = cli({"remat", kData + "/good/pair.json"});
    EXPECT_EQ(nojoint.status, 1);
    EXPECT_NE(nojoint.err.find("no joint graph"), std::string::npos) << nojoint.err;
}

// A joint graph where recomputing pays: a chain of five forward values x1..x5 (100 bytes each),
// all read by the backward, so the baseline saves all five; the backward's peak is their sum plus
// its own values. Recomputing from x1 needs only x1 saved.
namespace {
GraphFile chain_joint() {
    GraphFile f;
    f.source = "chain";
    const auto st = [&](std::int64_t id, std::int64_t bytes) { return f.add_storage(id, "cuda:0", bytes); };
    GraphBuilder b(f, "joint", GraphKind::Joint);
    b.add("primals_1", OpKind::Placeholder, "primals_1", {}, {st(0, 100)});
    b.add("tangents_1", OpKind::Placeholder, "tangents_1", {}, {st(1, 4)});
    const char* xs[] = {"x1", "x2", "x3", "x4", "x5"};
    const char* prev = "primals_1";
    for (int i = 0; i < 5; ++i) {
        b.add(xs[i], OpKind::CallFunction, "aten.sin.default", {prev}, {st(10 + i, 100)});
        prev = xs[i];
    }
    b.add("loss", OpKind::CallFunction, "aten.sum.default", {"x5"}, {st(20, 4)});
    // Backward: g5 = f(tangents, x5), g4 = f(g5, x4), ... each 100 bytes.
    const char* gs[] = {"g5", "g4", "g3", "g2", "g1"};
    const char* gprev = "tangents_1";
    for (int i = 0; i < 5; ++i) {
        b.add(gs[i], OpKind::CallFunction, "aten.mul.Tensor", {gprev, xs[4 - i]}, {st(30 + i, 100)});
        gprev = gs[i];
    }
    b.add("output", OpKind::Output, "output", {"loss", "g1"}, {});
    Graph& g = b.finish();
    g.num_fwd_outputs = 1;
    g.node_flops.assign(g.size(), 0);
    for (const char* x : xs) g.node_flops[g.find(x).index()] = 10;
    return f;
}
} // namespace

TEST(RematSearch, RecomputingAChainLowersThePeakWithinTheLimitAndNeverAboveTheBaseline) {
    const GraphFile f = chain_joint();
    const JointGraph j = analyze_joint(f, GraphId(0));
    // Baseline (no pair): every forward value a backward node reads: x1..x5 and nothing else.
    const RematBaseline base = remat_baseline(j);
    ASSERT_EQ(base.saved.size(), 5u);
    EXPECT_EQ(base.flops, 50);
    // Its backward: 100 (primals_1 is not saved: only x1 reads it) ... placeholders x1..x5 (500) +
    // tangents 4 = 504; g5 604, then x5 freed 504; g4 604, g5 and x4 freed 404; ... peak 604.
    // Forward: 100 + x1..x5 (all saved) 600 + loss 4 = 604. Baseline of the pair: loss's 4 bytes.
    const PeakMemory p0 = score_partition(j, simulate_partition(j, base.saved));
    EXPECT_EQ(p0.forward_peak, 604);
    EXPECT_EQ(p0.backward_peak, 608);
    RematOptions o;
    o.time_limit_s = 10;
    const RematResult r = search_remat(j, o);
    EXPECT_EQ(r.baseline_peak, 608);
    EXPECT_LT(r.peak.peak, 608);
    EXPECT_EQ(score_partition(j, r.partition, r.backward_order).peak, r.peak.peak); // scored exactly
    EXPECT_EQ(r.extra_flops, r.partition.flops - 50);
    // The frontier: FLOPs rising, peaks falling, starting at the baseline's 0 extra FLOPs.
    ASSERT_GE(r.frontier.size(), 2u);
    EXPECT_EQ(r.frontier.front().extra_flops, 0);
    EXPECT_EQ(r.frontier.front().peak, 608);
    for (std::size_t i = 1; i < r.frontier.size(); ++i) {
        EXPECT_GT(r.frontier[i].extra_flops, r.frontier[i - 1].extra_flops);
        EXPECT_LT(r.frontier[i].peak, r.frontier[i - 1].peak);
    }
    EXPECT_EQ(r.frontier.back().peak, r.peak.peak);
    // A limit of 0 extra FLOPs keeps the baseline; a limit of 10 allows one recompute at most.
    o.max_extra_flops = 0;
    const RematResult none = search_remat(j, o);
    EXPECT_EQ(none.extra_flops, 0);
    EXPECT_EQ(none.peak.peak, 608);
    o.max_extra_flops = 10;
    const RematResult one = search_remat(j, o);
    EXPECT_LE(one.extra_flops, 10);
    EXPECT_LE(one.peak.peak, 608);
    // A target peak: the fewest FLOPs that reach it.
    o.max_extra_flops.reset();
    o.target_peak = r.peak.peak;
    const RematResult target = search_remat(j, o);
    EXPECT_LE(target.peak.peak, r.peak.peak);
    EXPECT_TRUE(target.met_limit);
    // Recomputing x2 alone (from the saved x1) already gives 508: g3 and the recomputed x2 and
    // g2 are never live with more than two others (hand-checked in the comments of the review).
    EXPECT_LE(r.peak.peak, 508);
}

// Two budget points of the hand-made joint (tests/data/good/joint_sweep.json): budget 0.5 saves mm
// instead of relu, so its backward recomputes relu (64 FLOPs) before cos; the same 1096-byte peak
// (now at step 7: expand, relu, cos, then mul's allocation) and the same 320 saved bytes
// (primals_2 64 + mm 256). It is dominated by budget 1.0 (same peak, fewer FLOPs): not Pareto.
TEST(RematCli, BudgetRowsMarkTheDominatedPoint) {
    const auto run = cli({"budgets", kData + "/good/joint_sweep.json", "--json"});
    ASSERT_EQ(run.status, 0) << run.err;
    const auto rows = run.json()["rows"];
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[1]["budget"], 0.5);
    EXPECT_EQ(rows[1]["peak"], 1096);
    EXPECT_EQ(rows[1]["step"], 7);
    EXPECT_EQ(rows[1]["node"], "mul");
    EXPECT_EQ(rows[1]["saved_bytes"], 320);
    EXPECT_EQ(rows[1]["extra_flops"], 64);
    EXPECT_EQ(rows[0]["pareto"], true);
    EXPECT_EQ(rows[1]["pareto"], false);
    EXPECT_EQ(rows[0]["lowest"], true);
    EXPECT_EQ(rows[1]["lowest"], false);
    // The simulation rebuilds the hand-written 0.5 pair from its saved set, and the frontier of
    // remat dominates both points.
    const GraphFile f = load_file(kData + "/good/joint_sweep.json");
    const JointGraph j = analyze_joint(f, GraphId(0));
    const Partition p = simulate_partition(j, saved_of_pair(j, f.pairs[1]));
    const SimulatedPair sim = materialize_partition(j, p, "f", "b");
    for (int side = 0; side < 2; ++side) {
        const Graph& want = f.graph(side ? f.pairs[1].backward : f.pairs[1].forward);
        const Graph& got = side ? sim.backward() : sim.forward();
        ASSERT_EQ(got.size(), want.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
            const NodeId id(static_cast<std::int32_t>(i));
            EXPECT_EQ(got.node(id).name, want.node(id).name) << i;
            ASSERT_EQ(got.inputs(id).size(), want.inputs(id).size()) << i;
            for (std::size_t k = 0; k < got.inputs(id).size(); ++k)
                EXPECT_EQ(got.node(got.inputs(id)[k]).name, want.node(want.inputs(id)[k]).name);
        }
    }
    const auto remat = cli({"remat", kData + "/good/joint_sweep.json", "--time-limit", "5", "--json"});
    ASSERT_EQ(remat.status, 0) << remat.err;
    const auto frontier = remat.json()["frontier"];
    for (const auto& row : rows) {
        bool dominated = false;
        for (const auto& pt : frontier)
            dominated = dominated || (pt["peak"] <= row["peak"] && pt["extra_flops"] <= row["extra_flops"]);
        EXPECT_TRUE(dominated) << row.dump();
    }
}

// The bundled llama sweep (resources/examples/llama_sweep.fxmem.json, fxmem_export.sweep of the
// 2-layer llama at budgets 1.0, 0.8, ..., 0.0): the budget table, and the search's frontier
// dominating every budget point even with a 1 s limit (PyTorch's points are scored before any
// move; each is rebuilt exactly by the simulation).
TEST(RematLlama, BudgetTableAndFrontierDominance) {
    const std::string path = kData + "/../../resources/examples/llama_sweep.fxmem.json";
    const GraphFile f = load_file(path);
    const std::vector<BudgetRow> rows = budget_rows(f);
    ASSERT_EQ(rows.size(), 6u);
    // Pair peaks in bytes, each equal to PyTorch's estimator in the file's reference block
    // (reference.pairs[*].intended.peak): 1.0 2,075,424; 0.6 1,781,800; 0.2 1,604,632, the
    // lowest; 0.0 2,418,984 at +34,078,720 FLOPs (the exporter's FlopCounterMode difference) of
    // the budget-1.0 pair's 104,333,312: +32.6 %.
    EXPECT_EQ(rows[0].budget, 1.0);
    EXPECT_EQ(rows[0].peak.peak, 2075424);
    EXPECT_EQ(rows[0].flops, 104333312);
    EXPECT_EQ(rows[2].budget, 0.6);
    EXPECT_EQ(rows[2].peak.peak, 1781800);
    EXPECT_EQ(rows[4].budget, 0.2);
    EXPECT_EQ(rows[4].peak.peak, 1604632);
    EXPECT_TRUE(rows[4].lowest);
    EXPECT_EQ(rows[5].peak.peak, 2418984);
    EXPECT_EQ(rows[5].extra_flops, 34078720);
    EXPECT_EQ(rows[5].extra_flops * 1000 / rows[0].flops, 326); // +32.6 %
    const JointGraph j = analyze_joint(f, *f.find_graph("joint"));
    {
        // The phases fxmem derives equal the ones the exporter wrote (PyTorch's classify_nodes).
        GraphFile bare = load_file(path);
        bare.graphs[bare.find_graph("joint")->index()].node_phases.clear();
        EXPECT_EQ(analyze_joint(bare, *bare.find_graph("joint")).forward, j.forward);
    }
    for (const BudgetRow& row : rows) {
        const Partition p = simulate_partition(j, saved_of_pair(j, f.pairs[row.pair]));
        EXPECT_EQ(score_partition(j, p).peak, row.peak.peak) << row.budget;
        EXPECT_EQ(p.flops, row.flops) << row.budget;
    }
    RematOptions o;
    o.time_limit_s = 1;
    const RematResult r = search_remat(j, o);
    EXPECT_LE(r.peak.peak, rows[4].peak.peak); // the lowest budget point
    for (const BudgetRow& row : rows) {
        bool dominated = false;
        for (const FrontierPoint& pt : r.frontier)
            dominated = dominated || (pt.peak <= row.peak.peak && pt.extra_flops <= row.extra_flops);
        EXPECT_TRUE(dominated) << row.budget;
    }
}

// The search on the bundled llama sweep: the same plan on every run that ends within its limit
// (nothing in it depends on the clock then), and monotone in its FLOP limit: a looser limit, or
// none, never returns a higher peak than a tighter ladder limit (1, 2, 5, 10, 20, 50 % of the
// baseline's FLOPs), each plan within its own limit.
TEST(RematLlama, SearchIsDeterministicAndMonotoneInItsLimit) {
    const GraphFile f = load_file(kData + "/../../resources/examples/llama_sweep.fxmem.json");
    const JointGraph j = analyze_joint(f, *f.find_graph("joint"));
    const auto run = [&](double percent) { // -1: no limit
        RematOptions o;
        o.time_limit_s = 120; // far more than it takes: the search ends by itself
        if (percent >= 0) o.max_extra_percent = percent;
        return search_remat(j, o);
    };
    const RematResult again1 = run(5), again2 = run(5);
    EXPECT_EQ(again1.saved, again2.saved);
    EXPECT_EQ(again1.backward_order, again2.backward_order);
    EXPECT_EQ(again1.peak.peak, again2.peak.peak);
    EXPECT_EQ(again1.evaluations, again2.evaluations);
    std::int64_t previous = again1.peak.peak;
    for (const double percent : {10.0, 20.0, -1.0}) {
        const RematResult r = run(percent);
        EXPECT_LE(r.peak.peak, previous) << percent;
        if (percent >= 0) {
            EXPECT_LE(static_cast<double>(r.extra_flops), static_cast<double>(r.baseline_flops) * percent / 100)
                << percent;
        }
        previous = r.peak.peak;
    }
    EXPECT_LT(previous, again1.peak.peak); // no limit goes lower than 5 %
}

// With graph breaks, remat plans the region that holds the whole-step peak (gpt_break: region1,
// whose backward peaks at 49,465,912 bytes with region0's saved values carried), says so, and
// --graph still picks another joint graph.
TEST(RematCli, PlansTheRegionHoldingTheWholeStepPeak) {
    const std::string path = kData + "/../../resources/examples/gpt_break.fxmem.json";
    const GraphFile f = load_file(path);
    const WholeStep step = whole_step(f, default_counted(f));
    EXPECT_EQ(step.peak, 49465912);
    const GraphId peak_graph = f.step[step.segments[step.peak_segment].entry].graph;
    EXPECT_EQ(f.graph(peak_graph).name, "region1.backward");

    const auto run = cli({"remat", path, "--time-limit", "2"});
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_TRUE(fxmem_test::contains(run.out, "joint graph 'region1.joint'")) << run.out;
    EXPECT_TRUE(
        fxmem_test::contains(run.out, "holds the whole-step peak, 47.2 MiB (49465912 bytes) in region1.backward"))
        << run.out;
    EXPECT_EQ(cli({"remat", path, "--time-limit", "2", "--json"}).json()["joint"], "region1.joint");
    const auto other = cli({"remat", path, "--time-limit", "2", "--graph", "region0.joint"});
    ASSERT_EQ(other.status, 0) << other.err;
    EXPECT_TRUE(fxmem_test::contains(other.out, "joint graph 'region0.joint'"));
    EXPECT_FALSE(fxmem_test::contains(other.out, "whole-step peak"));
}
