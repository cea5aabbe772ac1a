// Moving a node with its single-use view inputs (IncrementalSchedule::companions, plan_move_with).
#include "fxmem/error.h"
#include "fxmem/incremental.h"
#include "fxmem/schedule.h"

#include "../common/pinned_graph.h"

#include <gtest/gtest.h>

using namespace fxmem;

namespace {

// The graph of tests/common/pinned_graph.h (its comment works out the peaks).
struct Pinned {
    GraphFile f;
    const Graph* g = &fxmem_test::add_pinned_graph(f);
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
    EXPECT_TRUE(s.companions(3).empty()); // a's input is a placeholder
    // With t: t to position 3, then mm right after it (from 5 to 4).
    IncrementalSchedule::MoveCheck check;
    const auto steps = s.plan_move_with(5, 3, &check);
    EXPECT_TRUE(check.ok);
    ASSERT_EQ(steps.size(), 2u);
    EXPECT_EQ(steps[0].from, 4u);
    EXPECT_EQ(steps[0].to, 3u);
    EXPECT_EQ(steps[1].from, 5u);
    EXPECT_EQ(steps[1].to, 4u);
    EXPECT_EQ(s.order()[5], g.find("mm")); // planning moved nothing
    for (const auto& st : steps) s.move(st.from, st.to);
    const std::vector<NodeId> want = {g.find("primals_1"), g.find("primals_2"), g.find("b"),     g.find("t"),
                                      g.find("mm"),        g.find("a"),         g.find("output")};
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
