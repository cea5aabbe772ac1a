// fxmem-cli schedules, score --schedule NAME and the new info lines, on tests/data/good/annotated.json.
// Its graph (sizes in bytes): placeholders primals_1 (100, held to the end: a primal is not
// releasable) and inp (200, freed after its last user b); a = mm(inp, primals_1) 400,
// a2 = neg(a) 100, b = relu(inp) 800, b2 = neg(b) 100, c = add(a2, b2) 50.
//   original order a a2 b b2 c: 300 -> a 700 -> a2 800, a freed 400 -> b 1200, inp freed 1000
//                               -> b2 1100, b freed 300 -> c 350 -> 150: peak 1200.
//   "wide" a b a2 b2 c:         300 -> a 700 -> b 1500, inp freed 1300 -> a2 1400, a freed 1000
//                               -> b2 1100, b freed 300 -> c 350, a2 b2 freed 150: peak 1500.
#include "cli_run.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace fxmem_test;

namespace {} // namespace

TEST(CliSchedules, ListsStoredSchedulesWithPeaks) {
    const CliRun r = cli({"schedules", kAnnotated, "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = r.json();
    ASSERT_EQ(j["schedules"].size(), 2u);
    EXPECT_EQ(j["schedules"][0]["name"], "wide");
    EXPECT_EQ(j["schedules"][0]["graph"], "g");
    EXPECT_EQ(j["schedules"][0]["source"], "hand-written: a and b both live before either is reduced");
    EXPECT_EQ(j["schedules"][0]["peak"], 1500);
    EXPECT_EQ(j["schedules"][0]["original_peak"], 1200);
    EXPECT_EQ(j["schedules"][1]["name"], "original");
    EXPECT_EQ(j["schedules"][1]["peak"], 1200);
    EXPECT_EQ(j["schedules"][1]["original_peak"], 1200);

    const CliRun human = cli({"schedules", kAnnotated});
    ASSERT_EQ(human.status, 0);
    EXPECT_TRUE(contains(human.out, "2 schedules")) << human.out;
    EXPECT_TRUE(contains(human.out, "  wide      g      1.46 KiB  1.17 KiB  +300 B  hand-written")) << human.out;

    const CliRun none = cli({"schedules", kGood + "/pair.json", "--json"});
    ASSERT_EQ(none.status, 0);
    EXPECT_EQ(none.json()["schedules"].size(), 0u);
}

TEST(CliSchedules, ScoreAcceptsAStoredScheduleByName) {
    const CliRun r = cli({"score", kAnnotated, "--schedule", "wide", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json()["peak"], 1500);
    EXPECT_EQ(r.json()["current"], nlohmann::json::parse("[300, 300, 700, 1300, 1000, 300, 150, 150]"));
    const CliRun live = cli({"live", kAnnotated, "--schedule", "wide", "--json"});
    ASSERT_EQ(live.status, 0) << live.err;
    EXPECT_EQ(live.json()["total"], 1500);
    EXPECT_EQ(live.json()["node"], "b");

    const CliRun unknown = cli({"score", kAnnotated, "--schedule", "nope"});
    EXPECT_EQ(unknown.status, 1);
    EXPECT_EQ(unknown.err, "nope: no such file, and " + kAnnotated +
                               " has no schedule 'nope' (its schedules: 'wide' (graph 'g'), 'original' (graph 'g'))\n");
    const CliRun other_graph = cli({"score", kAnnotated, "--schedule", "wide", "--graph", "h"});
    EXPECT_EQ(other_graph.status, 1);
    EXPECT_TRUE(contains(other_graph.err, "has no schedule 'wide' for graph 'h'")) << other_graph.err;
}

TEST(CliSchedules, AnExistingFileWinsOverAStoredName) {
    // The stored schedule "wide" is renamed to the path of a SCHED file holding the original order.
    const std::string dir = scratch_dir();
    const std::string sched = dir + "/wide_sched.json";
    const std::string graph_file = dir + "/named_like_a_path.json";
    std::string text = slurp(kAnnotated);
    text = replace_all(text, "\"name\": \"wide\"", "\"name\": \"" + sched + "\"");
    write(graph_file, text);
    write(sched, R"({"graph": "g", "order": ["primals_1", "inp", "a", "a2", "b", "b2", "c", "output"]})");
    const CliRun from_file = cli({"score", graph_file, "--schedule", sched, "--json"});
    ASSERT_EQ(from_file.status, 0) << from_file.err;
    EXPECT_EQ(from_file.json()["peak"], 1200);
    std::filesystem::remove(sched);
    const CliRun by_name = cli({"score", graph_file, "--schedule", sched, "--json"});
    ASSERT_EQ(by_name.status, 0) << by_name.err;
    EXPECT_EQ(by_name.json()["peak"], 1500);
}

TEST(CliSchedules, ANameSeveralGraphsUseNeedsGraph) {
    // pair.json with a schedule "same" (the original order) for each of its two graphs.
    const std::string dir = scratch_dir();
    const std::string path = dir + "/two_named.json";
    std::string text = slurp(kGood + "/pair.json");
    text = replace_all(text, "\"pairs\": [",
                       R"("schedules": [
  {"name": "same", "graph": "fwd", "order": ["primals_1", "primals_2", "cpu_const", "t", "tmp", "mm", "relu", "output"]},
  {"name": "same", "graph": "bwd", "order": ["primals_2", "mm", "tangents_1", "mul", "sum", "output"]}
],
"pairs": [)");
    write(path, text);
    const CliRun ambiguous = cli({"score", path, "--schedule", "same"});
    EXPECT_EQ(ambiguous.status, 2);
    EXPECT_TRUE(
        contains(ambiguous.err, "score: graphs 'fwd', 'bwd' each have a schedule 'same'; choose one with --graph NAME"))
        << ambiguous.err;
    const CliRun chosen = cli({"score", path, "--schedule", "same", "--graph", "bwd", "--json"});
    ASSERT_EQ(chosen.status, 0) << chosen.err;
    EXPECT_EQ(chosen.json()["current"].size(), 6u);
    const CliRun list = cli({"schedules", path, "--json"});
    ASSERT_EQ(list.status, 0) << list.err;
    EXPECT_EQ(list.json()["schedules"][1]["graph"], "bwd");
    EXPECT_EQ(list.json()["schedules"][1]["peak"], list.json()["schedules"][1]["original_peak"]);
}

TEST(CliSchedules, InfoCountsRolesLabelsModulesAndListsSchedules) {
    const CliRun r = cli({"info", kAnnotated, "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = r.json();
    EXPECT_EQ(j["storages_with_role"], 5);  // ids 0 1 2 4 6 (3 has "role": null, 5 none)
    EXPECT_EQ(j["storages_with_label"], 3); // ids 0 3 6
    EXPECT_EQ(j["nodes_with_module"], 4);   // a a2 b b2
    ASSERT_EQ(j["schedules"].size(), 2u);
    EXPECT_EQ(j["schedules"][0]["name"], "wide");
    const CliRun human = cli({"info", kAnnotated});
    EXPECT_TRUE(contains(human.out, "roles: 5 of 7 storages carry a role, 3 a label; modules: 4 of 8 nodes carry one"))
        << human.out;
    EXPECT_TRUE(contains(human.out, "schedules:\n  name      graph  source\n  wide      g      hand-written"))
        << human.out;
}
