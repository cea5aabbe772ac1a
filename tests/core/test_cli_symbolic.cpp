// fxmem-cli on symbolic sizes: --set, info's symbols and fit, on tests/data/good/symbolic.json
// (pair.json with sizes in s0, s1; its numbers by hand in test_symbolic.cpp).
#include "cli_run.h"
#include "test_paths.h"

#include <gtest/gtest.h>

namespace {

using fxmem_test::cli;
using fxmem_test::CliRun;
using fxmem_test::contains;

const std::string kSym = kGood + "/symbolic.json";

// The pair peak with s1 = 10 (test_symbolic.cpp): 16 s0 s1^2 + 200 + 40p + 12 (p // 2) + 100 ceil(p / 4).
std::int64_t hand_pair_peak(std::int64_t s0, std::int64_t s1) {
    const std::int64_t p = s0 * s1;
    return 16 * s0 * s1 * s1 + 200 + 40 * p + 12 * (p / 2) + 100 * ((p + 3) / 4);
}

} // namespace

TEST(CliSymbolic, PeakAndProfileAtABinding) {
    // At the hints, pair.json's numbers (test_cli.cpp's PeakOfAPair).
    CliRun r = cli({"peak", kSym, "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json()["peak"], 1760);
    // At s0 = 4, s1 = 10 (test_symbolic.cpp's BindsTheHandComputedFile).
    for (const std::string set : {"s0=4,s1=10", "s1=10,s0=4", "L['x'].size()[0]=4,s1=10"}) {
        r = cli({"peak", kSym, "--set", set, "--json"});
        ASSERT_EQ(r.status, 0) << set << r.err;
        EXPECT_EQ(r.json()["forward_peak"], 8300) << set;
        EXPECT_EQ(r.json()["backward_baseline"], 6400) << set;
        EXPECT_EQ(r.json()["backward_peak"], 9440) << set;
        EXPECT_EQ(r.json()["peak"], 9440) << set;
    }
    r = cli({"profile", kSym, "--graph", "fwd", "--set", "s0=4,s1=10", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json()["profile"].get<std::vector<std::int64_t>>(),
              (std::vector<std::int64_t>{300, 300, 300, 500, 500, 2100, 1900, 8300, 8300}));
    // One symbol given: the other stays at its hint (s1 = 5).
    r = cli({"peak", kSym, "--set", "s0=4", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json()["peak"], hand_pair_peak(4, 5));
}

TEST(CliSymbolic, SetIsCheckedAgainstTheFile) {
    CliRun r = cli({"peak", kSym, "--set", "s0=65"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "symbol 's0' (L['x'].size()[0]) = 65 is outside its range [1, 64]")) << r.err;
    r = cli({"peak", kSym, "--set", "s1=1"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "= 1 is outside its range [2, inf)")) << r.err;
    r = cli({"peak", kSym, "--set", "width=4"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "--set: no symbol 'width' (the file's symbols: s0 (L['x'].size()[0]), 'batch', s1"))
        << r.err;
    // The app's word for s0 binds it as its name does.
    EXPECT_EQ(cli({"peak", kSym, "--set", "batch=4", "--json"}).out,
              cli({"peak", kSym, "--set", "s0=4", "--json"}).out);
    r = cli({"peak", kGood + "/pair.json", "--set", "s0=4"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "no symbol 's0' (the file has no symbols: its sizes are not symbolic)")) << r.err;
    for (const std::string bad : {"s0", "s0=", "s0=x", "=4", "s0=4,", "s0=99999999999999999999"}) {
        r = cli({"peak", kSym, "--set", bad});
        EXPECT_EQ(r.status, 2) << bad << r.err;
    }
    r = cli({"peak", kSym, "--set", "s0=4,s0=5"});
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(contains(r.err, "--set gives symbol 's0' twice")) << r.err;
    // An overflow at the binding names the storage.
    r = cli({"peak", kSym, "--set", "s1=1073741824"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "storage id 13: 'nbytes_expr' '16*s0*s1**2' overflows int64 at s0=2, s1=1073741824"))
        << r.err;
    // Commands that take no --set refuse it.
    r = cli({"info", kSym, "--set", "s0=4"});
    EXPECT_EQ(r.status, 2);
}

TEST(CliSymbolic, InfoListsTheSymbols) {
    CliRun r = cli({"info", kSym, "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto symbols = r.json()["symbols"];
    ASSERT_EQ(symbols.size(), 2u);
    EXPECT_EQ(symbols[0],
              nlohmann::json::parse(R"({"name": "s0", "hint": 2, "source": "L['x'].size()[0]", "min": 1, "max": 64})"));
    EXPECT_EQ(symbols[1], nlohmann::json::parse(
                              R"({"name": "s1", "hint": 5, "source": "L['x'].size()[1]", "min": 2, "max": null})"));
    r = cli({"info", kSym});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "s0       2  [1, 64]   L['x'].size()[0]")) << r.out;
    EXPECT_TRUE(contains(r.out, "s1       5  [2, inf)  L['x'].size()[1]")) << r.out;
    r = cli({"info", kGood + "/pair.json", "--json"});
    ASSERT_EQ(r.status, 0);
    EXPECT_EQ(r.json()["symbols"], nlohmann::json::array());
    EXPECT_FALSE(contains(cli({"info", kGood + "/pair.json"}).out, "symbols"));
}

TEST(CliSymbolic, FitEqualsABruteForceScan) {
    for (const std::string memory : {"100000", "97.65625KiB", "1000", "9440", "0.1MB"}) {
        SCOPED_TRACE(memory);
        const CliRun r =
            cli({"fit", kSym, "--memory", memory, "--vary", "s0", "--set", "s1=10", "--pair", "0", "--json"});
        ASSERT_EQ(r.status, 0) << r.err;
        const auto j = r.json();
        const std::int64_t limit = j["limit"];
        // The scan, by hand: s0 from 1 while the peak fits.
        std::optional<std::int64_t> expected;
        for (std::int64_t v = 1; v <= 64 && hand_pair_peak(v, 10) <= limit; ++v) expected = v;
        EXPECT_EQ(j["symbol"], "s0");
        if (expected) {
            EXPECT_EQ(j["max_value"], *expected);
            EXPECT_EQ(j["peak_at_max"], hand_pair_peak(*expected, 10));
        } else {
            EXPECT_TRUE(j["max_value"].is_null());
            EXPECT_TRUE(j["peak_at_max"].is_null());
        }
        EXPECT_EQ(j["peak_at_next"], hand_pair_peak(expected.value_or(0) + 1, 10));
        EXPECT_EQ(j["search"], "monotone");
    }
    EXPECT_EQ(cli({"fit", kSym, "--memory", "97.65625KiB", "--vary", "s0", "--json"}).json()["limit"], 100000);
    EXPECT_EQ(cli({"fit", kSym, "--memory", "0.1MB", "--vary", "s0", "--json"}).json()["limit"], 100000);
    EXPECT_EQ(cli({"fit", kSym, "--memory", "80GiB", "--vary", "s0", "--json"}).json()["limit"], 85899345920);
    EXPECT_EQ(cli({"fit", kSym, "--memory", "24GB", "--vary", "s0", "--json"}).json()["limit"], 24000000000);
    // Everything fits: the range's maximum, and no next value.
    CliRun r = cli({"fit", kSym, "--memory", "1GiB", "--vary", "s0", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json()["max_value"], 64);
    EXPECT_TRUE(r.json()["peak_at_next"].is_null());
    r = cli({"fit", kSym, "--memory", "1GiB", "--vary", "s0"});
    EXPECT_TRUE(contains(r.out, "largest s0: 64")) << r.out;
    EXPECT_TRUE(contains(r.out, "that is the range's maximum")) << r.out;
    // The text form.
    r = cli({"fit", kSym, "--memory", "100000", "--vary", "s0", "--set", "s1=10", "--pair", "0"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "largest s0: 43 (peak 97.2 KiB (99580 bytes))")) << r.out;
    EXPECT_TRUE(contains(r.out, "s0=44 needs 99.5 KiB (101840 bytes)")) << r.out;
}

// symbolic.json has a step: fit answers for it unless a pair is asked for, and says so first.
TEST(CliSymbolic, FitAnswersForTheWholeStepByDefault) {
    const CliRun by_default = cli({"fit", kSym, "--memory", "60000", "--vary", "s0", "--json"});
    const CliRun whole = cli({"fit", kSym, "--memory", "60000", "--vary", "s0", "--whole-step", "--json"});
    const CliRun pair = cli({"fit", kSym, "--memory", "60000", "--vary", "s0", "--pair", "0", "--json"});
    ASSERT_EQ(by_default.status, 0) << by_default.err;
    EXPECT_EQ(by_default.json()["measure"], "whole_step");
    EXPECT_EQ(by_default.json()["max_value"], whole.json()["max_value"]);
    EXPECT_EQ(by_default.json()["peak_at_max"], whole.json()["peak_at_max"]);
    EXPECT_EQ(pair.json()["measure"], "pair");
    const CliRun text = cli({"fit", kSym, "--memory", "60000", "--vary", "s0"});
    EXPECT_TRUE(contains(text.out.substr(0, text.out.find('\n')), "measured as the whole step")) << text.out;
}

TEST(CliSymbolic, FitOfTheWholeStepEqualsPeaksAtEachValue) {
    // The brute force: peak --whole-step --set at each s0 until one is over the limit.
    const std::int64_t limit = 60000;
    std::int64_t expected = 0, peak_at_next = 0;
    for (std::int64_t v = 1; v <= 64; ++v) {
        const CliRun r = cli({"peak", kSym, "--whole-step", "--set", "s0=" + std::to_string(v) + ",s1=10", "--json"});
        ASSERT_EQ(r.status, 0) << r.err;
        if (r.json()["peak"].get<std::int64_t>() > limit) {
            peak_at_next = r.json()["peak"];
            break;
        }
        expected = v;
    }
    ASSERT_GT(expected, 1);
    ASSERT_LT(expected, 64);
    const CliRun r = cli(
        {"fit", kSym, "--memory", std::to_string(limit), "--vary", "s0", "--set", "s1=10", "--whole-step", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json()["max_value"], expected);
    EXPECT_EQ(r.json()["peak_at_next"], peak_at_next);
    EXPECT_EQ(r.json()["measure"], "whole_step");
}

TEST(CliSymbolic, FitRefusals) {
    CliRun r = cli({"fit", kSym, "--vary", "s0"});
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(contains(r.err, "missing --memory")) << r.err;
    r = cli({"fit", kSym, "--memory", "1GiB"});
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(contains(r.err, "missing --vary")) << r.err;
    for (const std::string bad : {"", "GiB", "1.2.3GiB", "12XB", "-5", "1e", "99999999999TiB"}) {
        r = cli({"fit", kSym, "--memory", bad, "--vary", "s0"});
        EXPECT_EQ(r.status, 2) << bad << r.err;
    }
    r = cli({"fit", kGood + "/pair.json", "--memory", "1GiB", "--vary", "s0"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "--vary: no symbol 's0' (the file has no symbols")) << r.err;
    r = cli({"fit", kSym, "--memory", "1GiB", "--vary", "s0", "--set", "s1=1"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "outside its range [2, inf)")) << r.err;
    // Nothing fits.
    r = cli({"fit", kSym, "--memory", "10", "--vary", "s0"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "nothing fits: even the minimum 1 does not")) << r.out;
}

TEST(CliSymbolic, FitWithRecomputeEqualsRematAtEachValue) {
    // symbolic_joint.json: joint.json with its 256-byte activations 64 s0 (hint 4). The brute
    // force: remat --set at each s0 until its plan's pair peak is over the limit.
    const std::string file = kGood + "/symbolic_joint.json";
    const std::int64_t limit = 3000;
    std::int64_t expected = 0;
    for (std::int64_t v = 1; v <= 64; ++v) {
        const CliRun r =
            cli({"remat", file, "--set", "s0=" + std::to_string(v), "--max-extra-percent", "100", "--json"});
        ASSERT_EQ(r.status, 0) << r.err;
        if (r.json()["peak"].get<std::int64_t>() > limit) break;
        expected = v;
    }
    ASSERT_GT(expected, 1);
    const CliRun r =
        cli({"fit", file, "--memory", std::to_string(limit), "--vary", "s0", "--max-extra-percent", "100", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto w = r.json()["with_recompute"];
    EXPECT_EQ(w["max_extra_percent"], 100.0);
    EXPECT_EQ(w["max_value"], expected);
    EXPECT_GE(w["max_value"].get<std::int64_t>(), r.json()["max_value"].get<std::int64_t>());
}
