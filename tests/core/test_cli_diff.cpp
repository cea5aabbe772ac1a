// fxmem-cli diff end to end on tests/data/good/diff_*.json (numbers by hand in test_peak_diff.cpp:
// pair peaks 616 -> 1016, whole-step peaks 716 -> 1116): the verdict line, limits, exit codes.
#include "cli_run.h"
#include "test_paths.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

using fxmem_test::CliRun;
using fxmem_test::contains;

const std::string kOld = kGood + "/diff_old.json";
const std::string kNew = kGood + "/diff_new.json";

CliRun diff(std::vector<std::string> args) {
    args.insert(args.begin(), "diff");
    return fxmem_test::cli(args);
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

} // namespace

TEST(CliDiff, AnyIncreaseIsARegressionByDefault) {
    const CliRun r = diff({kOld, kNew});
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_EQ(first_line(r.out), "fxmem-cli diff: REGRESSION: the pair peak grew by 400 B (+64.9 %), from 616 B to "
                                 "1016 B, over the limit of any increase");
    EXPECT_TRUE(contains(r.out, "the peak stayed at 'bwd' node 'mm_1'")) << r.out;
    EXPECT_TRUE(contains(r.out, "+400 B  lin")) << r.out;
    EXPECT_TRUE(contains(r.out, "at the new peak, not at the old: 2 storages, 800 B")) << r.out;
    // Shrinking, or the same file, is within it.
    EXPECT_EQ(diff({kNew, kOld}).status, 0);
    const CliRun same = diff({kOld, kOld});
    EXPECT_EQ(same.status, 0);
    EXPECT_TRUE(contains(first_line(same.out), "ok: the pair peak is unchanged at 616 B")) << same.out;
}

TEST(CliDiff, PercentAndByteLimits) {
    // +400 on 616: 64.93 %. 64.9 % allows floor(616 * 0.649) = 399 bytes, 65 % allows 400.
    EXPECT_EQ(diff({kOld, kNew, "--max-increase", "64.9%"}).status, 3);
    const CliRun ok = diff({kOld, kNew, "--max-increase", "65"});
    EXPECT_EQ(ok.status, 0) << ok.err;
    EXPECT_TRUE(contains(first_line(ok.out), "within the limit of +65% (400 B)")) << ok.out;
    EXPECT_EQ(diff({kOld, kNew, "--max-increase-bytes", "399"}).status, 3);
    EXPECT_EQ(diff({kOld, kNew, "--max-increase-bytes=400"}).status, 0);
}

TEST(CliDiff, JsonIsCompleteAndAddsUp) {
    const CliRun r = diff({kOld, kNew, "--json", "--max-increase", "10%"});
    ASSERT_EQ(r.status, 3) << r.err;
    const nlohmann::json j = r.json();
    EXPECT_EQ(j["verdict"], "regression");
    EXPECT_EQ(j["scope"], "pair");
    EXPECT_EQ(j["delta"], 400);
    EXPECT_EQ(j["allowed_increase"], 61); // floor(616 * 0.1)
    EXPECT_EQ(j["moved"], false);
    EXPECT_EQ(j["old"]["peak"], 616);
    EXPECT_EQ(j["new"]["node"], "mm_1");
    for (const char* key : {"by_role", "by_module"}) {
        long long sum = 0;
        for (const auto& row : j[key]) sum += row["delta"].get<long long>();
        EXPECT_EQ(sum, 400) << key;
    }
    EXPECT_EQ(j["only_new"][0], nlohmann::json::parse(R"({"storage": 3, "bytes": 400, "role": "activation",
        "module": "lin", "op": "aten.mm.default", "shape": "float32[20, 5]", "label": ""})"));
}

TEST(CliDiff, WholeStep) {
    const CliRun r = diff({kGood + "/diff_step_old.json", kGood + "/diff_step_new.json", "--whole-step", "--json"});
    ASSERT_EQ(r.status, 3) << r.err;
    EXPECT_EQ(r.json()["old"]["peak"], 716);
    EXPECT_EQ(r.json()["new"]["peak"], 1116);
    EXPECT_EQ(r.json()["scope"], "whole_step");
}

TEST(CliDiff, InvalidInputAndBadUsage) {
    EXPECT_EQ(diff({kOld}).status, 2);
    EXPECT_TRUE(contains(diff({kOld}).err, "missing NEW"));
    EXPECT_EQ(diff({kOld, kNew, kNew}).status, 2);
    EXPECT_EQ(diff({kOld, kNew, "--max-increase", "5%", "--max-increase-bytes", "1"}).status, 2);
    EXPECT_EQ(diff({kOld, kNew, "--max-increase", "-5%"}).status, 2);
    EXPECT_EQ(diff({kOld, kNew, "--max-increase", "1.0000001"}).status, 2);
    EXPECT_EQ(diff({kOld, kNew, "--pair", "0", "--whole-step"}).status, 2);
    EXPECT_EQ(diff({kOld, kGood + "/nope.json"}).status, 1);
    const CliRun no_pairs = diff({kOld, kGood + "/single.json"});
    EXPECT_EQ(no_pairs.status, 1);
    EXPECT_TRUE(contains(no_pairs.err, "no forward/backward pairs")) << no_pairs.err;
    EXPECT_EQ(diff({kOld, kNew, "--whole-step"}).status, 1); // no step in either
    EXPECT_EQ(diff({kOld, kNew, "--pair", "1"}).status, 1);
}
