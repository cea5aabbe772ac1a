#include "fxmem/layout.h"
#include "fxmem/model.h"

#include <gtest/gtest.h>

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
