// fxmem-cli budgets on hostile paths and CPU captures: the path in its header escaped as every
// command escapes names, the note that CPU storages do not count, and --devices.
#include "cli_run.h"
#include "test_paths.h"

#include <gtest/gtest.h>

namespace {

using fxmem_test::CliRun;
using fxmem_test::contains;

bool has_control(const std::string& s) {
    for (const char c : s)
        if ((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f) return true;
    return false;
}

} // namespace

TEST(CliBudgets, ControlCharactersOfThePathAreEscaped) {
    const std::string path = fxmem_test::scratch_dir() + "/sweep\x1b]0;pwned\x07.json";
    fxmem_test::write(path, fxmem_test::slurp(kGood + "/joint_sweep.json"));
    const CliRun r = fxmem_test::cli({"budgets", path});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_FALSE(has_control(r.out)) << r.out;
    EXPECT_TRUE(contains(r.out, "/sweep\\x1b]0;pwned\\x07.json: 2 budgets\n")) << r.out;
}

// Every storage on the CPU: a note says why the rows are 0 B (as `peak` does), and the note
// escapes the path too (it is every command's).
TEST(CliBudgets, CpuCaptureSaysWhy) {
    const std::string path = fxmem_test::scratch_dir() + "/cpu\x1b[2J.json";
    fxmem_test::write(path, fxmem_test::replace_all(fxmem_test::slurp(kGood + "/joint_sweep.json"), "cuda:0", "cpu"));
    for (const std::string command : {"budgets", "peak"}) {
        const CliRun r = fxmem_test::cli({command, path});
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_FALSE(has_control(r.out)) << r.out;
        EXPECT_TRUE(r.out.starts_with("note: every storage of ")) << r.out;
        EXPECT_TRUE(contains(r.out, "/cpu\\x1b[2J.json is on the CPU")) << r.out;
    }
    const CliRun r = fxmem_test::cli({"budgets", path, "--devices", "all"});
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(contains(r.err, "budgets: --devices all is not supported")) << r.err;
    EXPECT_EQ(fxmem_test::cli({"budgets", path, "--devices", "nonCPU"}).out, fxmem_test::cli({"budgets", path}).out);
}
