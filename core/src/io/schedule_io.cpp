// SCHED documents: {"graph": NAME, "order": [every node name once]}. Unknown extra fields are
// ignored, as in graph files.
#include "fxmem/schedule.h"

#include "fxmem/error.h"
#include "fxmem/io.h"
#include "json_text.h"
#include "model/quote.h"

#include <nlohmann/json.hpp>

#include <cstring>
#include <limits>

namespace fxmem {

using detail::quote;

namespace {

std::string at(std::string_view source, std::string_view json, std::size_t offset) {
    return json_text::location(source, json, offset);
}

// nlohmann reports the byte offset just past the failing character; point at that character and
// keep only the explanation from its message.
std::string syntax_error(std::string_view source, std::string_view json, std::size_t byte, std::string what) {
    const std::size_t col = what.find("column ");
    const std::size_t colon = col == std::string::npos ? what.find(": ") : what.find(": ", col);
    if (colon != std::string::npos) what = what.substr(colon + 2);
    return at(source, json, byte == 0 ? 0 : byte - 1) + "JSON syntax error: " + what;
}

// Reads a SCHED document as a stream of JSON events, with the rules graph files follow: a known
// key ("graph", "order") given twice in the top-level object is an error, unknown keys and their
// values are skipped. The order is never held as JSON: once "graph" is known each entry becomes a
// node id at once, and an unknown or repeated node ends the read right there (a 5M-entry order
// with a repeat near its start stops near its start); entries before "graph" are kept as one
// buffer of names and resolved at the end.
class ScheduleSax {
public:
    using json = nlohmann::json;

    ScheduleSax(const GraphFile& file, std::string_view json_text, std::string_view source, std::string_view want,
                const char* const* cursor)
        : file_(file), json_(json_text), src_(source), want_(want), cursor_(cursor) {}

    // ---- nlohmann's SAX interface ----
    bool null() { return scalar("null"); }
    bool boolean(bool) { return scalar("boolean"); }
    bool number_integer(json::number_integer_t) { return scalar("number"); }
    bool number_unsigned(json::number_unsigned_t) { return scalar("number"); }
    bool number_float(json::number_float_t, const std::string&) { return scalar("number"); }
    bool binary(json::binary_t&) { return scalar("binary"); }
    bool string(std::string& v) {
        if (depth_ == 0) not_object();
        if (depth_ == 1 && pending_ == Key::Graph)
            set_graph(v);
        else if (depth_ == 1 && pending_ == Key::Order)
            order_not_array();
        else if (in_order_ && depth_ == 2)
            add(v);
        return true;
    }
    bool start_object(std::size_t) { return open("object"); }
    bool end_object() { return close(); }
    bool start_array(std::size_t) {
        if (depth_ == 1 && pending_ == Key::Order) {
            in_order_ = true;
            ++depth_;
            return true;
        }
        return open("array");
    }
    bool end_array() {
        if (in_order_ && depth_ == 2) in_order_ = false;
        return close();
    }
    bool key(std::string& k) {
        if (depth_ != 1) return true;
        pending_ = k == "graph" ? Key::Graph : k == "order" ? Key::Order : Key::Other;
        bool* seen = pending_ == Key::Graph ? &seen_graph_ : pending_ == Key::Order ? &seen_order_ : nullptr;
        if (seen && *seen) {
            const auto read = static_cast<std::size_t>(*cursor_ - json_.data());
            throw Error(at(src_, json_, read > 0 ? read - 1 : 0) + "top level: duplicate key " + quote(k));
        }
        if (seen) *seen = true;
        return true;
    }
    bool parse_error(std::size_t byte, const std::string&, const nlohmann::detail::exception& e) {
        if (byte > 0 && byte <= json_.size() && json_[byte - 1] == '\0')
            throw Error(at(src_, json_, byte - 1) + "JSON syntax error: unexpected NUL byte");
        throw Error(syntax_error(src_, json_, byte, e.what()));
    }

    // After the document: what was missing, the names read before "graph", and the order's rules.
    Schedule finish() {
        if (!top_is_object_) not_object();
        if (!graph_) throw Error(std::string(src_) + ": \"graph\" must be a string naming a graph of the file");
        if (!order_is_array_) order_not_array();
        for (std::size_t p = 0; p < staged_ends_.size(); ++p) {
            const std::size_t from = p == 0 ? 0 : staged_ends_[p - 1];
            resolve(std::string_view(staged_names_).substr(from, staged_ends_[p] - from), p);
        }
        try {
            check_schedule(*graph_, sched_.order);
        } catch (const Error& e) {
            throw Error(std::string(src_) + ": " + e.what());
        }
        return std::move(sched_);
    }

    std::size_t entries_read() const { return entries_; }

private:
    enum class Key : std::uint8_t { None, Graph, Order, Other };

    [[noreturn]] void not_object() const {
        throw Error(std::string(src_) + ": the schedule must be a JSON object with \"graph\" and \"order\"");
    }
    std::string where() const { return std::string(src_) + ": schedule for graph " + quote(graph_->name) + ": "; }
    [[noreturn]] void order_not_array() const {
        throw Error((graph_ ? where() : std::string(src_) + ": ") + "\"order\" must be an array of node names");
    }

    bool scalar(const char* type) {
        if (depth_ == 0) not_object();
        if (depth_ == 1 && pending_ == Key::Graph)
            throw Error(std::string(src_) + ": \"graph\" must be a string naming a graph of the file");
        if (depth_ == 1 && pending_ == Key::Order) order_not_array();
        if (in_order_ && depth_ == 2) not_a_name(type);
        return true;
    }
    bool open(const char* type) {
        if (depth_ == 0) {
            if (type != std::string_view("object")) not_object();
            top_is_object_ = true;
        } else if (depth_ == 1 && pending_ == Key::Graph) {
            throw Error(std::string(src_) + ": \"graph\" must be a string naming a graph of the file");
        } else if (depth_ == 1 && pending_ == Key::Order) {
            order_not_array();
        } else if (in_order_ && depth_ == 2) {
            not_a_name(type);
        }
        ++depth_;
        return true;
    }
    bool close() {
        --depth_;
        if (depth_ == 1 && pending_ == Key::Order) order_is_array_ = true;
        return true;
    }
    [[noreturn]] void not_a_name(const char* type) const {
        const std::string w = graph_ ? where() : std::string(src_) + ": ";
        throw Error(w + "\"order\"[" + std::to_string(entries_) + "] must be a node name (a string), not " + type);
    }

    void set_graph(const std::string& name) {
        if (!want_.empty() && name != want_)
            throw Error(std::string(src_) + ": \"graph\" is " + quote(name) + " but graph " + quote(want_) +
                        " was asked for");
        const std::optional<GraphId> g = file_.find_graph(name);
        if (!g) {
            std::string known;
            std::size_t shown = 0;
            for (const Graph& each : file_.graphs)
                if (shown++ < 10) known += (known.empty() ? "" : ", ") + quote(each.name);
            if (file_.graphs.size() > 10) known += ", and " + std::to_string(file_.graphs.size() - 10) + " more";
            throw Error(std::string(src_) + ": \"graph\": unknown graph " + quote(name) + " (the file has " +
                        (known.empty() ? std::string("none") : known) + ")");
        }
        sched_.graph = *g;
        graph_ = &file_.graph(*g);
        position_.assign(graph_->size(), kNone);
    }

    void add(std::string_view name) {
        const std::size_t p = entries_++;
        if (graph_ && staged_ends_.empty()) return resolve(name, p);
        if (staged_names_.size() + name.size() > std::numeric_limits<std::uint32_t>::max())
            throw Error(std::string(src_) + ": the node names of \"order\" exceed 4 GiB");
        staged_names_.append(name);
        staged_ends_.push_back(static_cast<std::uint32_t>(staged_names_.size()));
    }

    void resolve(std::string_view name, std::size_t p) {
        const NodeId id = graph_->find(name);
        if (!id.valid())
            throw Error(where() + "\"order\"[" + std::to_string(p) + "] names unknown node " + quote(name));
        std::uint32_t& first = position_[id.index()];
        if (first != kNone)
            throw Error(where() + "repeats node " + quote(name) + " (positions " + std::to_string(first) + " and " +
                        std::to_string(p) + ")");
        first = static_cast<std::uint32_t>(p);
        sched_.order.push_back(id);
    }

    static constexpr std::uint32_t kNone = 0xffffffffu;
    const GraphFile& file_;
    std::string_view json_, src_, want_;
    const char* const* cursor_;
    int depth_ = 0;
    Key pending_ = Key::None;
    bool seen_graph_ = false, seen_order_ = false, top_is_object_ = false, in_order_ = false, order_is_array_ = false;
    const Graph* graph_ = nullptr;
    Schedule sched_;
    std::vector<std::uint32_t> position_; // per node of graph_: its position in the order
    std::string staged_names_;            // entries read before "graph", one after another
    std::vector<std::uint32_t> staged_ends_;
    std::size_t entries_ = 0;
};

} // namespace

Schedule parse_schedule(const GraphFile& file, std::string_view json, std::string_view source,
                        std::string_view graph_name, std::size_t* entries_read) {
    const char* cursor = json.data();
    const json_text::CursorIter first{json.data(), &cursor}, last{json.data() + json.size(), &cursor};
    ScheduleSax sax(file, json, source, graph_name, &cursor);
    try {
        nlohmann::json::sax_parse(first, last, &sax);
    } catch (...) {
        if (entries_read) *entries_read = sax.entries_read();
        throw;
    }
    if (entries_read) *entries_read = sax.entries_read();
    // nlohmann takes a NUL byte for the end of the input: nothing but whitespace may follow.
    if (const void* nul = std::memchr(json.data(), '\0', json.size()))
        throw Error(at(source, json, static_cast<std::size_t>(static_cast<const char*>(nul) - json.data())) +
                    "JSON syntax error: unexpected NUL byte after the JSON document (nothing but whitespace may "
                    "follow it)");
    return sax.finish();
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
