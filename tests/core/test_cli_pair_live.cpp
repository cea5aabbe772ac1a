// fxmem-cli live --pair: each storage with its allocator and owner module, as the graph view's
// live table and the app's live table (a baseline storage is the forward's: its allocator and
// module there). modules.json by hand (test_cli_breakdown.cpp describes it): at the pair peak,
// bwd step 5, W1 (primals_2, layers.1.fc by its label), G1 (g1) and D (d) in layers.1.fc, G0 (g0)
// in layers.0.fc, T (tangents_1, root) and the forward's loss L kept as the baseline (root).
#include "cli_run.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

using fxmem_test::CliRun;
using fxmem_test::contains;

const std::string kModules = std::string(FXMEM_TEST_DATA) + "/good/modules.json";

} // namespace

TEST(CliPairLive, StoragesHaveTheirAllocatorAndModule) {
    CliRun r = fxmem_test::cli({"live", kModules, "--pair", "fwd,bwd", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json()["graph_step"], 5);
    EXPECT_EQ(r.json()["storages"], nlohmann::json::parse(R"([
        {"id": 1, "nbytes": 2000, "baseline": false, "allocator": "primals_2", "module": "layers.1.fc"},
        {"id": 7, "nbytes": 2000, "baseline": false, "allocator": "g1", "module": "layers.1.fc"},
        {"id": 9, "nbytes": 1000, "baseline": false, "allocator": "g0", "module": "layers.0.fc"},
        {"id": 8, "nbytes": 50, "baseline": false, "allocator": "d", "module": "layers.1.fc"},
        {"id": 6, "nbytes": 4, "baseline": false, "allocator": "tangents_1", "module": ""},
        {"id": 5, "nbytes": 4, "baseline": true, "allocator": "loss", "module": ""}])"));
    // The graph on its own names the same allocators.
    const CliRun graph = fxmem_test::cli({"live", kModules, "--graph", "bwd", "--step", "5", "--json"});
    ASSERT_EQ(graph.status, 0) << graph.err;
    // Parsed once and kept: a range-for over r.json()["storages"] would read a destroyed temporary.
    const nlohmann::json graph_doc = graph.json(), pair_doc = r.json();
    for (const auto& s : graph_doc["storages"])
        for (const auto& p : pair_doc["storages"])
            if (p["id"] == s["id"]) {
                EXPECT_EQ(p["allocator"], s["allocator"]) << s;
            }
    r = fxmem_test::cli({"live", kModules, "--pair", "fwd,bwd"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "size  id  role       allocator       module       label\n")) << r.out;
    EXPECT_TRUE(contains(r.out, "1.95 KiB   1  parameter  primals_2       layers.1.fc  layers.1.fc.weight\n")) << r.out;
    EXPECT_TRUE(contains(r.out, "4 B   5  output     loss (forward)  (root)\n")) << r.out;
    // In the forward half: its own storages, no baseline.
    r = fxmem_test::cli({"live", kModules, "--pair", "fwd,bwd", "--step", "2", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json()["storages"], nlohmann::json::parse(R"([
        {"id": 1, "nbytes": 2000, "baseline": false, "allocator": "primals_2", "module": "layers.1.fc"},
        {"id": 0, "nbytes": 1000, "baseline": false, "allocator": "primals_1", "module": "layers.0.fc"},
        {"id": 3, "nbytes": 300, "baseline": false, "allocator": "mm0", "module": "layers.0.fc"}])"));
}
