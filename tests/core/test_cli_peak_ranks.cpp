// fxmem-cli peak FILE --ranks on tests/data/good/ranks/pair.rank{rank}.json: pair.json captured as
// ranks 0 and 1 of 4 (a "distributed" object each). Rank 0 is pair.json itself: pair peak 1760 B,
// the backward's (baseline 800 + its own). Rank 1's `mul` (storage 21) holds 700 B instead of
// 300 B, and `mul` is live at that peak (with `sum`), so its peak is 1760 + 400 = 2160 B: the
// worst rank. Ranks 2 and 3 have no file.
#include "cli_run.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace {

using fxmem_test::CliRun;
using fxmem_test::contains;

const std::string kRanks = kGood + "/ranks/pair.rank{rank}.json";

// A scratch folder holding pair.rank0.json as it is and `rank1` as the text of rank 1's file.
std::string ranks_with(const std::string& name, const std::string& rank1) {
    const auto dir = std::filesystem::path(fxmem_test::scratch_dir()) / name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(kGood + "/ranks/pair.rank0.json", dir / "pair.rank0.json");
    fxmem_test::write((dir / "pair.rank1.json").string(), rank1);
    return (dir / "pair.rank{rank}.json").string();
}

} // namespace

TEST(CliPeakRanks, ListsEachCapturedRankAndTheWorstByHand) {
    const CliRun r = fxmem_test::cli({"peak", kRanks, "--ranks", "--json", "--memory", "2000"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = r.json();
    EXPECT_EQ(j["world_size"], 4);
    EXPECT_EQ(j["measure"], "pair 0");
    ASSERT_EQ(j["ranks"].size(), 2u);
    EXPECT_EQ(j["ranks"][0]["rank"], 0);
    EXPECT_EQ(j["ranks"][0]["peak"], 1760);
    EXPECT_EQ(j["ranks"][1]["rank"], 1);
    EXPECT_EQ(j["ranks"][1]["peak"], 2160);
    EXPECT_EQ(j["worst_rank"], 1);
    EXPECT_EQ(j["peak"], 2160);
    EXPECT_EQ(j["fits"], false); // 2160 > 2000, though rank 0's 1760 would fit

    // Each rank's number is the one `peak` gives for its file alone.
    for (int rank : {0, 1}) {
        const CliRun one =
            fxmem_test::cli({"peak", kGood + "/ranks/pair.rank" + std::to_string(rank) + ".json", "--json"});
        ASSERT_EQ(one.status, 0) << one.err;
        EXPECT_EQ(one.json()["peak"], j["ranks"][rank]["peak"]) << rank;
    }

    // --pair takes the graphs' names too, as in every command; beside --whole-step it is refused.
    const CliRun named = fxmem_test::cli({"peak", kRanks, "--ranks", "--pair", "fwd,bwd", "--json"});
    ASSERT_EQ(named.status, 0) << named.err;
    EXPECT_EQ(named.json()["ranks"], j["ranks"]);
    const CliRun both = fxmem_test::cli({"peak", kRanks, "--ranks", "--whole-step", "--pair", "0"});
    EXPECT_EQ(both.status, 2);
    EXPECT_TRUE(contains(both.err, "--pair does not apply to --whole-step")) << both.err;

    const CliRun text = fxmem_test::cli({"peak", kRanks, "--ranks", "--memory", "2000"});
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_TRUE(text.out.starts_with("2 of 4 ranks captured")) << text.out;
    EXPECT_TRUE(contains(text.out, "worst: rank 1, 2.11 KiB (2160 bytes)")) << text.out;
    EXPECT_TRUE(contains(text.out, "rank 1 does not fit in 1.95 KiB: over by 160 B")) << text.out;
    EXPECT_TRUE(contains(text.out, "ranks without a file were not captured")) << text.out;
}

TEST(CliPeakRanks, EqualPeaksNameTheLowestRank) {
    const std::string same =
        ranks_with("equal", fxmem_test::replace_all(fxmem_test::slurp(kGood + "/ranks/pair.rank1.json"),
                                                    "\"nbytes\": 700", "\"nbytes\": 300"));
    const CliRun r = fxmem_test::cli({"peak", same, "--ranks", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json()["ranks"][1]["peak"], 1760);
    EXPECT_EQ(r.json()["worst_rank"], 0);
}

TEST(CliPeakRanks, FilesThatAreNotTheRanksTheyAreNamedForAreRefused) {
    const std::string rank1 = fxmem_test::slurp(kGood + "/ranks/pair.rank1.json");
    // The name says rank 1, the file rank 3.
    std::string pattern = ranks_with("misnamed", fxmem_test::replace_all(rank1, "\"rank\": 1", "\"rank\": 3"));
    CliRun r = fxmem_test::cli({"peak", pattern, "--ranks"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "pair.rank1.json: distributed.rank is 3, but the file's name says rank 1")) << r.err;
    // Another world size than rank 0's.
    pattern = ranks_with("worlds", fxmem_test::replace_all(rank1, "\"world_size\": 4", "\"world_size\": 8"));
    r = fxmem_test::cli({"peak", pattern, "--ranks"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "pair.rank1.json: distributed.world_size is 8, but")) << r.err;
    // No "distributed" at all: pair.json is not a rank's capture.
    pattern = ranks_with("plain", fxmem_test::slurp(kGood + "/pair.json"));
    r = fxmem_test::cli({"peak", pattern, "--ranks"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "pair.rank1.json: no \"distributed\" object")) << r.err;
    // Nothing matches, or FILE is no pattern.
    r = fxmem_test::cli({"peak", kGood + "/ranks/none.rank{rank}.json", "--ranks"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "no file matches")) << r.err;
    r = fxmem_test::cli({"peak", kGood + "/pair.json", "--ranks"});
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(contains(r.err, "--ranks needs FILE with {rank} in it")) << r.err;
}
