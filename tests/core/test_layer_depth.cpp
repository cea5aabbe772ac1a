// ModuleTree::layer_depth and the one rule for several graphs shown together.
#include "fxmem/attribution.h"
#include "test_attribution_fixture.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace fxmem;
using namespace fxmem::testing;

namespace {

// A chain of nodes, node i in module modules[i] ("" : the root).
const Graph& chain(GraphFile& f, const char* name, const std::vector<std::string>& modules) {
    GraphBuilder b(f, name, GraphKind::Forward);
    std::string previous;
    for (std::size_t i = 0; i < modules.size(); ++i) {
        const std::string n = "n" + std::to_string(i);
        if (previous.empty())
            add_in_module(b, f, n, OpKind::Placeholder, "x", {}, {}, modules[i].c_str());
        else
            add_in_module(b, f, n, OpKind::CallFunction, "aten.relu.default", {previous}, {}, modules[i].c_str());
        previous = n;
    }
    return b.finish();
}

} // namespace

TEST(LayerDepth, ShallowestRepeatedDepthElseDeepest) {
    GraphFile f;
    f.source = "layers.json";
    // Depth 1: embed, layers, head (3). Depth 2: layers.0 .. layers.5 (6). Depth 3: layers.i.mlp (6).
    std::vector<std::string> m = {"embed"};
    for (int i = 0; i < 6; ++i) m.push_back("layers." + std::to_string(i) + ".mlp");
    m.push_back("head");
    const ModuleTree deep(chain(f, "deep", m));
    EXPECT_EQ(deep.max_depth(), 3u);
    EXPECT_EQ(deep.layer_depth(), 2u);  // the first depth with 6 modules
    EXPECT_EQ(deep.layer_depth(3), 1u); // embed, layers, head
    EXPECT_EQ(deep.layer_depth(7), 3u); // none has 7: the deepest
    // Two blocks only: no depth reaches 6, so the deepest (blocks.i.attn at 3).
    const ModuleTree two(chain(f, "two", {"", "blocks.0.attn", "blocks.1.attn"}));
    EXPECT_EQ(two.layer_depth(), 3u);
    const ModuleTree none(chain(f, "none", {"", ""}));
    EXPECT_EQ(none.layer_depth(), 0u);
    // Together: the shallowest repeated depth of either wins over the other's fallback; without
    // any repeated depth, the deepest of them all.
    const ModuleTree* pair[] = {&two, &deep};
    EXPECT_EQ(layer_depth(pair), 2u);
    const ModuleTree* flat[] = {&none, &two};
    EXPECT_EQ(layer_depth(flat), 3u);
}
