// fxmem-cli optimize end to end on tests/data/good/optimize.json. The values are computed by hand
// in test_optimize.cpp (HandGraphBaselinesBoundAndOptimum): original 165, lpmf 160, bfs 165,
// dfs 160, optimum 155 = the bound (while b2 runs: primals_1 100 + b's 50 + its own 5).
#include "cli_run.h"

#include <algorithm>
#include <string>
#include <vector>

namespace {

using fxmem_test::cli;
using fxmem_test::CliRun;
using fxmem_test::scratch_dir;
using fxmem_test::slurp;

const std::string kFile = std::string(FXMEM_TEST_DATA) + "/good/optimize.json";

TEST(CliOptimize, JsonAndScheduleFile) {
    const std::string sched = scratch_dir() + "/best.json";
    const CliRun r = cli({"optimize", kFile, "--graph", "g", "--json", "-o", sched});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["graph"], "g");
    EXPECT_EQ(j["original_peak"], 165);
    EXPECT_EQ(j["baselines"]["lpmf"], 160);
    EXPECT_EQ(j["baselines"]["bfs"], 165);
    EXPECT_EQ(j["baselines"]["dfs"], 160);
    EXPECT_EQ(j["peak"], 155);
    EXPECT_EQ(j["lower_bound"], 155);
    EXPECT_EQ(j["exact"], true);
    // The keys in the documented order.
    std::vector<std::string> keys;
    const auto ordered = nlohmann::ordered_json::parse(r.out);
    for (const auto& [k, v] : ordered.items()) keys.push_back(k);
    EXPECT_EQ(keys, (std::vector<std::string>{"graph", "original_peak", "baselines", "peak", "lower_bound", "order",
                                              "exact", "scored", "baseline"}));
    // The only orders at 155 run b and b2 before a (c anywhere before b2).
    const auto order = j["order"].get<std::vector<std::string>>();
    ASSERT_EQ(order.size(), 7u);
    EXPECT_EQ(order.front(), "primals_1");
    EXPECT_EQ(order.back(), "output");
    const auto at = [&](const char* n) { return std::find(order.begin(), order.end(), n) - order.begin(); };
    EXPECT_LT(at("b2"), at("a"));
    // -o wrote that order; score gives the same peak.
    const CliRun score = cli({"score", kFile, "--schedule", sched, "--json"});
    ASSERT_EQ(score.status, 0) << score.err;
    EXPECT_EQ(nlohmann::json::parse(score.out)["peak"], 155);
    const auto saved = nlohmann::json::parse(slurp(sched));
    EXPECT_EQ(saved["graph"], "g");
    EXPECT_EQ(saved["order"].get<std::vector<std::string>>(), order);
}

TEST(CliOptimize, HumanOutputEndsWithTheBound) {
    const CliRun r = cli({"optimize", kFile, "--time-limit", "2"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("original order:     165 B (165 bytes)"), std::string::npos) << r.out;
    // The local search runs first and reaches the bound, which proves it optimal.
    EXPECT_NE(r.out.find("best order:         155 B (155 bytes), from the local search; it is optimal"),
              std::string::npos)
        << r.out;
    const std::string last = "no order can go below 155 B (155 bytes)\n";
    ASSERT_GE(r.out.size(), last.size());
    EXPECT_EQ(r.out.substr(r.out.size() - last.size()), last) << r.out;
}

TEST(CliOptimize, BadUsageAndInvalidInput) {
    const CliRun bad_limit = cli({"optimize", kFile, "--time-limit", "soon"});
    EXPECT_EQ(bad_limit.status, 2);
    EXPECT_NE(bad_limit.err.find("--time-limit needs a non-negative number of seconds, got 'soon'"), std::string::npos)
        << bad_limit.err;
    EXPECT_EQ(cli({"optimize", kFile, "--time-limit", "-1"}).status, 2);
    EXPECT_EQ(cli({"optimize", kFile, "--bogus"}).status, 2);
    const CliRun no_graph = cli({"optimize", kFile, "--graph", "nope"});
    EXPECT_EQ(no_graph.status, 1);
    EXPECT_NE(no_graph.err.find("no graph 'nope'"), std::string::npos) << no_graph.err;
    const CliRun missing = cli({"optimize", kFile + ".missing"});
    EXPECT_EQ(missing.status, 1);
    EXPECT_FALSE(missing.err.empty());
    // An unwritable -o is invalid input, and nothing is printed as if it had worked.
    const CliRun unwritable = cli({"optimize", kFile, "-o", "/nonexistent-dir/x.json"});
    EXPECT_EQ(unwritable.status, 1);
    EXPECT_TRUE(unwritable.out.empty()) << unwritable.out;
}

// -o naming the graph file itself (by another path too) replaced the graph with a schedule.
TEST(CliOptimize, RefusesToWriteOverTheGraphFile) {
    const std::string dir = scratch_dir();
    const std::string copy = dir + "/graph.json";
    {
        std::ifstream in(kFile, std::ios::binary);
        std::ofstream(copy, std::ios::binary) << in.rdbuf();
    }
    const std::string before = slurp(copy);
    for (const std::string& target : {copy, dir + "/./graph.json"}) {
        const CliRun r = cli({"optimize", copy, "--graph", "g", "-o", target});
        EXPECT_EQ(r.status, 2) << r.err;
        EXPECT_NE(r.err.find("-o " + target + " is the graph file itself"), std::string::npos) << r.err;
        EXPECT_EQ(slurp(copy), before);
    }
}

} // namespace
