// Recompute: the simulated partitions of tests/data/good/joint.json against hand-made pairs and
// hand-computed peaks (the arithmetic is in the comments), and the errors of bad saved sets.
#include "error_of.h"
#include "fxmem/error.h"
#include "fxmem/io.h"
#include "fxmem/remat.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace fxmem;

namespace {

using fxmem_test::error_of;

std::vector<NodeId> ids(const Graph& g, std::initializer_list<const char*> names) {
    std::vector<NodeId> out;
    for (const char* n : names) out.push_back(g.find(n));
    return out;
}

std::vector<std::string> names(const Graph& g, const std::vector<NodeId>& v) {
    std::vector<std::string> out;
    for (NodeId id : v) out.push_back(g.node(id).name);
    return out;
}

// The graph as "name(op: inputs)" lines, to compare a simulated graph with a hand-made one.
std::vector<std::string> shape_of(const Graph& g) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < g.size(); ++i) {
        const NodeId id(static_cast<std::int32_t>(i));
        std::string s = g.node(id).name + "(" + std::string(to_string(g.node(id).op)) + ":";
        for (NodeId in : g.inputs(id)) s += " " + g.node(in).name;
        out.push_back(s + ")");
    }
    return out;
}

} // namespace

TEST(Remat, JointAnalysisSplitsOutputsAndPhases) {
    const GraphFile f = load_file(kJoint);
    const JointGraph j = analyze_joint(f, GraphId(0));
    const Graph& g = j.g();
    EXPECT_EQ(names(g, j.primals), (std::vector<std::string>{"primals_1", "primals_2"}));
    EXPECT_EQ(names(g, j.tangents), (std::vector<std::string>{"tangents_1"}));
    EXPECT_EQ(names(g, j.fwd_outputs), (std::vector<std::string>{"sum_1"}));
    EXPECT_EQ(names(g, j.bwd_outputs), (std::vector<std::string>{"mm_1"}));
    // cos and t need only forward values: computable, but phase backward (not needed by sum_1).
    EXPECT_TRUE(j.computable[g.find("cos").index()]);
    EXPECT_FALSE(j.forward[g.find("cos").index()]);
    EXPECT_TRUE(j.forward[g.find("sin").index()]);
    EXPECT_FALSE(j.computable[g.find("expand").index()]);
    EXPECT_EQ(j.flops[g.find("mm").index()], 1000);
}

TEST(Remat, DerivedPhasesEqualTheFilesAndContradictionsAreErrors) {
    GraphFile f = load_file(kJoint);
    const JointGraph with = analyze_joint(f, GraphId(0));
    f.graphs[0].node_phases.clear();
    const JointGraph without = analyze_joint(f, GraphId(0));
    EXPECT_EQ(with.forward, without.forward);
    f.graphs[0].node_phases.assign(f.graphs[0].size(), NodePhase::Unknown);
    f.graphs[0].node_phases[f.graphs[0].find("sin").index()] = NodePhase::Backward;
    EXPECT_NE(
        error_of([&] {
            analyze_joint(f, GraphId(0));
        }).find("graph 'joint', node 'sin': the file says phase 'backward' but the forward outputs need the node"),
        std::string::npos);
    f.graphs[0].node_phases.assign(f.graphs[0].size(), NodePhase::Unknown);
    f.graphs[0].node_phases[f.graphs[0].find("mul").index()] = NodePhase::Forward;
    EXPECT_NE(error_of([&] {
                  analyze_joint(f, GraphId(0));
              }).find("node 'mul': the file says phase 'forward' but the node needs a tangent"),
              std::string::npos);
    EXPECT_NE(error_of([&] { analyze_joint(f, GraphId(1)); }).find("graph 'budget=1.0.forward': not a joint graph"),
              std::string::npos);
}

// The file's budget=1.0 pair is the partition that saves primals_2 and relu: the simulation
// rebuilds it node for node, and its peak.
TEST(Remat, SavedSetOfThePairRebuildsThePair) {
    const GraphFile f = load_file(kJoint);
    const JointGraph j = analyze_joint(f, GraphId(0));
    const std::vector<NodeId> saved = saved_of_pair(j, f.pairs[0]);
    EXPECT_EQ(names(j.g(), saved), (std::vector<std::string>{"primals_2", "relu"}));
    const Partition p = simulate_partition(j, saved);
    EXPECT_TRUE(p.recomputed.empty());
    const SimulatedPair sim = materialize_partition(j, p, "f", "b");
    EXPECT_EQ(shape_of(sim.forward()), shape_of(f.graphs[1]));
    EXPECT_EQ(shape_of(sim.backward()), shape_of(f.graphs[2]));
    const PeakMemory want = get_peak_memory(f, f.graphs[1], f.graphs[2]);
    const PeakMemory got = score_partition(j, p);
    // Forward: 128 (primals) +256 mm = 384, +256 relu = 640, -256 mm, +256 sin = 640, +4 sum_1 = 644.
    // Backward: placeholders 64 + 256 + 4 = 324; expand 580, cos 836, mul 1092 (then expand, cos
    // freed); baseline: sum_1's 4 bytes, which no backward placeholder holds.
    EXPECT_EQ(got.forward_peak, 644);
    EXPECT_EQ(got.backward_baseline, 4);
    EXPECT_EQ(got.backward_peak, 1096);
    EXPECT_EQ(got.peak, want.peak);
    EXPECT_EQ(got.forward_peak, want.forward_peak);
    EXPECT_EQ(got.backward_peak, want.backward_peak);
    // FLOPs: forward mm 1000 + relu, sin, sum_1 64 each; backward cos, mul, threshold 64 each + mm_1 1000.
    EXPECT_EQ(p.flops, 1192 + 1192);
}

// Saving mm instead of relu: the backward recomputes relu, inserted by the autograd-order pass
// just before its first backward user (cos), not at its joint position.
TEST(Remat, RecomputedNodeGoesWhereTheAutogradOrderNeedsIt) {
    const GraphFile f = load_file(kJoint);
    const JointGraph j = analyze_joint(f, GraphId(0));
    const Partition p = simulate_partition(j, ids(j.g(), {"mm", "primals_2"}));
    EXPECT_EQ(names(j.g(), p.saved), (std::vector<std::string>{"primals_2", "mm"})); // joint order
    EXPECT_EQ(names(j.g(), p.backward),
              (std::vector<std::string>{"expand", "relu", "cos", "mul", "threshold_backward", "t", "mm_1"}));
    EXPECT_EQ(names(j.g(), p.recomputed), (std::vector<std::string>{"relu"}));
    EXPECT_EQ(names(j.g(), p.forward),
              (std::vector<std::string>{"primals_1", "primals_2", "mm", "relu", "sin", "sum_1"}));
    EXPECT_EQ(p.flops, 1192 + 1192 + 64); // relu once more
    const PeakMemory got = score_partition(j, p);
    // Forward: mm stays (saved): 128, 384, 640 (relu), 896 (sin; relu freed after it) -> 896.
    // Backward: 324; expand 580; relu 836 (mm freed) 580; cos 836; mul 1092; + baseline 4.
    EXPECT_EQ(got.forward_peak, 896);
    EXPECT_EQ(got.backward_peak, 1096);
    EXPECT_EQ(got.peak, 1096);
}

// A saved value the backward does not use is dropped, as _extract_fwd_bwd_modules drops it; an
// unclaimed node (cos: forward values only, needed only by the backward) may be saved: the
// forward then computes it.
TEST(Remat, UnusedSavedValuesDropAndUnclaimedNodesMayBeSaved) {
    const GraphFile f = load_file(kJoint);
    const JointGraph j = analyze_joint(f, GraphId(0));
    const Partition p = simulate_partition(j, ids(j.g(), {"sin", "relu", "primals_2", "primals_1", "cos"}));
    EXPECT_EQ(names(j.g(), p.saved), (std::vector<std::string>{"primals_2", "relu", "cos"}));
    EXPECT_EQ(names(j.g(), p.forward),
              (std::vector<std::string>{"primals_1", "primals_2", "mm", "relu", "sin", "sum_1", "cos"}));
    EXPECT_EQ(names(j.g(), p.backward), (std::vector<std::string>{"expand", "mul", "threshold_backward", "t", "mm_1"}));
    const PeakMemory got = score_partition(j, p);
    // Forward: 644 after sum_1 (sin freed: 388) + cos 256 = 644. Backward: 64 + 256 + 256 + 4 =
    // 580; expand 836; mul 1092; + baseline 4.
    EXPECT_EQ(got.forward_peak, 644);
    EXPECT_EQ(got.backward_peak, 1096);
}

TEST(Remat, SavedSetsThatCannotWorkAreErrorsNamingTheNode) {
    const GraphFile f = load_file(kJoint);
    const JointGraph j = analyze_joint(f, GraphId(0));
    EXPECT_NE(error_of([&] { simulate_partition(j, ids(j.g(), {"relu"})); })
                  .find("joint.json: graph 'joint', node 'mm_1': the backward needs it but cannot compute it from the "
                        "saved values: it needs 'primals_2', which is neither saved nor computable from saved values"),
              std::string::npos);
    EXPECT_NE(error_of([&] {
                  simulate_partition(j, ids(j.g(), {"primals_2", "relu", "expand"}));
              }).find("node 'expand': cannot be saved: the forward cannot compute it (it needs a tangent)"),
              std::string::npos);
    EXPECT_NE(error_of([&] {
                  simulate_partition(j, ids(j.g(), {"primals_2", "output"}));
              }).find("node 'output': the output node cannot be saved"),
              std::string::npos);
}

// The search scores partitions through the lean copy (no name index); files and views get the
// full one (GraphBuilder). Both must give the estimator the same graphs.
TEST(Remat, LeanAndFullMaterializationScoreTheSame) {
    const GraphFile f = load_file(std::string(FXMEM_TEST_DATA) + "/good/joint_sweep.json");
    const JointGraph j = analyze_joint(f, GraphId(0));
    for (const auto& saved : std::vector<std::vector<NodeId>>{
             ids(j.g(), {"primals_2", "relu"}), ids(j.g(), {"primals_2", "mm"}), ids(j.g(), {"primals_2", "primals_1"}),
             ids(j.g(), {"primals_2", "relu", "cos", "sin"})}) {
        const Partition p = simulate_partition(j, saved);
        const SimulatedPair lean = materialize_partition(j, p, "f", "b", {}, false);
        const SimulatedPair full = materialize_partition(j, p, "f", "b", {}, true);
        EXPECT_EQ(shape_of(lean.forward()), shape_of(full.forward()));
        EXPECT_EQ(shape_of(lean.backward()), shape_of(full.backward()));
        const auto a = analyze_pair(lean.file, lean.forward(), lean.backward(), default_counted(lean.file));
        const auto b = analyze_pair(full.file, full.forward(), full.backward(), default_counted(full.file));
        EXPECT_EQ(a.forward_profile, b.forward_profile);
        EXPECT_EQ(a.backward_profile, b.backward_profile);
        EXPECT_EQ(a.peak.peak, b.peak.peak);
        EXPECT_TRUE(full.backward().find("tangents_1").valid()); // the full copy has its name index
    }
}

// The Recompute view's single edits: recompute relu (mm joins the saved set; the pair is then
// the one of RecomputedNodeGoesWhereTheAutogradOrderNeedsIt), save it back, and the refusals.
TEST(Remat, SingleEditsAndTheirRefusals) {
    const GraphFile f = load_file(kJoint);
    const JointGraph j = analyze_joint(f, GraphId(0));
    const Graph& g = j.g();
    const std::vector<NodeId> base = ids(g, {"primals_2", "relu"});
    const std::vector<NodeId> recomputed = recompute_in_backward(j, base, g.find("relu"));
    const Partition p = simulate_partition(j, recomputed);
    EXPECT_EQ(names(g, p.saved), (std::vector<std::string>{"primals_2", "mm"}));
    EXPECT_EQ(names(g, p.recomputed), (std::vector<std::string>{"relu"}));
    EXPECT_EQ(p.flops, 2384 + 64);
    const std::vector<NodeId> back = save_in_forward(j, p.saved, g.find("relu"));
    EXPECT_EQ(simulate_partition(j, back).saved, simulate_partition(j, base).saved); // mm is no longer read
    EXPECT_NE(error_of([&] {
                  recompute_in_backward(j, base, g.find("primals_2"));
              }).find("node 'primals_2': a primal (an input of the forward) cannot be recomputed, only saved"),
              std::string::npos);
    EXPECT_NE(error_of([&] { recompute_in_backward(j, base, g.find("sin")); }).find("node 'sin': not saved"),
              std::string::npos);
    EXPECT_NE(error_of([&] { save_in_forward(j, base, g.find("relu")); }).find("node 'relu': already saved"),
              std::string::npos);
    EXPECT_NE(error_of([&] { save_in_forward(j, base, g.find("mul")); }).find("node 'mul': cannot be saved"),
              std::string::npos);
}
