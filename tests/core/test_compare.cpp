// IncrementalSchedule::profile/alloc_of and compare_orders on a six-node graph worked out by hand.
#include "fxmem/analysis.h"
#include "fxmem/compare.h"
#include "fxmem/incremental.h"
#include "fxmem/schedule.h"

#include <gtest/gtest.h>

using namespace fxmem;

namespace {

// x (placeholder, 100 B); a = relu(x) 1000 B; b = mul(x) 2000 B; c = add(a) 10 B; d = add(b, c)
// 20 B; output(d). Original order, MemoryTracker:
//   start 100; a 1100/1100; b 3100 (peak), frees x -> 3000; c 3010, frees a -> 2010;
//   d 2030, frees b, c -> 20.
// Order x a c b d output: a 1100/1100; c 1110, frees a -> 110; b 2110 (peak), frees x -> 2010;
//   d 2030 -> 20.
std::shared_ptr<const GraphAnalysis> small() {
    auto file = std::make_shared<GraphFile>();
    file->source = "compare.json";
    const StorageId s0 = file->add_storage(0, "cuda:0", 100), s1 = file->add_storage(1, "cuda:0", 1000),
                    s2 = file->add_storage(2, "cuda:0", 2000), s3 = file->add_storage(3, "cuda:0", 10),
                    s4 = file->add_storage(4, "cuda:0", 20);
    GraphBuilder b(*file, "g", GraphKind::Inference);
    b.add("x", OpKind::Placeholder, "x", {}, {s0});
    b.add("a", OpKind::CallFunction, "aten.relu.default", {"x"}, {s1});
    b.add("b", OpKind::CallFunction, "aten.mul.Tensor", {"x"}, {s2});
    b.add("c", OpKind::CallFunction, "aten.add.Tensor", {"a"}, {s3});
    b.add("d", OpKind::CallFunction, "aten.add.Tensor", {"b", "c"}, {s4});
    b.add("output", OpKind::Output, "output", {"d"}, {});
    b.finish();
    return GraphAnalysis::compute(file, 0);
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
    EXPECT_EQ(s.profile(), a->profile());  // the estimator's own curve
    EXPECT_EQ(s.alloc_of(NodeId(0)), 0);   // a placeholder is live from the start
    EXPECT_EQ(s.alloc_of(NodeId(1)), 1000);
    EXPECT_EQ(s.alloc_of(NodeId(4)), 20);
    EXPECT_EQ(s.alloc_of(NodeId(5)), 0);   // the output allocates nothing
    s.move(3, 2);
    EXPECT_EQ(s.profile(), (std::vector<std::int64_t>{100, 1100, 1100, 1110, 110, 2110, 2010, 2030, 20}));
}

TEST(Compare, MovedNodesAndEffectByHand) {
    const auto a = small();
    const auto orig = ids({0, 1, 2, 3, 4, 5}), moved = ids({0, 1, 3, 2, 4, 5});
    const OrderComparison c = compare_orders(*a, orig, moved);
    EXPECT_EQ(c.peakA, 3100);
    EXPECT_EQ(c.peakB, 2110);
    EXPECT_EQ(c.peakStepA, 3u);
    EXPECT_EQ(c.peakStepB, 5u);
    // b and c swapped. B's positions in A's order are 0 1 3 2 4 5; the longest increasing run
    // patience sorting finds is 0 1 2 4 5 (through c), so b is the moved one, from 2 to 3. Alone,
    // b moved just after c (its unmoved predecessor in B) gives B itself: 3100 -> 2110.
    ASSERT_EQ(c.moved.size(), 1u);
    EXPECT_EQ(c.moved[0].node, NodeId(2));
    EXPECT_EQ(c.moved[0].positionA, 2u);
    EXPECT_EQ(c.moved[0].positionB, 3u);
    EXPECT_EQ(c.moved[0].allocates, 2000);
    ASSERT_TRUE(c.moved[0].effect.has_value());
    EXPECT_EQ(*c.moved[0].effect, -990);
    EXPECT_TRUE(compare_orders(*a, orig, orig).moved.empty());
    // No budget: listed without an effect.
    const OrderComparison none = compare_orders(*a, orig, moved, 5000, 0);
    ASSERT_EQ(none.moved.size(), 1u);
    EXPECT_FALSE(none.moved[0].effect.has_value());
}
