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
