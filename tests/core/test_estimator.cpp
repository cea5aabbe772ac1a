// build_alias_info, build_memory_profile and the default policies on hand-built graphs.
#include "fxmem/error.h"
#include "fxmem/estimator.h"
#include "test_estimator_fixtures.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace fxmem;
using namespace fxmem::testing;

namespace {

template <class T>
std::vector<T> vec(std::span<const T> s) {
    return {s.begin(), s.end()};
}

} // namespace

TEST(Estimator, AliasInfoOfG1) {
    G1 t;
    const AliasInfo a = build_alias_info(t.file, *t.graph);
    // Fresh: the view v and the output allocate nothing.
    EXPECT_EQ(vec(a.fresh_of(t.id("a"))), std::vector<StorageId>{t.A});
    EXPECT_TRUE(a.fresh_of(t.id("v")).empty());
    EXPECT_TRUE(a.fresh_of(t.id("output")).empty());
    EXPECT_EQ(a.allocator[t.A.index()], t.id("a"));
    EXPECT_EQ(a.allocator[t.W.index()], t.id("w"));
    // Uses in input order: a uses primals_1's then x's storages.
    EXPECT_EQ(vec(a.uses_of(t.id("a"))), (std::vector<StorageId>{t.P0, t.P1}));
    EXPECT_EQ(vec(a.uses_of(t.id("b"))), (std::vector<StorageId>{t.A, t.W}));
    EXPECT_EQ(vec(a.uses_of(t.id("output"))), (std::vector<StorageId>{t.D, t.B}));
    // Users in graph order, the output node included.
    EXPECT_EQ(vec(a.users_of(t.A)), (std::vector<NodeId>{t.id("v"), t.id("b"), t.id("e")}));
    EXPECT_EQ(vec(a.users_of(t.B)), (std::vector<NodeId>{t.id("c"), t.id("output")}));
    EXPECT_TRUE(a.users_of(t.E).empty());
    // Last users.
    EXPECT_EQ(a.last_user[t.A.index()], t.id("e"));
    EXPECT_EQ(a.last_user[t.P1.index()], t.id("d"));
    EXPECT_EQ(a.last_user[t.B.index()], t.id("output"));
    EXPECT_FALSE(a.last_user[t.E.index()].valid());
    EXPECT_EQ(vec(a.last_used_at(t.id("d"))), (std::vector<StorageId>{t.C, t.P1}));
    EXPECT_EQ(vec(a.last_used_at(t.id("output"))), (std::vector<StorageId>{t.D, t.B}));
    EXPECT_TRUE(a.last_used_at(t.id("v")).empty());
}

TEST(Estimator, UsesFollowInputOrderThenOutputOrderWithoutRepeats) {
    GraphFile f;
    f.source = "order.json";
    const StorageId s1 = f.add_storage(1, "cuda:0", 1), s2 = f.add_storage(2, "cuda:0", 2),
                    s3 = f.add_storage(3, "cuda:0", 4), s4 = f.add_storage(4, "cuda:0", 8);
    GraphBuilder b(f, "g", GraphKind::Other);
    b.add("p", OpKind::CallFunction, "f", {}, {s3, s1});
    b.add("q", OpKind::CallFunction, "f", {}, {s2, s1, s4});
    b.add("r", OpKind::CallFunction, "f", {"q", "p"}, {});
    b.add("s", OpKind::CallFunction, "f", {"p", "q"}, {});
    const Graph& g = b.finish();
    const AliasInfo a = build_alias_info(f, g);
    // q allocates only s2 and s4: s1 was allocated first by p.
    EXPECT_EQ(vec(a.fresh_of(NodeId(1))), (std::vector<StorageId>{s2, s4}));
    EXPECT_EQ(vec(a.uses_of(NodeId(2))), (std::vector<StorageId>{s2, s1, s4, s3}));
    EXPECT_EQ(vec(a.uses_of(NodeId(3))), (std::vector<StorageId>{s3, s1, s2, s4}));
    // s is the last user of everything; its list follows its use order.
    EXPECT_EQ(vec(a.last_used_at(NodeId(3))), (std::vector<StorageId>{s3, s1, s2, s4}));
    EXPECT_TRUE(a.last_used_at(NodeId(2)).empty());
}

TEST(Estimator, DefaultPolicies) {
    G1 t;
    const StorageMask counted = default_counted(t.file);
    EXPECT_EQ(counted[t.C.index()], 0);
    EXPECT_EQ(counted[t.A.index()], 1);
    const NodeMask rel = default_releasable(*t.graph);
    EXPECT_EQ(rel[t.id("primals_1").index()], 0);
    EXPECT_EQ(rel[t.id("x").index()], 1);
    const StorageMask only_cpu = counted_by_device(t.file, [](std::string_view d) { return d == "cpu"; });
    EXPECT_EQ(only_cpu[t.C.index()], 1);
    EXPECT_EQ(only_cpu[t.A.index()], 0);
    EXPECT_EQ(vec(std::span<const NodeId>(profile_nodes(*t.graph))),
              (std::vector<NodeId>{t.id("a"), t.id("v"), t.id("b"), t.id("c"), t.id("d"), t.id("e")}));
}

TEST(Estimator, ProfileOfG1ByHand) {
    G1 t;
    const AliasInfo a = build_alias_info(t.file, *t.graph);
    const auto p = build_memory_profile(t.file, *t.graph, a, default_releasable(*t.graph), default_counted(t.file));
    // start: P0 100 + P1 10 + W 1000 (the mid-graph get_attr counts at the start) = 1110
    // a: +A 200 = 1310; frees P0? its allocator primals_1 is not releasable: 1310
    // v: a view, +0 = 1310; nothing last used: 1310
    // b: +B 30 = 1340; frees W (last user b): 340
    // c: +C on cpu, not counted: 340; B reaches the output, never freed: 340
    // d: +D 7 = 347; frees C (cpu: 0) and P1 10: 337
    // e: +E 11 = 348; frees A 200: 148 (= P0 100 + B 30 + D 7 + E 11: primal, outputs, unused)
    const std::vector<std::int64_t> expected = {1110, 1310, 1310, 1310, 1310, 1340, 340, 340, 340, 347, 337, 348, 148};
    EXPECT_EQ(p, expected);
    EXPECT_EQ(p.size(), 1 + 2 * profile_nodes(*t.graph).size());
}

TEST(Estimator, ProfileCountsCpuWithACustomFilter) {
    G1 t;
    const AliasInfo a = build_alias_info(t.file, *t.graph);
    const auto all = counted_by_device(t.file, [](std::string_view) { return true; });
    const auto p = build_memory_profile(t.file, *t.graph, a, default_releasable(*t.graph), all);
    // As above until c: +C 5000 = 5340 (twice); d: +7 = 5347, frees C 5000 and P1 10: 337.
    const std::vector<std::int64_t> expected = {1110, 1310, 1310, 1310, 1310, 1340, 340,
                                                5340, 5340, 5347, 337,  348,  148};
    EXPECT_EQ(p, expected);
    const auto none = counted_by_device(t.file, [](std::string_view) { return false; });
    const auto z = build_memory_profile(t.file, *t.graph, a, default_releasable(*t.graph), none);
    EXPECT_EQ(z, std::vector<std::int64_t>(13, 0));
}

TEST(Estimator, ProfileReleasesEverythingWhenAllReleasable) {
    G1 t;
    const AliasInfo a = build_alias_info(t.file, *t.graph);
    const NodeMask all(t.graph->size(), 1);
    const auto p = build_memory_profile(t.file, *t.graph, a, all, default_counted(t.file));
    // Now P0 (last user a) is freed at a: 1310 - 100 = 1210, and everything later is 100 lower.
    EXPECT_EQ(p[2], 1210);
    EXPECT_EQ(p.back(), 48); // B 30 + D 7 + E 11: output-reaching and unused storages stay
}

TEST(Estimator, GetitemOfMultiOutputUsesAllElements) {
    G2 t;
    const AliasInfo a = build_alias_info(t.file, *t.graph);
    EXPECT_EQ(vec(a.uses_of(NodeId(2))), (std::vector<StorageId>{t.S1, t.S2}));
    const auto p = build_memory_profile(t.file, *t.graph, a, default_releasable(*t.graph), default_counted(t.file));
    // start: S3 8. m: +S1 40 +S2 60 = 108, frees S3 (x is releasable): 100.
    // g0: a view, 100; it is S2's last user: frees 60 -> 40. r: +S4 16 = 56; frees S1: 16.
    EXPECT_EQ(p, (std::vector<std::int64_t>{8, 108, 100, 100, 40, 56, 16}));
}

TEST(Estimator, PlaceholderAfterComputeIsAllocatedAtStart) {
    GraphFile f;
    f.source = "late.json";
    const StorageId s = f.add_storage(0, "cuda:0", 50), t = f.add_storage(1, "cuda:0", 5),
                    u = f.add_storage(2, "cuda:0", 1);
    GraphBuilder b(f, "late", GraphKind::Other);
    b.add("a", OpKind::CallFunction, "f", {}, {s});
    b.add("y", OpKind::Placeholder, "y", {}, {t});
    b.add("b", OpKind::CallFunction, "f", {"a", "y"}, {u});
    b.add("output", OpKind::Output, "output", {"b"}, {});
    const Graph& g = b.finish();
    const AliasInfo a = build_alias_info(f, g);
    const auto p = build_memory_profile(f, g, a, default_releasable(g), default_counted(f));
    // start: y's T 5. a: +50 = 55, 55. b: +1 = 56, frees S 50 and T 5: 1.
    EXPECT_EQ(p, (std::vector<std::int64_t>{5, 55, 55, 56, 1}));
}

TEST(Estimator, EmptyGraphAndMismatchedMasks) {
    GraphFile f;
    f.source = "empty.json";
    GraphBuilder b(f, "e", GraphKind::Other);
    const Graph& g = b.finish();
    const AliasInfo a = build_alias_info(f, g);
    EXPECT_EQ(build_memory_profile(f, g, a, default_releasable(g), default_counted(f)), std::vector<std::int64_t>{0});
    G1 t;
    const AliasInfo a1 = build_alias_info(t.file, *t.graph);
    EXPECT_THROW(build_memory_profile(t.file, *t.graph, a1, NodeMask(3, 1), default_counted(t.file)), Error);
}

TEST(Estimator, NestedValOutputsInOrderWithoutRepeats) {
    // val = [T(s2), {"other"}, [T(s1), null, T(s2 again, a view)], T(s3)]: outputs s2, s1, s3.
    GraphFile f;
    f.source = "nested.json";
    const StorageId s1 = f.add_storage(1, "cuda:0", 4), s2 = f.add_storage(2, "cuda:0", 8),
                    s3 = f.add_storage(3, "cpu", 16);
    GraphBuilder b(f, "g", GraphKind::Other);
    const std::int64_t shape[1] = {1}, stride[1] = {1};
    b.begin_node("m", OpKind::CallFunction, "f");
    b.val_begin_list();
    b.val_tensor(s2, "float32", shape, stride, 0);
    b.val_other("SymInt(3)");
    b.val_begin_list();
    b.val_tensor(s1, "float32", shape, stride, 0);
    b.val_null();
    b.val_tensor(s2, "float32", shape, stride, 1);
    b.val_end_list();
    b.val_tensor(s3, "float32", shape, stride, 0);
    b.val_end_list();
    b.end_node();
    b.add("u", OpKind::CallFunction, "g", {"m"}, {});
    const Graph& g = b.finish();
    const AliasInfo a = build_alias_info(f, g);
    EXPECT_EQ(vec(a.fresh_of(NodeId(0))), (std::vector<StorageId>{s2, s1, s3}));
    EXPECT_EQ(vec(a.uses_of(NodeId(1))), (std::vector<StorageId>{s2, s1, s3}));
    // m allocates 8 + 4 (s3 on cpu); u frees them all: [0, 12, 12, 12, 0].
    EXPECT_EQ(build_memory_profile(f, g, a, default_releasable(g), default_counted(f)),
              (std::vector<std::int64_t>{0, 12, 12, 12, 0}));
}
