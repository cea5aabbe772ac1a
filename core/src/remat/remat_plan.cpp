// Remat plan files (docs/format.md, "Remat plans"): written by fxmem-cli remat -o, read back by
// fxmem and by fxmem_export.apply_remat.
#include "fxmem/error.h"
#include "fxmem/io.h"
#include "fxmem/remat.h"
#include "io/json_text.h"
#include "model/quote.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <tuple>
#include <unordered_set>

namespace fxmem {

using detail::quote;

namespace {

constexpr int kMaxPlanDepth = 16;

std::vector<std::string> names(const Graph& g, std::span<const NodeId> ids) {
    std::vector<std::string> out;
    out.reserve(ids.size());
    for (NodeId id : ids) out.push_back(g.node(id).name);
    return out;
}

// A node's group for keys: its target and its module's name (or none).
using Group = std::tuple<std::string_view, bool, std::string_view>;

Group group_of(const Graph& g, NodeId id) {
    const ModuleInfo* m = g.module(id);
    return {g.target(id), m != nullptr, m != nullptr ? std::string_view(m->name) : std::string_view()};
}

// Every node's occurrence: its index among the nodes of its group, in graph order.
std::vector<std::int64_t> occurrences(const Graph& g) {
    std::map<Group, std::int64_t> next;
    std::vector<std::int64_t> out(g.size(), 0);
    for (std::size_t i = 0; i < g.size(); ++i) out[i] = next[group_of(g, NodeId(static_cast<std::int32_t>(i)))]++;
    return out;
}

PlanNodeKey key_of(const GraphFile& file, const Graph& g, NodeId id, std::int64_t occurrence) {
    PlanNodeKey k;
    k.target = std::string(g.target(id));
    if (const ModuleInfo* m = g.module(id)) k.module = m->name;
    k.occurrence = occurrence;
    const auto val = g.val(id);
    if (val.size() == 1 && val[0].kind == ValToken::Kind::Tensor) {
        const Tensor& t = g.node_tensors(id)[0];
        const auto shape = g.shape(t);
        k.shape = std::vector<std::int64_t>(shape.begin(), shape.end());
        k.dtype = file.dtypes[t.dtype];
    }
    return k;
}

std::string shape_text(const std::optional<std::string>& dtype, const std::optional<std::vector<std::int64_t>>& shape) {
    std::string out = dtype ? *dtype : "?";
    if (shape) {
        out += '[';
        for (std::size_t i = 0; i < shape->size(); ++i) out += (i ? ", " : "") + std::to_string((*shape)[i]);
        out += ']';
    }
    return out;
}

nlohmann::json key_json(const PlanNodeKey& k) {
    nlohmann::json a = nlohmann::json::array();
    a.push_back(k.target);
    a.push_back(k.module ? nlohmann::json(*k.module) : nlohmann::json(nullptr));
    a.push_back(k.occurrence);
    a.push_back(k.shape ? nlohmann::json(*k.shape) : nlohmann::json(nullptr));
    a.push_back(k.dtype ? nlohmann::json(*k.dtype) : nlohmann::json(nullptr));
    return a;
}

} // namespace

PlanNodeKey plan_node_key(const GraphFile& file, const Graph& g, NodeId id) {
    return key_of(file, g, id, occurrences(g)[id.index()]);
}

std::string plan_to_json(const RematPlan& plan) {
    nlohmann::ordered_json j;
    j["format"] = "fxmem-remat";
    j["version"] = 1;
    j["joint"] = plan.joint;
    j["saved"] = plan.saved;
    j["recomputed"] = plan.recomputed;
    j["order"] = plan.order;
    if (plan.peak) j["peak"] = *plan.peak;
    if (plan.extra_flops) j["extra_flops"] = *plan.extra_flops;
    std::string text = j.dump(1);
    if (plan.nodes.empty()) return text + "\n";
    // "nodes" last, one key per line: {"name": [target, module, occurrence, shape, dtype], ...}
    text.resize(text.size() - 2); // "\n}": the object's end
    text += ",\n \"nodes\": {";
    bool first = true;
    for (const auto& [name, key] : plan.nodes) {
        text += first ? "\n  " : ",\n  ";
        first = false;
        text += nlohmann::json(name).dump() + ": " + key_json(key).dump();
    }
    return text + "\n }\n}\n";
}

RematPlan parse_plan(std::string_view text, const std::string& source) {
    nlohmann::json doc;
    // Each object's keys, to refuse a key given twice (nlohmann keeps the last one silently, where
    // Python's json keeps the last too: neither would say which plan it read). A plan is 4 levels
    // deep; deeper nesting is refused before it costs a deep recursion.
    std::vector<std::unordered_set<std::string>> keys;
    const auto check = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        using E = nlohmann::json::parse_event_t;
        if (depth > kMaxPlanDepth)
            throw Error(source + ": nested more than " + std::to_string(kMaxPlanDepth) +
                        " levels deep: not a remat plan");
        if (event == E::object_start) keys.emplace_back();
        if (event == E::object_end) keys.pop_back();
        if (event == E::key) {
            const std::string& k = parsed.get_ref<const std::string&>();
            if (!keys.back().insert(k).second) throw Error(source + ": duplicate key " + quote(k));
        }
        return true;
    };
    try {
        doc = nlohmann::json::parse(text.begin(), text.end(), check);
    } catch (const nlohmann::json::parse_error& e) {
        throw Error(json_text::location(source, text, e.byte > 0 ? e.byte - 1 : 0) +
                    "invalid JSON: " + json_text::parser_detail(e.what()));
    } catch (const nlohmann::json::out_of_range&) {
        // A number beyond a double (1e400, or 400 digits) is out_of_range.406, not a parse_error:
        // uncaught, it aborted fxmem-cli.
        throw Error(source + ": invalid JSON: a number too large for a double (over 1.8e308)");
    }
    const auto fail = [&](const std::string& what) -> Error { return Error(source + ": " + what); };
    // An integer that fits int64: nlohmann reads 2^63..2^64-1 as unsigned, which get<int64_t>
    // wrapped to negatives (a 'peak' of 2^63 read as absent, an occurrence of 2^64-1 as -1).
    const auto int64 = [](const nlohmann::json& v) {
        return v.is_number_integer() &&
               (!v.is_number_unsigned() ||
                v.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
    };
    if (!doc.is_object()) throw fail("a remat plan must be a JSON object");
    if (!doc.contains("format") || doc["format"] != "fxmem-remat")
        throw fail("not a remat plan: 'format' must be \"fxmem-remat\"");
    if (!doc.contains("version")) throw fail("missing 'version' (this build reads version 1)");
    if (!int64(doc["version"]) || doc["version"].get<std::int64_t>() != 1) {
        std::string got = doc["version"].dump(); // JSON text: control characters come escaped
        if (got.size() > 40) got = got.substr(0, 40) + "...";
        throw fail("unsupported plan version " + got + " (this build reads version 1)");
    }
    RematPlan plan;
    if (!doc.contains("joint") || !doc["joint"].is_string())
        throw fail("'joint' must be the joint graph's name (a string)");
    plan.joint = doc["joint"].get<std::string>();
    const auto strings = [&](const char* key, std::vector<std::string>& out, bool required) {
        if (!doc.contains(key)) {
            if (required) throw fail(std::string("missing '") + key + "'");
            return;
        }
        const nlohmann::json& a = doc[key];
        if (!a.is_array()) throw fail(std::string("'") + key + "' must be an array of node names");
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (!a[i].is_string())
                throw fail(std::string(key) + "[" + std::to_string(i) + "] must be a node name (a string)");
            out.push_back(a[i].get<std::string>());
        }
    };
    strings("saved", plan.saved, true);
    strings("recomputed", plan.recomputed, false);
    plan.recomputed_given = doc.contains("recomputed");
    strings("order", plan.order, false);
    if (doc.contains("nodes") && !doc["nodes"].is_null()) {
        const nlohmann::json& nodes = doc["nodes"];
        if (!nodes.is_object()) throw fail("'nodes' must be an object: node name -> its key");
        for (const auto& [name, v] : nodes.items()) {
            const std::string where = "nodes[" + quote(name) + "]";
            if (!v.is_array() || v.size() != 5)
                throw fail(where + " must be [target, module, occurrence, shape, dtype]");
            PlanNodeKey k;
            if (!v[0].is_string()) throw fail(where + ": the target must be a string");
            k.target = v[0].get<std::string>();
            if (v[1].is_string())
                k.module = v[1].get<std::string>();
            else if (!v[1].is_null())
                throw fail(where + ": the module must be a string or null");
            if (!int64(v[2]) || v[2].get<std::int64_t>() < 0)
                throw fail(where + ": the occurrence must be an integer >= 0");
            k.occurrence = v[2].get<std::int64_t>();
            if (v[3].is_array()) {
                std::vector<std::int64_t> shape;
                for (const auto& d : v[3]) {
                    if (!int64(d)) throw fail(where + ": the shape must be an array of integers or null");
                    shape.push_back(d.get<std::int64_t>());
                }
                k.shape = std::move(shape);
            } else if (!v[3].is_null()) {
                throw fail(where + ": the shape must be an array of integers or null");
            }
            if (v[4].is_string())
                k.dtype = v[4].get<std::string>();
            else if (!v[4].is_null())
                throw fail(where + ": the dtype must be a string or null");
            plan.nodes.emplace(name, std::move(k));
        }
    }
    for (const char* key : {"peak", "extra_flops"}) {
        if (!doc.contains(key)) continue;
        // extra_flops may be negative (a plan cheaper than a pair that is not its joint's partition).
        const bool peak = std::string_view(key) == "peak";
        if (!int64(doc[key]) || (peak && doc[key].get<std::int64_t>() < 0))
            throw fail(std::string("'") + key + "' must be an integer" + (peak ? " from 0" : " from -2^63") +
                       " to 2^63-1");
        (std::string_view(key) == "peak" ? plan.peak : plan.extra_flops) = doc[key].get<std::int64_t>();
    }
    return plan;
}

RematPlan load_plan(const std::string& path) {
    // A regular file only: a FIFO would block and /dev/zero never ends (read_regular_file).
    return parse_plan(read_regular_file(path), path);
}

void save_plan(const RematPlan& plan, const std::string& path) { write_file_atomically(path, plan_to_json(plan)); }

RematPlan make_plan(const JointGraph& joint, const RematResult& r) {
    const Graph& g = joint.g();
    RematPlan plan;
    plan.joint = g.name;
    plan.saved = names(g, r.saved);
    plan.recomputed = names(g, r.partition.recomputed);
    plan.recomputed_given = true;
    plan.order = names(g, r.backward_order);
    plan.peak = r.peak.peak;
    plan.extra_flops = r.extra_flops;
    const std::vector<std::int64_t> occ = occurrences(g);
    for (const auto* list : {&r.saved, &r.partition.recomputed, &r.backward_order})
        for (NodeId id : *list) plan.nodes.try_emplace(g.node(id).name, key_of(*joint.file, g, id, occ[id.index()]));
    return plan;
}

ResolvedPlan resolve_plan(const JointGraph& joint, const RematPlan& plan, const std::string& source) {
    const Graph& g = joint.g();
    const std::string file = joint.file->source;
    if (plan.joint != g.name)
        throw Error(source + ": the plan is for joint graph " + quote(plan.joint) + ", not " + quote(g.name) + " of " +
                    file);
    // A node the plan gives a key for is found by its key (names may differ between captures of
    // the same model), then checked against the key's dtype and shape; others by name.
    std::map<Group, std::vector<NodeId>> groups;
    if (!plan.nodes.empty())
        for (std::size_t i = 0; i < g.size(); ++i) {
            const NodeId id(static_cast<std::int32_t>(i));
            groups[group_of(g, id)].push_back(id);
        }
    const auto lookup = [&](const std::vector<std::string>& list, const char* key, std::size_t i) {
        const std::string where = source + ": " + key + "[" + std::to_string(i) + "]: ";
        const auto k = plan.nodes.find(list[i]);
        if (k == plan.nodes.end()) {
            const NodeId id = g.find(list[i]);
            if (!id.valid())
                throw Error(where + "unknown node " + quote(list[i]) + " (joint graph " + quote(g.name) + " of " +
                            file + " has no such node)");
            return id;
        }
        const PlanNodeKey& want = k->second;
        const Group grp{want.target, want.module.has_value(),
                        want.module ? std::string_view(*want.module) : std::string_view()};
        const auto it = groups.find(grp);
        const std::size_t have = it == groups.end() ? 0 : it->second.size();
        const std::string what = want.target + " #" + std::to_string(want.occurrence) + " in module " +
                                 (want.module ? quote(*want.module) : std::string("(none)"));
        if (static_cast<std::uint64_t>(want.occurrence) >= have)
            throw Error(where + "unknown node " + quote(list[i]) + " (joint graph " + quote(g.name) + " of " + file +
                        " has no " + what + ")");
        const NodeId id = it->second[static_cast<std::size_t>(want.occurrence)];
        const PlanNodeKey got = key_of(*joint.file, g, id, want.occurrence);
        if ((want.shape && got.shape != want.shape) || (want.dtype && got.dtype != want.dtype))
            throw Error(where + quote(list[i]) + " (" + what + ") is node " + quote(g.node(id).name) + ", a " +
                        shape_text(got.dtype, got.shape) + " where the plan has " + shape_text(want.dtype, want.shape));
        return id;
    };
    ResolvedPlan r;
    // A name (or two keys for one node) saved twice was accepted and scored as if once.
    std::vector<std::size_t> saved_at(g.size(), plan.saved.size());
    for (std::size_t i = 0; i < plan.saved.size(); ++i) {
        r.saved.push_back(lookup(plan.saved, "saved", i));
        std::size_t& at = saved_at[r.saved.back().index()];
        if (at != plan.saved.size())
            throw Error(source + ": saved[" + std::to_string(i) + "]: " + quote(plan.saved[i]) +
                        " is listed twice (also saved[" + std::to_string(at) + "])");
        at = i;
    }
    try {
        r.partition = simulate_partition(joint, r.saved);
    } catch (const Error& e) {
        throw Error(source + ": the saved set does not work: " + e.what());
    }
    std::vector<std::uint8_t> mark(g.size(), 0);
    // Recomputed: exactly what the saved set makes the backward recompute.
    if (plan.recomputed_given || !plan.recomputed.empty()) {
        for (NodeId x : r.partition.recomputed) mark[x.index()] = 1;
        for (std::size_t i = 0; i < plan.recomputed.size(); ++i) {
            const NodeId id = lookup(plan.recomputed, "recomputed", i);
            if (mark[id.index()] != 1)
                throw Error(source + ": recomputed[" + std::to_string(i) + "]: " + quote(plan.recomputed[i]) +
                            " is not recomputed by the plan's saved set (or is listed twice)");
            mark[id.index()] = 2;
        }
        for (NodeId x : r.partition.recomputed)
            if (mark[x.index()] != 2)
                throw Error(source + ": 'recomputed' lacks " + quote(g.node(x).name) +
                            ", which the plan's saved set recomputes");
        for (NodeId x : r.partition.recomputed) mark[x.index()] = 0;
    }
    if (plan.order.empty()) {
        r.backward_order = r.partition.backward;
        return r;
    }
    // Order: a permutation of the backward's nodes, each after its inputs.
    for (NodeId x : r.partition.backward) mark[x.index()] = 1;
    for (std::size_t i = 0; i < plan.order.size(); ++i) {
        const NodeId id = lookup(plan.order, "order", i);
        if (mark[id.index()] == 0)
            throw Error(source + ": order[" + std::to_string(i) + "]: " + quote(plan.order[i]) +
                        " is not a node of the backward the saved set gives");
        if (mark[id.index()] == 2)
            throw Error(source + ": order[" + std::to_string(i) + "]: " + quote(plan.order[i]) + " is listed twice");
        for (NodeId in : g.inputs(id))
            if (mark[in.index()] == 1)
                throw Error(source + ": order[" + std::to_string(i) + "]: " + quote(plan.order[i]) +
                            " comes before its input " + quote(g.node(in).name));
        mark[id.index()] = 2;
        r.backward_order.push_back(id);
    }
    for (NodeId x : r.partition.backward)
        if (mark[x.index()] != 2) throw Error(source + ": 'order' lacks backward node " + quote(g.node(x).name));
    return r;
}

} // namespace fxmem
