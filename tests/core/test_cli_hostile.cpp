// fxmem-cli on hostile files (huge names, deep nesting, bad encodings): exit 1 with a message naming the file,
// output proportional to the input, no hang.
#include "cli_run.h"

#include <gtest/gtest.h>

#include <fstream>

using namespace fxmem_test;

namespace {

const std::string kHostile = std::string(FXMEM_TEST_DATA) + "/hostile";

} // namespace

TEST(CliHostile, PairPeakOverflowExitsOne) {
    const std::string path = kHostile + "/pair_overflow.json";
    const CliRun r = cli({"peak", path, "--json"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_EQ(r.err.rfind(path + ": graph 'bwd' (backward of 'fwd'): the backward baseline", 0), 0u) << r.err;
}

TEST(CliHostile, SpecialFilesAreRefusedByName) {
    const CliRun zero = cli({"info", "/dev/zero"});
    EXPECT_EQ(zero.status, 1);
    EXPECT_EQ(zero.err, "/dev/zero: cannot read: it is a character device, not a regular file\n");
    const std::string dir = scratch_dir();
    const CliRun sched_dir = cli({"score", std::string(FXMEM_TEST_DATA) + "/good/single.json", "--schedule", dir});
    EXPECT_EQ(sched_dir.status, 1);
    EXPECT_EQ(sched_dir.err, dir + ": cannot read: it is a directory, not a regular file\n");
}

namespace {

// Placeholder x, then a chain of `n` relu nodes, the first named `huge`; each node allocates 16 bytes.
std::string chain_file(const std::string& huge, int n) {
    std::string t = R"({"format": "fxmem", "version": 1, "storages": [)";
    for (int i = 0; i <= n; ++i)
        t += (i ? ", " : "") + std::string(R"({"id": )") + std::to_string(i) + R"(, "device": "cuda:0", "nbytes": 16})";
    t += R"(], "graphs": [{"name": "g", "kind": "forward", "nodes": [)";
    const auto tensor = [](int s) {
        return R"({"storage": )" + std::to_string(s) +
               R"(, "dtype": "torch.float32", "shape": [4], "stride": [1], "offset": 0})";
    };
    t += R"({"name": "x", "op": "placeholder", "target": "x", "inputs": [], "val": )" + tensor(0) + "}";
    std::string prev = "x";
    for (int i = 1; i <= n; ++i) {
        const std::string name = i == 1 ? huge : "r" + std::to_string(i);
        t += R"(, {"name": ")" + name + R"(", "op": "call_function", "target": "aten.relu.default", "inputs": [")" +
             prev + R"("], "val": )" + tensor(i) + "}";
        prev = name;
    }
    t += R"(, {"name": "output", "op": "output", "target": "output", "inputs": [")" + prev + R"("], "val": null}]}]})";
    return t;
}

} // namespace

// Item 14: tables were padded to the longest name, so one 1 MiB name made `profile` print about
// a megabyte per row. Names are elided to 60 characters, "…" in the middle.
TEST(CliHostile, OneHugeNameDoesNotAmplifyTables) {
    const std::string huge = "head_" + std::string(200000, 'a') + "_tail";
    const std::string path = scratch_dir() + "/huge_name.json";
    const std::string text = chain_file(huge, 500);
    std::ofstream(path, std::ios::binary) << text;
    // head 29 characters, "…", tail 30 characters.
    const std::string elided = "head_" + std::string(24, 'a') + "\u2026" + std::string(25, 'a') + "_tail";
    for (const std::vector<std::string>& args : {std::vector<std::string>{"profile", path},
                                                 {"live", path, "--step", "1"},
                                                 {"info", path},
                                                 {"breakdown", path, "--step", "1"},
                                                 {"optimize", path}}) {
        const CliRun r = cli(args);
        ASSERT_EQ(r.status, 0) << args[0] << ": " << r.err;
        // 1003 profile rows of at most ~100 characters: far below one copy of the name per row.
        EXPECT_LT(r.out.size(), 150000u) << args[0];
        EXPECT_EQ(r.out.find(std::string(100, 'a')), std::string::npos) << args[0];
        if (args[0] == "live") {
            EXPECT_TRUE(contains(r.out, "       1  " + elided + "  waiting for 'r2'")) << r.out.substr(0, 2000);
        } else if (args[0] == "profile") {
            EXPECT_TRUE(contains(r.out, "       1  " + elided + "  alloc")) << r.out.substr(0, 2000);
        } else if (args[0] == "breakdown") {
            EXPECT_TRUE(contains(r.out, "graph 'g', step 1, after the allocations of '" + elided + "': "))
                << r.out.substr(0, 2000);
        }
    }
    // Column widths count characters, not bytes: 100 two-byte characters elide to 60 characters.
    std::string wide;
    for (int i = 0; i < 100; ++i) wide += "\u00fc";
    const std::string path2 = scratch_dir() + "/wide_name.json";
    std::ofstream(path2, std::ios::binary) << chain_file(wide, 3);
    const CliRun r = cli({"live", path2, "--step", "1"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string expected;
    for (int i = 0; i < 29; ++i) expected += "\u00fc";
    expected += "\u2026";
    for (int i = 0; i < 30; ++i) expected += "\u00fc";
    EXPECT_TRUE(contains(r.out, "       1  " + expected + "  waiting for 'r2'")) << r.out;
    // The column is 60 characters wide: "x" is padded with 59 blanks; the reason elides too.
    EXPECT_TRUE(contains(r.out, "       0  x" + std::string(59, ' ') + "  waiting for '" + expected + "'")) << r.out;
}

namespace {

// 'b' also outputs storage 1, which 'a' allocates, without depending on 'a' (a rogue producer):
// the stored order x, b, c, a is topological, but c uses storage 1 before a runs, where PyTorch's
// MemoryTracker asserts.
const char* kRogue = R"({"format": "fxmem", "version": 1,
 "storages": [{"id": 0, "device": "cuda:0", "nbytes": 8}, {"id": 1, "device": "cuda:0", "nbytes": 8},
              {"id": 2, "device": "cuda:0", "nbytes": 8}],
 "graphs": [{"name": "g", "kind": "other", "nodes": [
  {"name": "x", "op": "placeholder", "target": "x", "inputs": [], "val": {"storage": 0, "dtype": "float32", "shape": [2], "stride": [1], "offset": 0}},
  {"name": "a", "op": "call_function", "target": "aten.relu.default", "inputs": ["x"], "val": {"storage": 1, "dtype": "float32", "shape": [2], "stride": [1], "offset": 0}},
  {"name": "b", "op": "call_function", "target": "aten.foo.default", "inputs": ["x"], "val": [{"storage": 2, "dtype": "float32", "shape": [2], "stride": [1], "offset": 0}, {"storage": 1, "dtype": "float32", "shape": [2], "stride": [1], "offset": 0}]},
  {"name": "c", "op": "call_function", "target": "aten.relu.default", "inputs": ["b"], "val": {"storage": 2, "dtype": "float32", "shape": [2], "stride": [1], "offset": 0}},
  {"name": "output", "op": "output", "target": "output", "inputs": ["c", "a"], "val": null}]}],
 "schedules": [{"name": "bad", "graph": "g", "order": ["x", "b", "c", "a", "output"]}]})";

} // namespace

// live --schedule drew such an order (exit 0, intervals ending before they begin) while score
// refused it: both refuse it now, with the tracker's message.
TEST(CliHostile, LiveRefusesAnOrderTheTrackerRefuses) {
    const std::string path = scratch_dir() + "/rogue.json";
    std::ofstream(path, std::ios::binary) << kRogue;
    const CliRun score = cli({"score", path, "--schedule", "bad"});
    const CliRun live = cli({"live", path, "--schedule", "bad"});
    EXPECT_EQ(score.status, 1);
    EXPECT_EQ(live.status, 1) << live.out;
    EXPECT_TRUE(contains(score.err, "graph 'g': node 'c' uses storage id 1 (allocated by 'a') which is not live"))
        << score.err;
    EXPECT_EQ(live.err, score.err);
}

// The tracker's refusal names the file like every other invalid input (it named the graph only).
TEST(CliHostile, TrackerRefusalNamesTheFile) {
    const std::string path = scratch_dir() + "/rogue.json";
    std::ofstream(path, std::ios::binary) << kRogue;
    for (const std::vector<std::string>& args : {std::vector<std::string>{"score", path, "--schedule", "bad"},
                                                 {"schedules", path},
                                                 {"live", path, "--schedule", "bad"}}) {
        const CliRun r = cli(args);
        EXPECT_EQ(r.status, 1) << args[0];
        EXPECT_EQ(r.err.rfind(path + ": graph 'g': node 'c' uses storage id 1", 0), 0u) << args[0] << ": " << r.err;
    }
}
