// A ModuleTree is shared read-only between threads (the app's scene, the CLI's views): two threads
// looking names up in one tree at once give the single-threaded answers, and the work counter adds
// up both threads' lookups (it was a plain integer bumped by const lookups: a data race that the
// tsan preset's run of this test reports when it comes back).
#include "fxmem/attribution.h"
#include "fxmem/io.h"
#include "work_counters.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace {

const std::string kLlama = std::string(FXMEM_TEST_DATA) + "/../../resources/examples/llama.fxmem.json";

} // namespace

TEST(ModuleTreeThreads, TwoThreadsReadOneTree) {
    const fxmem::GraphFile file = fxmem::load_file(kLlama);
    const fxmem::ModuleTree tree(file.graphs.front());
    ASSERT_GT(tree.size(), 20u);
    // Every module's name, and a name below each (an op's module path deeper than any module).
    std::vector<std::string> names;
    for (const auto& m : tree.modules()) {
        names.emplace_back(m.name);
        names.push_back(std::string(m.name) + ".not_a_module.deeper");
    }
    std::vector<std::uint32_t> expected_find, expected_nearest;
    const std::uint64_t before = fxmem::detail::WorkCounters::lookup_bytes(tree);
    for (const std::string& n : names) {
        expected_find.push_back(tree.find(n));
        expected_nearest.push_back(tree.nearest(n));
    }
    const std::uint64_t one_pass = fxmem::detail::WorkCounters::lookup_bytes(tree) - before;
    ASSERT_GT(one_pass, 0u);

    constexpr int kRounds = 50;
    std::vector<int> mismatches(2, 0);
    const auto reader = [&](int t) {
        for (int r = 0; r < kRounds; ++r)
            for (std::size_t i = 0; i < names.size(); ++i)
                mismatches[static_cast<std::size_t>(t)] +=
                    (tree.find(names[i]) != expected_find[i]) + (tree.nearest(names[i]) != expected_nearest[i]);
    };
    const std::uint64_t start = fxmem::detail::WorkCounters::lookup_bytes(tree);
    std::thread a(reader, 0), b(reader, 1);
    a.join();
    b.join();
    EXPECT_EQ(mismatches[0], 0);
    EXPECT_EQ(mismatches[1], 0);
    // No increment lost: exactly two threads x kRounds passes of the single-threaded work.
    EXPECT_EQ(fxmem::detail::WorkCounters::lookup_bytes(tree) - start, 2 * kRounds * one_pass);
}
