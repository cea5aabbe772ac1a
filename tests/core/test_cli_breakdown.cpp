// fxmem-cli breakdown end to end on tests/data/good/pair.json (roles derived from the structure).
// Expected values by hand: the profiles are those of Cli.ProfilesOfAPair.
//   fwd: s10 primals_1 100 and s11 primals_2 200 -> parameter; s14 get_attr (cpu, not counted);
//        s15 tmp 50 -> temporary; s12 mm 400 -> activation (held by the backward's 'mm');
//        s13 relu 800 -> output (reaches the output, no backward input holds it)
//   bwd: s20 tangents_1 60 -> tangent; s21 mul 300 -> temporary; s22 sum 120 -> gradient
#include "cli_run.h"
#include "test_paths.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

using fxmem_test::CliRun;
using fxmem_test::contains;

CliRun breakdown(std::vector<std::string> args) {
    args.insert(args.begin(), "breakdown");
    return fxmem_test::cli(args);
}

} // namespace

TEST(CliBreakdown, ByRoleAtTheFirstPeak) {
    // fwd profile [300, 300, 300, 350, 350, 750, 700, 1500, 1500]: first peak at step 7.
    CliRun r = breakdown({kGood + "/pair.json", "--graph", "fwd", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json(), nlohmann::json::parse(R"({"graph": "fwd", "step": 7, "total": 1500, "by": "role", "groups": [
        {"key": "output", "bytes": 800, "storages": 1},
        {"key": "activation", "bytes": 400, "storages": 1},
        {"key": "parameter", "bytes": 300, "storages": 2}]})"));
    // Step 3, after tmp allocates: the two parameters and tmp.
    r = breakdown({kGood + "/pair.json", "--graph", "fwd", "--step", "3", "--by", "role", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json()["total"], 350);
    EXPECT_EQ(r.json()["groups"], nlohmann::json::parse(R"([{"key": "parameter", "bytes": 300, "storages": 2},
        {"key": "temporary", "bytes": 50, "storages": 1}])"));
    // bwd profile [660, 960, 500, 620, 320]: peak at step 1 (after mul allocates).
    r = breakdown({kGood + "/pair.json", "--graph", "bwd", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json(), nlohmann::json::parse(R"({"graph": "bwd", "step": 1, "total": 960, "by": "role", "groups": [
        {"key": "activation", "bytes": 400, "storages": 1},
        {"key": "temporary", "bytes": 300, "storages": 1},
        {"key": "parameter", "bytes": 200, "storages": 1},
        {"key": "tangent", "bytes": 60, "storages": 1}]})"));
    // Step 3: s11 200, s21 300, s22 120 = 620.
    r = breakdown({kGood + "/pair.json", "--graph", "bwd", "--step=3", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json()["groups"], nlohmann::json::parse(R"([{"key": "temporary", "bytes": 300, "storages": 1},
        {"key": "parameter", "bytes": 200, "storages": 1}, {"key": "gradient", "bytes": 120, "storages": 1}])"));
    // Step 0 of the single graph: nothing but placeholders... single.json's x (1024, an input).
    r = breakdown({kGood + "/single.json", "--step", "0", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json()["total"], 1024);
    EXPECT_EQ(r.json()["groups"], nlohmann::json::parse(R"([{"key": "input", "bytes": 1024, "storages": 1}])"));
}

TEST(CliBreakdown, ByModuleWithoutModulesIsTheRoot) {
    const CliRun r = breakdown({kGood + "/pair.json", "--graph", "fwd", "--by", "module", "--depth", "2", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json(), nlohmann::json::parse(R"({"graph": "fwd", "step": 7, "total": 1500, "by": "module",
        "groups": [{"key": "", "bytes": 1500, "storages": 4}]})"));
}

TEST(CliBreakdown, HumanOutput) {
    CliRun r = breakdown({kGood + "/pair.json", "--graph", "fwd"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(contains(
        r.out, "graph 'fwd', step 7, after the allocations of 'relu': 1.46 KiB (1500 bytes) in 4 storages, by role"))
        << r.out;
    EXPECT_TRUE(contains(r.out, "  800 B  53.3%         1  output")) << r.out;
    EXPECT_TRUE(contains(r.out, "  300 B  20.0%         2  parameter")) << r.out;
    r = breakdown({kGood + "/pair.json", "--graph", "fwd", "--by", "module"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "1.46 KiB  100.0%         4  (root)")) << r.out;
}

// A step beyond the profile depends on the file: invalid input naming the file and the graph (exit
// 1), as `live` says it (docs/format.md), not bad usage.
TEST(CliBreakdown, StepBeyondTheProfileIsInvalidInputLikeLive) {
    const CliRun r = breakdown({kGood + "/pair.json", "--graph", "fwd", "--step", "9"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, kGood + "/pair.json: graph 'fwd': --step 9 is beyond its profile (steps 0 to 8)"))
        << r.err;
    const CliRun live = fxmem_test::cli({"live", kGood + "/pair.json", "--graph", "fwd", "--step", "9"});
    EXPECT_EQ(live.status, 1);
    EXPECT_EQ(live.err, r.err);
}

TEST(CliBreakdown, BadUsageExitsTwo) {
    CliRun r = breakdown({kGood + "/pair.json", "--graph", "fwd", "--by", "device"});
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(contains(r.err, "--by must be 'role' or 'module', got 'device'")) << r.err;
    r = breakdown({kGood + "/pair.json", "--graph", "fwd", "--depth", "1"});
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(contains(r.err, "--depth applies to --by module only")) << r.err;
    r = breakdown({kGood + "/pair.json", "--graph", "fwd", "--by", "module", "--depth", "-1"});
    EXPECT_EQ(r.status, 2);
    r = breakdown({kGood + "/pair.json"});
    EXPECT_EQ(r.status, 2); // two graphs: --graph is needed
    r = breakdown({kGood + "/pair.json", "--graph", "nope"});
    EXPECT_EQ(r.status, 1); // an unknown graph is invalid input, as for the other commands
    EXPECT_TRUE(contains(r.err, "no graph 'nope'")) << r.err;
}

// modules.json: the ModulePair of test_attribution_fixture.h as a file; the file gives the two
// parameters' roles and labels ("layers.0.fc.weight", "layers.1.fc.weight"), the rest is derived.
// fwd profile [3100, 3400, 3300, 3700, 3700, 3704, 3304]: first peak at step 5, after loss
// allocates L: W0 1000 + W1 2000 (parameters) + A0 300 (activation) + A1 400 (temporary) + L 4.
// Owners: W0 -> layers.0.fc and W1 -> layers.1.fc (their labels), A0 -> mm0's layers.0.fc,
// A1 -> mm1's layers.1.fc, L -> loss's root.
TEST(CliBreakdown, ByModuleFromTheFile) {
    CliRun r = breakdown({kGood + "/modules.json", "--graph", "fwd", "--by", "module", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json(), nlohmann::json::parse(R"({"graph": "fwd", "step": 5, "total": 3704, "by": "module", "groups": [
        {"key": "layers.1.fc", "bytes": 2400, "storages": 2},
        {"key": "layers.0.fc", "bytes": 1300, "storages": 2},
        {"key": "", "bytes": 4, "storages": 1}]})"));
    r = breakdown({kGood + "/modules.json", "--graph", "fwd", "--by", "module", "--depth", "1", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json()["groups"], nlohmann::json::parse(R"([{"key": "layers", "bytes": 3700, "storages": 4},
        {"key": "", "bytes": 4, "storages": 1}])"));
    r = breakdown({kGood + "/modules.json", "--graph", "fwd", "--by", "module", "--depth", "0", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json()["groups"], nlohmann::json::parse(R"([{"key": "", "bytes": 3704, "storages": 5}])"));
    r = breakdown({kGood + "/modules.json", "--graph", "fwd", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json()["groups"], nlohmann::json::parse(R"([{"key": "parameter", "bytes": 3000, "storages": 2},
        {"key": "temporary", "bytes": 400, "storages": 1}, {"key": "activation", "bytes": 300, "storages": 1},
        {"key": "output", "bytes": 4, "storages": 1}])"));
    // bwd, default policy as `profile` prints it (tangents_1 is released after d):
    // [2304, 4304, 4004, 4054, 4050, 5050, 5000]. Step 0: W1 2000 (layers.1.fc by its label),
    // A0 300 (saved: its forward producer's layers.0.fc), T 4 (root).
    r = breakdown({kGood + "/modules.json", "--graph", "bwd", "--by", "module", "--step", "0", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json()["total"], 2304);
    EXPECT_EQ(r.json()["groups"], nlohmann::json::parse(R"([{"key": "layers.1.fc", "bytes": 2000, "storages": 1},
        {"key": "layers.0.fc", "bytes": 300, "storages": 1}, {"key": "", "bytes": 4, "storages": 1}])"));
    // The peak, step 5: W1 2000 + G1 2000 + D 50 in layers.1.fc, G0 1000 in layers.0.fc.
    r = breakdown({kGood + "/modules.json", "--graph", "bwd", "--by", "module", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json()["step"], 5);
    EXPECT_EQ(r.json()["total"], 5050);
    EXPECT_EQ(r.json()["groups"], nlohmann::json::parse(R"([{"key": "layers.1.fc", "bytes": 4050, "storages": 3},
        {"key": "layers.0.fc", "bytes": 1000, "storages": 1}])"));
    r = breakdown({kGood + "/modules.json", "--graph", "bwd", "--by", "module", "--step", "0", "--depth", "1"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(contains(
        r.out, "graph 'bwd', step 0: 2.25 KiB (2304 bytes) in 3 storages, by module at depth 1 (roles from the "
               "file, the rest derived)"))
        << r.out;
    EXPECT_TRUE(contains(r.out, "2.25 KiB  99.8%         2  layers")) << r.out;
    EXPECT_TRUE(contains(r.out, "4 B   0.2%         1  (root)")) << r.out;
}

TEST(CliBreakdown, InfoSaysHowRolesWereObtained) {
    auto info = [](const std::string& file) {
        const CliRun r = fxmem_test::cli({"info", file, "--json"});
        EXPECT_EQ(r.status, 0) << r.err;
        return r.json();
    };
    EXPECT_EQ(info(kGood + "/modules.json")["roles"], "mixed");
    EXPECT_EQ(info(kGood + "/pair.json")["roles"], "derived");
}
