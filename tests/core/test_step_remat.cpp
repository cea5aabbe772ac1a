// The whole step under a recompute plan (fxmem/step_remat.h): the pair's graphs replaced by a
// simulated partition, and fit's whole-step answer with --max-extra-percent. The partition of
// the saved set PyTorch's partitioner chose must give back the captured step exactly, on every
// bundled step (an independent check: the captured graphs are PyTorch's, the rebuilt ones ours);
// fit's answer with a plan equals a brute force over the values.
#include "cli_run.h"
#include "test_paths.h"

#include "fxmem/error.h"
#include "fxmem/io.h"
#include "fxmem/remat.h"
#include "fxmem/step_remat.h"
#include "fxmem/symbolic.h"
#include "fxmem/whole_step.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace fxmem;
using fxmem_test::cli;

namespace {

const std::string kStepDynamic = kData + "/good/step_dynamic.json";

GraphFile bound(std::int64_t batch) {
    GraphFile f = load_file(kStepDynamic);
    bind_sizes(f, SizeBinding{{batch}});
    return f;
}

} // namespace

TEST(StepRemat, ThePartitionOfTheCapturedSavedSetGivesBackTheCapturedStep) {
    for (const std::string& path :
         {kExamples + "/gpt_adam.fxmem.json", kExamples + "/gpt_break.fxmem.json", kStepDynamic}) {
        const GraphFile f = load_file(path);
        const WholeStep captured = whole_step(f, default_counted(f));
        for (std::size_t i = 0; i < f.pairs.size(); ++i) {
            const Pair& p = f.pairs[i];
            ASSERT_TRUE(p.joint) << path;
            const JointGraph j = analyze_joint(f, *p.joint);
            const Partition part = simulate_partition(j, saved_of_pair(j, p));
            const GraphFile rebuilt = with_partition(j, i, part);
            ASSERT_EQ(rebuilt.graphs.size(), f.graphs.size());
            // The graphs keep their names, and the file finds them by name.
            for (std::size_t g = 0; g < f.graphs.size(); ++g) {
                EXPECT_EQ(rebuilt.graphs[g].name, f.graphs[g].name);
                EXPECT_EQ(rebuilt.find_graph(f.graphs[g].name), GraphId(static_cast<std::int32_t>(g)));
            }
            EXPECT_EQ(rebuilt.graph(p.forward).size(), f.graph(p.forward).size()) << path << " pair " << i;
            EXPECT_EQ(rebuilt.graph(p.backward).size(), f.graph(p.backward).size()) << path << " pair " << i;
            const WholeStep step = whole_step(rebuilt, default_counted(rebuilt));
            EXPECT_EQ(step.timeline, captured.timeline) << path << " pair " << i;
        }
    }
}

TEST(StepRemat, APairTheFileLacksIsAnError) {
    const GraphFile f = load_file(kStepDynamic);
    const JointGraph j = analyze_joint(f, *f.pairs[0].joint);
    EXPECT_THROW((void)with_partition(j, 1, simulate_partition(j, saved_of_pair(j, f.pairs[0]))), Error);
}

TEST(StepRemat, PlansTheRegionHoldingThePeakAndNeverRaisesTheStep) {
    RematOptions options;
    options.max_extra_percent = 100;
    options.time_limit_s = 5;
    for (std::int64_t v : {2, 64, 4096}) {
        const GraphFile f = bound(v);
        const StepPlan sp = plan_whole_step(f, options);
        EXPECT_EQ(sp.plain_peak, whole_step(f, default_counted(f)).peak) << v;
        ASSERT_TRUE(sp.region) << v;
        EXPECT_EQ(sp.region->pair, 0u);
        ASSERT_TRUE(sp.plan);
        EXPECT_LE(sp.peak(), sp.plain_peak) << v;
        EXPECT_EQ(sp.uses_plan(), sp.planned_peak < sp.plain_peak);
        // The plan's pair is what its step runs: its step peak is the rebuilt file's.
        const JointGraph j = analyze_joint(f, sp.region->joint);
        const GraphFile planned = with_partition(j, 0, sp.plan->partition, sp.plan->backward_order);
        EXPECT_EQ(whole_step(planned, default_counted(planned)).peak, sp.planned_peak);
    }
    // At a large batch the activations dominate and the plan lowers the step.
    EXPECT_TRUE(plan_whole_step(bound(4096), options).uses_plan());
}

TEST(StepRemat, FitWithAPlanEqualsABruteForceOverTheValues) {
    RematOptions options;
    options.max_extra_percent = 100;
    options.time_limit_s = 2;
    const GraphFile f0 = bound(2);
    const std::int64_t plain_at = whole_step(f0, default_counted(f0)).peak;
    // A limit where the activations matter: the plain step at batch 600.
    const GraphFile f600 = bound(600);
    const std::int64_t limit = whole_step(f600, default_counted(f600)).peak;
    ASSERT_GT(limit, plain_at);
    // The plain answer by brute force (every value from the minimum), and fit's answer with a plan
    // checked at its edge (it fits, the next value does not) and at every 100th value below it.
    const auto step_peak = [](std::int64_t v) {
        const GraphFile f = bound(v);
        return whole_step(f, default_counted(f)).peak;
    };
    std::int64_t plain = 1;
    while (step_peak(plain + 1) <= limit) ++plain;
    ASSERT_EQ(plain, 600);
    const auto dir = std::filesystem::temp_directory_path() / "fxmem_test_step_remat";
    std::filesystem::create_directories(dir);
    const std::string plan = (dir / "plan.json").string();
    const auto run = cli({"fit", kStepDynamic, "--memory", std::to_string(limit), "--vary", "batch",
                          "--max-extra-percent", "100", "--json", "-o", plan});
    ASSERT_EQ(run.status, 0) << run.err;
    const auto j = run.json();
    EXPECT_EQ(j["measure"], "whole_step");
    EXPECT_EQ(j["max_value"], plain);
    const std::int64_t planned = j["with_recompute"]["max_value"].get<std::int64_t>();
    ASSERT_GT(planned, plain);
    EXPECT_EQ(plan_whole_step(bound(planned), options).peak(), j["with_recompute"]["peak_at_max"]);
    EXPECT_LE(plan_whole_step(bound(planned), options).peak(), limit);
    EXPECT_GT(plan_whole_step(bound(planned + 1), options).peak(), limit);
    for (std::int64_t v = 2; v < planned; v += 100) EXPECT_LE(plan_whole_step(bound(v), options).peak(), limit) << v;
    EXPECT_EQ(j["with_recompute"]["joint"], "region0.joint");
    EXPECT_EQ(j["with_recompute"]["plan_used"], true);
    // The written plan is the answer's: remat scores it at that size to the pair peak fit names.
    const auto scored =
        cli({"remat", kStepDynamic, "--set", "batch=" + std::to_string(planned), "--plan", plan, "--json"});
    ASSERT_EQ(scored.status, 0) << scored.err;
    EXPECT_EQ(scored.json()["peak"], j["with_recompute"]["plan_pair_peak"]);
    // The text names the measure first and the plan's region.
    const auto text =
        cli({"fit", kStepDynamic, "--memory", std::to_string(limit), "--vary", "batch", "--max-extra-percent", "100"});
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_TRUE(fxmem_test::contains(text.out, "measured as the whole step")) << text.out;
    EXPECT_TRUE(fxmem_test::contains(text.out, "largest " + std::to_string(planned) + " (step peak")) << text.out;
    EXPECT_TRUE(fxmem_test::contains(text.out, "joint graph 'region0.joint'")) << text.out;
    std::filesystem::remove_all(dir);
}

TEST(StepRemat, FitRefusesAPlanFileWithoutAPlanAndAllDevicesWithOne) {
    auto r = cli({"fit", kStepDynamic, "--memory", "1GiB", "--vary", "batch", "-o", "/tmp/x.plan.json"});
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(fxmem_test::contains(r.err, "-o writes the recompute plan")) << r.err;
    r = cli(
        {"fit", kStepDynamic, "--memory", "1GiB", "--vary", "batch", "--max-extra-percent", "5", "--devices", "all"});
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(fxmem_test::contains(r.err, "--devices all does not apply")) << r.err;
}
