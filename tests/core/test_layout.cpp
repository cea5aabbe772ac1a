#include "fxmem/layout.h"
#include "fxmem/model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace fxmem;

namespace {
// p0, p1 -> a(p0) -> b(a, p1), c(a) -> d(b, c) -> out(d). Profile nodes a, b, c, d sit at steps
// 1, 3, 5, 7 of a 9-point profile; output at 8.
struct Diamond {
    GraphFile file;
    const Graph* graph = nullptr;
    Diamond() {
        file.source = "mem";
        const StorageId s0 = file.add_storage(0, "cuda:0", 16), s1 = file.add_storage(1, "cuda:0", 16),
                        sa = file.add_storage(2, "cuda:0", 16), sb = file.add_storage(3, "cuda:0", 16),
                        sc = file.add_storage(4, "cuda:0", 16), sd = file.add_storage(5, "cuda:0", 16);
        GraphBuilder g(file, "g", GraphKind::Forward);
        g.add("p0", OpKind::Placeholder, "p0", {}, {s0});
        g.add("p1", OpKind::Placeholder, "p1", {}, {s1});
        g.add("a", OpKind::CallFunction, "f", {"p0"}, {sa});
        g.add("b", OpKind::CallFunction, "f", {"a", "p1"}, {sb});
        g.add("c", OpKind::CallFunction, "f", {"a"}, {sc});
        g.add("d", OpKind::CallFunction, "f", {"b", "c"}, {sd});
        g.add("out", OpKind::Output, "output", {"d"}, {});
        graph = &g.finish();
    }
    NodeId id(const char* name) const { return graph->find(name); }
};
} // namespace

TEST(Layout, StepsFollowTheProfile) {
    Diamond d;
    GraphLayout layout(*d.graph);
    EXPECT_EQ(layout.steps(), 9);
    EXPECT_EQ(layout.step(d.id("p0")), 0);
    EXPECT_EQ(layout.step(d.id("p1")), 0);
    EXPECT_EQ(layout.step(d.id("a")), 1);
    EXPECT_EQ(layout.step(d.id("b")), 3);
    EXPECT_EQ(layout.step(d.id("c")), 5);
    EXPECT_EQ(layout.step(d.id("d")), 7);
    EXPECT_EQ(layout.step(d.id("out")), 8);
    EXPECT_EQ(layout.wire_end(d.id("a")), 5); // last user c
    EXPECT_EQ(layout.wire_end(d.id("p1")), 3);
    EXPECT_EQ(layout.wire_end(d.id("out")), 8); // no users: its own step
}

TEST(Layout, ChainsKeepTheirLaneAndWiresNeverShareOne) {
    Diamond d;
    GraphLayout layout(*d.graph);
    // By hand: p0, p1 open lanes 0 and 1; a continues p0 (its wire ends at a), b continues p1,
    // c continues a (a's wire ends at c), d continues b, out continues d.
    EXPECT_EQ(layout.lanes(), 2);
    EXPECT_EQ(layout.lane(d.id("p0")), 0);
    EXPECT_EQ(layout.lane(d.id("p1")), 1);
    EXPECT_EQ(layout.lane(d.id("a")), 0);
    EXPECT_EQ(layout.lane(d.id("b")), 1);
    EXPECT_EQ(layout.lane(d.id("c")), 0);
    EXPECT_EQ(layout.lane(d.id("d")), 1);
    EXPECT_EQ(layout.lane(d.id("out")), 1);
}

TEST(Layout, RangeQueries) {
    Diamond d;
    GraphLayout layout(*d.graph);
    const auto in = layout.nodes_in(1, 5);
    ASSERT_EQ(in.size(), 3u);
    EXPECT_EQ(in[0], d.id("a"));
    EXPECT_EQ(in[1], d.id("b"));
    EXPECT_EQ(in[2], d.id("c"));
    EXPECT_TRUE(layout.nodes_in(9, 20).empty());

    std::vector<NodeId> wires;
    layout.wires_crossing(4, 4, wires); // a's wire [1, 5] and b's [3, 7]
    ASSERT_EQ(wires.size(), 2u);
    EXPECT_EQ(wires[0], d.id("a"));
    EXPECT_EQ(wires[1], d.id("b"));
    wires.clear();
    layout.wires_crossing(0, 0, wires); // both placeholders
    EXPECT_EQ(wires.size(), 2u);
}

TEST(Layout, FreedLanesAreReused) {
    GraphFile f;
    f.source = "mem";
    std::vector<StorageId> s;
    for (int i = 0; i < 5; ++i) s.push_back(f.add_storage(i, "cuda:0", 4));
    GraphBuilder g(f, "g", GraphKind::Forward);
    g.add("x", OpKind::Placeholder, "x", {}, {s[0]});
    g.add("a", OpKind::CallFunction, "f", {"x"}, {s[1]}); // step 1, lane 0 (continues x)
    g.add("u", OpKind::CallFunction, "f", {}, {s[2]});    // step 3, unused: new lane 1, freed at once
    g.add("b", OpKind::CallFunction, "f", {}, {s[3]});    // step 5: reuses lane 1
    g.add("c", OpKind::CallFunction, "f", {"a", "b"}, {s[4]});
    g.add("out", OpKind::Output, "output", {"c"}, {});
    const Graph& graph = g.finish();
    GraphLayout layout(graph);
    EXPECT_EQ(layout.lane(graph.find("u")), 1);
    EXPECT_EQ(layout.lane(graph.find("b")), 1);
    EXPECT_EQ(layout.lane(graph.find("c")), 0);
    EXPECT_EQ(layout.lanes(), 2);
}

TEST(Layout, FollowsAnEditedSchedule) {
    Diamond d;
    // c before b: legal, both only need a.
    std::vector<NodeId> order = {d.id("p0"), d.id("p1"), d.id("a"), d.id("c"), d.id("b"), d.id("d"), d.id("out")};
    GraphLayout layout(*d.graph, order);
    EXPECT_EQ(layout.step(d.id("c")), 3);
    EXPECT_EQ(layout.step(d.id("b")), 5);
    EXPECT_EQ(layout.wire_end(d.id("a")), 5); // its last user is now b
    const auto in = layout.nodes_in(3, 3);
    ASSERT_EQ(in.size(), 1u);
    EXPECT_EQ(in[0], d.id("c"));
}

namespace {
// Everything of `patched` but the lanes equals a fresh layout of `order`.
void expectSameButLanes(const Graph& g, const GraphLayout& patched, const std::vector<NodeId>& order) {
    const GraphLayout fresh(g, order);
    ASSERT_EQ(patched.steps(), fresh.steps());
    for (std::size_t i = 0; i < g.size(); ++i) {
        const NodeId n(static_cast<std::int32_t>(i));
        EXPECT_EQ(patched.step(n), fresh.step(n)) << g.node(n).name;
        EXPECT_EQ(patched.wire_end(n), fresh.wire_end(n)) << g.node(n).name;
    }
    EXPECT_TRUE(
        std::equal(patched.by_step().begin(), patched.by_step().end(), fresh.by_step().begin(), fresh.by_step().end()));
    for (std::int64_t x0 = 0; x0 < fresh.steps(); ++x0)
        for (std::int64_t x1 = x0; x1 < fresh.steps(); x1 += 3) {
            std::vector<NodeId> a, b;
            patched.wires_crossing(x0, x1, a);
            fresh.wires_crossing(x0, x1, b);
            std::sort(a.begin(), a.end());
            std::sort(b.begin(), b.end());
            ASSERT_EQ(a, b) << x0 << ".." << x1;
        }
}
} // namespace

TEST(Layout, WithStepsMovesNodesAndKeepsLanes) {
    Diamond d;
    const GraphLayout before(*d.graph);
    // c before b: c takes step 3, b step 5. By hand: p1's wire now ends at b (5), c's and b's
    // at d (7), a's still at 5 (b); every lane stays.
    const std::vector<NodeId> moved = {d.id("c"), d.id("b")};
    const std::vector<std::int64_t> steps = {3, 5};
    const GraphLayout after = before.with_steps(*d.graph, moved, steps);
    EXPECT_EQ(after.step(d.id("c")), 3);
    EXPECT_EQ(after.step(d.id("b")), 5);
    EXPECT_EQ(after.wire_end(d.id("p1")), 5);
    EXPECT_EQ(after.wire_end(d.id("a")), 5);
    EXPECT_EQ(after.wire_end(d.id("c")), 7);
    EXPECT_EQ(after.nodes_in(3, 3).size(), 1u);
    EXPECT_EQ(after.nodes_in(3, 3)[0], d.id("c"));
    for (const char* n : {"p0", "p1", "a", "b", "c", "d", "out"}) EXPECT_EQ(after.lane(d.id(n)), before.lane(d.id(n)));
    EXPECT_EQ(before.step(d.id("c")), 5); // the source is untouched
    const std::vector<NodeId> order = {d.id("p0"), d.id("p1"), d.id("a"), d.id("c"), d.id("b"), d.id("d"), d.id("out")};
    expectSameButLanes(*d.graph, after, order);
    // Steps that are not a permutation of the moved nodes' own are refused.
    const std::vector<std::int64_t> bad = {3, 9};
    EXPECT_THROW((void)before.with_steps(*d.graph, moved, bad), Error);
}

TEST(Layout, WithStepsFollowsSuccessiveMoves) {
    // p, then n0..n39: n_i reads p, and n_(i-5) when i % 5 == 0 (a chain every fifth node); out
    // reads the chain's end and every node nobody else reads. Nodes off the chain move freely.
    GraphFile file;
    file.source = "mem";
    GraphBuilder b(file, "g", GraphKind::Forward);
    std::vector<NodeId> ids, outs;
    const NodeId p = b.add("p", OpKind::Placeholder, "p", {}, {file.add_storage(0, "cuda:0", 8)});
    for (int i = 0; i < 40; ++i) {
        std::vector<NodeId> in = {p};
        if (i % 5 == 0 && i > 0) in.push_back(ids[static_cast<std::size_t>(i - 5)]);
        const StorageId s = file.add_storage(static_cast<std::int64_t>(i + 1), "cuda:0", 8);
        ids.push_back(b.add("n" + std::to_string(i), OpKind::CallFunction, "f", in, std::vector<StorageId>{s}));
        if (i % 5 != 0 || i == 35) outs.push_back(ids.back());
    }
    b.add("out", OpKind::Output, "output", outs, std::vector<StorageId>{});
    const Graph& g = b.finish();
    std::vector<NodeId> order;
    for (std::size_t i = 0; i < g.size(); ++i) order.push_back(NodeId(static_cast<std::int32_t>(i)));
    const GraphLayout original(g, order);
    GraphLayout layout = original;
    // Each move: the node at `from` to `to` (positions; p is at 0, out last), then the steps of
    // the positions between them are those of a fresh layout's profile numbering.
    const std::vector<std::pair<const char*, std::size_t>> moves = {{"n3", 17}, {"n28", 2}, {"n11", 13},
                                                                    {"n38", 1}, {"n7", 33}, {"n3", 40}};
    for (const auto& [name, to] : moves) {
        const NodeId node = g.find(name);
        const auto from = static_cast<std::size_t>(std::find(order.begin(), order.end(), node) - order.begin());
        order.erase(order.begin() + static_cast<std::ptrdiff_t>(from));
        order.insert(order.begin() + static_cast<std::ptrdiff_t>(to), node);
        std::vector<NodeId> nodes;
        std::vector<std::int64_t> steps;
        for (std::size_t p = std::min(from, to); p <= std::max(from, to); ++p) {
            nodes.push_back(order[p]);
            steps.push_back(static_cast<std::int64_t>(2 * (p - 1) + 1)); // p - 1 running nodes before
        }
        layout = layout.with_steps(g, nodes, steps);
        expectSameButLanes(g, layout, order);
        for (std::size_t i = 0; i < g.size(); ++i)
            EXPECT_EQ(layout.lane(NodeId(static_cast<std::int32_t>(i))),
                      original.lane(NodeId(static_cast<std::int32_t>(i))));
    }
}
