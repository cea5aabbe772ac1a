// fxmem-dataflow-bench [FILE...] [--nodes 100000] [--dot DIR] [--dump DIR] [--no-geom] [--cpu-time]
//                      [--count-plain FILE.plain]
// The layered dataflow layout (fxmem/dataflow_layout.h) timed on each graph of each FILE (default:
// the bundled llama and, when it is on disk, an 8B-shaped capture) and on two generated 100k-node
// graphs: fxmem_synth's forward (no modules) and a model of repeated blocks with modules. Prints,
// per graph, the collapsed overview (at the model's layer depth: construction and drawing), one
// expand and collapse, and the full layout (every module open), with the crossings of each.
// --dot DIR also writes each graph's overview and full graph as DOT (boxes of the same size, in
// points) for Graphviz's dot; --count-plain counts the crossings of dot's -Tplain output the way
// the drawing's are counted here (proper intersections of polyline segments; dot's spline
// control polygons). --dump DIR writes each drawing (overview, expanded, collapsed again, full)
// exactly (hex floats), so that a change meant to keep the layout can be checked with cmp;
// --no-geom skips the geometric crossing counts; --cpu-time times by the thread's CPU time.
// Asserts nothing timed; exit 1 on a load error, 2 on bad usage.
#include "fxmem/dataflow_layout.h"
#include "fxmem/error.h"
#include "fxmem/io.h"
#include "synth.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <time.h>
#include <vector>

namespace {

using fxmem::DataflowDrawing;
using Point = DataflowDrawing::Point;
using Segment = std::pair<Point, Point>;

bool g_cpu_time = false; // --cpu-time: the thread's CPU time, not wall time (a loaded, shared machine)

double now_ms() {
    if (g_cpu_time) {
        timespec ts{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
    }
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double ms_since(double t) { return now_ms() - t; }

// A model of `blocks` repeated blocks under "layers.N" (attention: norm, q/k/v, scores, softmax,
// mix, projection, residual; mlp: norm, up, gate, act, mul, down, residual), with their weights
// as placeholders, an embedding before and a head and loss after.
fxmem::GraphFile blocks_graph(std::size_t blocks) {
    fxmem::GraphFile file;
    file.source = "blocks";
    fxmem::GraphBuilder g(file, "forward", fxmem::GraphKind::Forward);
    std::int64_t next_storage = 0;
    const auto storage = [&](std::int64_t bytes) { return file.add_storage(next_storage++, "cuda:0", bytes); };
    const auto add = [&](const std::string& name, fxmem::OpKind op, const char* target,
                         const std::vector<std::string>& inputs, std::int64_t bytes, const std::string& module) {
        g.begin_node(name, op, target);
        for (const std::string& i : inputs) g.add_input(i);
        if (!module.empty()) g.set_module(module, "M");
        const std::int64_t shape[] = {bytes / 2}, stride[] = {1};
        g.val_tensor(storage(bytes), "torch.bfloat16", shape, stride, 0);
        g.end_node();
    };
    using fxmem::OpKind;
    add("tokens", OpKind::Placeholder, "tokens", {}, 1 << 14, "");
    add("embed_w", OpKind::Placeholder, "embed_w", {}, 1 << 26, "");
    add("h", OpKind::CallFunction, "aten.embedding.default", {"embed_w", "tokens"}, 1 << 24, "embed");
    std::string x = "h";
    for (std::size_t b = 0; b < blocks; ++b) {
        const std::string p = "l" + std::to_string(b) + "_", m = "layers." + std::to_string(b);
        for (const char* w : {"wq", "wk", "wv", "wo", "w1", "w2", "w3"})
            add(p + w, OpKind::Placeholder, w, {}, 1 << 25, "");
        add(p + "n1", OpKind::CallFunction, "aten.rms_norm.default", {x}, 1 << 24, m + ".attn_norm");
        add(p + "q", OpKind::CallFunction, "aten.mm.default", {p + "n1", p + "wq"}, 1 << 24, m + ".attn.q_proj");
        add(p + "k", OpKind::CallFunction, "aten.mm.default", {p + "n1", p + "wk"}, 1 << 22, m + ".attn.k_proj");
        add(p + "v", OpKind::CallFunction, "aten.mm.default", {p + "n1", p + "wv"}, 1 << 22, m + ".attn.v_proj");
        add(p + "s", OpKind::CallFunction, "aten.bmm.default", {p + "q", p + "k"}, 1 << 26, m + ".attn");
        add(p + "sm", OpKind::CallFunction, "aten._softmax.default", {p + "s"}, 1 << 26, m + ".attn");
        add(p + "av", OpKind::CallFunction, "aten.bmm.default", {p + "sm", p + "v"}, 1 << 24, m + ".attn");
        add(p + "o", OpKind::CallFunction, "aten.mm.default", {p + "av", p + "wo"}, 1 << 24, m + ".attn.o_proj");
        add(p + "r1", OpKind::CallFunction, "aten.add.Tensor", {x, p + "o"}, 1 << 24, m);
        add(p + "n2", OpKind::CallFunction, "aten.rms_norm.default", {p + "r1"}, 1 << 24, m + ".mlp_norm");
        add(p + "up", OpKind::CallFunction, "aten.mm.default", {p + "n2", p + "w1"}, 1 << 26, m + ".mlp.up_proj");
        add(p + "gate", OpKind::CallFunction, "aten.mm.default", {p + "n2", p + "w3"}, 1 << 26, m + ".mlp.gate_proj");
        add(p + "act", OpKind::CallFunction, "aten.silu.default", {p + "gate"}, 1 << 26, m + ".mlp");
        add(p + "mul", OpKind::CallFunction, "aten.mul.Tensor", {p + "act", p + "up"}, 1 << 26, m + ".mlp");
        add(p + "down", OpKind::CallFunction, "aten.mm.default", {p + "mul", p + "w2"}, 1 << 24, m + ".mlp.down_proj");
        add(p + "r2", OpKind::CallFunction, "aten.add.Tensor", {p + "r1", p + "down"}, 1 << 24, m);
        x = p + "r2";
    }
    add("head_w", OpKind::Placeholder, "head_w", {}, 1 << 26, "");
    add("logits", OpKind::CallFunction, "aten.mm.default", {x, "head_w"}, 1 << 30, "lm_head");
    add("loss", OpKind::CallFunction, "aten.nll_loss.default", {"logits", "tokens"}, 4, "");
    g.begin_node("output", OpKind::Output, "output");
    g.add_input("loss");
    g.end_node();
    g.finish();
    return file;
}

// Proper crossings of segments (shared ends do not count), candidates found by x overlap.
std::uint64_t segment_crossings(std::vector<Segment> s) {
    for (Segment& x : s)
        if (x.first.x > x.second.x) std::swap(x.first, x.second);
    std::sort(s.begin(), s.end(), [](const Segment& a, const Segment& b) { return a.first.x < b.first.x; });
    const auto cross = [](Point o, Point a, Point b) { return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x); };
    const auto opposite = [](double a, double b) { return (a > 1e-9 && b < -1e-9) || (a < -1e-9 && b > 1e-9); };
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto [p, q] = s[i];
        const double ylo = std::min(p.y, q.y), yhi = std::max(p.y, q.y);
        for (std::size_t j = i + 1; j < s.size() && s[j].first.x <= q.x; ++j) {
            const auto [r, t] = s[j];
            if (std::max(r.y, t.y) < ylo || std::min(r.y, t.y) > yhi) continue;
            n += opposite(cross(p, q, r), cross(p, q, t)) && opposite(cross(r, t, p), cross(r, t, q)) ? 1 : 0;
        }
    }
    return n;
}

std::vector<Segment> segments_of(const DataflowDrawing& d) {
    std::vector<Segment> s;
    for (const DataflowDrawing::Edge& e : d.edges)
        for (std::size_t k = 1; k < e.points.size(); ++k) s.emplace_back(e.points[k - 1], e.points[k]);
    return s;
}

// The visible boxes and edges as DOT: every box its size in points (72 per inch), edges between them.
void write_dot(const DataflowDrawing& d, const std::string& path) {
    std::ofstream out(path);
    out << "digraph g {\n  node [shape=box, fixedsize=true, label=\"\"];\n";
    for (std::size_t i = 0; i < d.boxes.size(); ++i) {
        const DataflowDrawing::Box& b = d.boxes[i];
        if (b.expanded) continue; // an open module is a cluster in dot; here its contents are drawn flat
        out << "  n" << i << " [width=" << b.w / 72 << ", height=" << b.h / 72 << "];\n";
    }
    for (const DataflowDrawing::Edge& e : d.edges) out << "  n" << e.from << " -> n" << e.to << ";\n";
    out << "}\n";
}

// Every box and edge of `d`, doubles as hex floats (exact), and the crossings the sweeps kept.
void write_dump(const DataflowDrawing& d, std::uint64_t crossings, const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (!f) throw fxmem::Error("cannot write " + path);
    std::fprintf(f, "size %a %a crossings %llu\n", d.width, d.height, static_cast<unsigned long long>(crossings));
    for (const DataflowDrawing::Box& b : d.boxes)
        std::fprintf(f, "box %d %u %u %d %a %a %a %a\n", static_cast<int>(b.kind), b.ref,
                     b.parent.value_or(0xffffffffu), b.expanded ? 1 : 0, b.x, b.y, b.w, b.h);
    for (const DataflowDrawing::Edge& e : d.edges) {
        std::fprintf(f, "edge %u %u %lld %d %d", e.from, e.to, static_cast<long long>(e.bytes), e.reversed ? 1 : 0,
                     e.straight ? 1 : 0);
        for (const Point& p : e.points) std::fprintf(f, " %a,%a", p.x, p.y);
        std::fputc('\n', f);
    }
    std::fclose(f);
}

int count_plain(const std::string& path) {
    std::ifstream in(path);
    if (!in) {
        std::fprintf(stderr, "cannot read %s\n", path.c_str());
        return 1;
    }
    std::vector<Segment> s;
    std::string line;
    std::size_t edges = 0;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        std::string kind, tail, head;
        ls >> kind;
        if (kind != "edge") continue;
        std::size_t n = 0;
        ls >> tail >> head >> n;
        std::vector<Point> p(n);
        for (Point& q : p) ls >> q.x >> q.y;
        for (std::size_t k = 1; k < n; ++k) s.emplace_back(p[k - 1], p[k]);
        ++edges;
    }
    std::printf("%s: %zu edges, %llu crossings (control polygons)\n", path.c_str(), edges,
                static_cast<unsigned long long>(segment_crossings(std::move(s))));
    return 0;
}

std::string file_base(const std::string& label) {
    std::string base = label;
    std::replace_if(
        base.begin(), base.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
    return base;
}

bool g_geometric = true; // --no-geom: skip the geometric crossing counts (minutes on blocks 95k)

void run_graph(const std::string& label, const fxmem::GraphFile& file, std::size_t gi, const std::string& dot_dir,
               const std::string& dump_dir) {
    const fxmem::Graph& graph = file.graphs[gi];
    const fxmem::ModuleTree tree(graph);
    fxmem::DataflowOptions options;
    options.depth = std::max<std::uint32_t>(1, tree.layer_depth());
    double t = now_ms();
    fxmem::DataflowLayout overview(file, fxmem::GraphId(static_cast<std::int32_t>(gi)), tree, options);
    const double overview_ms = ms_since(t);
    t = now_ms();
    const DataflowDrawing od = overview.drawing();
    const double overview_draw_ms = ms_since(t);
    // One expand and collapse: the middle module at the overview's depth.
    std::vector<std::uint32_t> at_depth;
    for (std::uint32_t m = 1; m < tree.size(); ++m)
        if (tree[m].depth == options.depth && !overview.laid_out(m)) at_depth.push_back(m);
    double expand_ms = 0, collapse_ms = 0;
    const std::string dump = dump_dir.empty() ? std::string() : dump_dir + "/" + file_base(label);
    if (!dump.empty()) write_dump(od, overview.crossings(), dump + "_overview.txt");
    if (!at_depth.empty()) {
        const std::uint32_t m = at_depth[at_depth.size() / 2];
        t = now_ms();
        overview.expand(m);
        expand_ms = ms_since(t);
        if (!dump.empty()) write_dump(overview.drawing(), overview.crossings(), dump + "_expanded.txt");
        t = now_ms();
        overview.collapse(m);
        collapse_ms = ms_since(t);
        if (!dump.empty()) write_dump(overview.drawing(), overview.crossings(), dump + "_collapsed.txt");
    }
    fxmem::DataflowOptions all = options;
    all.depth = tree.max_depth() + 1;
    t = now_ms();
    const fxmem::DataflowLayout full(file, fxmem::GraphId(static_cast<std::int32_t>(gi)), tree, all);
    const double full_ms = ms_since(t);
    t = now_ms();
    const DataflowDrawing fd = full.drawing();
    const double full_draw_ms = ms_since(t);
    if (!dump.empty()) write_dump(fd, full.crossings(), dump + "_full.txt");
    std::size_t reversed = 0;
    for (const auto& e : fd.edges) reversed += e.reversed ? 1 : 0;
    const bool geometric = g_geometric && fd.edges.size() < 60000;
    const std::string overview_geometric =
        g_geometric && od.edges.size() < 60000 ? std::to_string(segment_crossings(segments_of(od))) : std::string("-");
    std::printf("%-24s %7zu %5u | %6zu %9.1f %7.1f %6llu %7s | %7.2f %7.2f | %9.1f %7.1f %8llu %9s %6zu\n",
                label.c_str(), graph.size(), options.depth, od.boxes.size(), overview_ms, overview_draw_ms,
                static_cast<unsigned long long>(overview.crossings()), overview_geometric.c_str(), expand_ms,
                collapse_ms, full_ms, full_draw_ms, static_cast<unsigned long long>(full.crossings()),
                geometric ? std::to_string(segment_crossings(segments_of(fd))).c_str() : "-", reversed);
    std::fflush(stdout);
    if (!dot_dir.empty()) {
        const std::string base = file_base(label);
        write_dot(od, dot_dir + "/" + base + "_overview.dot");
        write_dot(fd, dot_dir + "/" + base + "_full.dot");
    }
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string> files;
    std::string dot_dir, dump_dir;
    std::size_t nodes = 100000;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--dot" && i + 1 < argc) {
            dot_dir = argv[++i];
        } else if (a == "--cpu-time") {
            g_cpu_time = true;
        } else if (a == "--no-geom") {
            g_geometric = false;
        } else if (a == "--dump" && i + 1 < argc) {
            dump_dir = argv[++i];
        } else if (a == "--nodes" && i + 1 < argc) {
            nodes = std::strtoull(argv[++i], nullptr, 10);
        } else if (a == "--count-plain" && i + 1 < argc) {
            return count_plain(argv[++i]);
        } else if (!a.empty() && a[0] != '-') {
            files.push_back(a);
        } else {
            std::fprintf(stderr, "usage: fxmem-dataflow-bench [FILE...] [--nodes N] [--dot DIR] [--dump DIR] "
                                 "[--no-geom] [--count-plain F]\n");
            return 2;
        }
    }
    if (files.empty()) {
        files.push_back(FXMEM_SOURCE_DIR "/resources/examples/llama.fxmem.json");
        if (std::filesystem::exists("/tmp/exp/llama3_8b.fxmem.json")) files.push_back("/tmp/exp/llama3_8b.fxmem.json");
    }
    if (!dot_dir.empty()) std::filesystem::create_directories(dot_dir);
    if (!dump_dir.empty()) std::filesystem::create_directories(dump_dir);
    std::printf("%-24s %7s %5s | %6s %9s %7s %6s %7s | %7s %7s | %9s %7s %8s %9s %6s\n", "graph", "nodes", "depth",
                "boxes", "overview", "draw", "cross", "geom", "expand", "collap", "full ms", "draw", "cross", "geom",
                "upward");
    std::printf("%-24s %7s %5s | %6s %9s %7s %6s %7s | %7s %7s | %9s %7s %8s %9s %6s\n", "", "", "", "", "ms", "ms", "",
                "cross", "ms", "ms", "", "ms", "", "cross", "edges");
    try {
        for (const std::string& path : files) {
            const fxmem::GraphFile file = fxmem::load_file(path);
            for (std::size_t gi = 0; gi < file.graphs.size(); ++gi)
                run_graph(std::filesystem::path(path).stem().stem().string() + ":" + file.graphs[gi].name, file, gi,
                          dot_dir, dump_dir);
        }
        fxmem::synth::Options o;
        o.nodes = nodes;
        o.pair = false;
        run_graph("synth " + std::to_string(nodes / 1000) + "k (flat)", fxmem::synth::generate(o), 0, dot_dir,
                  dump_dir);
        const fxmem::GraphFile blocks = blocks_graph(nodes / 24);
        run_graph("blocks " + std::to_string(blocks.graphs[0].size() / 1000) + "k", blocks, 0, dot_dir, dump_dir);
    } catch (const fxmem::Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
