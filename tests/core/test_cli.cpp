// fxmem-cli end to end: the real binary on the hand-made graphs in tests/data/good. The expected
// numbers are computed by hand from PyTorch's semantics (see the comments), not by the estimator.
#include "cli_run.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

using namespace fxmem_test;

namespace {} // namespace

// ---- usage: exit 2, the usage on stderr ----

TEST(Cli, HelpAndVersion) {
    for (const char* flag : {"--help", "-h", "help"}) {
        const CliRun r = cli({flag});
        EXPECT_EQ(r.status, 0) << flag;
        EXPECT_TRUE(contains(r.out, "usage: fxmem-cli COMMAND FILE")) << r.out;
        EXPECT_TRUE(r.err.empty());
    }
    const CliRun cmd_help = cli({"profile", "--help"});
    EXPECT_EQ(cmd_help.status, 0);
    EXPECT_TRUE(contains(cmd_help.out, "profile FILE [--graph NAME] [--json | --csv]"));
    const CliRun v = cli({"--version"});
    EXPECT_EQ(v.status, 0);
    EXPECT_EQ(v.out, "fxmem-cli 0.1.0\n");
}

TEST(Cli, BadUsageExitsTwoWithUsage) {
    const std::string single = kGood + "/single.json", pair = kGood + "/pair.json";
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{}, "missing COMMAND"},
        {{"frobnicate", single}, "unknown command 'frobnicate'"},
        {{"info"}, "info: missing FILE"},
        {{"info", single, pair}, "info: unexpected argument '" + pair + "'"},
        {{"info", single, "--csv"}, "info: unknown option '--csv'"},
        {{"profile", single, "--graph"}, "profile: --graph needs a value"},
        {{"profile", single, "--json", "--json"}, "profile: --json given twice"},
        {{"profile", single, "--json", "--csv"}, "profile: --json and --csv exclude each other"},
        {{"profile", single, "--json=yes"}, "profile: --json takes no value"},
        {{"profile", pair, "--json"}, "has 2 graphs; choose one with --graph NAME ('fwd', 'bwd')"},
        {{"peak", pair, "--pair", "one"},
         "--pair must be a pair's index K, or its graphs FWD,BWD or 'FWD + BWD', got 'one'"},
        {{"peak", pair, "--pair=-1"},
         "--pair must be a pair's index K, or its graphs FWD,BWD or 'FWD + BWD', got '-1'"},
        {{"score", single, "--json"}, "score: missing --schedule SCHED.json"},
    };
    for (const auto& [args, message] : cases) {
        const CliRun r = cli(args);
        EXPECT_EQ(r.status, 2) << message;
        EXPECT_TRUE(r.out.empty()) << message;
        EXPECT_EQ(r.err.rfind("fxmem-cli: ", 0), 0u) << r.err;
        EXPECT_TRUE(contains(r.err.substr(0, r.err.find('\n')), message)) << r.err;
        // Two lines: the problem, and where that command's help is; not the 30-line usage.
        EXPECT_FALSE(contains(r.err, "usage: fxmem-cli")) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;
        const std::string command = args.empty() || args[0] == "frobnicate" ? "" : args[0] + " ";
        EXPECT_TRUE(contains(r.err, "\nRun 'fxmem-cli " + command + "--help' for")) << r.err;
    }
}

TEST(Cli, EachCommandHasItsOwnHelp) {
    const std::vector<std::string> commands = {"info",      "profile", "peak",      "score",
                                               "schedules", "live",    "breakdown", "optimize"};
    for (const std::string& c : commands) {
        for (const std::vector<std::string>& args :
             {std::vector<std::string>{c, "--help"}, {c, "some.json", "-h"}, {"help", c}}) {
            const CliRun r = cli(args);
            EXPECT_EQ(r.status, 0) << c;
            EXPECT_EQ(r.out.rfind("usage: fxmem-cli " + c + " FILE", 0), 0u) << r.out;
            EXPECT_TRUE(contains(r.out, "Exit status:")) << r.out;
            for (const std::string& other : commands) { // that command only
                if (other != c) {
                    EXPECT_FALSE(contains(r.out, "\n  " + other + " FILE")) << c << " shows " << other;
                }
            }
        }
    }
    EXPECT_TRUE(contains(cli({"optimize", "--help"}).out, "--time-limit"));
}

// ---- invalid input: exit 1, the message on stderr, nothing on stdout ----

TEST(Cli, InvalidInputExitsOneWithTheMessage) {
    const std::string single = kGood + "/single.json", pair = kGood + "/pair.json";
    const std::string missing = scratch_dir() + "/no_such_file.json";
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"info", missing}, missing + ": cannot open: No such file or directory"},
        {{"info", kBad + "/input_defined_later.json"},
         kBad + "/input_defined_later.json:11:189: graph 'g', node 'y': input 'output' is defined later (or unknown)"},
        {{"profile", kBad + "/nbytes_float.json", "--json"},
         kBad + "/nbytes_float.json:6:46: storages[1] (id 1): 'nbytes' must be an integer >= 0, got 1.5"},
        {{"profile", pair, "--graph", "nope"}, pair + ": no graph 'nope' (the file has 'fwd', 'bwd')"},
        {{"peak", single}, single + ": the file has no forward/backward pairs"},
        {{"peak", pair, "--pair", "1"}, pair + ": no pair 1 (the file has 1 pair)"},
        {{"score", kBad + "/truncated.json", "--schedule", kGood + "/single_schedule.json"},
         "(the file ends too early"},
    };
    for (const auto& [args, message] : cases) {
        const CliRun r = cli(args);
        EXPECT_EQ(r.status, 1) << message;
        EXPECT_TRUE(r.out.empty()) << r.out;
        EXPECT_TRUE(contains(r.err, message)) << r.err;
        EXPECT_FALSE(contains(r.err, "usage:")) << r.err;
    }
}

TEST(Cli, PairWhoseForwardDoesNotEndWithOutputExitsOne) {
    // The file loads (the format does not require an output node), but a pair's forward graph
    // must end with its output node: that is where PyTorch reads the forward outputs.
    const std::string path = scratch_dir() + "/no_output.json";
    std::ofstream(path)
        << R"({"format": "fxmem", "version": 1, "storages": [{"id": 0, "device": "cuda:0", "nbytes": 8}],
      "graphs": [
        {"name": "f", "kind": "forward", "nodes": [
          {"name": "primals_1", "op": "placeholder", "target": "primals_1", "inputs": [],
           "val": {"storage": 0, "dtype": "float32", "shape": [2], "stride": [1], "offset": 0}},
          {"name": "neg", "op": "call_function", "target": "aten.neg.default", "inputs": ["primals_1"], "val": null}]},
        {"name": "b", "kind": "backward", "nodes": [{"name": "output", "op": "output", "target": "output", "inputs": [], "val": null}]}],
      "pairs": [{"forward": "f", "backward": "b"}]})";
    const CliRun info = cli({"info", path});
    EXPECT_EQ(info.status, 0) << info.err;
    const CliRun r = cli({"peak", path, "--json"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(r.out.empty());
    EXPECT_TRUE(contains(r.err, path + ": ")) << r.err;
    EXPECT_TRUE(contains(r.err, "'f'")) << r.err;
}

TEST(Cli, InvalidScheduleExitsOne) {
    const std::string dir = scratch_dir();
    const std::string single = kGood + "/single.json";
    const auto write = [&](const std::string& name, const std::string& text) {
        std::ofstream(dir + "/" + name) << text;
        return dir + "/" + name;
    };
    // 'add' before its input 'getitem_1'.
    const std::string early = write("early.json", R"({"graph": "g", "order": ["x", "split", "add", "getitem_1",
        "getitem", "cpu_copy", "add_", "unused", "output"]})");
    CliRun r = cli({"score", single, "--schedule", early, "--json"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "'add'")) << r.err;
    EXPECT_TRUE(contains(r.err, "'getitem_1'")) << r.err;
    // 'unused' missing.
    const std::string missing = write("missing.json", R"({"graph": "g", "order": ["x", "split", "getitem",
        "getitem_1", "cpu_copy", "add", "add_", "output"]})");
    r = cli({"score", single, "--schedule", missing});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "'unused'")) << r.err;
    // The schedule names another graph than --graph.
    r = cli({"score", single, "--schedule", kGood + "/single_schedule.json", "--graph", "h"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(r.out.empty());
    // Not JSON.
    r = cli({"score", single, "--schedule", write("junk.json", "{\"graph\": ")});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "junk.json")) << r.err;
}

// ---- numbers ----
//
// single.json, one graph 'g' (all cuda:0 except e):
//   storages a=1024, b=2048, c=4096, d=512, e=100000 (cpu, never counted), f=256
//   x (placeholder) -> a;  split(x) -> [b, c];  getitem(split) -> b;  getitem_1(split) -> c;
//   cpu_copy(getitem) -> e;  add(getitem_1, x) -> d;  add_(add) -> d (in place);  unused(x) -> f;
//   output(add_, cpu_copy)
// A getitem uses every storage of split, so b and c are used by getitem and getitem_1 alike.
// Last users: a -> unused, b -> cpu_copy, c -> add, d and e -> output, f -> never used.

TEST(Cli, ProfileOfOneGraph) {
    // start: a = 1024
    // split:     +b +c = 1024 + 2048 + 4096 = 7168; frees nothing      -> 7168
    // getitem:   allocates nothing (b is split's)                      -> 7168, 7168
    // getitem_1: same                                                  -> 7168, 7168
    // cpu_copy:  e is cpu: +0 -> 7168; frees b: 7168 - 2048            -> 5120
    // add:       +d: 5120 + 512 = 5632; frees c: 5632 - 4096           -> 1536
    // add_:      nothing new (d is add's); d lives to the output       -> 1536, 1536
    // unused:    +f: 1536 + 256 = 1792; frees a (x is releasable)      -> 768
    const std::vector<std::int64_t> expected = {1024, 7168, 7168, 7168, 7168, 7168, 7168, 7168,
                                                5120, 5632, 1536, 1536, 1536, 1792, 768};
    for (const auto& args :
         std::vector<std::vector<std::string>>{{"profile", kGood + "/single.json", "--json"},
                                               {"profile", kGood + "/single.json", "--graph", "g", "--json"},
                                               {"profile", "--json", "--graph=g", kGood + "/single.json"}}) {
        const CliRun r = cli(args);
        ASSERT_EQ(r.status, 0) << r.err;
        const auto j = r.json();
        EXPECT_EQ(j["graph"], "g");
        EXPECT_EQ(j["profile"].get<std::vector<std::int64_t>>(), expected);
        EXPECT_EQ(j["peak"], 7168);
    }
}

TEST(Cli, ProfileCsvRows) {
    // The columns the app's File > Export Profile as CSV writes too (fxmem/profile_csv.h).
    const CliRun r = cli({"profile", kGood + "/single.json", "--csv"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "step,run,graph,graph_step,node,phase,bytes\n"
                     "0,g,g,0,,start,1024\n"
                     "1,g,g,1,split,after_alloc,7168\n"
                     "2,g,g,2,split,after_free,7168\n"
                     "3,g,g,3,getitem,after_alloc,7168\n"
                     "4,g,g,4,getitem,after_free,7168\n"
                     "5,g,g,5,getitem_1,after_alloc,7168\n"
                     "6,g,g,6,getitem_1,after_free,7168\n"
                     "7,g,g,7,cpu_copy,after_alloc,7168\n"
                     "8,g,g,8,cpu_copy,after_free,5120\n"
                     "9,g,g,9,add,after_alloc,5632\n"
                     "10,g,g,10,add,after_free,1536\n"
                     "11,g,g,11,add_,after_alloc,1536\n"
                     "12,g,g,12,add_,after_free,1536\n"
                     "13,g,g,13,unused,after_alloc,1792\n"
                     "14,g,g,14,unused,after_free,768\n");
}

TEST(Cli, ProfileHumanOutputUsesBinaryUnits) {
    const CliRun r = cli({"profile", kGood + "/single.json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "graph 'g': 7 profiled nodes, peak 7.00 KiB (7168 bytes) at step 1, alloc of 'split'"))
        << r.out;
    EXPECT_TRUE(contains(r.out, "768 B")) << r.out;
    EXPECT_TRUE(contains(r.out, "5.00 KiB")) << r.out; // 5120 after cpu_copy frees b
}

// pair.json: forward 'fwd' and backward 'bwd'.
//   fwd: primals_1 -> s10 (100), primals_2 -> s11 (200), cpu_const (get_attr) -> s14 (cpu),
//        t(primals_1) -> s10 (a view), tmp(primals_2) -> s15 (50), mm(tmp, t) -> s12 (400),
//        relu(mm) -> s13 (800), output(relu, mm, primals_2)
//   bwd: primals_2 -> s11, mm -> s12, tangents_1 -> s20 (60) (placeholders),
//        mul(tangents_1, mm) -> s21 (300), sum(mul, primals_2) -> s22 (120), output(sum)

TEST(Cli, ProfilesOfAPair) {
    // fwd start: s10 + s11 = 300 (s14 is cpu)
    // t:    nothing                                              -> 300, 300
    // tmp:  +50 = 350                                            -> 350, 350
    // mm:   +400 = 750; last use of s10 (primals_1: not released) and s15 (tmp): 750 - 50 -> 700
    // relu: +800 = 1500; s12 is used by the output               -> 1500, 1500
    CliRun r = cli({"profile", kGood + "/pair.json", "--graph", "fwd", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json()["profile"].get<std::vector<std::int64_t>>(),
              (std::vector<std::int64_t>{300, 300, 300, 350, 350, 750, 700, 1500, 1500}));
    // bwd alone, default policy (only primals* are kept): start s11 + s12 + s20 = 200 + 400 + 60 = 660
    // mul:  +300 = 960; frees s20 (tangents_1) and s12 (mm): 960 - 60 - 400 -> 500
    // sum:  +120 = 620; frees s21 (mul): 620 - 300 -> 320; s11 is a primal's
    r = cli({"profile", kGood + "/pair.json", "--graph", "bwd", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json()["profile"].get<std::vector<std::int64_t>>(),
              (std::vector<std::int64_t>{660, 960, 500, 620, 320}));
    EXPECT_EQ(r.json()["peak"], 960);
}

TEST(Cli, PeakOfAPair) {
    // forward peak = 1500 (above).
    // Forward output storages: s13, s12, s11. Primal storages: s10, s11.
    // Backward placeholders: primals_2 holds s11, a primal storage -> do not delete;
    //   mm holds s12, a forward output -> releasable; tangents_1 holds s20, no forward output -> do not delete.
    // Baseline: forward outputs no backward placeholder holds = {s13} = 800.
    // Backward profile with do-not-delete: start 660; mul: +300 = 960, frees s12 only (s20 is
    //   tangents_1's): 560; sum: +120 = 680, frees s21: 380. Max 960.
    // backward peak = 800 + 960 = 1760; peak = max(1500, 1760) = 1760.
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"peak", kGood + "/pair.json", "--json"}, {"peak", kGood + "/pair.json", "--pair", "0", "--json"}}) {
        const CliRun r = cli(args);
        ASSERT_EQ(r.status, 0) << r.err;
        const auto j = r.json();
        EXPECT_EQ(j["forward_peak"], 1500);
        EXPECT_EQ(j["backward_baseline"], 800);
        EXPECT_EQ(j["backward_peak"], 1760);
        EXPECT_EQ(j["peak"], 1760);
        EXPECT_EQ(j.size(), 4u);
    }
    const CliRun human = cli({"peak", kGood + "/pair.json"});
    ASSERT_EQ(human.status, 0);
    EXPECT_TRUE(contains(human.out, "pair 0: forward 'fwd', backward 'bwd'")) << human.out;
    EXPECT_TRUE(contains(human.out, "peak:               1.72 KiB (1760 bytes)")) << human.out;
}

TEST(Cli, ScoreOfAnotherOrder) {
    // Order: x, split, getitem_1, add, unused, add_, getitem, cpu_copy, output.
    // A storage is freed when every node that uses it has run (users: a: split, add, unused;
    // b: getitem, getitem_1, cpu_copy; c: getitem, getitem_1, add; d: add_, output).
    // x:          1024 (placeholders change nothing)
    // split:      +2048 +4096                          = 7168
    // getitem_1:  nothing new, b and c still wanted    = 7168
    // add:        +512                                 = 7680
    // unused:     +256 = 7936 (the peak); a's users are all done: -1024 = 6912
    // add_:       d still wanted by the output         = 6912
    // getitem:    c's users all done: -4096            = 2816
    // cpu_copy:   e is cpu; b's users all done: -2048  = 768
    // output:                                          = 768
    const CliRun r = cli({"score", kGood + "/single.json", "--schedule", kGood + "/single_schedule.json", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = r.json();
    EXPECT_EQ(j["peak"], 7936);
    EXPECT_EQ(j["current"].get<std::vector<std::int64_t>>(),
              (std::vector<std::int64_t>{1024, 7168, 7168, 7680, 6912, 6912, 2816, 768, 768}));
    // The human output compares with the original order, whose peak is 7168 (split's allocations).
    const CliRun human = cli({"score", kGood + "/single.json", "--schedule", kGood + "/single_schedule.json"});
    ASSERT_EQ(human.status, 0) << human.err;
    EXPECT_TRUE(contains(human.out, "peak 7.75 KiB (7936 bytes); the original order peaks at 7.00 KiB (7168 bytes)"))
        << human.out;
}

TEST(Cli, LiveAtThePeakAndAtAStep) {
    // single.json in graph order (profile above): the peak 7168 is first reached at step 1, after
    // split allocates b and c. Users (a getitem uses every element of split): a: split, add,
    // unused; b: getitem, getitem_1, cpu_copy; c: getitem, getitem_1, add; d: add_, output.
    // Profile nodes: split 1/2, getitem 3/4, getitem_1 5/6, cpu_copy 7/8, add 9/10, add_ 11/12,
    // unused 13/14. So c is freed by add (step 10), b by cpu_copy (8), a by unused (14).
    CliRun r = cli({"live", kGood + "/single.json", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    auto j = r.json();
    EXPECT_EQ(j["graph"], "g");
    EXPECT_EQ(j["step"], 1);
    EXPECT_EQ(j["node"], "split");
    EXPECT_EQ(j["phase"], "after_alloc");
    EXPECT_EQ(j["total"], 7168);
    ASSERT_EQ(j["storages"].size(), 3u);
    const auto& c = j["storages"][0];
    EXPECT_EQ(c["id"], 3);
    EXPECT_EQ(c["nbytes"], 4096);
    EXPECT_EQ(c["device"], "cuda:0");
    EXPECT_EQ(c["allocator"], "split");
    EXPECT_EQ(c["alloc_step"], 1);
    EXPECT_EQ(c["last_user"], "add");
    EXPECT_EQ(c["next_user"], "getitem");
    EXPECT_EQ(c["free_step"], 10);
    EXPECT_EQ(c["reason"], "waiting_for_use");
    EXPECT_EQ(j["storages"][1]["id"], 2);
    EXPECT_EQ(j["storages"][1]["free_step"], 8);
    const auto& a = j["storages"][2];
    EXPECT_EQ(a["id"], 1);
    EXPECT_EQ(a["allocator"], "x");
    EXPECT_EQ(a["alloc_step"], 0);
    EXPECT_EQ(a["next_user"], "split"); // at or after the queried node
    EXPECT_EQ(a["free_step"], 14);

    // Step 13 (after unused allocates f): a 1024 (last user unused), d 512 (reaches the
    // output), f 256 (no user) = 1792, the profile's value there.
    r = cli({"live", kGood + "/single.json", "--step", "13", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    j = r.json();
    EXPECT_EQ(j["node"], "unused");
    EXPECT_EQ(j["total"], 1792);
    ASSERT_EQ(j["storages"].size(), 3u);
    EXPECT_EQ(j["storages"][1]["id"], 4);
    EXPECT_EQ(j["storages"][1]["reason"], "graph_output");
    EXPECT_EQ(j["storages"][1]["free_step"], -1);
    EXPECT_EQ(j["storages"][2]["id"], 6);
    EXPECT_EQ(j["storages"][2]["reason"], "never_used");
    EXPECT_TRUE(j["storages"][2]["last_user"].is_null());

    const CliRun human = cli({"live", kGood + "/single.json"});
    ASSERT_EQ(human.status, 0) << human.err;
    EXPECT_TRUE(
        contains(human.out, "graph 'g', step 1, after the allocations of 'split': 7.00 KiB (7168 bytes) in 3 storages"))
        << human.out;
    EXPECT_TRUE(contains(human.out, "waiting for 'getitem'; freed after 'add' at step 10")) << human.out;
}

TEST(Cli, LiveInAScheduledOrder) {
    // The order of ScoreOfAnotherOrder: x, split, getitem_1, add, unused, add_, getitem, cpu_copy,
    // output. Profile nodes: split 1/2, getitem_1 3/4, add 5/6, unused 7/8, add_ 9/10,
    // getitem 11/12, cpu_copy 13/14. Its peak 7936 is at step 7, after unused allocates f:
    // c 4096 (last scheduled user getitem: freed at 12), b 2048 (cpu_copy: 14), a 1024 (unused:
    // 8), d 512 (to the output), f 256 (never used).
    const CliRun r = cli({"live", kGood + "/single.json", "--schedule", kGood + "/single_schedule.json", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = r.json();
    EXPECT_EQ(j["step"], 7);
    EXPECT_EQ(j["node"], "unused");
    EXPECT_EQ(j["total"], 7936);
    ASSERT_EQ(j["storages"].size(), 5u);
    std::vector<std::int64_t> ids, frees;
    for (const auto& s : j["storages"]) ids.push_back(s["id"]), frees.push_back(s["free_step"]);
    EXPECT_EQ(ids, (std::vector<std::int64_t>{3, 2, 1, 4, 6}));
    EXPECT_EQ(frees, (std::vector<std::int64_t>{12, 14, 8, -1, -1}));
    EXPECT_EQ(j["storages"][0]["last_user"], "getitem"); // add in graph order
    EXPECT_EQ(j["storages"][0]["next_user"], "getitem");
}

TEST(Cli, LiveRejectsStepsBeyondTheProfile) {
    CliRun r = cli({"live", kGood + "/single.json", "--step", "15"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "graph 'g': --step 15 is beyond its profile (steps 0 to 14)")) << r.err;
    r = cli({"live", kGood + "/single.json", "--step", "x"});
    EXPECT_EQ(r.status, 2) << r.err;
    r = cli({"live", kGood + "/pair.json"});
    EXPECT_EQ(r.status, 2) << r.err; // two graphs: --graph is needed
}

TEST(Cli, Info) {
    // single.json: 1024 + 2048 + 4096 + 512 + 100000 + 256 = 107936 bytes; cuda:0 holds all but e: 7936.
    CliRun r = cli({"info", kGood + "/single.json", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    auto j = r.json();
    EXPECT_EQ(j["storages"], 6);
    EXPECT_EQ(j["total_bytes"], 107936);
    EXPECT_EQ(j["devices"], nlohmann::json::parse(R"([{"device": "cuda:0", "storages": 5, "bytes": 7936},
                                                      {"device": "cpu", "storages": 1, "bytes": 100000}])"));
    EXPECT_EQ(j["graphs"], nlohmann::json::parse(R"([{"name": "g", "kind": "inference", "nodes": 9, "peak": 7168}])"));
    EXPECT_EQ(j["pairs"], nlohmann::json::array());
    // pair.json: 100+200+400+800+1000+50+60+300+120 = 3030 bytes, 1000 of them on the cpu.
    r = cli({"info", kGood + "/pair.json", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    j = r.json();
    EXPECT_EQ(j["total_bytes"], 3030);
    EXPECT_EQ(j["devices"][0]["bytes"], 2030);
    EXPECT_EQ(j["graphs"][0]["peak"], 1500);
    EXPECT_EQ(j["graphs"][1]["peak"], 960);
    EXPECT_EQ(j["pairs"], nlohmann::json::parse(R"([{"forward": "fwd", "backward": "bwd"}])"));
    r = cli({"info", kGood + "/pair.json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "storages: 9, 2.96 KiB in total (3030 bytes)")) << r.out;
    EXPECT_TRUE(contains(r.out, "cpu: 1 storage, 1000 B")) << r.out;
    EXPECT_TRUE(contains(r.out, "0: fwd -> bwd")) << r.out;
}
