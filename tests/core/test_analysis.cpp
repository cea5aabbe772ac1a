// fxmem::GraphAnalysis (shared by the app and the CLI), its cancel checks, and the one definition
// of the profile's step numbering. Numbers are the hand-computed ones of test_estimator/test_pair.
#include "fxmem/analysis.h"
#include "fxmem/layout.h"
#include "fxmem/profile_steps.h"

#include "test_estimator_fixtures.h"

#include <gtest/gtest.h>

#include <memory>

namespace fxmem {
namespace {

using fxmem::testing::G1;
using fxmem::testing::PairFixture;

TEST(Analysis, SingleGraphByHand) {
    G1 t;
    const auto file = std::make_shared<const GraphFile>(t.file);
    const auto a = GraphAnalysis::compute(file, GraphId(0));
    EXPECT_EQ(a->profile(),
              (std::vector<std::int64_t>{1110, 1310, 1310, 1310, 1310, 1340, 340, 340, 340, 347, 337, 348, 148}));
    EXPECT_EQ(a->peak(), 1340);
    EXPECT_EQ(a->peak_step(), 5u);
    EXPECT_TRUE(a->has_counted_storage());
    EXPECT_EQ(a->pair_index(), std::nullopt);
    // Index 5 is after b (the third running node: a, v, b) allocates.
    EXPECT_EQ(a->live().node_at(5), t.id("b"));
    // Counting every device adds C (5000 on cpu) from c's allocation on.
    const auto all = GraphAnalysis::compute(file, GraphId(0), DeviceFilter::All);
    EXPECT_EQ(all->profile()[7], 340 + 5000);
}

TEST(Analysis, BackwardAsInPairOrStandalone) {
    PairFixture t;
    const auto file = std::make_shared<const GraphFile>(t.file);
    // As get_peak_memory sees it: tangents_1 is do-not-delete, baseline 42, pair peak 874.
    const auto in_pair = GraphAnalysis::compute(file, GraphId(1));
    EXPECT_EQ(in_pair->profile(), (std::vector<std::int64_t>{432, 452, 432, 832, 812}));
    EXPECT_TRUE(in_pair->is_backward_of_pair());
    EXPECT_EQ(in_pair->baseline(), 42);
    ASSERT_TRUE(in_pair->pair_peak());
    EXPECT_EQ(in_pair->pair_peak()->peak, 874);
    // On its own (fxmem-cli profile): default releasability frees tangents_1 at g (452 - 32).
    const auto alone = GraphAnalysis::compute(file, GraphId(1), DeviceFilter::NonCpu, {}, PairContext::Standalone);
    EXPECT_EQ(alone->profile()[2], 420);
    EXPECT_FALSE(alone->is_backward_of_pair());
    EXPECT_EQ(alone->baseline(), 0);
    EXPECT_FALSE(alone->pair_peak());
}

TEST(Analysis, CancelCheckStopsTheAnalysisAndTheLayout) {
    PairFixture t;
    const auto file = std::make_shared<const GraphFile>(t.file);
    int polls = 0;
    const CancelCheck after_two = [&polls] { return ++polls > 2; };
    EXPECT_THROW(GraphAnalysis::compute(file, GraphId(0), DeviceFilter::NonCpu, after_two, PairContext::Standalone),
                 Cancelled);
    EXPECT_EQ(polls, 3); // it polled between phases and stopped at the first "yes"
    EXPECT_THROW(GraphAnalysis::compute_pair(file, 0, DeviceFilter::NonCpu, [] { return true; }), Cancelled);
    EXPECT_THROW(GraphLayout(*t.fwd, {}, [] { return true; }), Cancelled);
    // A check that never fires changes nothing.
    EXPECT_EQ(GraphAnalysis::compute(file, GraphId(0), DeviceFilter::NonCpu, [] { return false; })->peak(), 602);
    EXPECT_EQ(GraphLayout(*t.fwd, {}, [] { return false; }).steps(), GraphLayout(*t.fwd).steps());
}

TEST(ProfileSteps, OneNumbering) {
    EXPECT_TRUE(has_profile_points(OpKind::CallFunction));
    EXPECT_TRUE(has_profile_points(OpKind::CallModule));
    EXPECT_FALSE(has_profile_points(OpKind::Placeholder));
    EXPECT_FALSE(has_profile_points(OpKind::GetAttr));
    EXPECT_FALSE(has_profile_points(OpKind::Output));
    EXPECT_EQ(alloc_step(0), 1);
    EXPECT_EQ(free_step(0), 2);
    EXPECT_EQ(alloc_step(7), 15);
    EXPECT_EQ(profile_size(6), 13);
    EXPECT_EQ(running_position(15), 7u);
    EXPECT_EQ(running_position(16), 7u);
    EXPECT_EQ(phase_of(0), StepPhase::Start);
    EXPECT_EQ(phase_of(15), StepPhase::AfterAlloc);
    EXPECT_EQ(phase_of(16), StepPhase::AfterFree);
    // The layout and the live-set index agree with it on G1.
    G1 t;
    const GraphLayout layout(*t.graph);
    const auto a = GraphAnalysis::compute(std::make_shared<const GraphFile>(t.file), GraphId(0));
    EXPECT_EQ(layout.steps(), static_cast<std::int64_t>(a->profile().size()));
    const std::vector<NodeId> running = profile_nodes(*t.graph);
    for (std::size_t k = 0; k < running.size(); ++k) {
        EXPECT_EQ(layout.step(running[k]), alloc_step(k));
        EXPECT_EQ(a->live().node_at(static_cast<std::size_t>(alloc_step(k))), running[k]);
        EXPECT_EQ(a->live().node_at(static_cast<std::size_t>(free_step(k))), running[k]);
    }
}

} // namespace
} // namespace fxmem
