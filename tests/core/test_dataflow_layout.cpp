// The layered dataflow layout (fxmem/dataflow_layout.h), checked without pixels: layers computed
// by hand on small graphs, bytes and repeats by hand, and on every drawing (hand-made, random,
// the bundled llama) no overlapping siblings, modules containing their children, edges running
// downward between boxes, expand moving nothing above the module's row and collapse restoring
// everything; the CLI's JSON equal to the library's drawing.
#include "cli_run.h"

#include "fxmem/analysis.h"
#include "fxmem/dataflow_layout.h"
#include "fxmem/dataflow_sizes.h"
#include "fxmem/io.h"
#include "fxmem/model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace fxmem;

namespace {

using Box = DataflowDrawing::Box;
using Point = DataflowDrawing::Point;
constexpr double kEps = 1e-6;

std::string box_name(const DataflowLayout& layout, const Graph& graph, const Box& b) {
    return b.kind == DataflowDrawing::Kind::Node ? graph.nodes[b.ref].name
                                                 : "[" + std::string(layout.tree()[b.ref].name) + "]";
}

std::map<std::string, Box> by_name(const DataflowLayout& layout, const Graph& graph, const DataflowDrawing& d) {
    std::map<std::string, Box> m;
    for (const Box& b : d.boxes) m[box_name(layout, graph, b)] = b;
    return m;
}

bool near(Point a, Point b) { return std::abs(a.x - b.x) < kEps && std::abs(a.y - b.y) < kEps; }

bool ancestor_or_self(const DataflowDrawing& d, std::uint32_t a, std::uint32_t b) {
    for (std::optional<std::uint32_t> x = b; x; x = d.boxes[*x].parent)
        if (*x == a) return true;
    return false;
}

// The invariants every drawing keeps. Returns the number of reversed edges.
std::size_t check_drawing(const DataflowDrawing& d, bool check_points_outside_boxes = true) {
    // Siblings never overlap (touching is allowed).
    std::map<std::optional<std::uint32_t>, std::vector<std::uint32_t>> children;
    for (std::uint32_t i = 0; i < d.boxes.size(); ++i) children[d.boxes[i].parent].push_back(i);
    for (auto& [parent, kids] : children) {
        std::sort(kids.begin(), kids.end(),
                  [&](std::uint32_t a, std::uint32_t b) { return d.boxes[a].x < d.boxes[b].x; });
        for (std::size_t i = 0; i < kids.size(); ++i) {
            const Box& a = d.boxes[kids[i]];
            for (std::size_t j = i + 1; j < kids.size() && d.boxes[kids[j]].x < a.x + a.w - kEps; ++j) {
                const Box& b = d.boxes[kids[j]];
                EXPECT_FALSE(a.y < b.y + b.h - kEps && b.y < a.y + a.h - kEps)
                    << "boxes " << kids[i] << " and " << kids[j] << " overlap";
            }
        }
        if (!parent) continue;
        const Box& p = d.boxes[*parent];
        EXPECT_EQ(p.kind, DataflowDrawing::Kind::Module);
        EXPECT_TRUE(p.expanded);
        for (const std::uint32_t k : kids) {
            const Box& c = d.boxes[k];
            EXPECT_TRUE(p.x <= c.x + kEps && c.x + c.w <= p.x + p.w + kEps && p.y <= c.y + kEps &&
                        c.y + c.h <= p.y + p.h + kEps)
                << "box " << k << " is not inside its module " << *parent;
        }
    }
    for (std::size_t i = 0; i < d.boxes.size(); ++i)
        EXPECT_TRUE(!d.boxes[i].parent || *d.boxes[i].parent < i) << "parent after child";
    // Edges: between visible boxes (never an expanded module), downward, from bottom to top.
    std::size_t reversed = 0;
    for (const DataflowDrawing::Edge& e : d.edges) {
        const Box &f = d.boxes.at(e.from), &t = d.boxes.at(e.to);
        EXPECT_FALSE(f.expanded || t.expanded);
        EXPECT_GE(e.points.size(), 2u);
        // A run straight down (or up) is one segment: no point in line with both its neighbours.
        for (std::size_t k = 1; k + 1 < e.points.size(); ++k)
            EXPECT_FALSE(e.points[k - 1].x == e.points[k].x && e.points[k].x == e.points[k + 1].x &&
                         (e.points[k].y - e.points[k - 1].y) * (e.points[k + 1].y - e.points[k].y) > 0)
                << "edge " << e.from << " -> " << e.to << ": point " << k << " is in line";
        if (e.reversed) {
            ++reversed;
            continue;
        }
        EXPECT_LE(f.y + f.h, t.y + kEps) << "edge " << e.from << " -> " << e.to << " does not go down";
        EXPECT_TRUE(near(e.points.front(), {f.x + f.w / 2, f.y + f.h})) << "edge " << e.from << " -> " << e.to;
        EXPECT_TRUE(near(e.points.back(), {t.x + t.w / 2, t.y})) << "edge " << e.from << " -> " << e.to;
        for (std::size_t k = 1; k < e.points.size(); ++k)
            EXPECT_LE(e.points[k - 1].y, e.points[k].y + kEps) << "edge " << e.from << " -> " << e.to << " goes up";
        if (!check_points_outside_boxes || e.straight) continue;
        // Its bends lie between boxes: inside none but its ends and their modules.
        for (std::size_t k = 1; k + 1 < e.points.size(); ++k)
            for (std::uint32_t b = 0; b < d.boxes.size(); ++b) {
                if (ancestor_or_self(d, b, e.from) || ancestor_or_self(d, b, e.to)) continue;
                const Box& x = d.boxes[b];
                const Point p = e.points[k];
                EXPECT_FALSE(p.x > x.x + kEps && p.x < x.x + x.w - kEps && p.y > x.y + kEps && p.y < x.y + x.h - kEps)
                    << "edge " << e.from << " -> " << e.to << " bends inside box " << b;
            }
    }
    return reversed;
}

double cross(Point o, Point a, Point b) { return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x); }

std::uint64_t geometric_crossings(const DataflowDrawing& d) {
    std::vector<std::pair<Point, Point>> segments;
    for (const DataflowDrawing::Edge& e : d.edges)
        for (std::size_t k = 1; k < e.points.size(); ++k) segments.emplace_back(e.points[k - 1], e.points[k]);
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < segments.size(); ++i)
        for (std::size_t j = i + 1; j < segments.size(); ++j) {
            const auto [p, q] = segments[i];
            const auto [r, s] = segments[j];
            const double d1 = cross(p, q, r), d2 = cross(p, q, s), d3 = cross(r, s, p), d4 = cross(r, s, q);
            n += ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) ? 1 : 0;
        }
    return n;
}

// p0, p1 -> a(p0) -> b(a, p1), c(a) -> d(b, c) -> out(d, a). No modules.
struct Flat {
    GraphFile file;
    Flat() {
        file.source = "mem";
        std::vector<StorageId> s;
        for (int i = 0; i < 6; ++i) s.push_back(file.add_storage(i, "cuda:0", 16 << i));
        GraphBuilder g(file, "g", GraphKind::Forward);
        g.add("p0", OpKind::Placeholder, "p0", {}, {s[0]});
        g.add("p1", OpKind::Placeholder, "p1", {}, {s[1]});
        g.add("a", OpKind::CallFunction, "f", {"p0"}, {s[2]});
        g.add("b", OpKind::CallFunction, "f", {"a", "p1"}, {s[3]});
        g.add("c", OpKind::CallFunction, "f", {"a"}, {s[4]});
        g.add("d", OpKind::CallFunction, "f", {"b", "c"}, {s[5]});
        g.add("out", OpKind::Output, "output", {"d", "a"}, {});
        g.finish();
    }
};

// x, w0, w1 -> blocks.0 (attn.mm, mlp.relu, add with x) -> blocks.1 (the same on blocks.0's
// output) -> loss -> output.
struct Blocks {
    GraphFile file;
    Blocks() {
        file.source = "mem";
        const StorageId sx = file.add_storage(0, "cuda:0", 100), w0 = file.add_storage(1, "cuda:0", 10),
                        w1 = file.add_storage(2, "cuda:0", 10), a0 = file.add_storage(3, "cuda:0", 200),
                        b0 = file.add_storage(4, "cuda:0", 300), r0 = file.add_storage(5, "cuda:0", 150),
                        a1 = file.add_storage(6, "cuda:0", 200), b1 = file.add_storage(7, "cuda:0", 300),
                        r1 = file.add_storage(8, "cuda:0", 150), sl = file.add_storage(9, "cuda:0", 4),
                        cpu = file.add_storage(10, "cpu", 1000);
        GraphBuilder g(file, "g", GraphKind::Forward);
        const auto node = [&](const char* name, OpKind op, const char* target,
                              std::initializer_list<std::string_view> in, std::initializer_list<StorageId> out,
                              const char* module) {
            g.begin_node(name, op, target);
            for (const std::string_view i : in) g.add_input(i);
            if (module) g.set_module(module, "M");
            if (out.size() == 1) {
                const std::int64_t shape[] = {1}, stride[] = {1};
                g.val_tensor(*out.begin(), "torch.float32", shape, stride, 0);
            }
            g.end_node();
        };
        node("x", OpKind::Placeholder, "x", {}, {sx}, nullptr);
        node("w0", OpKind::Placeholder, "w0", {}, {w0}, nullptr);
        node("w1", OpKind::Placeholder, "w1", {}, {w1}, nullptr);
        node("k", OpKind::GetAttr, "k", {}, {cpu}, nullptr);
        node("a0", OpKind::CallFunction, "mm", {"x", "w0"}, {a0}, "blocks.0.attn");
        node("b0", OpKind::CallFunction, "relu", {"a0", "k"}, {b0}, "blocks.0.mlp");
        node("r0", OpKind::CallFunction, "add", {"b0", "x"}, {r0}, "blocks.0");
        node("a1", OpKind::CallFunction, "mm", {"r0", "w1"}, {a1}, "blocks.1.attn");
        node("b1", OpKind::CallFunction, "relu", {"a1", "k"}, {b1}, "blocks.1.mlp");
        node("r1", OpKind::CallFunction, "add", {"b1", "r0"}, {r1}, "blocks.1");
        node("loss", OpKind::CallFunction, "sum", {"r1"}, {sl}, "");
        g.begin_node("output", OpKind::Output, "output");
        g.add_input("loss");
        g.end_node();
        g.finish();
    }
};

// Adds a node holding one float of `storage`, in `module` (null: none).
void add_node(GraphBuilder& g, const std::string& name, OpKind op, std::string_view target,
              const std::vector<std::string>& inputs, StorageId storage, const char* module) {
    g.begin_node(name, op, target);
    for (const std::string& in : inputs) g.add_input(in);
    if (module) g.set_module(module, "M");
    const std::int64_t shape[] = {1}, stride[] = {1};
    g.val_tensor(storage, "torch.float32", shape, stride, 0);
    g.end_node();
}

// "m.m.m...": a module `levels` deep.
std::string nested_module(int levels) {
    std::string name = "m";
    for (int i = 1; i < levels; ++i) name += ".m";
    return name;
}

} // namespace

TEST(DataflowLayout, LayersComputedByHand) {
    Flat f;
    const Graph& g = f.file.graphs[0];
    const ModuleTree tree(g);
    DataflowLayout layout(f.file, GraphId(0), tree);
    const DataflowDrawing d = layout.drawing();
    ASSERT_EQ(d.boxes.size(), g.size());
    // Longest path from the sources: p0 0, a 1, b c 2, d 3, out 4; p1 (a source) moves down to
    // just above its only user b: layer 1. A row is 32 high plus a 36 gap.
    const std::map<std::string, int> expected = {{"p0", 0}, {"p1", 1}, {"a", 1},  {"b", 2},
                                                 {"c", 2},  {"d", 3},  {"out", 4}};
    for (const auto& [name, b] : by_name(layout, g, d)) {
        SCOPED_TRACE(name);
        EXPECT_EQ(b.y, expected.at(name) * 68.0);
        EXPECT_EQ(b.w, 120.0);
        EXPECT_EQ(b.h, 32.0);
    }
    // a -> out spans layers 1 to 4: two dummies, each a bend at its row's top and bottom.
    const auto names = by_name(layout, g, d);
    for (const DataflowDrawing::Edge& e : d.edges)
        if (box_name(layout, g, d.boxes[e.from]) == "a" && box_name(layout, g, d.boxes[e.to]) == "out") {
            EXPECT_EQ(e.points.size(), 6u);
            EXPECT_EQ(e.points[1].y, 2 * 68.0);
            EXPECT_EQ(e.points[2].y, 2 * 68.0 + 32);
            EXPECT_EQ(e.bytes, 64); // a's storage: 16 << 2
        }
    EXPECT_EQ(d.edges.size(), 8u); // one per (producer, user)
    EXPECT_EQ(check_drawing(d), 0u);
    // The crossings the layout counts are the drawing's: pairs of polyline segments that cross
    // properly (a shared end is not a crossing).
    EXPECT_EQ(layout.crossings(), geometric_crossings(d));
}

TEST(DataflowLayout, ModulesCollapsedAtTheGivenDepth) {
    Blocks b;
    const Graph& g = b.file.graphs[0];
    const ModuleTree tree(g);
    const StorageMask counted = counted_for(b.file, DeviceFilter::NonCpu);
    DataflowOptions options;
    options.depth = 1;
    options.counted = &counted;
    DataflowLayout layout(b.file, GraphId(0), tree, options);
    const DataflowDrawing d = layout.drawing();
    const auto boxes = by_name(layout, g, d);
    // Each input is drawn in the innermost module running all its users: x (read by a0 and r0)
    // in blocks.0, w0 in blocks.0.attn, w1 in blocks.1.attn, k (both relus) in blocks.
    EXPECT_EQ(layout.module_of(g.find("x")), tree.find("blocks.0"));
    EXPECT_EQ(layout.module_of(g.find("w0")), tree.find("blocks.0.attn"));
    EXPECT_EQ(layout.module_of(g.find("w1")), tree.find("blocks.1.attn"));
    EXPECT_EQ(layout.module_of(g.find("k")), tree.find("blocks"));
    // loss reads blocks.1's output, but the graph only returns it: the model's result, not a
    // part of blocks.1.
    EXPECT_EQ(layout.module_of(g.find("loss")), ModuleTree::kRoot);
    EXPECT_THROW(layout.module_of(NodeId(static_cast<std::int32_t>(g.size()))), PreconditionError);
    // Root items: the box of "blocks", loss, output.
    ASSERT_EQ(d.boxes.size(), 3u);
    ASSERT_TRUE(boxes.count("[blocks]"));
    EXPECT_FALSE(boxes.at("[blocks]").expanded);
    // blocks (a source now) on layer 0, loss 1, output 2; the module box is 44 high.
    EXPECT_EQ(boxes.at("[blocks]").y, 0);
    EXPECT_EQ(boxes.at("loss").y, 44 + 36);
    EXPECT_EQ(boxes.at("output").y, 44 + 36 + 68);
    // Bytes: blocks -> loss carries r1.
    std::map<std::pair<std::string, std::string>, std::int64_t> bytes;
    for (const DataflowDrawing::Edge& e : d.edges)
        bytes[{box_name(layout, g, d.boxes[e.from]), box_name(layout, g, d.boxes[e.to])}] = e.bytes;
    const std::map<std::pair<std::string, std::string>, std::int64_t> expected = {{{"[blocks]", "loss"}, 150},
                                                                                  {{"loss", "output"}, 4}};
    EXPECT_EQ(bytes, expected);
    // Allocated: a0 + b0 + r0 per block.
    EXPECT_EQ(layout.allocated_bytes(tree.find("blocks.0")), 650);
    EXPECT_EQ(layout.allocated_bytes(tree.find("blocks.1")), 650);
    EXPECT_EQ(layout.allocated_bytes(tree.find("blocks")), 1300);
    EXPECT_EQ(layout.allocated_bytes(tree.find("blocks.0.attn")), 200);
    EXPECT_EQ(layout.allocated_bytes(ModuleTree::kRoot), 1304);
    // blocks.0 and blocks.1: mm, relu, add at the same depths (the inputs inside blocks.0, x and
    // w0, against w1 alone in blocks.1, do not count): one run of two.
    const ModuleRepeat r = layout.repeat(tree.find("blocks.1"));
    EXPECT_EQ(r.count, 2u);
    EXPECT_EQ(r.index, 1u);
    EXPECT_EQ(r.first, tree.find("blocks.0"));
    EXPECT_EQ(r.last, tree.find("blocks.1"));
    EXPECT_EQ(layout.repeat(tree.find("blocks.0.attn")).count, 1u); // attn and mlp differ
    EXPECT_EQ(check_drawing(d), 0u);
    EXPECT_FALSE(layout.laid_out(tree.find("blocks")));
}

TEST(DataflowLayout, ExpandedModuleHoldsItsChildrenInLayers) {
    Blocks b;
    const Graph& g = b.file.graphs[0];
    const ModuleTree tree(g);
    DataflowOptions options;
    options.depth = 2;
    DataflowLayout layout(b.file, GraphId(0), tree, options);
    const DataflowDrawing d = layout.drawing();
    const auto boxes = by_name(layout, g, d);
    ASSERT_TRUE(boxes.at("[blocks]").expanded);
    const Box &b0 = boxes.at("[blocks.0]"), &b1 = boxes.at("[blocks.1]");
    EXPECT_FALSE(b0.expanded);
    // Inside blocks: the entry row (empty), k (its users' inputs: sunk to just above blocks.0),
    // blocks.0, blocks.1, the exit.
    EXPECT_EQ(boxes.at("k").y, boxes.at("[blocks]").y + 28 + 36);
    EXPECT_EQ(b0.y, boxes.at("k").y + 32 + 36);
    EXPECT_EQ(b1.y, b0.y + 44 + 36);
    EXPECT_EQ(check_drawing(d), 0u);
    // k -> blocks.1 passes blocks.0's row beside it.
    int seen = 0;
    for (const DataflowDrawing::Edge& e : d.edges) {
        if (box_name(layout, g, d.boxes[e.from]) != "k" || box_name(layout, g, d.boxes[e.to]) != "[blocks.1]") continue;
        ++seen;
        const bool passes_beside = std::any_of(e.points.begin(), e.points.end(), [&](const Point& p) {
            return p.y == b0.y && (p.x <= b0.x || p.x >= b0.x + b0.w);
        });
        EXPECT_TRUE(passes_beside);
    }
    EXPECT_EQ(seen, 1);
}

// Nodes without a module (inputs, the partitioner's and autograd's own nodes) are drawn where
// the neighbours that run in modules run; by hand:
//   x (read in m.0.lin and m.1)  -> m          w (m.0.lin, and returned) -> m.0.lin
//   t = a view of a0, returned  -> m.0.lin    s (a0 in m.0.lin -> a1 in m.1) -> m
//   c (a1 -> d, d has no module) -> m.1        e (a1 in m.1 and h in n) -> the root
//   d (returned only, not a view: the result)  -> the root
TEST(DataflowLayout, LooseNodesAreDrawnWhereTheirNeighboursRun) {
    GraphFile file;
    file.source = "mem";
    const StorageId sx = file.add_storage(0, "cuda:0", 1), sw = file.add_storage(1, "cuda:0", 2),
                    sa0 = file.add_storage(2, "cuda:0", 10), ss = file.add_storage(3, "cuda:0", 20),
                    sa1 = file.add_storage(4, "cuda:0", 30), sc = file.add_storage(5, "cuda:0", 40),
                    sd = file.add_storage(6, "cuda:0", 50), se = file.add_storage(7, "cuda:0", 60),
                    sh = file.add_storage(8, "cuda:0", 70);
    GraphBuilder g(file, "g", GraphKind::Forward);
    const auto node = [&](const char* name, OpKind op, const char* target, std::vector<std::string> in, StorageId out,
                          const char* module) { add_node(g, name, op, target, in, out, module); };
    node("x", OpKind::Placeholder, "x", {}, sx, nullptr);
    node("w", OpKind::Placeholder, "w", {}, sw, nullptr);
    node("h", OpKind::CallFunction, "full", {}, sh, "n");
    node("a0", OpKind::CallFunction, "mm", {"x", "w"}, sa0, "m.0.lin");
    node("t", OpKind::CallFunction, "permute", {"a0"}, sa0, nullptr);
    node("s", OpKind::CallFunction, "relu", {"a0"}, ss, nullptr);
    node("a1", OpKind::CallFunction, "mul", {"s", "x"}, sa1, "m.1");
    node("c", OpKind::CallFunction, "neg", {"a1"}, sc, nullptr);
    node("e", OpKind::CallFunction, "add", {"a1", "h"}, se, nullptr);
    node("d", OpKind::CallFunction, "add", {"c", "e"}, sd, nullptr);
    g.begin_node("output", OpKind::Output, "output");
    for (const char* o : {"d", "t", "w"}) g.add_input(o);
    g.end_node();
    g.finish();
    const Graph& graph = file.graphs[0];
    const ModuleTree tree(graph);
    DataflowOptions options;
    options.depth = 1;
    DataflowLayout layout(file, GraphId(0), tree, options);
    const std::map<std::string, std::string> expected = {
        {"x", "m"},    {"w", "m.0.lin"}, {"h", "n"}, {"a0", "m.0.lin"}, {"t", "m.0.lin"}, {"s", "m"},
        {"a1", "m.1"}, {"c", "m.1"},     {"e", ""},  {"d", ""},         {"output", ""}};
    for (const auto& [name, module] : expected) {
        SCOPED_TRACE(name);
        EXPECT_EQ(tree[layout.module_of(graph.find(name))].name, module);
        // The tree itself is the model's: only the drawing moves them.
        if (name != "h" && name != "a0" && name != "a1") {
            EXPECT_EQ(tree.node_module(graph.find(name)), ModuleTree::kRoot);
        }
    }
    // At depth 1: m and n collapsed, e, d and the output at the top level.
    const DataflowDrawing d = layout.drawing();
    const auto boxes = by_name(layout, graph, d);
    std::set<std::string> names;
    for (const auto& [name, box] : boxes) names.insert(name);
    EXPECT_EQ(names, (std::set<std::string>{"[m]", "[n]", "e", "d", "output"}));
    EXPECT_EQ(check_drawing(d), 0u);
    // Allocated bytes stay by the nodes' own modules, as the breakdown counts them: m allocates
    // a0 and a1 only (s and c are the root's).
    EXPECT_EQ(layout.allocated_bytes(tree.find("m")), 10 + 30);
    EXPECT_EQ(layout.allocated_bytes(tree.find("n")), 70);
    EXPECT_EQ(layout.allocated_bytes(ModuleTree::kRoot), 10 + 20 + 30 + 40 + 50 + 60 + 70);
    // Expanded all the way, every box still sits inside its module's.
    layout.expand(tree.find("m.0.lin"));
    layout.expand(tree.find("m.1"));
    const DataflowDrawing open = layout.drawing();
    EXPECT_EQ(check_drawing(open), 0u);
    const auto inside = by_name(layout, graph, open);
    const Box &lin = inside.at("[m.0.lin]"), &t = inside.at("t"), &c = inside.at("c");
    EXPECT_TRUE(open.boxes[*t.parent].ref == tree.find("m.0.lin") && t.x >= lin.x && t.x + t.w <= lin.x + lin.w);
    EXPECT_EQ(open.boxes[*c.parent].ref, tree.find("m.1"));
}

TEST(DataflowLayout, ExpandMovesNothingAboveAndCollapseRestores) {
    Blocks b;
    const Graph& g = b.file.graphs[0];
    const ModuleTree tree(g);
    DataflowOptions options;
    options.depth = 2;
    DataflowLayout layout(b.file, GraphId(0), tree, options);
    const DataflowDrawing before = layout.drawing();
    const std::uint32_t m = tree.find("blocks.1");
    layout.expand(m);
    EXPECT_TRUE(layout.laid_out(m));
    EXPECT_FALSE(layout.laid_out(tree.find("blocks.1.attn")));
    const DataflowDrawing after = layout.drawing();
    check_drawing(after);
    const auto was = by_name(layout, g, before), is = by_name(layout, g, after);
    const Box& mb = was.at("[blocks.1]");
    for (const auto& [name, box] : was) {
        if (name == "[blocks.1]" || name == "[blocks]") continue; // the module and its ancestor grow
        SCOPED_TRACE(name);
        ASSERT_TRUE(is.count(name));
        if (box.y < mb.y) {
            EXPECT_EQ(is.at(name).x, box.x);
            EXPECT_EQ(is.at(name).y, box.y);
        } else {
            EXPECT_EQ(is.at(name).x, box.x); // rows below only move down
            EXPECT_GE(is.at(name).y, box.y);
        }
    }
    EXPECT_TRUE(is.count("[blocks.1.attn]") && is.count("r1"));
    layout.collapse(m);
    const DataflowDrawing again = layout.drawing();
    ASSERT_EQ(again.boxes.size(), before.boxes.size());
    for (std::size_t i = 0; i < before.boxes.size(); ++i) {
        EXPECT_NEAR(again.boxes[i].x, before.boxes[i].x, kEps);
        EXPECT_NEAR(again.boxes[i].y, before.boxes[i].y, kEps);
        EXPECT_EQ(again.boxes[i].w, before.boxes[i].w);
        EXPECT_EQ(again.boxes[i].h, before.boxes[i].h);
    }
    ASSERT_EQ(again.edges.size(), before.edges.size());
    // Expanding a module under a collapsed one opens the ancestor too.
    DataflowOptions shallow;
    shallow.depth = 1;
    DataflowLayout l1(b.file, GraphId(0), tree, shallow);
    l1.expand(tree.find("blocks.0.mlp"));
    EXPECT_TRUE(l1.laid_out(tree.find("blocks")) && l1.laid_out(tree.find("blocks.0")));
    EXPECT_TRUE(l1.laid_out(tree.find("blocks.0.mlp")));
    EXPECT_FALSE(l1.laid_out(tree.find("blocks.1")));
    EXPECT_EQ(check_drawing(l1.drawing()), 0u);
    EXPECT_THROW(l1.collapse(ModuleTree::kRoot), PreconditionError);
    EXPECT_THROW(l1.expand(1000), PreconditionError);
}

// Random DAGs with random nested modules: cycles among lifted modules are common, so some edges
// are drawn reversed; everything else holds at every depth and after expands.
TEST(DataflowLayout, RandomGraphsKeepTheInvariants) {
    std::mt19937 rng(7);
    for (int round = 0; round < 12; ++round) {
        SCOPED_TRACE(round);
        GraphFile file;
        file.source = "mem";
        GraphBuilder g(file, "g", GraphKind::Forward);
        const int n = 40 + round * 15;
        std::vector<std::string> names;
        for (int i = 0; i < n; ++i) {
            const StorageId s = file.add_storage(i, "cuda:0", 8 + i);
            names.push_back("n" + std::to_string(i));
            g.begin_node(names.back(), i < 4 ? OpKind::Placeholder : OpKind::CallFunction,
                         "t" + std::to_string(rng() % 3));
            if (i >= 4) {
                std::vector<int> in;
                for (int k = 0; k < 1 + static_cast<int>(rng() % 3); ++k) in.push_back(static_cast<int>(rng() % i));
                std::sort(in.begin(), in.end());
                in.erase(std::unique(in.begin(), in.end()), in.end());
                for (const int k : in) g.add_input(names[static_cast<std::size_t>(k)]);
                // Mostly contiguous blocks, some nodes elsewhere (interleaving makes cycles).
                const int block = rng() % 5 == 0 ? static_cast<int>(rng() % 4) : i * 4 / n;
                std::string module = "b" + std::to_string(block);
                if (rng() % 2) module += ".s" + std::to_string(rng() % 3);
                if (rng() % 3 == 0) module += ".t" + std::to_string(rng() % 2);
                g.set_module(module, "M");
            }
            const std::int64_t shape[] = {1}, stride[] = {1};
            g.val_tensor(s, "torch.float32", shape, stride, 0);
            g.end_node();
        }
        g.finish();
        const ModuleTree tree(file.graphs[0]);
        for (std::uint32_t depth = 1; depth <= 4; ++depth) {
            DataflowOptions options;
            options.depth = depth;
            DataflowLayout layout(file, GraphId(0), tree, options);
            const DataflowDrawing d = layout.drawing();
            check_drawing(d);
            for (std::uint32_t m = 1; m < tree.size(); m += 3) layout.expand(m);
            check_drawing(layout.drawing());
        }
    }
}

TEST(DataflowLayout, LlamaAtEveryDepth) {
    const GraphFile file = load_file(std::string(FXMEM_TEST_DATA) + "/../../resources/examples/llama.fxmem.json");
    for (std::size_t gi = 0; gi < file.graphs.size(); ++gi) {
        const ModuleTree tree(file.graphs[gi]);
        SCOPED_TRACE(file.graphs[gi].name);
        for (std::uint32_t depth = 1; depth <= tree.max_depth() + 1; ++depth) {
            SCOPED_TRACE(depth);
            DataflowOptions options;
            options.depth = depth;
            DataflowLayout layout(file, GraphId(static_cast<std::int32_t>(gi)), tree, options);
            const DataflowDrawing d = layout.drawing();
            check_drawing(d, depth <= 2);
            // The forward's modules run one after another: nothing is drawn upward there.
            if (file.graphs[gi].kind == GraphKind::Forward) {
                for (const DataflowDrawing::Edge& e : d.edges) EXPECT_FALSE(e.reversed);
            }
        }
        // The layers repeat: llama's blocks are equal siblings.
        const std::uint32_t layer0 = tree.find("layers.0");
        if (layer0 != ModuleTree::npos && file.graphs[gi].kind == GraphKind::Forward) {
            DataflowLayout layout(file, GraphId(static_cast<std::int32_t>(gi)), tree);
            EXPECT_GE(layout.repeat(layer0).count, 2u);
        }
    }
}

TEST(DataflowLayout, CliJsonIsTheLibrarysDrawing) {
    const std::string path = std::string(FXMEM_TEST_DATA) + "/../../resources/examples/llama.fxmem.json";
    const GraphFile file = load_file(path);
    const GraphId gi = *file.find_graph(file.graphs[0].name);
    const Graph& graph = file.graph(gi);
    const ModuleTree tree(graph);
    const fxmem_test::CliRun run =
        fxmem_test::cli({"layout", path, "--graph", graph.name, "--depth", "2", "--expand", "layers.1", "--json"});
    ASSERT_EQ(run.status, 0) << run.err;
    const nlohmann::json j = run.json();
    const StorageMask counted = counted_for(file, DeviceFilter::NonCpu);
    DataflowOptions options;
    options.depth = 2;
    options.counted = &counted;
    use_drawn_sizes(options, graph); // the app's boxes, which the CLI exports
    DataflowLayout layout(file, gi, tree, options);
    layout.expand(tree.find("layers.1"));
    const DataflowDrawing d = layout.drawing();
    ASSERT_EQ(j.at("boxes").size(), d.boxes.size());
    for (std::size_t i = 0; i < d.boxes.size(); ++i) {
        const nlohmann::json& b = j["boxes"][i];
        const Box& e = d.boxes[i];
        EXPECT_EQ(b.at("id"), i);
        EXPECT_EQ(b.at("kind"), e.kind == DataflowDrawing::Kind::Node ? "node" : "module");
        EXPECT_EQ(b.at("name"),
                  e.kind == DataflowDrawing::Kind::Node ? graph.nodes[e.ref].name : std::string(tree[e.ref].name));
        if (!e.parent)
            EXPECT_TRUE(b.at("parent").is_null());
        else
            EXPECT_EQ(b.at("parent"), *e.parent);
        EXPECT_EQ(b.at("x").get<double>(), e.x);
        EXPECT_EQ(b.at("y").get<double>(), e.y);
        EXPECT_EQ(b.at("w").get<double>(), e.w);
        EXPECT_EQ(b.at("h").get<double>(), e.h);
    }
    ASSERT_EQ(j.at("edges").size(), d.edges.size());
    for (std::size_t i = 0; i < d.edges.size(); ++i) {
        const nlohmann::json& e = j["edges"][i];
        EXPECT_EQ(e.at("from"), d.edges[i].from);
        EXPECT_EQ(e.at("to"), d.edges[i].to);
        EXPECT_EQ(e.at("bytes"), d.edges[i].bytes);
        ASSERT_EQ(e.at("points").size(), d.edges[i].points.size());
        for (std::size_t k = 0; k < d.edges[i].points.size(); ++k) {
            EXPECT_EQ(e["points"][k][0].get<double>(), d.edges[i].points[k].x);
            EXPECT_EQ(e["points"][k][1].get<double>(), d.edges[i].points[k].y);
        }
    }
}

TEST(DataflowLayout, CliRefusesWhatItCannotDo) {
    const std::string path = std::string(FXMEM_TEST_DATA) + "/good/modules.json";
    const fxmem_test::CliRun unknown = fxmem_test::cli({"layout", path, "--graph", "fwd", "--expand", "nope"});
    EXPECT_EQ(unknown.status, 1);
    EXPECT_NE(unknown.err.find("--expand: no module 'nope'"), std::string::npos) << unknown.err;
    const fxmem_test::CliRun zero = fxmem_test::cli({"layout", path, "--graph", "fwd", "--depth", "0"});
    EXPECT_EQ(zero.status, 2);
    EXPECT_NE(zero.err.find("--depth must be from 1"), std::string::npos) << zero.err;
}

// A weight that graph order puts after the module's first node feeds it: no cycle, nothing
// reversed. m1 -> m2 -> m1 again is a cycle: exactly one of its two lifted edges is reversed.
TEST(DataflowLayout, OnlyRealCyclesAreReversed) {
    GraphFile file;
    file.source = "mem";
    GraphBuilder g(file, "g", GraphKind::Forward);
    int next = 0;
    const auto node = [&](const char* name, OpKind op, std::initializer_list<std::string_view> in, const char* module) {
        g.begin_node(name, op, "t");
        for (const std::string_view i : in) g.add_input(i);
        if (module) g.set_module(module, "M");
        const std::int64_t shape[] = {1}, stride[] = {1};
        g.val_tensor(file.add_storage(next++, "cuda:0", 4), "torch.float32", shape, stride, 0);
        g.end_node();
    };
    node("x", OpKind::Placeholder, {}, nullptr);
    node("a", OpKind::CallFunction, {"x"}, "m1");
    node("w", OpKind::Placeholder, {}, nullptr); // after m1's first node
    node("b", OpKind::CallFunction, {"a", "w"}, "m1");
    node("c", OpKind::CallFunction, {"b", "x", "w"}, "m2"); // x and w read in both: drawn at the top
    node("d", OpKind::CallFunction, {"c"}, "m1");
    g.finish();
    const ModuleTree tree(file.graphs[0]);
    const DataflowLayout layout(file, GraphId(0), tree);
    const DataflowDrawing d = layout.drawing();
    std::size_t reversed = 0, from_inputs = 0;
    for (const DataflowDrawing::Edge& e : d.edges) {
        const std::string from = box_name(layout, file.graphs[0], d.boxes[e.from]);
        const std::string to = box_name(layout, file.graphs[0], d.boxes[e.to]);
        if (from == "w" || from == "x") {
            EXPECT_FALSE(e.reversed) << from;
            ++from_inputs;
        }
        reversed += e.reversed ? 1 : 0;
        if (e.reversed) {
            EXPECT_EQ(from + to, "[m2][m1]"); // m1 comes first in graph order
        }
    }
    EXPECT_EQ(reversed, 1u);
    EXPECT_EQ(from_inputs, 4u); // x and w, each into m1 and m2
    check_drawing(d);
}

// A chain of 400 with 30 edges from its start to its end: more dummies than the budget
// (8 per item and edge + 1024), so the longest edges go straight, and only the longest.
TEST(DataflowLayout, LongestEdgesGoStraightPastTheDummyBudget) {
    GraphFile file;
    file.source = "mem";
    GraphBuilder g(file, "g", GraphKind::Forward);
    const std::int64_t shape[] = {1}, stride[] = {1};
    std::vector<std::string> names;
    for (int i = 0; i < 400; ++i) {
        names.push_back("n" + std::to_string(i));
        g.begin_node(names.back(), i == 0 ? OpKind::Placeholder : OpKind::CallFunction, "t");
        if (i > 0) g.add_input(names[static_cast<std::size_t>(i - 1)]);
        if (i == 399)
            for (int k = 0; k < 30; ++k) g.add_input(names[static_cast<std::size_t>(k)]);
        g.val_tensor(file.add_storage(i, "cuda:0", 4), "torch.float32", shape, stride, 0);
        g.end_node();
    }
    g.finish();
    const DataflowLayout layout(file, GraphId(0), ModuleTree(file.graphs[0]));
    const DataflowDrawing d = layout.drawing();
    double longest_routed = 0, shortest_straight = 1e300;
    std::size_t straight = 0;
    for (const DataflowDrawing::Edge& e : d.edges) {
        const double span = d.boxes[e.to].y - d.boxes[e.from].y;
        if (e.straight) {
            ++straight;
            EXPECT_EQ(e.points.size(), 2u);
            shortest_straight = std::min(shortest_straight, span);
        } else {
            longest_routed = std::max(longest_routed, span);
        }
    }
    // 30 edges of spans 399..370 layers (10,905 dummies) against a budget of 8 * (400 + 428) + 1024.
    EXPECT_GT(straight, 0u);
    EXPECT_LT(straight, 30u);
    EXPECT_LT(longest_routed, shortest_straight);
    check_drawing(d);
}

// A hostile nesting: 200 nodes in a module 3,000 levels deep, every level open. No recursion
// (the stack would overflow), and each open level finds a node's child by the preorder, not by
// walking up: laid out and drawn, every box inside its parent.
TEST(DataflowLayout, DeepNestingIsLaidOutLevelByLevel) {
    GraphFile file;
    file.source = "mem";
    GraphBuilder g(file, "g", GraphKind::Forward);
    const std::string module = nested_module(3000);
    for (int i = 0; i < 200; ++i)
        add_node(g, "n" + std::to_string(i), OpKind::CallFunction, "f",
                 i > 0 ? std::vector<std::string>{"n" + std::to_string(i - 1)} : std::vector<std::string>{},
                 file.add_storage(i, "cuda:0", 4), module.c_str());
    g.finish();
    const ModuleTree tree(file.graphs[0]);
    DataflowOptions options;
    options.depth = 4000;
    const DataflowLayout layout(file, GraphId(0), tree, options);
    const DataflowDrawing d = layout.drawing();
    EXPECT_EQ(d.boxes.size(), 200u + 3000u);
    EXPECT_EQ(d.edges.size(), 199u);
    EXPECT_EQ(check_drawing(d, false), 0u);
}

// Loose nodes in a hostile nesting: 100 nodes 3,000 levels deep, one in m.x (depth 2), an input
// read only by the deep ones, and 100 top-level nodes each reading a deep node and the m.x one.
// The input is drawn in the deepest module, the 100 in m (the innermost module holding both).
TEST(DataflowLayout, DeepNestingLooseNodesMeetWhereTheirNeighboursDo) {
    GraphFile file;
    file.source = "mem";
    GraphBuilder g(file, "g", GraphKind::Forward);
    const std::string deep = nested_module(3000);
    int storage = 0;
    const auto node = [&](const std::string& name, OpKind op, const std::vector<std::string>& in,
                          const std::string& module) {
        add_node(g, name, op, op == OpKind::Placeholder ? name : "f", in, file.add_storage(storage++, "cuda:0", 4),
                 module.empty() ? nullptr : module.c_str());
    };
    node("w", OpKind::Placeholder, {}, "");
    for (int i = 0; i < 100; ++i)
        node("d" + std::to_string(i), OpKind::CallFunction,
             i == 0 ? std::vector<std::string>{"w"} : std::vector<std::string>{"d" + std::to_string(i - 1), "w"}, deep);
    node("s", OpKind::CallFunction, {}, "m.x");
    for (int i = 0; i < 100; ++i)
        node("t" + std::to_string(i), OpKind::CallFunction, {"d" + std::to_string(i), "s"}, "");
    g.finish();
    const Graph& graph = file.graphs[0];
    const ModuleTree tree(graph);
    DataflowOptions options;
    options.depth = 1;
    const DataflowLayout layout(file, GraphId(0), tree, options);
    EXPECT_EQ(layout.module_of(graph.find("w")), tree.find(deep));
    for (int i = 0; i < 100; ++i) EXPECT_EQ(layout.module_of(graph.find("t" + std::to_string(i))), tree.find("m"));
    // Collapsed at depth 1, everything is inside m's box.
    const DataflowDrawing d = layout.drawing();
    ASSERT_EQ(d.boxes.size(), 1u);
    EXPECT_EQ(tree[d.boxes[0].ref].name, "m");
    EXPECT_EQ(check_drawing(d, false), 0u);
}
