// Defects tests/hostile/round3.py found (issue 28's adversarial round): each failed before its fix.
// fxmem-cli remat --plan aborted on a plan number beyond a double, read 'peak' 2^63 as absent and
// a saved name listed twice as once, said "unsupported plan version" without the version;
// export --perfetto/--memory-viz replaced the graph file (or the --schedule file) it read, and
// remat -o replaced the --plan file it scored.
#include "cli_run.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

using fxmem_test::CliRun;
using fxmem_test::contains;

// joint.json's plan as remat -o writes it, with `edit` applied to its text.
std::string plan_with(const std::string& name, const std::string& from, const std::string& to) {
    const std::string path = fxmem_test::scratch_dir() + "/" + name;
    EXPECT_EQ(fxmem_test::cli({"remat", kJoint, "-o", path}).status, 0);
    std::string text = fxmem_test::slurp(path);
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    fxmem_test::write(path, text);
    return path;
}

std::string copy_of(const std::string& from, const std::string& name) {
    const std::string path = fxmem_test::scratch_dir() + "/" + name;
    std::filesystem::copy_file(from, path, std::filesystem::copy_options::overwrite_existing);
    return path;
}

} // namespace

// Every hostile plan of tests/data/bad/plans is refused by the CLI too (exit 1, naming the plan):
// plan_huge_integer.json (a 4000-digit 'peak') aborted it with nlohmann's out_of_range.
TEST(HostileRound3, EveryBadPlanIsRefusedByTheCli) {
    int seen = 0;
    for (const auto& e : std::filesystem::directory_iterator(kData + "/bad/plans")) {
        if (e.path().extension() != ".json") continue;
        ++seen;
        const CliRun r = fxmem_test::cli({"remat", kJoint, "--plan", e.path().string()});
        EXPECT_EQ(r.status, 1) << e.path() << ": " << r.err;
        EXPECT_TRUE(r.err.rfind(e.path().string() + ":", 0) == 0) << r.err;
        EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err; // one line
    }
    EXPECT_GE(seen, 11);
    const CliRun r = fxmem_test::cli({"remat", kJoint, "--plan", kData + "/bad/plans/plan_huge_integer.json"});
    EXPECT_TRUE(contains(r.err, "plan_huge_integer.json: invalid JSON: a number too large for a double")) << r.err;
}

// 2^63 is a JSON integer nlohmann reads as unsigned; get<int64_t> wrapped it to -2^63, which
// stood for "no peak given".
TEST(HostileRound3, PlanIntegersBeyondInt64AreRefused) {
    CliRun r = fxmem_test::cli(
        {"remat", kJoint, "--plan", plan_with("p1.json", "\"peak\": 1096", "\"peak\": 9223372036854775808")});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "p1.json: 'peak' must be an integer from 0 to 2^63-1")) << r.err;
    r = fxmem_test::cli({"remat", kJoint, "--plan", plan_with("p2.json", "\"peak\": 1096", "\"peak\": -1")});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "p2.json: 'peak' must be an integer from 0 to 2^63-1")) << r.err;
    r = fxmem_test::cli({"remat", kJoint, "--plan",
                         plan_with("p3.json", "\"extra_flops\": 0", "\"extra_flops\": 18446744073709551615")});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "p3.json: 'extra_flops' must be an integer from -2^63 to 2^63-1")) << r.err;
    // An occurrence of 2^64-1 wrapped to -1 and was refused for the wrong reason; 2^63 likewise.
    r = fxmem_test::cli(
        {"remat", kJoint, "--plan",
         plan_with("p4.json", "[\"aten.relu.default\",null,0,", "[\"aten.relu.default\",null,9223372036854775808,")});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "nodes['relu']: the occurrence must be an integer >= 0")) << r.err;
}

// Python's load_plan says which version it got; the CLI did not.
TEST(HostileRound3, PlanVersionIsNamed) {
    CliRun r = fxmem_test::cli({"remat", kJoint, "--plan", plan_with("v1.json", "\"version\": 1", "\"version\": 1.0")});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "v1.json: unsupported plan version 1.0 (this build reads version 1)")) << r.err;
    r = fxmem_test::cli({"remat", kJoint, "--plan", plan_with("v2.json", "\"version\": 1", "\"version\": \"1\"")});
    EXPECT_TRUE(contains(r.err, "v2.json: unsupported plan version \"1\" (this build reads version 1)")) << r.err;
}

// saved ["primals_2", "relu", "primals_2"] was scored as if primals_2 were listed once.
TEST(HostileRound3, ASavedNodeListedTwiceIsRefused) {
    const CliRun r = fxmem_test::cli(
        {"remat", kJoint, "--plan", plan_with("dup.json", "\"relu\"\n ]", "\"relu\",\n  \"primals_2\"\n ]")});
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_TRUE(contains(r.err, "dup.json: saved[2]: 'primals_2' is listed twice (also saved[0])")) << r.err;
}

// export wrote its trace over the graph file it had read (and over the --schedule file); remat -o
// over the --plan file.
TEST(HostileRound3, OutputsNeverReplaceAnInput) {
    const std::string model = copy_of(kJoint, "model.json");
    const std::string before = fxmem_test::slurp(model);
    for (const char* option : {"--perfetto", "--memory-viz"}) {
        const CliRun r = fxmem_test::cli({"export", model, option, model});
        EXPECT_EQ(r.status, 2) << r.out;
        EXPECT_TRUE(contains(r.err, std::string("export: ") + option + " " + model + " is the graph file itself"))
            << r.err;
    }
    EXPECT_EQ(fxmem_test::slurp(model), before);

    const std::string single = copy_of(kData + "/good/single.json", "single.json");
    const std::string sched = copy_of(kData + "/good/single_schedule.json", "single_schedule.json");
    const std::string sched_before = fxmem_test::slurp(sched);
    CliRun r = fxmem_test::cli({"export", single, "--schedule", sched, "--perfetto", sched});
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(contains(r.err, "is the --schedule file itself")) << r.err;
    EXPECT_EQ(fxmem_test::slurp(sched), sched_before);

    const std::string plan = plan_with("own.json", "\"extra_flops\": 0", "\"extra_flops\": 0");
    const std::string plan_before = fxmem_test::slurp(plan);
    r = fxmem_test::cli({"remat", kJoint, "--plan", plan, "-o", plan});
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(contains(r.err, "remat: -o " + plan + " is the --plan file itself")) << r.err;
    EXPECT_EQ(fxmem_test::slurp(plan), plan_before);
    // Still written where asked elsewhere.
    const std::string trace = fxmem_test::scratch_dir() + "/trace.json";
    std::filesystem::remove(trace);
    EXPECT_EQ(fxmem_test::cli({"export", model, "--perfetto", trace}).status, 0);
    EXPECT_TRUE(std::filesystem::exists(trace));
}

// gpt_break with region0's joint given num_fwd_outputs 0: the file's pair is no partition of it,
// and remat said "node 'add_7': the backward needs it but cannot compute it from the saved
// values", as if the joint or a plan were wrong, without naming the baseline.
TEST(HostileRound3, ABaselinePairThatCannotBeSimulatedIsSaidAsTheBaseline) {
    std::string text = fxmem_test::slurp(kData + "/../../resources/examples/gpt_break.fxmem.json");
    const auto at = text.find("\"num_fwd_outputs\":1");
    ASSERT_NE(at, std::string::npos);
    text.replace(at, std::strlen("\"num_fwd_outputs\":1"), "\"num_fwd_outputs\":0");
    const std::string path = fxmem_test::scratch_dir() + "/gpt_break_nfo0.json";
    fxmem_test::write(path, text);
    const CliRun r = fxmem_test::cli({"remat", path, "--graph", "region0.joint", "--time-limit", "0.1"});
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_TRUE(contains(r.err, path + ": graph 'region0.joint': the baseline partition "
                                       "('region0.forward / region0.backward') cannot be simulated: "))
        << r.err;
}

// Optimizer state for a parameter the model does not have ('ghost.weight exp_avg' in a file whose
// only parameter is lin.weight) was counted through the whole step as if real: 100 B more than
// the step holds. Every whole-step view refuses it, naming the storage; the state of a parameter
// the file has still counts (diff_step_old's own 'lin.weight exp_avg').
TEST(HostileRound3, OptimizerStateForAParameterTheFileLacksIsRefused) {
    const std::string good = kData + "/good/diff_step_old.json";
    CliRun r = fxmem_test::cli({"peak", good, "--whole-step", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string text = fxmem_test::slurp(good);
    const auto at = text.find("\"lin.weight exp_avg\"");
    ASSERT_NE(at, std::string::npos);
    text.replace(at, std::strlen("\"lin.weight exp_avg\""), "\"ghost.weight exp_avg\"");
    const std::string path = fxmem_test::scratch_dir() + "/ghost_state.json";
    fxmem_test::write(path, text);
    for (const char* command : {"peak", "profile", "breakdown", "live"}) {
        r = fxmem_test::cli({command, path, "--whole-step"});
        EXPECT_EQ(r.status, 1) << command << ": " << r.out;
        EXPECT_EQ(r.err, path + ": storages[7] (id 8): optimizer state 'ghost.weight exp_avg' is for parameter "
                                "'ghost.weight', which no graph of the step holds and no parameter storage of the "
                                "file names\n")
            << command;
    }
    // The graph views do not read optimizer state: they still work on the file.
    EXPECT_EQ(fxmem_test::cli({"peak", path}).status, 0);
}
