// The absent states of core's public API (std::optional, not -1 sentinels): an unknown graph
// name, a pair without a joint or budget, a node without FLOPs, a graph without
// num_fwd_outputs, a storage never released, an analysis outside any pair, a top-level box.
// One small file written by hand; every expected value follows from it.
#include "fxmem/analysis.h"
#include "fxmem/dataflow_layout.h"
#include "fxmem/io.h"
#include "fxmem/profile_steps.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

using namespace fxmem;

namespace {

std::string tensor(int storage) {
    return R"({"storage": )" + std::to_string(storage) +
           R"(, "dtype": "torch.float32", "shape": [4], "stride": [1], "offset": 0})";
}

// fwd: x -> a (7 FLOPs) -> b (no FLOPs) -> output [b]; bwd: tangents_1 -> g -> output [g].
// The pair names neither a joint graph nor a budget.
GraphFile small_pair() {
    const std::string text = R"({"format": "fxmem", "version": 1,
"storages": [
  {"id": 1, "device": "cuda:0", "nbytes": 100}, {"id": 2, "device": "cuda:0", "nbytes": 200},
  {"id": 3, "device": "cuda:0", "nbytes": 400}, {"id": 4, "device": "cuda:0", "nbytes": 16},
  {"id": 5, "device": "cuda:0", "nbytes": 32}
],
"graphs": [
  {"name": "fwd", "kind": "forward", "nodes": [
    {"name": "x", "op": "placeholder", "target": "x", "inputs": [], "val": )" +
                             tensor(1) + R"(},
    {"name": "a", "op": "call_function", "target": "aten.relu.default", "inputs": ["x"], "flops": 7, "val": )" +
                             tensor(2) + R"(},
    {"name": "b", "op": "call_function", "target": "aten.neg.default", "inputs": ["a"], "val": )" +
                             tensor(3) + R"(},
    {"name": "output", "op": "output", "target": "output", "inputs": ["b"], "val": [)" +
                             tensor(3) + R"(]}
  ]},
  {"name": "bwd", "kind": "backward", "nodes": [
    {"name": "tangents_1", "op": "placeholder", "target": "tangents_1", "inputs": [], "val": )" +
                             tensor(4) + R"(},
    {"name": "g", "op": "call_function", "target": "aten.neg.default", "inputs": ["tangents_1"], "val": )" +
                             tensor(5) + R"(},
    {"name": "output", "op": "output", "target": "output", "inputs": ["g"], "val": [)" +
                             tensor(5) + R"(]}
  ]}
],
"pairs": [{"forward": "fwd", "backward": "bwd"}]
})";
    return load_buffer(text, "optionals.json");
}

} // namespace

TEST(ApiOptionals, FindGraphOfAnUnknownNameIsNullopt) {
    const GraphFile f = small_pair();
    EXPECT_EQ(f.find_graph("fwd"), GraphId(0));
    EXPECT_EQ(f.find_graph("bwd"), GraphId(1));
    EXPECT_EQ(f.find_graph("nope"), std::nullopt);
    EXPECT_EQ(f.find_graph(""), std::nullopt);
    EXPECT_EQ(&f.graph(GraphId(1)), &f.graphs[1]);
}

TEST(ApiOptionals, APairWithoutJointHasNoJointAndNoBudget) {
    const GraphFile f = small_pair();
    ASSERT_EQ(f.pairs.size(), 1u);
    EXPECT_EQ(f.pairs[0].forward, GraphId(0));
    EXPECT_EQ(f.pairs[0].backward, GraphId(1));
    EXPECT_FALSE(f.pairs[0].joint.has_value());
    EXPECT_FALSE(f.pairs[0].budget.has_value());
    // Written back, the pair still has neither.
    const GraphFile back = load_buffer(to_json(f), "back.json");
    EXPECT_FALSE(back.pairs[0].joint.has_value());
    EXPECT_FALSE(back.pairs[0].budget.has_value());
}

TEST(ApiOptionals, FlopsAndNumFwdOutputsAreNulloptWhereTheFileGivesNone) {
    const GraphFile f = small_pair();
    const Graph& g = f.graph(GraphId(0));
    EXPECT_EQ(g.flops(g.find("a")), 7);
    EXPECT_EQ(g.flops(g.find("b")), std::nullopt);
    EXPECT_EQ(g.flops(g.find("x")), std::nullopt);
    EXPECT_EQ(g.num_fwd_outputs, std::nullopt); // not a joint graph
    // No node of bwd has FLOPs: its dense array stays empty, and flops() still says none.
    const Graph& b = f.graph(GraphId(1));
    EXPECT_TRUE(b.node_flops.empty());
    EXPECT_EQ(b.flops(b.find("g")), std::nullopt);
}

TEST(ApiOptionals, ANeverReleasedStorageHasNoFreeStep) {
    const auto f = std::make_shared<const GraphFile>(small_pair());
    const auto a = GraphAnalysis::compute(f, GraphId(0), DeviceFilter::NonCpu, {}, PairContext::Standalone);
    EXPECT_EQ(a->graph_index(), GraphId(0));
    EXPECT_EQ(a->pair_index(), std::nullopt); // standalone: no pair context
    // Profile nodes a (k = 0) and b (k = 1); at alloc_step(1) = 3 both a's and b's storages live.
    const std::vector<LiveStorage> live = a->live().live_at(static_cast<std::size_t>(alloc_step(1)));
    const auto find = [&](std::int64_t file_id) -> const LiveStorage* {
        for (const LiveStorage& s : live)
            if (s.storage == f->find_storage(file_id)) return &s;
        return nullptr;
    };
    const LiveStorage* of_a = find(2);
    const LiveStorage* of_b = find(3);
    ASSERT_NE(of_a, nullptr);
    ASSERT_NE(of_b, nullptr);
    EXPECT_EQ(of_a->reason, LiveReason::WaitingForUse);
    EXPECT_EQ(of_a->free_step, free_step(1)); // freed after its last user b: 4
    EXPECT_EQ(of_b->reason, LiveReason::GraphOutput);
    EXPECT_EQ(of_b->free_step, std::nullopt); // reaches the output node: never released
}

TEST(ApiOptionals, AnAnalysisInItsPairKnowsThePair) {
    const auto f = std::make_shared<const GraphFile>(small_pair());
    EXPECT_EQ(GraphAnalysis::compute(f, GraphId(1))->pair_index(), std::optional<std::size_t>(0));
    EXPECT_TRUE(GraphAnalysis::compute(f, GraphId(1))->is_backward_of_pair());
}

TEST(ApiOptionals, TopLevelBoxesHaveNoParent) {
    const GraphFile f = small_pair();
    const DataflowLayout layout(f, GraphId(0), ModuleTree(f.graph(GraphId(0))));
    const DataflowDrawing d = layout.drawing();
    ASSERT_EQ(d.boxes.size(), 4u); // no modules: one box per node, all at the top
    for (const DataflowDrawing::Box& b : d.boxes) EXPECT_EQ(b.parent, std::nullopt);
}
