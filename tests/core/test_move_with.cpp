// Moving a node with its single-use view inputs (IncrementalSchedule::companions, plan_move_with).
#include "fxmem/error.h"
#include "fxmem/incremental.h"
#include "fxmem/schedule.h"

#include <gtest/gtest.h>

using namespace fxmem;

namespace {

// primals_1 (100 B) and primals_2 (200 B), never freed; b = neg(primals_1) 10 B; a =
// relu(primals_1) 1000 B; t = t(primals_2), a view (no bytes); mm = mm(b, t) 50 B; output(a, mm).
// Order p1 p2 b a t mm output. MemoryTracker: start 300; b 310; a 1310; t 1310; mm 1360 (the
// peak), frees b -> 1350.
struct Pinned {
    GraphFile f;
    const Graph* g = nullptr;
    Pinned() {
        f.source = "pinned.json";
        const StorageId P1 = f.add_storage(0, "cuda:0", 100), P2 = f.add_storage(1, "cuda:0", 200),
                        B = f.add_storage(2, "cuda:0", 10), A = f.add_storage(3, "cuda:0", 1000),
                        M = f.add_storage(4, "cuda:0", 50);
        GraphBuilder b(f, "g", GraphKind::Forward);
        b.add("primals_1", OpKind::Placeholder, "primals_1", {}, {P1});
        b.add("primals_2", OpKind::Placeholder, "primals_2", {}, {P2});
        b.add("b", OpKind::CallFunction, "aten.neg.default", {"primals_1"}, {B});
        b.add("a", OpKind::CallFunction, "aten.relu.default", {"primals_1"}, {A});
        b.add("t", OpKind::CallFunction, "aten.t.default", {"primals_2"}, {P2});
        b.add("mm", OpKind::CallFunction, "aten.mm.default", {"b", "t"}, {M});
        b.add("output", OpKind::Output, "output", {"a", "mm"}, {});
        g = &b.finish();
    }
};

} // namespace

TEST(MoveWith, AMatmulPinnedByItsTransposeMovesWithIt) {
    Pinned p;
    const Graph& g = *p.g;
    const AliasInfo alias = build_alias_info(p.f, g);
    IncrementalSchedule s(p.f, g, alias, default_releasable(g), default_counted(p.f), original_order(g));
    EXPECT_EQ(s.peak(), 1360);
    // mm alone cannot go before a: its transpose t pins it.
    const auto alone = s.check_move(5, 3);
    EXPECT_FALSE(alone.ok);
    EXPECT_EQ(alone.blocker, g.find("t"));
    EXPECT_EQ(alone.reason, "'mm' must stay after its input 't' (position 4)");
    // t is a view whose only user is mm; b is an input too, but no view.
    EXPECT_EQ(s.companions(5), (std::vector<NodeId>{g.find("t")}));
    EXPECT_TRUE(s.companions(3).empty());  // a's input is a placeholder
    // With t: t to position 3, then mm right after it (from 5 to 4).
    IncrementalSchedule::MoveCheck check;
    const auto steps = s.plan_move_with(5, 3, &check);
    EXPECT_TRUE(check.ok);
    ASSERT_EQ(steps.size(), 2u);
    EXPECT_EQ(steps[0].from, 4u);
    EXPECT_EQ(steps[0].to, 3u);
    EXPECT_EQ(steps[1].from, 5u);
    EXPECT_EQ(steps[1].to, 4u);
    EXPECT_EQ(s.order()[5], g.find("mm"));  // planning moved nothing
    for (const auto& st : steps) s.move(st.from, st.to);
    const std::vector<NodeId> want = {g.find("primals_1"), g.find("primals_2"), g.find("b"), g.find("t"),
                                      g.find("mm"), g.find("a"), g.find("output")};
    EXPECT_EQ(s.order(), want);
    // b 310; t 310; mm 360, frees b -> 350; a 1350: the peak drops by 10.
    EXPECT_EQ(s.peak(), 1350);
    EXPECT_EQ(score_schedule(p.f, g, alias, want, default_releasable(g), default_counted(p.f)).peak, 1350);
    // Down again with t: mm to 5 (after a), t right before it.
    const auto back = s.plan_move_with(4, 5, &check);
    EXPECT_TRUE(check.ok);
    for (const auto& st : back) s.move(st.from, st.to);
    EXPECT_EQ(s.order(), original_order(g));
    // Still refused when another input blocks: before b (position 2) even t cannot help.
    const auto none = s.plan_move_with(5, 2, &check);
    EXPECT_TRUE(none.empty());
    EXPECT_FALSE(check.ok);
    EXPECT_EQ(check.blocker, g.find("b"));
}
