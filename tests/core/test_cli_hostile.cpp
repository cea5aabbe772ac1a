// fxmem-cli on hostile files (issue 11, items 10, 14, 15): exit 1 with a message naming the file,
// output proportional to the input, no hang.
#include "cli_run.h"

#include <gtest/gtest.h>

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
