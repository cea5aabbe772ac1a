// layout FILE [--graph G] [--depth D] [--expand M[,M...]] [--json]: core's layered dataflow
// layout of one graph by module (fxmem/dataflow_layout.h), as the app's Dataflow mode draws it:
// boxes (nodes, modules) and edges with their bytes and polylines, y growing downward.
#include "commands.h"

#include "fxmem/dataflow_layout.h"
#include "fxmem/io.h"
#include "fxmem/units.h"
#include "table.h"
#include "text.h"

#include <nlohmann/json.hpp>

#include <ostream>
#include <sstream>

namespace fxmem::cli {

namespace {

std::vector<std::string> split_commas(const std::string& text) {
    std::vector<std::string> parts;
    std::string part;
    std::istringstream in(text);
    while (std::getline(in, part, ','))
        if (!part.empty()) parts.push_back(part);
    return parts;
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
                                std::size_t id) {
    nlohmann::ordered_json j;
    j["id"] = id;
    const bool module = b.kind == DataflowDrawing::Kind::Module;
    j["kind"] = module ? "module" : "node";
    j["name"] = module ? std::string(layout.tree()[b.ref].name) : graph.nodes[b.ref].name;
    j["parent"] =
        b.parent == DataflowDrawing::kNoParent ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(b.parent);
    j["x"] = b.x;
    j["y"] = b.y;
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

} // namespace

int run_layout(const Args& args, std::ostream& out) {
    for (const char* mode : {"--pair", "--whole-step"})
        if (args.has(mode))
            throw UsageError(std::string("layout: ") + mode +
                             " is not supported yet (one graph at a time: --graph NAME)");
    const GraphFile file = load_file(args.file);
    const Graph& graph = select_graph(file, args);
    const auto graph_index = static_cast<std::size_t>(&graph - file.graphs.data());
    const StorageMask counted = devices_counted(file, args);
    const ModuleTree tree(graph);
    DataflowOptions options;
    options.depth = depth_option(args, tree);
    options.counted = &counted;
    DataflowLayout layout(file, graph_index, tree, options);
    if (const auto list = args.value("--expand")) {
        for (const std::string& name : split_commas(*list)) {
            const std::uint32_t m = tree.find(name);
            if (m == ModuleTree::npos || name.empty())
                throw Error(file.source + ": graph '" + elide(graph.name) + "': --expand: no module '" + elide(name) +
                            "' in this graph");
            layout.expand(m);
        }
    }
    const DataflowDrawing drawing = layout.drawing();

    if (args.has("--json")) {
        nlohmann::ordered_json j;
        j["boxes"] = nlohmann::ordered_json::array();
        for (std::size_t i = 0; i < drawing.boxes.size(); ++i)
            j["boxes"].push_back(box_json(layout, graph, drawing.boxes[i], i));
        j["edges"] = nlohmann::ordered_json::array();
        for (const DataflowDrawing::Edge& e : drawing.edges) {
            nlohmann::ordered_json je;
            je["from"] = e.from;
            je["to"] = e.to;
            je["bytes"] = e.bytes;
            je["points"] = nlohmann::ordered_json::array();
            for (const DataflowDrawing::Point& p : e.points) je["points"].push_back({p.x, p.y});
            if (e.reversed) je["reversed"] = true;
            if (e.straight) je["straight"] = true;
            j["edges"].push_back(std::move(je));
        }
        out << j.dump() << '\n';
        return 0;
    }

    std::size_t nodes = 0, modules = 0, reversed = 0;
    for (const DataflowDrawing::Box& b : drawing.boxes) (b.kind == DataflowDrawing::Kind::Node ? nodes : modules)++;
    for (const DataflowDrawing::Edge& e : drawing.edges) reversed += e.reversed ? 1 : 0;
    out << "graph '" << escape_control(elide(graph.name)) << "': dataflow layout at module depth " << options.depth
        << ", " << drawing.width << " x " << drawing.height << "\n"
        << nodes << " node boxes, " << modules << " module boxes, " << drawing.edges.size() << " edges (" << reversed
        << " drawn upward), " << layout.crossings() << " crossings\n";
    if (modules == 0) return 0;
    out << "\nmodules shown (allocated bytes; runs of equal siblings):\n";
    for (const DataflowDrawing::Box& b : drawing.boxes) {
        if (b.kind != DataflowDrawing::Kind::Module) continue;
        const ModuleRepeat r = layout.repeat(b.ref);
        if (r.count > 1 && r.index > 0) continue; // the run is listed at its first module
        out << "  " << escape_control(elide(std::string(tree[b.ref].name)));
        if (r.count > 1) out << " to " << escape_control(elide(std::string(tree[r.last].name))) << " x " << r.count;
        out << (b.expanded ? " (expanded)" : "") << "  " << format_bytes(layout.allocated_bytes(b.ref)) << '\n';
    }
    return 0;
}

} // namespace fxmem::cli
