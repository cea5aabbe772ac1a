// Several graphs' dataflow drawings side by side (fxmem/dataflow_scene.h) and `fxmem-cli layout
// --pair/--whole-step`: segments left to right without overlapping, and each edge between graphs
// from the node that made a storage to the later placeholder holding it, with the storages'
// bytes read from the file here.
#include "cli_run.h"

#include "fxmem/dataflow_scene.h"
#include "fxmem/io.h"
#include "work_counters.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>
#include <vector>

using namespace fxmem;

namespace {

const std::string kPair = std::string(FXMEM_TEST_DATA) + "/good/pair.json";
const std::string kStep = std::string(FXMEM_TEST_DATA) + "/../../resources/examples/gpt_adam.fxmem.json";

bool overlap(const nlohmann::json& a, const nlohmann::json& b) {
    const double ax = a["x"], ay = a["y"], aw = a["w"], ah = a["h"];
    const double bx = b["x"], by = b["y"], bw = b["w"], bh = b["h"];
    return ax < bx + bw && bx < ax + aw && ay < by + bh && by < ay + ah;
}

bool is_input(const Graph& g, NodeId n) {
    return g.node(n).op == OpKind::Placeholder || g.node(n).op == OpKind::GetAttr;
}

} // namespace

TEST(DataflowScene, PairJsonSideBySideWithTheSavedActivation) {
    const fxmem_test::CliRun r = fxmem_test::cli({"layout", kPair, "--pair", "0", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json j = r.json();
    ASSERT_EQ(j["segments"].size(), 2u);
    const auto& s0 = j["segments"][0];
    const auto& s1 = j["segments"][1];
    EXPECT_EQ(s0["graph"], "fwd");
    EXPECT_EQ(s1["graph"], "bwd");
    EXPECT_GE(s1["x"].get<double>(), s0["x"].get<double>() + s0["w"].get<double>());
    // Every box inside its segment's column, and no box of one segment meets one of the other.
    std::vector<int> seg_of(j["boxes"].size());
    for (int s = 0; s < 2; ++s) {
        const auto& seg = j["segments"][s];
        for (std::size_t i = 0; i < seg["boxes"].get<std::size_t>(); ++i) {
            const std::size_t id = seg["first_box"].get<std::size_t>() + i;
            seg_of[id] = s;
            const auto& b = j["boxes"][id];
            EXPECT_GE(b["x"].get<double>(), seg["x"].get<double>() - 1e-9);
            EXPECT_LE(b["x"].get<double>() + b["w"].get<double>(),
                      seg["x"].get<double>() + seg["w"].get<double>() + 1e-9);
        }
    }
    for (std::size_t a = 0; a < j["boxes"].size(); ++a)
        for (std::size_t b = a + 1; b < j["boxes"].size(); ++b)
            if (seg_of[a] != seg_of[b]) {
                EXPECT_FALSE(overlap(j["boxes"][a], j["boxes"][b])) << a << " " << b;
            }
    // pair.json: the backward reads the forward's mm (a 10x10 float32 storage, 400 bytes) through
    // its placeholder mm; primals_2 is the forward's input, made by no node, so no edge.
    std::vector<nlohmann::json> across;
    for (const auto& e : j["edges"])
        if (e.value("across", false)) across.push_back(e);
    ASSERT_EQ(across.size(), 1u);
    const auto& from = j["boxes"][across[0]["from"].get<std::size_t>()];
    const auto& to = j["boxes"][across[0]["to"].get<std::size_t>()];
    EXPECT_EQ(from["name"], "mm");
    EXPECT_EQ(from["kind"], "node");
    EXPECT_EQ(seg_of[across[0]["from"].get<std::size_t>()], 0);
    EXPECT_EQ(to["name"], "mm");
    EXPECT_EQ(seg_of[across[0]["to"].get<std::size_t>()], 1);
    const GraphFile file = load_file(kPair);
    const Graph& fwd = file.graph(file.pairs[0].forward);
    std::int64_t mm_bytes = 0;
    for (std::uint32_t v = 0; v < fwd.size(); ++v) {
        if (fwd.nodes[v].name != "mm") continue;
        for (StorageId st : fwd.outputs(NodeId(static_cast<std::int32_t>(v)))) mm_bytes += file.nbytes(st);
    }
    EXPECT_EQ(mm_bytes, 400);
    EXPECT_EQ(across[0]["bytes"].get<std::int64_t>(), mm_bytes);
    // Its line leaves the producer's right side and reaches the placeholder's left side.
    EXPECT_DOUBLE_EQ(across[0]["points"][0][0].get<double>(), from["x"].get<double>() + from["w"].get<double>());
    EXPECT_DOUBLE_EQ(across[0]["points"][1][0].get<double>(), to["x"].get<double>());
}

TEST(DataflowScene, WholeStepEdgesGoFromTheMakerToTheReadingPlaceholder) {
    const GraphFile file = load_file(kStep);
    ASSERT_GE(file.step.size(), 2u);
    std::vector<GraphId> graphs;
    std::vector<ModuleTree> trees;
    for (const StepEntry& e : file.step) {
        graphs.push_back(e.graph);
        trees.emplace_back(file.graph(e.graph));
    }
    // Every module open: each node is its own box, so an edge's boxes name its nodes.
    const DataflowScene scene(file, graphs, trees, [](std::size_t) {
        DataflowOptions o;
        o.depth = 1000;
        return o;
    });
    ASSERT_EQ(scene.size(), graphs.size());
    for (std::size_t s = 1; s < scene.size(); ++s)
        EXPECT_GE(scene.segment(s).x,
                  scene.segment(s - 1).x + scene.segment(s - 1).drawing.width + DataflowScene::kSegmentGap - 1e-9);
    // Expected, by brute force: for each later placeholder's storage, the last earlier run whose
    // computing node outputs it, and there the first such node (the one that allocated it; later
    // ones are views of it).
    using Key = std::tuple<std::size_t, std::int32_t, std::size_t, std::int32_t>;
    std::map<Key, std::int64_t> expected;
    for (std::size_t s = 1; s < graphs.size(); ++s) {
        const Graph& g = file.graph(graphs[s]);
        for (std::uint32_t v = 0; v < g.size(); ++v) {
            const NodeId p(static_cast<std::int32_t>(v));
            if (g.node(p).op != OpKind::Placeholder) continue;
            for (StorageId st : g.outputs(p)) {
                bool found = false;
                for (std::size_t r = s; r-- > 0 && !found;) {
                    const Graph& h = file.graph(graphs[r]);
                    for (std::uint32_t u = 0; u < h.size() && !found; ++u) {
                        const NodeId n(static_cast<std::int32_t>(u));
                        if (is_input(h, n) || h.node(n).op == OpKind::Output) continue;
                        for (StorageId o : h.outputs(n))
                            if (o == st) {
                                expected[{r, n.index(), s, p.index()}] += file.nbytes(st);
                                found = true;
                            }
                    }
                }
            }
        }
    }
    ASSERT_FALSE(expected.empty());
    std::map<Key, std::int64_t> got;
    for (const DataflowCrossEdge& c : scene.cross_edges()) {
        const auto& a = scene.segment(c.from_segment).drawing.boxes[c.from_box];
        const auto& b = scene.segment(c.to_segment).drawing.boxes[c.to_box];
        ASSERT_EQ(a.kind, DataflowDrawing::Kind::Node);
        ASSERT_EQ(b.kind, DataflowDrawing::Kind::Node);
        EXPECT_LT(c.from_segment, c.to_segment);
        EXPECT_EQ(file.graph(graphs[c.to_segment]).node(NodeId(static_cast<std::int32_t>(b.ref))).op,
                  OpKind::Placeholder);
        got[{c.from_segment, static_cast<std::int32_t>(a.ref), c.to_segment, static_cast<std::int32_t>(b.ref)}] +=
            c.bytes;
    }
    EXPECT_EQ(got, expected);
}

TEST(DataflowScene, CliRefusesMixedModesAndNamesAMissingPair) {
    EXPECT_EQ(fxmem_test::cli({"layout", kPair, "--pair", "0", "--graph", "fwd"}).status, 2);
    const fxmem_test::CliRun none = fxmem_test::cli({"layout", kPair, "--pair", "3"});
    EXPECT_EQ(none.status, 1);
    EXPECT_NE(none.err.find("no pair 3"), std::string::npos) << none.err;
    const fxmem_test::CliRun step = fxmem_test::cli({"layout", kPair, "--whole-step"});
    EXPECT_EQ(step.status, 1);
    EXPECT_NE(step.err.find("no \"step\""), std::string::npos) << step.err;
}

// `layout --expand` drew the whole segment once per name (10,000 names on 100k sibling modules:
// 527 s): expand_all draws each segment once for a whole list.
TEST(DataflowScene, ExpandingAListDrawsTheSegmentOnce) {
    // 300 sibling modules m0..m299 under "top", each with one node.
    std::string nodes =
        R"({"name": "x", "op": "placeholder", "target": "x", "inputs": [], "val": {"storage": 0, "dtype": "torch.float32", "shape": [1], "stride": [1], "offset": 0}})";
    std::string storages = R"({"id": 0, "device": "cuda:0", "nbytes": 4})";
    constexpr int kModules = 300;
    for (int m = 0; m < kModules; ++m) {
        const std::string id = std::to_string(m + 1);
        storages += R"(, {"id": )" + id + R"(, "device": "cuda:0", "nbytes": 4})";
        nodes += R"(, {"name": "n)" + id +
                 R"(", "op": "call_function", "target": "aten.relu.default", "inputs": ["x"], "module": "top.m)" +
                 std::to_string(m) + R"(", "val": {"storage": )" + id +
                 R"(, "dtype": "torch.float32", "shape": [1], "stride": [1], "offset": 0}})";
    }
    nodes += R"(, {"name": "output", "op": "output", "target": "output", "inputs": ["n1"], "val": null})";
    const GraphFile file =
        load_buffer(R"({"format": "fxmem", "version": 1, "storages": [)" + storages +
                        R"(], "graphs": [{"name": "g", "kind": "inference", "nodes": [)" + nodes + "]}]}",
                    "siblings.json");
    const std::vector<GraphId> graphs = {GraphId(0)};
    const std::vector<ModuleTree> trees = {ModuleTree(file.graph(GraphId(0)))};
    DataflowScene scene(file, graphs, trees, [](std::size_t) {
        DataflowOptions o;
        o.depth = 2; // top open, its modules drawn collapsed
        return o;
    });
    const std::uint64_t before = detail::WorkCounters::drawings(scene);
    EXPECT_EQ(before, 1u);
    std::vector<std::uint32_t> all;
    for (int m = 0; m < kModules; ++m) all.push_back(trees[0].find("top.m" + std::to_string(m)));
    EXPECT_EQ(scene.expand_all(0, all), static_cast<std::size_t>(kModules));
    EXPECT_EQ(detail::WorkCounters::drawings(scene), before + 1);
    for (const std::uint32_t m : all) EXPECT_TRUE(scene.segment(0).layout->expanded(m));
    // The drawing is the one expanding each in turn gives.
    DataflowScene one_by_one(file, graphs, trees, [](std::size_t) {
        DataflowOptions o;
        o.depth = 2;
        return o;
    });
    for (const std::uint32_t m : all) one_by_one.expand(0, m);
    EXPECT_EQ(detail::WorkCounters::drawings(one_by_one), 1u + kModules);
    ASSERT_EQ(scene.segment(0).drawing.boxes.size(), one_by_one.segment(0).drawing.boxes.size());
    for (std::size_t i = 0; i < scene.segment(0).drawing.boxes.size(); ++i) {
        EXPECT_EQ(scene.segment(0).drawing.boxes[i].x, one_by_one.segment(0).drawing.boxes[i].x);
        EXPECT_EQ(scene.segment(0).drawing.boxes[i].y, one_by_one.segment(0).drawing.boxes[i].y);
    }
    EXPECT_EQ(scene.expand_all(0, all), 0u); // already open: no drawing
    EXPECT_EQ(detail::WorkCounters::drawings(scene), before + 1);
}
