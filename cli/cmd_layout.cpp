// layout FILE [--graph G | --pair K | --whole-step] [--depth D] [--expand M[,M...]] [--json]:
// core's layered dataflow layout by module (fxmem/dataflow_layout.h; several graphs side by side
// through fxmem/dataflow_scene.h), as the app's Dataflow mode draws it: boxes (nodes, modules)
// and edges with their bytes and polylines, y growing downward.
#include "commands.h"
#include "view_arg.h"

#include "fxmem/dataflow_layout.h"
#include "fxmem/dataflow_scene.h"
#include "fxmem/dataflow_sizes.h"
#include "fxmem/io.h"
#include "fxmem/units.h"
#include "table.h"
#include "text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <ostream>

namespace fxmem::cli {

namespace {

// --expand's module names; an empty one (--expand "", "a,,b") is bad usage, not a no-op.
std::vector<std::string> expand_names(const std::string& text) {
    std::vector<std::string> parts;
    std::size_t at = 0;
    while (true) {
        const std::size_t comma = std::min(text.find(',', at), text.size());
        if (comma == at)
            throw UsageError("layout: --expand needs module names separated by commas, got an empty name in '" +
                             elide(text) + "'");
        parts.push_back(text.substr(at, comma - at));
        if (comma == text.size()) return parts;
        at = comma + 1;
    }
}

std::uint32_t depth_option(const Args& args, const ModuleTree& tree) {
    const auto text = args.value("--depth");
    if (!text)
        return std::max<std::uint32_t>(1, tree.layer_depth()); // the model's layers, as the graph view shades them
    const std::size_t d = parse_index("--depth", *text);
    if (d == 0 || d > 0xffffffffu)
        throw UsageError("layout: --depth must be from 1 (the top-level modules as boxes) to 4294967295, got '" +
                         *text + "'");
    return static_cast<std::uint32_t>(d);
}

nlohmann::ordered_json box_json(const DataflowLayout& layout, const Graph& graph, const DataflowDrawing::Box& b,
                                std::size_t id, std::size_t first, double dx, double dy) {
    nlohmann::ordered_json j;
    j["id"] = id;
    const bool module = b.kind == DataflowDrawing::Kind::Module;
    j["kind"] = module ? "module" : "node";
    j["name"] = module ? std::string(layout.tree()[b.ref].name) : graph.nodes[b.ref].name;
    j["parent"] = b.parent ? nlohmann::ordered_json(first + *b.parent) : nlohmann::ordered_json(nullptr);
    j["x"] = dx + b.x;
    j["y"] = dy + b.y;
    j["w"] = b.w;
    j["h"] = b.h;
    if (!module) return j;
    j["expanded"] = b.expanded;
    j["allocated"] = layout.allocated_bytes(b.ref);
    const ModuleRepeat r = layout.repeat(b.ref);
    if (r.count > 1)
        j["repeat"] = {{"count", r.count},
                       {"index", r.index},
                       {"first", std::string(layout.tree()[r.first].name)},
                       {"last", std::string(layout.tree()[r.last].name)}};
    return j;
}

// The graphs drawn side by side: one (--graph or the only one), a pair's forward and backward,
// or every run of the file's step in order.
std::vector<GraphId> scene_graphs(const GraphFile& file, const Args& args) {
    if (args.has("--whole-step")) {
        if (file.step.empty())
            throw Error(file.source + ": the file has no \"step\" (the order the graphs ran in), so there is no whole "
                                      "step to lay out; use --graph NAME or --pair K");
        std::vector<GraphId> graphs;
        for (const StepEntry& e : file.step) graphs.push_back(e.graph);
        return graphs;
    }
    if (const auto text = args.value("--pair")) {
        const Pair& p = file.pairs[pair_option(file, *text)];
        return {p.forward, p.backward};
    }
    const Graph& graph = select_graph(file, args);
    return {GraphId(static_cast<std::int32_t>(&graph - file.graphs.data()))};
}

} // namespace

int run_layout(const Args& args, std::ostream& out) {
    if (args.has("--whole-step"))
        refuse_in_mode(args, "--whole-step", {"--graph", "--pair"},
                       "the whole step lays out every graph of the file's step");
    if (args.has("--pair")) refuse_in_mode(args, "--pair", {"--graph"}, "the pair names its two graphs");
    const GraphFile file = load_file(args.file);
    const std::vector<GraphId> graphs = scene_graphs(file, args);
    const StorageMask counted = devices_counted(file, args);
    std::vector<ModuleTree> trees;
    for (GraphId g : graphs) trees.emplace_back(file.graph(g));
    std::uint32_t depth = 1;
    for (const ModuleTree& t : trees) depth = std::max(depth, depth_option(args, t));
    DataflowScene scene(file, graphs, trees, [&](std::size_t s) {
        DataflowOptions options;
        options.depth = depth;
        options.counted = &counted;
        use_drawn_sizes(options, file.graph(graphs[s])); // the app's boxes: the JSON is its drawing
        return options;
    });
    if (const auto list = args.value("--expand")) {
        // Every name found first, then each segment expanded and drawn once.
        std::vector<std::vector<std::uint32_t>> expand(scene.size());
        for (const std::string& name : expand_names(*list)) {
            bool found = false;
            for (std::size_t s = 0; s < scene.size(); ++s)
                if (const std::uint32_t m = trees[s].find(name); m != ModuleTree::npos) {
                    found = true;
                    expand[s].push_back(m);
                }
            if (!found)
                throw Error(file.source + ": " +
                            (graphs.size() == 1 ? "graph '" + elide(file.graph(graphs[0]).name) + "'"
                                                : std::string(args.has("--pair") ? "pair" : "whole step")) +
                            ": --expand: no module '" + elide(name) + "' in " +
                            (graphs.size() == 1 ? "this graph" : "its graphs"));
        }
        for (std::size_t s = 0; s < scene.size(); ++s) scene.expand_all(s, expand[s]);
    }

    if (args.has("--json")) {
        nlohmann::ordered_json j;
        j["boxes"] = nlohmann::ordered_json::array();
        j["edges"] = nlohmann::ordered_json::array();
        std::vector<std::size_t> first(scene.size(), 0);
        for (std::size_t s = 0; s < scene.size(); ++s) {
            const DataflowSegment& seg = scene.segment(s);
            first[s] = j["boxes"].size();
            for (std::size_t i = 0; i < seg.drawing.boxes.size(); ++i)
                j["boxes"].push_back(box_json(*seg.layout, file.graph(seg.graph), seg.drawing.boxes[i], first[s] + i,
                                              first[s], seg.x, seg.top));
            for (const DataflowDrawing::Edge& e : seg.drawing.edges) {
                nlohmann::ordered_json je;
                je["from"] = first[s] + e.from;
                je["to"] = first[s] + e.to;
                je["bytes"] = e.bytes;
                je["points"] = nlohmann::ordered_json::array();
                for (const DataflowDrawing::Point& p : e.points) je["points"].push_back({seg.x + p.x, seg.top + p.y});
                if (e.reversed) je["reversed"] = true;
                if (e.straight) je["straight"] = true;
                j["edges"].push_back(std::move(je));
            }
        }
        // A later graph's read of an earlier one's value: from the right side of the producer's
        // box to the left side of the placeholder's, as the app draws it.
        for (const DataflowCrossEdge& c : scene.cross_edges()) {
            const DataflowSegment& a = scene.segment(c.from_segment);
            const DataflowSegment& b = scene.segment(c.to_segment);
            const DataflowDrawing::Box& p = a.drawing.boxes[c.from_box];
            const DataflowDrawing::Box& q = b.drawing.boxes[c.to_box];
            nlohmann::ordered_json je;
            je["from"] = first[c.from_segment] + c.from_box;
            je["to"] = first[c.to_segment] + c.to_box;
            je["bytes"] = c.bytes;
            je["points"] = {{a.x + p.x + p.w, a.top + p.y + p.h / 2}, {b.x + q.x, b.top + q.y + q.h / 2}};
            je["across"] = true;
            j["edges"].push_back(std::move(je));
        }
        if (scene.size() > 1) {
            j["segments"] = nlohmann::ordered_json::array();
            for (std::size_t s = 0; s < scene.size(); ++s) {
                const DataflowSegment& seg = scene.segment(s);
                j["segments"].push_back({{"graph", file.graph(seg.graph).name},
                                         {"x", seg.x},
                                         {"y", seg.top},
                                         {"w", seg.drawing.width},
                                         {"h", seg.drawing.height},
                                         {"first_box", first[s]},
                                         {"boxes", seg.drawing.boxes.size()}});
            }
        }
        out << j.dump() << '\n';
        return 0;
    }

    if (const std::string note = cpu_only_note(file, counted); !note.empty()) out << note << '\n';
    for (std::size_t s = 0; s < scene.size(); ++s) {
        const DataflowSegment& seg = scene.segment(s);
        const DataflowLayout& layout = *seg.layout;
        const DataflowDrawing& drawing = seg.drawing;
        if (s > 0) out << '\n';
        std::size_t nodes = 0, modules = 0, reversed = 0;
        for (const DataflowDrawing::Box& b : drawing.boxes) (b.kind == DataflowDrawing::Kind::Node ? nodes : modules)++;
        for (const DataflowDrawing::Edge& e : drawing.edges) reversed += e.reversed ? 1 : 0;
        out << "graph '" << escape_control(elide(file.graph(seg.graph).name)) << "': dataflow layout at module depth "
            << depth << ", " << drawing.width << " x " << drawing.height;
        if (scene.size() > 1) out << " at x " << seg.x;
        out << "\n"
            << nodes << " node boxes, " << modules << " module boxes, " << drawing.edges.size() << " edges ("
            << reversed << " drawn upward), " << layout.crossings() << " crossings\n";
        if (modules == 0) continue;
        out << "\nmodules shown (allocated bytes; runs of equal siblings):\n";
        for (const DataflowDrawing::Box& b : drawing.boxes) {
            if (b.kind != DataflowDrawing::Kind::Module) continue;
            const ModuleRepeat r = layout.repeat(b.ref);
            if (r.count > 1 && r.index > 0) continue; // the run is listed at its first module
            out << "  " << elide(layout.tree()[b.ref].name);
            if (r.count > 1) out << " to " << elide(layout.tree()[r.last].name) << " x " << r.count;
            out << (b.expanded ? " (expanded)" : "") << "  " << format_bytes(layout.allocated_bytes(b.ref)) << '\n';
        }
    }
    if (scene.size() > 1) {
        std::int64_t bytes = 0;
        for (const DataflowCrossEdge& c : scene.cross_edges()) bytes += c.bytes;
        out << "\n"
            << scene.cross_edges().size() << " edges between graphs (values read by a later graph), "
            << format_bytes(bytes) << '\n';
    }
    return 0;
}

} // namespace fxmem::cli
