// fxmem-cli peak --measure allocated|reserved on program_pair.json, by hand.
//
// Allocated (docs/estimator.md, "The allocated measure"): the forward program peaks at 21504 B
// (primals 4096 + 1024, buf0 8192, buf2 8192); the backward starts from what the forward program
// left (21504) plus the tangents (8192) less its own input buffers (17408): 12288 carried in, so
// its first step holds 17408 + 12288 = 29696 B, the pair's peak (step 7).
// Reserved (CUDACachingAllocator.cpp): every request is at most 1 MiB, so each goes to the small
// pool (get_allocation_size: a 2 MiB segment when no cached block fits), and blocks are reused
// only on their own stream (get_free_block's (stream, size) key): one segment for stream 0 and
// one for the backward's buf1 on stream 1, 4 MiB at step 10. With 3,000,000 B of device memory the
// second segment does not fit (alloc_block fails, release_cached_blocks frees nothing, then
// out-of-memory) although the 29696 allocated bytes would.
#include "cli_run.h"

#include <gtest/gtest.h>

namespace {

using fxmem_test::CliRun;
using fxmem_test::contains;

const std::string kProgram = std::string(FXMEM_TEST_DATA) + "/good/program_pair.json";

} // namespace

TEST(CliMeasure, AllocatedPairPeakByHand) {
    const CliRun r = fxmem_test::cli({"peak", kProgram, "--measure", "allocated", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = r.json();
    EXPECT_EQ(j["measure"], "allocated");
    EXPECT_EQ(j["peak"], 29696);
    EXPECT_EQ(j["peak_step"], 7);
    EXPECT_EQ(j["segments"][0]["allocated_peak"], 21504);
    EXPECT_EQ(j["segments"][1]["baseline"], 12288);
    const CliRun text = fxmem_test::cli({"peak", kProgram, "--measure", "allocated"});
    EXPECT_TRUE(contains(text.out.substr(0, text.out.find('\n')), "measure: allocated")) << text.out;
}

TEST(CliMeasure, ReservedSegmentsPerStreamByHand) {
    const CliRun r = fxmem_test::cli({"peak", kProgram, "--measure", "reserved", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = r.json();
    EXPECT_EQ(j["reserved_peak"], 4 << 20);
    EXPECT_EQ(j["segments_at_peak"], 2);
    EXPECT_EQ(j["allocated_blocks_peak"], 29696); // every request is a multiple of 512 already
    EXPECT_EQ(j["fragmentation"], (4 << 20) - 29696);
}

TEST(CliMeasure, ReservedOutOfMemoryWhereAllocatedFits) {
    const CliRun r = fxmem_test::cli({"peak", kProgram, "--measure", "reserved", "--memory", "3MB", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = r.json();
    EXPECT_EQ(j["fits"], false);
    EXPECT_EQ(j["oom_step"], 10);
    EXPECT_EQ(j["oom_allocated_would_fit"], true);
    const CliRun fits = fxmem_test::cli({"peak", kProgram, "--measure", "reserved", "--memory", "5MB", "--json"});
    EXPECT_EQ(fits.json()["fits"], true);
    const CliRun text = fxmem_test::cli({"peak", kProgram, "--measure", "reserved", "--memory", "3MB"});
    EXPECT_TRUE(contains(text.out, "out of memory in 2.86 MiB at step 10")) << text.out;
    EXPECT_TRUE(contains(text.out, "the allocated bytes fit")) << text.out;
}

TEST(CliMeasure, RefusalsNameTheProblem) {
    CliRun r = fxmem_test::cli({"peak", kProgram, "--measure", "bytes"});
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(contains(r.err, "--measure must be 'estimator'")) << r.err;
    r = fxmem_test::cli({"peak", kProgram, "--alloc-conf", "expandable_segments:True"});
    EXPECT_EQ(r.status, 2) << r.out;
    r = fxmem_test::cli({"peak", kProgram, "--measure", "reserved", "--alloc-conf", "max_split_size_mb:x"});
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_TRUE(contains(r.err, "max_split_size_mb")) << r.err;
    // A file without a program level: the graph is named.
    r = fxmem_test::cli({"peak", std::string(FXMEM_TEST_DATA) + "/good/pair.json", "--measure", "allocated"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "has no program level")) << r.err;
}
