// Collective pairing (fxmem/collectives.h) on hand-built graphs: each wait_tensor is paired with
// the collective whose result it waits for, directly or through getitem views (two at most).
#include "fxmem/collectives.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string_view>

namespace {

using fxmem::OpKind;

struct Built {
    fxmem::GraphFile file;
    const fxmem::Graph& graph() const { return file.graphs[0]; }
};

// x -> ag = all_gather(x) -> w = wait(ag); m = mm(x) runs while ag is in flight; y = add(w, m);
// rs = reduce_scatter(y) -> g = getitem(rs) -> w2 = wait(g); a wait on a plain tensor (w3 =
// wait(m)) pairs with nothing; a wait three views from its collective (ar -> v1 -> v2 -> v3 ->
// w4) is past the two-view reach.
Built graph() {
    Built b;
    b.file.source = "collectives.json";
    fxmem::GraphBuilder g(b.file, "fsdp", fxmem::GraphKind::Inference);
    std::int64_t id = 0;
    const auto add = [&](const char* name, OpKind op, const char* target,
                         std::initializer_list<std::string_view> inputs) {
        const fxmem::StorageId s = b.file.add_storage(id++, "cuda:0", 16);
        g.add(name, op, target, inputs, {s});
    };
    add("x", OpKind::Placeholder, "x", {});
    add("ag", OpKind::CallFunction, "_c10d_functional.all_gather_into_tensor.default", {"x"});
    add("m", OpKind::CallFunction, "aten.mm.default", {"x"});
    add("w", OpKind::CallFunction, "_c10d_functional.wait_tensor.default", {"ag"});
    add("y", OpKind::CallFunction, "aten.add.Tensor", {"w", "m"});
    add("rs", OpKind::CallFunction, "_c10d_functional.reduce_scatter_tensor.default", {"y"});
    add("g", OpKind::CallFunction, "operator.getitem", {"rs"});
    add("w2", OpKind::CallFunction, "_c10d_functional.wait_tensor.default", {"g"});
    add("w3", OpKind::CallFunction, "_c10d_functional.wait_tensor.default", {"m"});
    add("ar", OpKind::CallFunction, "_c10d_functional.all_reduce.default", {"y"});
    add("v1", OpKind::CallFunction, "operator.getitem", {"ar"});
    add("v2", OpKind::CallFunction, "aten.view.default", {"v1"});
    add("v3", OpKind::CallFunction, "aten.view.default", {"v2"});
    add("w4", OpKind::CallFunction, "_c10d_functional.wait_tensor.default", {"v3"});
    g.add("output", OpKind::Output, "output", {"w2", "w3", "w4"}, {});
    g.finish();
    return b;
}

} // namespace

TEST(Collectives, EachWaitIsPairedWithTheCollectiveItWaitsFor) {
    const Built b = graph();
    const fxmem::Graph& g = b.graph();
    const auto pairs = fxmem::find_collectives(g, fxmem::target_categories(g));
    ASSERT_EQ(pairs.size(), 2u);
    EXPECT_EQ(pairs[0].start, g.find("ag"));
    EXPECT_EQ(pairs[0].wait, g.find("w"));
    EXPECT_EQ(pairs[1].start, g.find("rs")); // through getitem
    EXPECT_EQ(pairs[1].wait, g.find("w2"));
}

TEST(Collectives, AGraphWithoutCollectivesHasNoPairs) {
    fxmem::GraphFile f;
    fxmem::GraphBuilder g(f, "plain", fxmem::GraphKind::Forward);
    const fxmem::StorageId s = f.add_storage(0, "cuda:0", 8), t = f.add_storage(1, "cuda:0", 8);
    g.add("x", OpKind::Placeholder, "x", {}, {s});
    g.add("r", OpKind::CallFunction, "aten.relu.default", {"x"}, {t});
    g.add("output", OpKind::Output, "output", {"r"}, {});
    g.finish();
    EXPECT_TRUE(fxmem::find_collectives(f.graphs[0], fxmem::target_categories(f.graphs[0])).empty());
}
