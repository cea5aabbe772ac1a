// peak_place and diff_peaks on tests/data/good/diff_{,step_}{old,new}.json, numbers by hand.
//
// The pair (old): fwd: primals_1 W (lin.weight, 100 B), primals_2 X (40 B) -> mm A (lin, 200 B,
// saved) -> sum L (8 B, the loss); bwd: primals_1 W, mm A, tangents_1 T (8 B) -> mul M (lin,
// 200 B) -> mm_1 G (lin, 100 B, grad of lin.weight).
//   forward profile: 140 | 340 340 | 348 348 (primals never freed; A reaches the output)
//   backward: baseline L = 8 (a forward output no backward placeholder holds);
//             W and T never freed (a primal; not a forward output), A freed after mm_1:
//             308 | 508 508 | 608 208, + 8 = 616 at joined step 5 + 3 = 8 (node mm_1).
//   live there: W 100, A 200, T 8, M 200, G 100, L 8 = 616.
// new: A and M are 400 B ([20, 5] instead of [10, 5]): 508 | 908 908 | 1008, + 8 = 1016.
// The step files add optimizer state "lin.weight exp_avg" (100 B) and the step [fwd, bwd]: the
// backward carries the state and the loss (108 B): old 608 + 108 = 716, new 1008 + 108 = 1116.
#include "fxmem/error.h"
#include "fxmem/io.h"
#include "fxmem/peak_diff.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

using namespace fxmem;

namespace {

std::shared_ptr<const GraphFile> fixture(const std::string& name) {
    return std::make_shared<const GraphFile>(load_file(std::string(FXMEM_TEST_DATA) + "/good/" + name));
}

std::int64_t live_sum(const PeakPlace& p) {
    std::int64_t s = 0;
    for (const PeakStorage& l : p.live) s += l.bytes;
    return s;
}

std::int64_t delta_sum(const std::vector<DiffRow>& rows) {
    std::int64_t s = 0;
    for (const DiffRow& r : rows) s += r.delta();
    return s;
}

const DiffRow* row(const std::vector<DiffRow>& rows, const std::string& key) {
    for (const DiffRow& r : rows)
        if (r.key == key) return &r;
    return nullptr;
}

} // namespace

TEST(PeakDiff, PairPlaceIsTheJoinedPeakWithItsStoragesDescribed) {
    const PeakPlace p = peak_place(fixture("diff_old.json"), PeakScope::Pair);
    EXPECT_EQ(p.peak, 616);
    EXPECT_EQ(p.step, 8u);
    EXPECT_EQ(p.graph, "bwd");
    EXPECT_EQ(p.kind, GraphKind::Backward);
    EXPECT_EQ(p.graph_step, 3u);
    EXPECT_EQ(p.node, "mm_1");
    ASSERT_EQ(p.live.size(), 6u);
    EXPECT_EQ(live_sum(p), 616);
    // Largest first, then by storage: A (200), M (200), W (100), G (100), L (8), T (8).
    const PeakStorage& a = p.live[0];
    EXPECT_EQ(a.bytes, 200);
    EXPECT_EQ(a.role, StorageRole::Activation);
    EXPECT_EQ(a.module, "lin");
    EXPECT_EQ(a.op, "aten.mm.default"); // its producer in the forward, though the backward holds it
    EXPECT_EQ(a.shape, "float32[10, 5]");
    const PeakStorage& w = p.live[2];
    EXPECT_EQ(w.role, StorageRole::Parameter);
    EXPECT_EQ(w.module, "lin"); // from its label "lin.weight"
    EXPECT_EQ(w.op, "placeholder");
    EXPECT_EQ(w.shape, "float32[5, 5]");
    const PeakStorage& loss = p.live[4];
    EXPECT_EQ(loss.role, StorageRole::Output);
    EXPECT_EQ(loss.module, "");
    EXPECT_EQ(loss.op, "aten.sum.default");
}

TEST(PeakDiff, WiderActivationsAttributedByRoleAndModule) {
    const PeakDiff d = diff_peaks(peak_place(fixture("diff_old.json"), PeakScope::Pair),
                                  peak_place(fixture("diff_new.json"), PeakScope::Pair));
    EXPECT_EQ(d.new_side.peak, 1016);
    EXPECT_EQ(d.delta, 400);
    EXPECT_FALSE(d.moved);
    EXPECT_EQ(delta_sum(d.by_role), 400);
    EXPECT_EQ(delta_sum(d.by_module), 400);
    ASSERT_NE(row(d.by_role, "activation"), nullptr);
    EXPECT_EQ(row(d.by_role, "activation")->delta(), 200);
    EXPECT_EQ(row(d.by_role, "temporary")->delta(), 200);
    EXPECT_EQ(row(d.by_role, "parameter")->delta(), 0);
    // lin: W 100 + A + M + G 100 = 600 -> 1000; the root: L 8 + T 8 both sides.
    ASSERT_EQ(d.by_module.size(), 2u);
    EXPECT_EQ(d.by_module[0].key, "lin");
    EXPECT_EQ(d.by_module[0].old_bytes, 600);
    EXPECT_EQ(d.by_module[0].new_bytes, 1000);
    EXPECT_EQ(d.by_module[1].key, "");
    EXPECT_EQ(d.by_module[1].delta(), 0);
    // A and M changed shape: unmatched on both sides; W, G, L, T match.
    ASSERT_EQ(d.only_old.size(), 2u);
    ASSERT_EQ(d.only_new.size(), 2u);
    EXPECT_EQ(d.old_side.live[d.only_old[0]].shape, "float32[10, 5]");
    EXPECT_EQ(d.new_side.live[d.only_new[0]].shape, "float32[20, 5]");
}

TEST(PeakDiff, SameFileIsNoChange) {
    const PeakDiff d = diff_peaks(peak_place(fixture("diff_new.json"), PeakScope::Pair),
                                  peak_place(fixture("diff_new.json"), PeakScope::Pair));
    EXPECT_EQ(d.delta, 0);
    EXPECT_FALSE(d.moved);
    EXPECT_TRUE(d.only_old.empty());
    EXPECT_TRUE(d.only_new.empty());
    for (const DiffRow& r : d.by_module) EXPECT_EQ(r.delta(), 0);
}

TEST(PeakDiff, AnotherModelMovesThePeak) {
    // pair.json's peak is in 'bwd' after 'mul' (test_cli.cpp: 1760 bytes); ours after 'mm_1'.
    const PeakDiff d = diff_peaks(peak_place(fixture("pair.json"), PeakScope::Pair),
                                  peak_place(fixture("diff_old.json"), PeakScope::Pair));
    EXPECT_EQ(d.old_side.peak, 1760);
    EXPECT_EQ(d.delta, 616 - 1760);
    EXPECT_TRUE(d.moved);
    EXPECT_EQ(delta_sum(d.by_role), d.delta);
    EXPECT_EQ(delta_sum(d.by_module), d.delta);
    EXPECT_EQ(live_sum(d.old_side), 1760);
}

TEST(PeakDiff, WholeStepCarriesStateAndLoss) {
    const PeakPlace p = peak_place(fixture("diff_step_old.json"), PeakScope::WholeStep);
    EXPECT_EQ(p.peak, 716);
    EXPECT_EQ(p.step, 8u);
    EXPECT_EQ(p.graph, "bwd");
    EXPECT_EQ(p.node, "mm_1");
    ASSERT_EQ(p.live.size(), 7u);
    EXPECT_EQ(live_sum(p), 716);
    const auto state = std::find_if(p.live.begin(), p.live.end(),
                                    [](const PeakStorage& s) { return s.role == StorageRole::OptimizerState; });
    ASSERT_NE(state, p.live.end());
    EXPECT_EQ(state->module, "lin"); // "lin.weight exp_avg" -> lin.weight's module
    EXPECT_EQ(state->op, "<optimizer_state>");
    EXPECT_EQ(state->shape, "100 bytes");
    const PeakDiff d = diff_peaks(p, peak_place(fixture("diff_step_new.json"), PeakScope::WholeStep));
    EXPECT_EQ(d.new_side.peak, 1116);
    EXPECT_EQ(d.delta, 400);
    EXPECT_EQ(delta_sum(d.by_module), 400);
    EXPECT_EQ(row(d.by_module, "lin")->old_bytes, 700);
}

TEST(PeakDiff, ModuleDepthSumsIntoAncestors) {
    PeakPlace a, b;
    a.live = {{StorageId(0), 10, StorageRole::Activation, "layers.0.mlp.w1", "x", "s", ""},
              {StorageId(1), 5, StorageRole::Activation, "layers.0.attn", "x", "s", ""},
              {StorageId(2), 7, StorageRole::Activation, "", "x", "s", ""}};
    a.peak = 22;
    b.live = {{StorageId(0), 30, StorageRole::Activation, "layers.0.mlp.w1", "x", "s2", ""},
              {StorageId(1), 5, StorageRole::Activation, "layers.1", "x", "s", ""}};
    b.peak = 35;
    const PeakDiff d = diff_peaks(a, b, 1);
    EXPECT_EQ(d.delta, 13);
    ASSERT_EQ(d.by_module.size(), 2u);
    EXPECT_EQ(d.by_module[0].key, "layers"); // 15 -> 35
    EXPECT_EQ(d.by_module[0].delta(), 20);
    EXPECT_EQ(d.by_module[1].key, ""); // 7 -> 0
    EXPECT_EQ(d.by_module[1].delta(), -7);
    const PeakDiff d2 = diff_peaks(a, b, 2);
    EXPECT_EQ(row(d2.by_module, "layers.0")->delta(), 15);
    EXPECT_EQ(row(d2.by_module, "layers.1")->delta(), 5);
    // Matching by (module, op, shape) as multisets: nothing in a matches b.
    EXPECT_EQ(d.only_old.size(), 3u);
    EXPECT_EQ(d.only_new.size(), 2u);
}

TEST(PeakDiff, MissingPairsOrStepIsAnError) {
    EXPECT_THROW(peak_place(fixture("single.json"), PeakScope::Pair), Error);
    EXPECT_THROW(peak_place(fixture("diff_old.json"), PeakScope::Pair, 1), Error);
    EXPECT_THROW(peak_place(fixture("diff_old.json"), PeakScope::WholeStep), Error);
}
