// The optional fields of format v1 (docs/format.md): node "module"/"module_type", storage
// "role"/"label", and the top-level "schedules". Their errors are in tests/data/bad.
#include "fxmem/error.h"
#include "fxmem/io.h"
#include "fxmem/schedule.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <string>

using namespace fxmem;

namespace {

std::vector<std::string> names(const Graph& g, const std::vector<NodeId>& order) {
    std::vector<std::string> out;
    for (NodeId id : order) out.push_back(g.node(id).name);
    return out;
}

// Everything the new fields put in the model, as the file says it (tests/data/good/annotated.json).
void expect_annotations(const GraphFile& f) {
    ASSERT_EQ(f.storages.size(), 7u);
    const auto s = [](int i) { return StorageId(i); };
    EXPECT_EQ(f.role(s(0)), StorageRole::Parameter);
    EXPECT_EQ(f.label(s(0)), "lin.weight");
    EXPECT_EQ(f.role(s(1)), StorageRole::Input);
    EXPECT_EQ(f.label(s(1)), "");
    EXPECT_EQ(f.role(s(2)), StorageRole::Activation); // "label": null is no label
    EXPECT_EQ(f.label(s(2)), "");
    EXPECT_EQ(f.role(s(3)), StorageRole::Unknown); // "role": null is no role
    EXPECT_EQ(f.label(s(3)), "a2 (no role)");
    EXPECT_EQ(f.role(s(4)), StorageRole::Temporary);
    EXPECT_EQ(f.role(s(5)), StorageRole::Unknown);
    EXPECT_EQ(f.label(s(5)), "");
    EXPECT_EQ(f.role(s(6)), StorageRole::Output);
    EXPECT_EQ(f.label(s(6)), "loss");

    ASSERT_EQ(f.graphs.size(), 1u);
    const Graph& g = f.graphs[0];
    const auto module = [&](const char* node) { return g.module(g.find(node)); };
    EXPECT_EQ(module("primals_1"), nullptr);
    ASSERT_NE(module("a"), nullptr);
    EXPECT_EQ(module("a")->name, "lin");
    EXPECT_EQ(module("a")->type, "Linear");
    EXPECT_EQ(module("a2"), module("a")); // interned: the same (name, type)
    ASSERT_NE(module("b"), nullptr);
    EXPECT_EQ(module("b")->name, ""); // the root module
    EXPECT_EQ(module("b")->type, "Net");
    ASSERT_NE(module("b2"), nullptr);
    EXPECT_EQ(module("b2")->name, "act");
    EXPECT_EQ(module("b2")->type, ""); // "module_type": null
    EXPECT_EQ(module("c"), nullptr);   // "module": null
    EXPECT_EQ(g.modules.size(), 3u);

    ASSERT_EQ(f.schedules.size(), 2u);
    EXPECT_EQ(f.schedules[0].name, "wide");
    EXPECT_EQ(f.schedules[0].graph, GraphId(0));
    EXPECT_EQ(f.schedules[0].source, "hand-written: a and b both live before either is reduced");
    EXPECT_EQ(names(g, f.schedules[0].order),
              (std::vector<std::string>{"primals_1", "inp", "a", "b", "a2", "b2", "c", "output"}));
    EXPECT_EQ(f.schedules[1].name, "original");
    EXPECT_EQ(f.schedules[1].source, "");
    EXPECT_EQ(f.schedules[1].order, original_order(g));
}

} // namespace

TEST(IoFields, RolesLabelsModulesAndSchedulesAreRead) {
    // "schedules" comes before "graphs" in the file: resolved once everything is read.
    expect_annotations(load_file(kAnnotated));
}

TEST(IoFields, WriterKeepsThemAndTheRoundTripIsStable) {
    const GraphFile f = load_file(kAnnotated);
    const std::string text = to_json(f);
    const GraphFile back = load_buffer(text, "round.json");
    expect_annotations(back);
    EXPECT_EQ(to_json(back), text);
    // The writer omits what the file did not give (no role, no label, no module, no source).
    EXPECT_EQ(text.find("\"role\": null"), std::string::npos);
    EXPECT_NE(text.find(R"({"id": 5, "device": "cuda:0", "nbytes": 100})"), std::string::npos) << text;
    EXPECT_NE(text.find(R"("module": "act"})"), std::string::npos) << text;
}

TEST(IoFields, FilesWithoutTheFieldsHaveNone) {
    const GraphFile f = load_file(std::string(FXMEM_TEST_DATA) + "/good/pair.json");
    for (std::size_t s = 0; s < f.storages.size(); ++s) {
        EXPECT_EQ(f.role(StorageId(static_cast<std::int32_t>(s))), StorageRole::Unknown);
        EXPECT_EQ(f.label(StorageId(static_cast<std::int32_t>(s))), "");
    }
    for (const Graph& g : f.graphs) {
        EXPECT_TRUE(g.modules.empty());
        for (std::size_t i = 0; i < g.size(); ++i) EXPECT_EQ(g.module(NodeId(static_cast<std::int32_t>(i))), nullptr);
    }
    EXPECT_TRUE(f.schedules.empty());
    EXPECT_EQ(to_json(f).find("schedules"), std::string::npos);
}

TEST(IoFields, SchedulesOfSeveralGraphsMayShareAName) {
    // Names are unique per graph: "x" for fwd and "x" for bwd is fine.
    GraphFile f = load_file(std::string(FXMEM_TEST_DATA) + "/good/pair.json");
    f.schedules.push_back(NamedSchedule{"x", GraphId(0), original_order(f.graphs[0]), ""});
    f.schedules.push_back(NamedSchedule{"x", GraphId(1), original_order(f.graphs[1]), "s"});
    const GraphFile back = load_buffer(to_json(f), "two.json");
    ASSERT_EQ(back.schedules.size(), 2u);
    EXPECT_EQ(back.schedules[1].graph, GraphId(1));
    EXPECT_EQ(back.schedules[1].source, "s");
}

// The recompute fields (docs/format.md): graph kind "joint" and "num_fwd_outputs", node "phase"
// and "flops", pair "joint" and "budget" (tests/data/good/joint.json).
namespace {
void expect_joint_fields(const GraphFile& f) {
    ASSERT_EQ(f.graphs.size(), 3u);
    const Graph& j = f.graphs[0];
    EXPECT_EQ(j.kind, GraphKind::Joint);
    EXPECT_EQ(j.num_fwd_outputs, 1);
    EXPECT_EQ(j.phase(j.find("primals_1")), NodePhase::Forward);
    EXPECT_EQ(j.phase(j.find("tangents_1")), NodePhase::Backward);
    EXPECT_EQ(j.phase(j.find("cos")), NodePhase::Backward);
    EXPECT_EQ(j.flops(j.find("mm")), 1000);
    EXPECT_EQ(j.flops(j.find("expand")), 0);
    EXPECT_EQ(j.flops(j.find("primals_1")), std::nullopt); // not given
    const Graph& fwd = f.graphs[1];
    EXPECT_EQ(fwd.kind, GraphKind::Forward);
    EXPECT_EQ(fwd.num_fwd_outputs, std::nullopt);
    EXPECT_EQ(fwd.phase(fwd.find("mm")), NodePhase::Unknown);
    EXPECT_EQ(fwd.flops(fwd.find("mm")), 1000);
    EXPECT_EQ(fwd.flops(fwd.find("output")), std::nullopt);
    ASSERT_EQ(f.pairs.size(), 1u);
    EXPECT_EQ(f.pairs[0].joint, GraphId(0));
    EXPECT_EQ(f.pairs[0].budget, 1.0);
}
} // namespace

TEST(IoFields, JointGraphPhasesFlopsAndPairBudgetAreRead) {
    expect_joint_fields(load_file(std::string(FXMEM_TEST_DATA) + "/good/joint.json"));
}

TEST(IoFields, JointFieldsSurviveTheRoundTrip) {
    const GraphFile f = load_file(std::string(FXMEM_TEST_DATA) + "/good/joint.json");
    const std::string text = to_json(f);
    EXPECT_NE(text.find(R"("kind": "joint", "num_fwd_outputs": 1,)"), std::string::npos);
    EXPECT_NE(text.find(R"("joint": "joint", "budget": 1.0})"), std::string::npos);
    const GraphFile again = load_buffer(text, "again.json");
    expect_joint_fields(again);
    EXPECT_EQ(to_json(again), text);
}

TEST(IoFields, BudgetsKeepTheirValueAndIntegersAreNumbersToo) {
    const std::string base = to_json(load_file(std::string(FXMEM_TEST_DATA) + "/good/joint.json"));
    for (const auto& [written, value] : std::vector<std::pair<std::string, double>>{
             {"0.6", 0.6}, {"0", 0.0}, {"1", 1.0}, {"0.30000000000000004", 0.1 + 0.2}, {"5e-1", 0.5}}) {
        std::string text = base;
        text.replace(text.find("\"budget\": 1.0"), 13, "\"budget\": " + written);
        const GraphFile f = load_buffer(text, "b.json");
        EXPECT_EQ(f.pairs[0].budget, value) << written;
        EXPECT_EQ(load_buffer(to_json(f), "c.json").pairs[0].budget, value) << written;
    }
}

TEST(IoFields, FilesWithoutJointFieldsHaveNone) {
    const GraphFile f = load_file(std::string(FXMEM_TEST_DATA) + "/good/pair.json");
    EXPECT_TRUE(f.graphs[0].node_flops.empty());
    EXPECT_TRUE(f.graphs[0].node_phases.empty());
    EXPECT_EQ(f.pairs[0].joint, std::nullopt);
    EXPECT_EQ(f.pairs[0].budget, std::nullopt);
    EXPECT_EQ(to_json(f).find("budget"), std::string::npos);
}

namespace {

const std::string kDistributed = std::string(FXMEM_TEST_DATA) + "/good/distributed.json";

// What tests/data/good/distributed.json says, read by hand.
void expect_distributed(const GraphFile& f) {
    ASSERT_TRUE(f.distributed.has_value());
    const DistributedInfo& d = *f.distributed;
    EXPECT_EQ(d.rank, 5);
    EXPECT_EQ(d.world_size, 8);
    ASSERT_EQ(d.meshes.size(), 3u);
    EXPECT_EQ(d.meshes[0].device_type, "cuda");
    EXPECT_EQ(d.meshes[0].shape, (std::vector<std::int64_t>{4, 2}));
    EXPECT_EQ(d.meshes[0].dim_names, (std::vector<std::string>{"dp", "tp"}));
    EXPECT_EQ(d.meshes[0].coordinate, (std::vector<std::int64_t>{2, 1}));
    EXPECT_EQ(d.meshes[1].shape, (std::vector<std::int64_t>{8}));
    EXPECT_FALSE(d.meshes[1].dim_names.has_value());  // null: unnamed
    EXPECT_FALSE(d.meshes[1].coordinate.has_value()); // null: not on the mesh
    EXPECT_EQ(d.meshes[2].device_type, "cpu");
    EXPECT_FALSE(d.meshes[2].dim_names.has_value()); // absent
    EXPECT_FALSE(d.meshes[2].coordinate.has_value());
    ASSERT_EQ(d.parameters.size(), 2u);
    EXPECT_EQ(d.parameters[0].name, "up.weight");
    EXPECT_EQ(d.parameters[0].shape, (std::vector<std::int64_t>{63, 16}));
    EXPECT_EQ(d.parameters[0].local_shape, (std::vector<std::int64_t>{15, 16}));
    EXPECT_EQ(d.parameters[0].nbytes, 1024);
    EXPECT_EQ(d.parameters[1].local_shape, (std::vector<std::int64_t>{15}));
    EXPECT_EQ(d.parameters[1].nbytes, 64);
}

// The message of loading distributed.json with its "distributed" value replaced by `value`.
std::string distributed_error(const std::string& value) {
    const std::string text =
        R"({"format": "fxmem", "version": 1, "storages": [], "graphs": [], "distributed": )" + value + "}";
    try {
        load_buffer(text, "d.json");
    } catch (const Error& e) {
        return e.what();
    }
    return "(loaded)";
}

} // namespace

TEST(IoFields, DistributedIsReadAndSurvivesTheRoundTrip) {
    const GraphFile f = load_file(kDistributed);
    expect_distributed(f);
    const std::string text = to_json(f);
    const GraphFile back = load_buffer(text, "round.json");
    expect_distributed(back);
    EXPECT_EQ(to_json(back), text);
    EXPECT_FALSE(load_file(std::string(FXMEM_TEST_DATA) + "/good/pair.json").distributed.has_value());
    EXPECT_FALSE(load_buffer(R"({"format": "fxmem", "version": 1, "storages": [], "graphs": [], "distributed": null})",
                             "null.json")
                     .distributed.has_value());
}

TEST(IoFields, AMalformedDistributedNamesThePlace) {
    const std::string mesh = R"({"device_type": "cuda", "shape": [2, 2], "coordinate": [0, 1]})";
    const auto with = [&](const std::string& rank, const std::string& world, const std::string& m) {
        return distributed_error(R"({"rank": )" + rank + R"(, "world_size": )" + world + R"(, "meshes": [)" + m + "]}");
    };
    EXPECT_EQ(with("0", "4", mesh), "(loaded)");
    EXPECT_NE(with("4", "4", mesh).find("distributed.rank: 4 is not below the world size 4"), std::string::npos);
    EXPECT_NE(with("-1", "4", mesh).find("distributed.rank: must be an integer >= 0, got -1"), std::string::npos);
    EXPECT_NE(with("0", "0", mesh).find("distributed.world_size: must be an integer >= 1, got 0"), std::string::npos);
    EXPECT_NE(with("0", "\"4\"", mesh).find("distributed.world_size: must be an integer >= 1, got a string"),
              std::string::npos);
    EXPECT_NE(with("0", "3", mesh).find("distributed.meshes[0].shape: holds more ranks than the world size 3"),
              std::string::npos);
    EXPECT_NE(with("0", "4", R"({"device_type": "cuda", "shape": [2, 2], "coordinate": [0, 2]})")
                  .find("distributed.meshes[0].coordinate[1]: 2 is not below the mesh's size 2 in that dimension"),
              std::string::npos);
    EXPECT_NE(with("0", "4", R"({"device_type": "cuda", "shape": [2, 2], "dim_names": ["dp"]})")
                  .find("distributed.meshes[0].dim_names: must be an array of 2 strings"),
              std::string::npos);
    EXPECT_NE(with("0", "4", R"({"shape": [2]})").find("distributed.meshes[0]: missing 'device_type'"),
              std::string::npos);
    EXPECT_NE(with("0", "4", R"({"device_type": "cuda", "shape": []})").find("distributed.meshes[0].shape: must be a"),
              std::string::npos);
    EXPECT_NE(distributed_error(R"({"rank": 0, "world_size": 1})").find("distributed: missing 'meshes'"),
              std::string::npos);
    const std::string ok_head = R"({"rank": 0, "world_size": 1, "meshes": [], "parameters": [)";
    EXPECT_EQ(distributed_error(ok_head + R"({"name": "w", "shape": [4], "local_shape": [2], "nbytes": 8}]})"),
              "(loaded)");
    EXPECT_NE(distributed_error(ok_head + R"({"name": "w", "shape": [4, 2], "local_shape": [2], "nbytes": 8}]})")
                  .find("distributed.parameters[0].local_shape: has 1 dimensions, 'shape' has 2"),
              std::string::npos);
    EXPECT_NE(distributed_error(ok_head + R"({"name": "w", "shape": [4], "local_shape": [2], "nbytes": -8}]})")
                  .find("distributed.parameters[0].nbytes: must be an integer >= 0, got -8"),
              std::string::npos);
    EXPECT_NE(distributed_error(ok_head + R"({"name": "w", "shape": [4], "local_shape": [2]}]})")
                  .find("distributed.parameters[0]: missing 'nbytes'"),
              std::string::npos);
    EXPECT_NE(distributed_error("[1]").find("'distributed' must be an object or null"), std::string::npos);
}
