// IncrementalSchedule: hand-checked moves and refusals, and a property test against full
// score_schedule re-scores after thousands of random moves on random graphs.
#include "fxmem/error.h"
#include "fxmem/incremental.h"
#include "fxmem/schedule.h"
#include "test_estimator_fixtures.h"
#include "test_estimator_random.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace fxmem;
using namespace fxmem::testing;

TEST(Incremental, G1MoveByHand) {
    G1 t;
    const AliasInfo a = build_alias_info(t.file, *t.graph);
    IncrementalSchedule s(t.file, *t.graph, a, default_releasable(*t.graph), default_counted(t.file),
                          original_order(*t.graph));
    EXPECT_EQ(s.start(), 1110);
    EXPECT_EQ(s.peak(), 1340);
    EXPECT_EQ(s.peak_position(), 5u); // b: 1310 + 30
    EXPECT_EQ(s.current(), (std::vector<std::int64_t>{1110, 1110, 1310, 1310, 1310, 340, 340, 337, 148, 148}));
    EXPECT_EQ(s.after(7), 337);
    // e (position 8) may go anywhere after its input a (position 2) and before the output.
    const auto r = s.legal_range(8);
    EXPECT_EQ(r.lo, 3u);
    EXPECT_EQ(r.hi, 8u);
    EXPECT_EQ(r.blocker_before, t.id("a"));
    EXPECT_EQ(r.blocker_after, t.id("output"));
    s.move(8, 3);
    EXPECT_EQ(s.order(), t.order({"primals_1", "x", "a", "e", "v", "w", "b", "c", "d", "output"}));
    // As Tracker.ReorderedSchedule: e: 1310 + 11 = 1321; b: 1351, then A and W freed: 151.
    EXPECT_EQ(s.current(), (std::vector<std::int64_t>{1110, 1110, 1310, 1321, 1321, 1321, 151, 151, 148, 148}));
    EXPECT_EQ(s.peak(), 1351);
    EXPECT_EQ(s.peak_position(), 6u);
    EXPECT_EQ(s.position_of(t.id("b")), 6u);
    // And back: the original numbers again.
    s.move(3, 8);
    EXPECT_EQ(s.peak(), 1340);
    EXPECT_EQ(s.current(), (std::vector<std::int64_t>{1110, 1110, 1310, 1310, 1310, 340, 340, 337, 148, 148}));
}

TEST(Incremental, RefusalsNameTheBlocker) {
    G1 t;
    const AliasInfo a = build_alias_info(t.file, *t.graph);
    IncrementalSchedule s(t.file, *t.graph, a, default_releasable(*t.graph), default_counted(t.file),
                          original_order(*t.graph));
    auto c = s.check_move(3, 1); // v before its input a
    EXPECT_FALSE(c.ok);
    EXPECT_EQ(c.blocker, t.id("a"));
    EXPECT_EQ(c.reason, "'v' must stay after its input 'a' (position 2)");
    c = s.check_move(5, 7); // b after its user c
    EXPECT_FALSE(c.ok);
    EXPECT_EQ(c.blocker, t.id("c"));
    EXPECT_EQ(c.reason, "'b' must stay before its user 'c' (position 6)");
    c = s.check_move(9, 2);
    EXPECT_EQ(c.reason, "the output node 'output' must stay last");
    c = s.check_move(8, 9); // e has no users, but the output stays last
    EXPECT_EQ(c.blocker, t.id("output"));
    EXPECT_EQ(c.reason, "'e' must stay before the output node 'output' (position 9)");
    c = s.check_move(7, 9); // d is a user of the output itself
    EXPECT_EQ(c.reason, "'d' must stay before its user 'output' (position 9)");
    c = s.check_move(0, 10);
    EXPECT_EQ(c.reason, "position 10 is out of range (the schedule has 10 nodes)");
    // Placeholders and get_attr move within their range: w anywhere before its user b.
    EXPECT_TRUE(s.check_move(4, 0).ok);
    const auto before = s.current();
    try {
        s.move(5, 7);
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), "graph 'g1': cannot move: 'b' must stay before its user 'c' (position 6)");
    }
    EXPECT_EQ(s.current(), before);
}

TEST(Incremental, StorageOrderingBetweenUnrelatedNodes) {
    // b outputs a's storage S without depending on a (possible in a hand-made file): c, which uses
    // S through b, must still run after a, or the tracker would find S not live.
    GraphFile f;
    f.source = "alias.json";
    const StorageId S = f.add_storage(5, "cuda:0", 10), T = f.add_storage(6, "cuda:0", 5);
    GraphBuilder b(f, "g", GraphKind::Other);
    b.add("a", OpKind::CallFunction, "f", {}, {S});
    b.add("b", OpKind::CallFunction, "f", {}, {S});
    b.add("c", OpKind::CallFunction, "f", {"b"}, {T});
    b.add("output", OpKind::Output, "output", {"c"}, {});
    const Graph& g = b.finish();
    const AliasInfo a = build_alias_info(f, g);
    IncrementalSchedule s(f, g, a, default_releasable(g), default_counted(f), original_order(g));
    auto c = s.check_move(0, 2);
    EXPECT_FALSE(c.ok);
    EXPECT_EQ(c.blocker, g.find("c"));
    EXPECT_EQ(c.reason, "'a' must stay before 'c' (position 2), which uses storage id 5 that it allocates");
    s.move(1, 0); // b first is fine
    c = s.check_move(2, 0);
    EXPECT_EQ(c.reason, "'c' must stay after 'a' (position 1), which allocates storage id 5 that it uses");
    // An initial order that breaks it is refused like the tracker refuses it.
    const std::vector<NodeId> bad = {g.find("b"), g.find("c"), g.find("a"), g.find("output")};
    EXPECT_THROW(score_schedule(f, g, a, bad, default_releasable(g), default_counted(f)), Error);
    try {
        IncrementalSchedule(f, g, a, default_releasable(g), default_counted(f), bad);
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "graph 'g': node 'c' (position 1) uses storage id 5 before its allocator 'a' runs");
    }
    EXPECT_THROW(IncrementalSchedule(f, g, a, default_releasable(g), default_counted(f), {g.find("a")}), Error);
}

namespace {

// Legal by brute force: the order passes check_schedule and the tracker accepts every node.
bool brute_legal(const GraphFile& f, const Graph& g, const AliasInfo& a, const std::vector<NodeId>& order,
                 const NodeMask& rel, const StorageMask& counted) {
    try {
        check_schedule(g, order);
        score_schedule(f, g, a, order, rel, counted);
    } catch (const Error&) {
        return false;
    }
    return true;
}

std::vector<NodeId> moved(std::vector<NodeId> order, std::size_t from, std::size_t to) {
    const NodeId x = order[from];
    order.erase(order.begin() + static_cast<std::ptrdiff_t>(from));
    order.insert(order.begin() + static_cast<std::ptrdiff_t>(to), x);
    return order;
}

} // namespace

TEST(Incremental, RandomMovesMatchFullRescore) {
    RandomGraphs gen(2024);
    int accepted = 0, refused = 0;
    for (int round = 0; round < 40; ++round) {
        GraphFile f;
        f.source = "random";
        RandomGraphOptions o;
        o.nodes = 3 + gen.pick(50);
        o.output = round % 8 != 0;
        o.rogue = 0.05;
        const Graph& g = gen.make(f, "r", o);
        const AliasInfo a = build_alias_info(f, g);
        NodeMask rel = default_releasable(g);
        if (round % 3 == 1)
            for (auto& m : rel) m = gen.coin(0.8) ? 1 : 0;
        const StorageMask counted =
            round % 4 == 3 ? counted_by_device(f, [](std::string_view d) { return d != "meta"; }) : default_counted(f);
        // Start from the original order or from a random one the tracker accepts.
        std::vector<NodeId> start = gen.topological(g);
        if (!brute_legal(f, g, a, start, rel, counted)) start = original_order(g);
        IncrementalSchedule s(f, g, a, rel, counted, start);
        for (int k = 0; k < 150; ++k) {
            const std::size_t n = s.size();
            const std::size_t from = gen.pick(n), to = gen.pick(n);
            const auto check = s.check_move(from, to);
            const auto candidate = moved(s.order(), from, to);
            ASSERT_EQ(check.ok, brute_legal(f, g, a, candidate, rel, counted))
                << "round " << round << " move " << from << "->" << to << ": " << check.reason;
            if (!check.ok) {
                ++refused;
                ASSERT_FALSE(check.reason.empty());
                if (check.blocker.valid() && check.blocker != s.at(from)) {
                    // The blocker is the nearest obstacle: the move is legal right next to it.
                    const std::size_t bp = s.position_of(check.blocker);
                    const std::size_t next = bp < from ? bp + 1 : bp - 1;
                    ASSERT_TRUE(brute_legal(f, g, a, moved(s.order(), from, next), rel, counted))
                        << "round " << round << ": " << check.reason;
                    const auto range = s.legal_range(from);
                    ASSERT_TRUE(bp < from ? range.lo == bp + 1 : range.hi == bp - 1);
                }
                EXPECT_THROW(s.move(from, to), Error);
                continue;
            }
            ++accepted;
            s.move(from, to);
            ASSERT_EQ(s.order(), candidate);
            const ScheduleScore full = score_schedule(f, g, a, s.order(), rel, counted);
            ASSERT_EQ(s.peak(), full.peak) << "round " << round << " move " << k;
            ASSERT_EQ(s.current(), full.current) << "round " << round << " move " << k;
            const std::size_t q = gen.pick(n);
            ASSERT_EQ(s.after(q), full.current[q]);
            // The first position whose post-allocation memory is the peak: where the tracker's
            // running peak first reaches it (position 0 when the start already is the peak).
            MemoryTracker tr(f, g, a, rel, counted);
            std::size_t first = n;
            for (std::size_t p = 0; p < n && first == n; ++p) {
                tr.schedule(s.at(p));
                if (tr.peak() == full.peak) first = p;
            }
            ASSERT_EQ(s.peak_position(), first) << "round " << round << " move " << k;
        }
    }
    EXPECT_GT(accepted, 1000);
    EXPECT_GT(refused, 1000);
}

// A refusal is built on every drag-over: a 1 MiB node name is cut to its head and tail, on UTF-8
// boundaries, instead of being copied whole into each message.
TEST(Incremental, RefusalCutsHugeNames) {
    GraphFile file;
    const StorageId s0 = file.add_storage(0, "cuda:0", 16);
    const StorageId s1 = file.add_storage(1, "cuda:0", 16);
    std::string huge = "é" + std::string(1 << 20, 'x') + "tail_end"; // 2-byte 'é' first
    huge[119] = '\xc3'; // a 2-byte character straddling the 120-byte cut: the cut moves before it
    huge[120] = '\xa9';
    GraphBuilder b(file, "g", GraphKind::Other);
    b.add("p", OpKind::Placeholder, "p", {}, {s0});
    b.add(huge, OpKind::CallFunction, "aten.relu.default", {"p"}, {s1});
    b.add("output", OpKind::Output, "output", {huge}, {});
    const Graph& g = b.finish();
    const AliasInfo a = build_alias_info(file, g);
    IncrementalSchedule s(file, g, a, default_releasable(g), default_counted(file), original_order(g));
    const auto c = s.check_move(1, 0); // the huge node before its input
    ASSERT_FALSE(c.ok);
    EXPECT_LT(c.reason.size(), 1000u);
    EXPECT_NE(c.reason.find("'" + huge.substr(0, 119) + "\u2026"), std::string::npos) << c.reason.substr(0, 300);
    EXPECT_NE(c.reason.find(huge.substr(huge.size() - 60) + "'"), std::string::npos);
    // Short names are quoted whole.
    EXPECT_NE(c.reason.find("'p'"), std::string::npos);
}
