// fxmem-cli breakdown end to end on tests/data/good/pair.json (roles derived from the structure).
// Expected values by hand: the profiles are those of Cli.ProfilesOfAPair.
//   fwd: s10 primals_1 100 and s11 primals_2 200 -> parameter; s14 get_attr (cpu, not counted);
//        s15 tmp 50 -> temporary; s12 mm 400 -> activation (held by the backward's 'mm');
//        s13 relu 800 -> output (reaches the output, no backward input holds it)
//   bwd: s20 tangents_1 60 -> tangent; s21 mul 300 -> temporary; s22 sum 120 -> gradient
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

namespace {

const std::string kGood = std::string(FXMEM_TEST_DATA) + "/good";

struct CliResult {
    int status = -1;
    std::string out, err;
    nlohmann::json json() const { return nlohmann::json::parse(out); }
};

std::string read_all(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

CliResult breakdown(const std::vector<std::string>& args) {
    const auto dir = std::filesystem::path(testing::TempDir()) / ("fxmem_breakdown_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::string cmd = std::string("'") + FXMEM_CLI_PATH + "' breakdown";
    for (const std::string& a : args) cmd += " '" + a + "'";  // no quotes in these arguments
    cmd += " >'" + (dir / "out").string() + "' 2>'" + (dir / "err").string() + "'";
    const int raw = std::system(cmd.c_str());
    CliResult r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.out = read_all((dir / "out").string());
    r.err = read_all((dir / "err").string());
    return r;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

} // namespace

TEST(CliBreakdown, ByRoleAtTheFirstPeak) {
    // fwd profile [300, 300, 300, 350, 350, 750, 700, 1500, 1500]: first peak at step 7.
    CliResult r = breakdown({kGood + "/pair.json", "--graph", "fwd", "--json"});
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
    const CliResult r = breakdown({kGood + "/pair.json", "--graph", "fwd", "--by", "module", "--depth", "2", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json(), nlohmann::json::parse(R"({"graph": "fwd", "step": 7, "total": 1500, "by": "module",
        "groups": [{"key": "", "bytes": 1500, "storages": 4}]})"));
}

TEST(CliBreakdown, HumanOutput) {
    CliResult r = breakdown({kGood + "/pair.json", "--graph", "fwd"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(has(r.out, "graph 'fwd', step 7, after the allocations of 'relu': 1.46 KiB (1500 bytes) in 4 storages, by role"))
        << r.out;
    EXPECT_TRUE(has(r.out, "800 B   53.3%         1  output")) << r.out;
    EXPECT_TRUE(has(r.out, "300 B   20.0%         2  parameter")) << r.out;
    r = breakdown({kGood + "/pair.json", "--graph", "fwd", "--by", "module"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(has(r.out, "1.46 KiB  100.0%         4  (root)")) << r.out;
}

TEST(CliBreakdown, BadUsageExitsTwo) {
    CliResult r = breakdown({kGood + "/pair.json", "--graph", "fwd", "--step", "9"});
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(has(r.err, "--step 9 is beyond the profile of graph 'fwd' (steps 0 to 8)")) << r.err;
    r = breakdown({kGood + "/pair.json", "--graph", "fwd", "--by", "device"});
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(has(r.err, "--by must be 'role' or 'module', got 'device'")) << r.err;
    r = breakdown({kGood + "/pair.json", "--graph", "fwd", "--depth", "1"});
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(has(r.err, "--depth applies to --by module only")) << r.err;
    r = breakdown({kGood + "/pair.json", "--graph", "fwd", "--by", "module", "--depth", "-1"});
    EXPECT_EQ(r.status, 2);
    r = breakdown({kGood + "/pair.json"});
    EXPECT_EQ(r.status, 2);  // two graphs: --graph is needed
    r = breakdown({kGood + "/pair.json", "--graph", "nope"});
    EXPECT_EQ(r.status, 1);  // an unknown graph is invalid input, as for the other commands
    EXPECT_TRUE(has(r.err, "no graph 'nope'")) << r.err;
}
