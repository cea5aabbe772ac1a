// MemoryTracker and score_schedule against hand-computed values.
#include "fxmem/error.h"
#include "fxmem/estimator.h"
#include "fxmem/schedule.h"
#include "test_estimator_fixtures.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace fxmem;
using namespace fxmem::testing;

namespace {

std::string message_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

} // namespace

TEST(Tracker, OriginalOrderPeakEqualsProfileMax) {
    G1 t;
    const AliasInfo a = build_alias_info(t.file, *t.graph);
    const auto rel = default_releasable(*t.graph);
    const auto counted = default_counted(t.file);
    const auto s = score_schedule(t.file, *t.graph, a, original_order(*t.graph), rel, counted);
    const auto p = build_memory_profile(t.file, *t.graph, a, rel, counted);
    EXPECT_EQ(s.peak, *std::max_element(p.begin(), p.end()));
    EXPECT_EQ(s.peak, 1340);
    // After each node: placeholders and get_attr change nothing (already in the start 1110).
    EXPECT_EQ(s.current, (std::vector<std::int64_t>{1110, 1110, 1310, 1310, 1310, 340, 340, 337, 148, 148}));
}

TEST(Tracker, ReorderedSchedule) {
    G1 t;
    const AliasInfo a = build_alias_info(t.file, *t.graph);
    const auto order = t.order({"primals_1", "x", "a", "e", "v", "w", "b", "c", "d", "output"});
    const auto s = score_schedule(t.file, *t.graph, a, order, default_releasable(*t.graph), default_counted(t.file));
    // start 1110. a: +200 = 1310. e: +11 = 1321; A still has users v, b: kept.
    // v, w: 1321. b: +30 = 1351 (peak); A's users all scheduled: -200, W: -1000 -> 151.
    // c: cpu, 151. d: +7 = 158, frees P1 10: 148. output: 148.
    EXPECT_EQ(s.current, (std::vector<std::int64_t>{1110, 1110, 1310, 1321, 1321, 1321, 151, 151, 148, 148}));
    EXPECT_EQ(s.peak, 1351);
}

TEST(Tracker, OutputCountsAsScheduledForAllUses) {
    G1 t;
    const AliasInfo a = build_alias_info(t.file, *t.graph);
    MemoryTracker tr(t.file, *t.graph, a, default_releasable(*t.graph), default_counted(t.file));
    for (auto n : {"primals_1", "x", "a", "v", "w", "b"}) tr.schedule(t.id(n));
    EXPECT_EQ(tr.current(), 340);
    // The output node changes nothing itself (and is not checked for live inputs: D is not live)...
    tr.schedule(t.id("output"));
    EXPECT_EQ(tr.current(), 340);
    EXPECT_TRUE(tr.is_live(t.B));
    // ...but it is scheduled, so c, B's other user, now frees B: 340 - 30 = 310.
    tr.schedule(t.id("c"));
    EXPECT_EQ(tr.current(), 310);
    EXPECT_FALSE(tr.is_live(t.B));
    EXPECT_EQ(tr.peak(), 1340);
}

TEST(Tracker, ErrorsNameNodeAndStorage) {
    G1 t;
    const AliasInfo a = build_alias_info(t.file, *t.graph);
    {
        MemoryTracker tr(t.file, *t.graph, a, default_releasable(*t.graph), default_counted(t.file));
        tr.schedule(t.id("a"));
        const auto m = message_of([&] { tr.schedule(t.id("a")); });
        EXPECT_NE(m.find("node 'a' is scheduled twice"), std::string::npos) << m;
        EXPECT_EQ(tr.current(), 1310); // unchanged by the failed call
    }
    {
        MemoryTracker tr(t.file, *t.graph, a, default_releasable(*t.graph), default_counted(t.file));
        const auto m = message_of([&] { tr.schedule(t.id("v")); });
        EXPECT_NE(m.find("node 'v' uses storage id 12 (allocated by 'a')"), std::string::npos) << m;
        EXPECT_NE(m.find("graph 'g1'"), std::string::npos) << m;
        EXPECT_EQ(tr.current(), 1110);
        // A failed schedule leaves the node unscheduled: it can be scheduled once its input ran.
        tr.schedule(t.id("a"));
        EXPECT_NO_THROW(tr.schedule(t.id("v")));
    }
    {
        // d uses C before c ran, but C is on the CPU: not counted, so no assertion.
        MemoryTracker tr(t.file, *t.graph, a, default_releasable(*t.graph), default_counted(t.file));
        EXPECT_NO_THROW(tr.schedule(t.id("d")));
        EXPECT_EQ(tr.current(), 1117); // 1110 + D 7; P1 stays live: its other user a has not run
    }
    {
        MemoryTracker tr(t.file, *t.graph, a, default_releasable(*t.graph), default_counted(t.file));
        // A node id of another graph is the caller's mistake, not bad input.
        EXPECT_THROW(tr.schedule(NodeId(99)), PreconditionError);
    }
}
