// get_fwd_bwd_interactions, backward_releasable and get_peak_memory on PairFixture.
#include "fxmem/error.h"
#include "fxmem/estimator.h"
#include "test_estimator_fixtures.h"

#include <gtest/gtest.h>

using namespace fxmem;
using namespace fxmem::testing;

TEST(Pair, InteractionsByHand) {
    PairFixture t;
    const FwdBwdInteractions r = get_fwd_bwd_interactions(t.file, *t.fwd, *t.bwd);
    const Graph& b = *t.bwd;
    // primals_1 holds a primal storage (w1): do not delete.
    EXPECT_EQ(r.do_not_delete[b.find("primals_1").index()], 1);
    // relu_saved holds a forward output (saved) that is no primal: releasable.
    EXPECT_EQ(r.do_not_delete[b.find("relu_saved").index()], 0);
    // tangents_1 holds no forward output: an external input, do not delete.
    EXPECT_EQ(r.do_not_delete[b.find("tangents_1").index()], 1);
    // cpu_in holds a forward output (cpuS): releasable, though on the CPU.
    EXPECT_EQ(r.do_not_delete[b.find("cpu_in").index()], 0);
    // sym holds no storage at all, hence no forward output: do not delete.
    EXPECT_EQ(r.do_not_delete[b.find("sym").index()], 1);
    EXPECT_EQ(r.do_not_delete[b.find("g").index()], 0);
    // Forward outputs, in order: out, saved, w1, cpuS, keep, cpu2. Held by backward placeholders:
    // saved, w1, cpuS. Left: out 12, keep 30, cpu2 (cpu: excluded). Baseline 42.
    EXPECT_EQ(r.backward_baseline, 42);
    EXPECT_EQ(r.baseline_storages, (std::vector<StorageId>{t.out, t.keep}));
    const NodeMask rel = backward_releasable(b, r);
    EXPECT_EQ(rel, (NodeMask{0, 1, 0, 1, 0, 1, 1, 1}));
}

TEST(Pair, PeakByHand) {
    PairFixture t;
    // Forward: start w1 400 + inp 40 = 440. h: +100 = 540 (w1, inp: primals, kept) -> 540.
    // s: +20 = 560, 560. c: cpu, 560, 560. o: +12 = 572, 572. c2: cpu, 572, 572.
    // k: +30 = 602; h's last user: -100 -> 502. Forward peak 602.
    const AliasInfo fa = build_alias_info(t.file, *t.fwd);
    EXPECT_EQ(build_memory_profile(t.file, *t.fwd, fa, default_releasable(*t.fwd), default_counted(t.file)),
              (std::vector<std::int64_t>{440, 540, 540, 560, 560, 560, 560, 572, 572, 572, 572, 602, 502}));
    // Backward: start w1 400 + saved 20 + tan 12 (cpuS on cpu) = 432.
    // g: +grad 20 = 452; last use of tan (do not delete: kept) and saved (released): 432.
    // gw: +gradw 400 = 832; last use of grad: 812 (w1: primal, kept).
    const FwdBwdInteractions r = get_fwd_bwd_interactions(t.file, *t.fwd, *t.bwd);
    const AliasInfo ba = build_alias_info(t.file, *t.bwd);
    EXPECT_EQ(build_memory_profile(t.file, *t.bwd, ba, backward_releasable(*t.bwd, r), default_counted(t.file)),
              (std::vector<std::int64_t>{432, 452, 432, 832, 812}));
    // Without the do-not-delete set, tangents_1's storage would be released at g: 452 - 32 = 420.
    EXPECT_EQ(build_memory_profile(t.file, *t.bwd, ba, default_releasable(*t.bwd), default_counted(t.file))[2], 420);
    const PeakMemory p = get_peak_memory(t.file, *t.fwd, *t.bwd);
    EXPECT_EQ(p.forward_peak, 602);
    EXPECT_EQ(p.backward_baseline, 42);
    EXPECT_EQ(p.backward_peak, 42 + 832);
    EXPECT_EQ(p.peak, 874); // max(602, 874)
}

TEST(Pair, AnalyzePairKeepsWhatThePeakNeeded) {
    PairFixture t;
    // The same hand-computed numbers as PeakByHand, from one analyze_pair call.
    const PairAnalysis a = analyze_pair(t.file, *t.fwd, *t.bwd, default_counted(t.file));
    EXPECT_EQ(a.forward_profile,
              (std::vector<std::int64_t>{440, 540, 540, 560, 560, 560, 560, 572, 572, 572, 572, 602, 502}));
    EXPECT_EQ(a.backward_profile, (std::vector<std::int64_t>{432, 452, 432, 832, 812}));
    EXPECT_EQ(a.interactions.backward_baseline, 42);
    EXPECT_EQ(a.peak.forward_peak, 602);
    EXPECT_EQ(a.peak.backward_peak, 874);
    EXPECT_EQ(a.peak.peak, 874);
    EXPECT_EQ(a.backward_releasable, backward_releasable(*t.bwd, get_fwd_bwd_interactions(t.file, *t.fwd, *t.bwd)));
    EXPECT_EQ(a.forward_alias.allocator, build_alias_info(t.file, *t.fwd).allocator);
    EXPECT_EQ(a.backward_alias.last_user, build_alias_info(t.file, *t.bwd).last_user);
}

TEST(Pair, ForwardPeakWinsWhenLarger) {
    PairFixture t;
    // Make the backward small: the same pair but the backward output on a 1-byte gradient.
    GraphFile& f = t.file;
    const StorageId tiny = f.add_storage(100, "cuda:0", 1);
    GraphBuilder b(f, "bwd_small", GraphKind::Backward);
    b.add("tangents_1", OpKind::Placeholder, "tangents_1", {}, {t.tan});
    b.add("g", OpKind::CallFunction, "f", {"tangents_1"}, {tiny});
    b.add("output", OpKind::Output, "output", {"g"}, {});
    b.finish();
    // Baseline: forward outputs out 12, saved 20, w1 400, keep 30 (cpu ones excluded) = 462.
    // Backward profile: start tan 12; g: +1 = 13, tan is do-not-delete: 13. 462 + 13 = 475 < 602.
    const PeakMemory p = get_peak_memory(f, f.graphs[0], f.graphs[2]);
    EXPECT_EQ(p.backward_baseline, 462);
    EXPECT_EQ(p.backward_peak, 475);
    EXPECT_EQ(p.peak, 602);
}

TEST(Pair, ForwardMustEndWithOutput) {
    GraphFile f;
    f.source = "bad.json";
    const StorageId s = f.add_storage(0, "cuda:0", 4);
    GraphBuilder fb(f, "f", GraphKind::Forward);
    fb.add("primals_1", OpKind::Placeholder, "primals_1", {}, {s});
    fb.add("y", OpKind::CallFunction, "f", {"primals_1"}, {});
    fb.finish();
    GraphBuilder bb(f, "b", GraphKind::Backward);
    bb.add("output", OpKind::Output, "output", {}, {});
    bb.finish();
    try {
        get_fwd_bwd_interactions(f, f.graphs[0], f.graphs[1]);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("graph 'f': the forward graph's last node 'y' is not an output node"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_THROW(get_peak_memory(f, f.graphs[0], f.graphs[1]), Error);
}
