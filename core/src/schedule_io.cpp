// SCHED documents: {"graph": NAME, "order": [every node name once]}. Unknown extra fields are
// ignored, as in graph files.
#include "fxmem/schedule.h"

#include "estimator_checks.h"
#include "fxmem/io.h"
#include "json_text.h"

#include <nlohmann/json.hpp>

#include <cstring>

namespace fxmem {

using detail::quote;

namespace {

// nlohmann reports the byte offset just past the failing character; turn it into line:column
// (1-based, columns counted in bytes) and keep only the explanation from its message.
std::string syntax_error(std::string_view source, std::string_view json, const nlohmann::json::parse_error& e) {
    const std::size_t end = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, json.size());
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < end; ++i) {
        if (json[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    std::string what = e.what();
    const std::size_t col = what.find("column ");
    const std::size_t colon = col == std::string::npos ? what.find(": ") : what.find(": ", col);
    if (colon != std::string::npos) what = what.substr(colon + 2);
    return std::string(source) + ":" + std::to_string(line) + ":" + std::to_string(column) +
           ": JSON syntax error: " + what;
}

std::string at(std::string_view source, std::string_view json, std::size_t offset) {
    const auto lc = json_text::line_column(json, offset);
    return std::string(source) + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.column) + ": ";
}

// The document, with the rules graph files follow: a known key ("graph", "order") given twice in
// the top-level object is an error, and nothing but whitespace may follow the document (nlohmann
// takes a NUL byte for the end of the input, so it would ignore "\0 garbage").
nlohmann::json parse_document(std::string_view source, std::string_view json) {
    const char* cursor = json.data();
    const json_text::CursorIter first{json.data(), &cursor}, last{json.data() + json.size(), &cursor};
    bool seen_graph = false, seen_order = false;
    const auto on_event = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        if (event != nlohmann::json::parse_event_t::key || depth != 1) return true;
        const std::string& key = parsed.get_ref<const std::string&>();
        bool* seen = key == "graph" ? &seen_graph : key == "order" ? &seen_order : nullptr;
        if (seen && *seen) {
            const auto read = static_cast<std::size_t>(cursor - json.data());
            throw Error(at(source, json, read > 0 ? read - 1 : 0) + "top level: duplicate key " + quote(key));
        }
        if (seen) *seen = true;
        return true;
    };
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(first, last, on_event);
    } catch (const nlohmann::json::parse_error& e) {
        if (e.byte > 0 && e.byte <= json.size() && json[e.byte - 1] == '\0')
            throw Error(at(source, json, e.byte - 1) + "JSON syntax error: unexpected NUL byte");
        throw Error(syntax_error(source, json, e));
    }
    if (const void* nul = std::memchr(json.data(), '\0', json.size()))
        throw Error(at(source, json, static_cast<std::size_t>(static_cast<const char*>(nul) - json.data())) +
                    "JSON syntax error: unexpected NUL byte after the JSON document (nothing but whitespace may "
                    "follow it)");
    return doc;
}

} // namespace

Schedule parse_schedule(const GraphFile& file, std::string_view json, std::string_view source,
                        std::string_view graph_name) {
    const std::string src(source);
    const nlohmann::json doc = parse_document(source, json);
    if (!doc.is_object()) throw Error(src + ": the schedule must be a JSON object with \"graph\" and \"order\"");
    const auto g = doc.find("graph");
    if (g == doc.end() || !g->is_string()) throw Error(src + ": \"graph\" must be a string naming a graph of the file");
    const std::string& name = g->get_ref<const std::string&>();
    if (!graph_name.empty() && name != graph_name)
        throw Error(src + ": \"graph\" is " + quote(name) + " but graph " + quote(graph_name) + " was asked for");
    Schedule sched;
    sched.graph = file.find_graph(name);
    if (sched.graph < 0) {
        std::string known;
        for (const Graph& each : file.graphs) known += (known.empty() ? "" : ", ") + quote(each.name);
        throw Error(src + ": \"graph\": unknown graph " + quote(name) + " (the file has " +
                    (known.empty() ? std::string("none") : known) + ")");
    }
    const Graph& graph = file.graphs[static_cast<std::size_t>(sched.graph)];
    const std::string where = src + ": schedule for graph " + quote(graph.name) + ": ";
    const auto o = doc.find("order");
    if (o == doc.end() || !o->is_array()) throw Error(where + "\"order\" must be an array of node names");
    sched.order.reserve(o->size());
    for (std::size_t p = 0; p < o->size(); ++p) {
        const nlohmann::json& item = (*o)[p];
        if (!item.is_string())
            throw Error(where + "\"order\"[" + std::to_string(p) + "] must be a node name (a string), not " +
                        item.type_name());
        const std::string& node = item.get_ref<const std::string&>();
        const NodeId id = graph.find(node);
        if (!id.valid())
            throw Error(where + "\"order\"[" + std::to_string(p) + "] names unknown node " + quote(node));
        sched.order.push_back(id);
    }
    try {
        check_schedule(graph, sched.order);
    } catch (const Error& e) {
        throw Error(src + ": " + e.what());
    }
    return sched;
}

Schedule load_schedule(const GraphFile& file, const std::string& path, std::string_view graph_name) {
    return parse_schedule(file, read_regular_file(path), path, graph_name);
}

std::string schedule_to_json(const Graph& graph, std::span<const NodeId> order) {
    nlohmann::json doc;
    doc["graph"] = graph.name;
    nlohmann::json names = nlohmann::json::array();
    for (NodeId id : order) names.push_back(graph.node(id).name);
    doc["order"] = std::move(names);
    try {
        return doc.dump(1) + "\n";
    } catch (const nlohmann::json::exception&) {
        throw Error("schedule for graph " + quote(graph.name) + ": a node name is not valid UTF-8");
    }
}

void save_schedule(const Graph& graph, std::span<const NodeId> order, const std::string& path) {
    write_file_atomically(path, schedule_to_json(graph, order));
}

} // namespace fxmem
