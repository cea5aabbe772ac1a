// LiveSetIndex: hand-checked live sets and reasons, and sums equal to the profile at every index.
#include "fxmem/liveset.h"
#include "test_estimator_fixtures.h"
#include "test_estimator_random.h"

#include <gtest/gtest.h>

using namespace fxmem;
using namespace fxmem::testing;

namespace {

std::int64_t sum(const std::vector<LiveStorage>& live) {
    std::int64_t total = 0;
    for (const auto& l : live) total += l.nbytes;
    return total;
}

void expect_sums_match(const GraphFile& f, const Graph& g, const NodeMask& rel, const StorageMask& counted) {
    const AliasInfo a = build_alias_info(f, g);
    const LiveSetIndex idx(f, g, a, rel, counted);
    const auto profile = build_memory_profile(f, g, a, rel, counted);
    ASSERT_EQ(idx.profile_size(), profile.size());
    for (std::size_t i = 0; i < profile.size(); ++i) {
        const auto live = idx.live_at(i);
        ASSERT_EQ(sum(live), profile[i]) << "graph " << g.name << " index " << i;
        // Largest first, ties by storage.
        for (std::size_t k = 1; k < live.size(); ++k)
            ASSERT_TRUE(live[k - 1].nbytes > live[k].nbytes ||
                        (live[k - 1].nbytes == live[k].nbytes && live[k - 1].storage < live[k].storage));
        for (const auto& l : live) {
            ASSERT_LE(l.alloc_step, static_cast<std::int64_t>(i));
            ASSERT_TRUE(l.free_step == -1 || l.free_step > static_cast<std::int64_t>(i));
        }
    }
}

} // namespace

TEST(LiveSet, G1ByHand) {
    G1 t;
    const AliasInfo a = build_alias_info(t.file, *t.graph);
    const LiveSetIndex idx(t.file, *t.graph, a, default_releasable(*t.graph), default_counted(t.file));
    // Profile nodes a v b c d e: steps 1/2, 3/4, 5/6, 7/8, 9/10, 11/12.
    EXPECT_EQ(idx.profile_size(), 13u);
    EXPECT_EQ(idx.step_of(t.id("b")), 5u);
    EXPECT_EQ(idx.step_of(t.id("w")), 0u);
    EXPECT_EQ(idx.node_at(6), t.id("b"));
    EXPECT_FALSE(idx.node_at(0).valid());

    // Index 5 (after b's allocation): W 1000, A 200, P0 100, B 30, P1 10 = 1340.
    const auto live = idx.live_at(5);
    ASSERT_EQ(live.size(), 5u);
    EXPECT_EQ(live[0].storage, t.W);
    EXPECT_EQ(live[0].reason, LiveReason::WaitingForUse);
    EXPECT_EQ(live[0].free_step, 6);  // freed after its last user b
    EXPECT_EQ(live[0].alloc_step, 0);  // get_attr: from the start
    EXPECT_EQ(live[0].next_user, t.id("b"));
    EXPECT_EQ(live[1].storage, t.A);
    EXPECT_EQ(live[1].alloc_step, 1);
    EXPECT_EQ(live[1].free_step, 12);  // last user e (steps 11/12)
    EXPECT_EQ(live[1].last_user, t.id("e"));
    EXPECT_EQ(live[1].next_user, t.id("b"));  // users v, b, e: first at or after b
    EXPECT_EQ(live[2].storage, t.P0);
    EXPECT_EQ(live[2].reason, LiveReason::NotReleasable);  // a primal
    EXPECT_EQ(live[2].free_step, -1);
    EXPECT_FALSE(live[2].next_user.valid());  // its only user a already ran
    EXPECT_EQ(live[3].storage, t.B);
    EXPECT_EQ(live[3].reason, LiveReason::GraphOutput);
    EXPECT_EQ(live[3].next_user, t.id("c"));
    EXPECT_EQ(live[4].storage, t.P1);
    EXPECT_EQ(live[4].next_user, t.id("d"));
    EXPECT_EQ(sum(live), 1340);

    // Index 12 (the end): P0 100, B 30, E 11, D 7 = 148.
    const auto end = idx.live_at(12);
    ASSERT_EQ(end.size(), 4u);
    EXPECT_EQ(end[2].storage, t.E);
    EXPECT_EQ(end[2].reason, LiveReason::NeverUsed);
    EXPECT_FALSE(end[2].last_user.valid());
    EXPECT_EQ(end[3].storage, t.D);
    EXPECT_EQ(end[3].reason, LiveReason::GraphOutput);
    // Index 0: the placeholders and get_attr.
    EXPECT_EQ(sum(idx.live_at(0)), 1110);
    EXPECT_TRUE(idx.live_at(13).empty());
}

TEST(LiveSet, SumsMatchProfileEverywhere) {
    {
        G1 t;
        expect_sums_match(t.file, *t.graph, default_releasable(*t.graph), default_counted(t.file));
        expect_sums_match(t.file, *t.graph, NodeMask(t.graph->size(), 1),
                          counted_by_device(t.file, [](std::string_view) { return true; }));
    }
    {
        G2 t;
        expect_sums_match(t.file, *t.graph, default_releasable(*t.graph), default_counted(t.file));
    }
    {
        PairFixture t;
        const FwdBwdInteractions r = get_fwd_bwd_interactions(t.file, *t.fwd, *t.bwd);
        expect_sums_match(t.file, *t.fwd, default_releasable(*t.fwd), default_counted(t.file));
        expect_sums_match(t.file, *t.bwd, backward_releasable(*t.bwd, r), default_counted(t.file));
        const AliasInfo a = build_alias_info(t.file, *t.bwd);
        const LiveSetIndex idx(t.file, *t.bwd, a, backward_releasable(*t.bwd, r), default_counted(t.file));
        // Backward index 0: w1 400 (primal), saved 20 (waits for g), tan 12 (do-not-delete).
        const auto live = idx.live_at(0);
        ASSERT_EQ(live.size(), 3u);
        EXPECT_EQ(live[0].reason, LiveReason::NotReleasable);
        EXPECT_EQ(live[1].reason, LiveReason::WaitingForUse);
        EXPECT_EQ(live[1].next_user, t.bwd->find("g"));
        EXPECT_EQ(live[2].storage, t.tan);
        EXPECT_EQ(live[2].reason, LiveReason::NotReleasable);
    }
    RandomGraphs gen(99);
    for (int round = 0; round < 60; ++round) {
        GraphFile f;
        f.source = "random";
        RandomGraphOptions o;
        o.nodes = 1 + gen.pick(round < 55 ? 80 : 600);
        o.output = gen.coin(0.9);
        const Graph& g = gen.make(f, "r", o);
        NodeMask rel = default_releasable(g);
        if (round % 3 == 0)
            for (auto& m : rel) m = gen.coin(0.8) ? 1 : 0;
        expect_sums_match(f, g, rel, default_counted(f));
    }
}

TEST(LiveSet, ManyLiveStoragesWithTiesAreOrdered) {
    // 1500 placeholders of sizes 1..7 (many ties; more than the radix threshold) used by one node.
    GraphFile f;
    f.source = "ties.json";
    GraphBuilder b(f, "ties", GraphKind::Other);
    std::vector<NodeId> ids;
    std::int64_t total = 0;
    for (int k = 0; k < 1500; ++k) {
        const std::int64_t size = 4 * (1 + (k * 5) % 7);
        total += size;
        const StorageId s = f.add_storage(k, "cuda:0", size);
        ids.push_back(b.add("p" + std::to_string(k), OpKind::Placeholder, "p", std::span<const NodeId>(),
                            std::span<const StorageId>(&s, 1)));
    }
    const StorageId out = f.add_storage(5000, "cuda:0", 4);
    b.add("sum", OpKind::CallFunction, "sum", std::span<const NodeId>(ids), std::span<const StorageId>(&out, 1));
    const Graph& g = b.finish();
    expect_sums_match(f, g, default_releasable(g), default_counted(f));
    const AliasInfo a = build_alias_info(f, g);
    const LiveSetIndex idx(f, g, a, default_releasable(g), default_counted(f));
    const auto live = idx.live_at(1);  // after sum's allocation: everything
    ASSERT_EQ(live.size(), 1501u);
    EXPECT_EQ(sum(live), total + 4);
    EXPECT_EQ(live.front().nbytes, 28);
    EXPECT_EQ(live.back().storage, out);  // size 4, the highest storage index
    EXPECT_EQ(sum(idx.live_at(2)), 4);    // all placeholders freed at their last use
}
