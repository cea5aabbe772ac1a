// IncrementalSchedule::profile/alloc_of and compare_orders on a six-node graph worked out by hand.
#include "fxmem/analysis.h"
#include "fxmem/compare.h"
#include "fxmem/incremental.h"
#include "fxmem/schedule.h"

#include "../common/small_graph.h"

#include <gtest/gtest.h>

using namespace fxmem;

namespace {

// The graph of tests/common/small_graph.h (its comment works out both orders by hand).
std::shared_ptr<const GraphAnalysis> small() {
    auto file = std::make_shared<GraphFile>();
    file->source = "compare.json";
    fxmem_test::add_small_graph(*file);
    return GraphAnalysis::compute(file, GraphId(0));
}

std::vector<NodeId> ids(std::initializer_list<int> v) {
    std::vector<NodeId> out;
    for (int i : v) out.emplace_back(i);
    return out;
}

} // namespace

TEST(Compare, ProfileAndAllocOfByHand) {
    const auto a = small();
    IncrementalSchedule s(a->file(), a->graph(), a->alias(), a->releasable(), a->counted(), original_order(a->graph()));
    EXPECT_EQ(s.profile(), (std::vector<std::int64_t>{100, 1100, 1100, 3100, 3000, 3010, 2010, 2030, 20}));
    EXPECT_EQ(s.profile(), a->profile()); // the estimator's own curve
    EXPECT_EQ(s.alloc_of(NodeId(0)), 0);  // a placeholder is live from the start
    EXPECT_EQ(s.alloc_of(NodeId(1)), 1000);
    EXPECT_EQ(s.alloc_of(NodeId(4)), 20);
    EXPECT_EQ(s.alloc_of(NodeId(5)), 0); // the output allocates nothing
    s.move(3, 2);
    EXPECT_EQ(s.profile(), (std::vector<std::int64_t>{100, 1100, 1100, 1110, 110, 2110, 2010, 2030, 20}));
}

TEST(Compare, MovedNodesAndEffectByHand) {
    const auto a = small();
    const auto orig = ids({0, 1, 2, 3, 4, 5}), moved = ids({0, 1, 3, 2, 4, 5});
    const OrderComparison c = compare_orders(*a, orig, moved);
    EXPECT_EQ(c.peak_a, 3100);
    EXPECT_EQ(c.peak_b, 2110);
    EXPECT_EQ(c.peak_step_a, 3u);
    EXPECT_EQ(c.peak_step_b, 5u);
    // b and c swapped. B's positions in A's order are 0 1 3 2 4 5; the longest increasing run
    // patience sorting finds is 0 1 2 4 5 (through c), so b is the moved one, from 2 to 3. Alone,
    // b moved just after c (its unmoved predecessor in B) gives B itself: 3100 -> 2110.
    ASSERT_EQ(c.moved.size(), 1u);
    EXPECT_EQ(c.moved[0].node, NodeId(2));
    EXPECT_EQ(c.moved[0].position_a, 2u);
    EXPECT_EQ(c.moved[0].position_b, 3u);
    EXPECT_EQ(c.moved[0].allocates, 2000);
    ASSERT_TRUE(c.moved[0].effect.has_value());
    EXPECT_EQ(*c.moved[0].effect, -990);
    EXPECT_TRUE(compare_orders(*a, orig, orig).moved.empty());
    // No budget: listed without an effect.
    const OrderComparison none = compare_orders(*a, orig, moved, 5000, 0);
    ASSERT_EQ(none.moved.size(), 1u);
    EXPECT_FALSE(none.moved[0].effect.has_value());
}
