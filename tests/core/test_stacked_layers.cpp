// stacked_profile's folding of repeated layers: past max_bands, folded modules named
// <parent>.<N> with consecutive N share one band "<parent>.<a>–<b>"; the rest is "other".
#include "fxmem/analysis.h"
#include "fxmem/attribution.h"
#include "test_attribution_fixture.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace fxmem;
using namespace fxmem::testing;

namespace {

// Node b<i> in module blocks.<i> allocates bytes[i]; h in "head" 4 bytes; all are outputs, so
// every storage stays live to the end and each module's band peaks at its own bytes.
std::shared_ptr<const GraphAnalysis> layers(const std::vector<std::int64_t>& bytes, std::shared_ptr<GraphFile>& file) {
    file = std::make_shared<GraphFile>();
    file->source = "layers.json";
    GraphBuilder b(*file, "g", GraphKind::Forward);
    std::vector<std::string> outs;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        const StorageId s = file->add_storage(static_cast<std::int64_t>(i), "cuda:0", bytes[i]);
        const std::string name = "b" + std::to_string(i), module = "blocks." + std::to_string(i);
        add_in_module(b, *file, name, OpKind::CallFunction, "aten.empty.memory_format", {}, {s}, module.c_str(),
                      "Block");
        outs.push_back(name);
    }
    const StorageId hs = file->add_storage(100, "cuda:0", 4);
    add_in_module(b, *file, "h", OpKind::CallFunction, "aten.empty.memory_format", {}, {hs}, "head", "Linear");
    outs.push_back("h");
    b.begin_node("output", OpKind::Output, "output");
    for (const std::string& o : outs) b.add_input(o);
    b.end_node();
    b.finish();
    return GraphAnalysis::compute(file, GraphId(0));
}

std::vector<std::string> keys(const StackedProfile& p) {
    std::vector<std::string> out;
    for (const auto& b : p.bands) out.push_back(b.key);
    return out;
}

} // namespace

TEST(StackedLayers, ConsecutiveFoldedLayersShareARangeBand) {
    std::shared_ptr<GraphFile> file;
    const auto a = layers({8, 12, 16, 20, 40, 60}, file);
    const Attribution attr(*file, GraphId(0), resolve_roles(*file));
    // Peaks: blocks.5 60, blocks.4 40, blocks.3 20, blocks.2 16, blocks.1 12, blocks.0 8, head 4.
    const StackedProfile p = stacked_profile(a->live(), attr, GroupBy::Module, 1, 3);
    EXPECT_EQ(keys(p), (std::vector<std::string>{"blocks", "head"})); // depth 1: no folding needed
    const StackedProfile q = stacked_profile(a->live(), attr, GroupBy::Module, 2, 3);
    // Two of their own, then blocks.0..3 as one range, then the head (not a layer) as "other".
    EXPECT_EQ(keys(q), (std::vector<std::string>{"blocks.5", "blocks.4",
                                                 "blocks.0\xe2\x80\x93"
                                                 "3",
                                                 "other"}));
    EXPECT_EQ(q.bands[2].id, kLayerRangeBand);
    EXPECT_EQ(q.bands[2].groups, 4u);
    EXPECT_EQ(q.bands[3].id, kOtherBand);
    EXPECT_EQ(q.bands[3].groups, 1u);
    const std::size_t last = q.steps - 1;
    EXPECT_EQ(q.at(last, 0), 60);
    EXPECT_EQ(q.at(last, 1), 40);
    EXPECT_EQ(q.at(last, 2), 8 + 12 + 16 + 20);
    EXPECT_EQ(q.at(last, 3), 4);
    EXPECT_EQ(q.bands[2].peak, 56);
    EXPECT_EQ(q.band_of[attr.tree().find("blocks.1")], 2u);
    EXPECT_EQ(q.band_of[attr.tree().find("head")], 3u);
    // The bands add up to the profile at every step.
    const auto profile = a->live().profile();
    for (std::size_t i = 0; i < profile.size(); ++i) {
        std::int64_t sum = 0;
        for (std::size_t b = 0; b < q.bands.size(); ++b) sum += q.at(i, b);
        EXPECT_EQ(sum, profile[i]) << "step " << i;
    }
}

TEST(StackedLayers, AKeptLayerSplitsTheRange) {
    std::shared_ptr<GraphFile> file;
    const auto a = layers({8, 12, 70, 20, 40, 60}, file);
    const Attribution attr(*file, GraphId(0), resolve_roles(*file));
    // blocks.2 (70) and blocks.5 (60) keep their bands; 0–1 and 3–4 fold into two ranges.
    const StackedProfile q = stacked_profile(a->live(), attr, GroupBy::Module, 2, 3);
    EXPECT_EQ(keys(q), (std::vector<std::string>{"blocks.2", "blocks.5",
                                                 "blocks.0\xe2\x80\x93"
                                                 "1",
                                                 "blocks.3\xe2\x80\x93"
                                                 "4",
                                                 "other"}));
    const std::size_t last = q.steps - 1;
    EXPECT_EQ(q.at(last, 2), 20);
    EXPECT_EQ(q.at(last, 3), 60);
    // Enough room: every module its own band, nothing folded.
    EXPECT_EQ(stacked_profile(a->live(), attr, GroupBy::Module, 2, 7).bands.size(), 7u);
}
