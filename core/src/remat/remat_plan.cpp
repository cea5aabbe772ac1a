// Remat plan files (docs/format.md, "Remat plans"): written by fxmem-cli remat -o, read back by
// fxmem and by fxmem_export.apply_remat.
#include "fxmem/error.h"
#include "fxmem/io.h"
#include "fxmem/remat.h"
#include "io/json_text.h"
#include "model/quote.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace fxmem {

using detail::quote;

namespace {

std::vector<std::string> names(const Graph& g, std::span<const NodeId> ids) {
    std::vector<std::string> out;
    out.reserve(ids.size());
    for (NodeId id : ids) out.push_back(g.node(id).name);
    return out;
}

} // namespace

std::string plan_to_json(const RematPlan& plan) {
    nlohmann::ordered_json j;
    j["format"] = "fxmem-remat";
    j["version"] = 1;
    j["joint"] = plan.joint;
    j["saved"] = plan.saved;
    j["recomputed"] = plan.recomputed;
    j["order"] = plan.order;
    if (plan.peak >= 0) j["peak"] = plan.peak;
    if (plan.extra_flops > INT64_MIN) j["extra_flops"] = plan.extra_flops;
    return j.dump(1) + "\n";
}

RematPlan parse_plan(std::string_view text, const std::string& source) {
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::parse_error& e) {
        throw Error(json_text::location(source, text, e.byte > 0 ? e.byte - 1 : 0) +
                    "invalid JSON: " + json_text::parser_detail(e.what()));
    }
    const auto fail = [&](const std::string& what) -> Error { return Error(source + ": " + what); };
    if (!doc.is_object()) throw fail("a remat plan must be a JSON object");
    if (!doc.contains("format") || doc["format"] != "fxmem-remat")
        throw fail("not a remat plan: 'format' must be \"fxmem-remat\"");
    if (!doc.contains("version") || !doc["version"].is_number_integer() || doc["version"].get<std::int64_t>() != 1)
        throw fail("unsupported plan version (this build reads version 1)");
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
    strings("order", plan.order, false);
    for (const char* key : {"peak", "extra_flops"}) {
        if (!doc.contains(key)) continue;
        if (!doc[key].is_number_integer()) throw fail(std::string("'") + key + "' must be an integer");
        (std::string_view(key) == "peak" ? plan.peak : plan.extra_flops) = doc[key].get<std::int64_t>();
    }
    return plan;
}

RematPlan load_plan(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path + ": cannot open the plan file");
    std::ostringstream s;
    s << in.rdbuf();
    return parse_plan(s.str(), path);
}

void save_plan(const RematPlan& plan, const std::string& path) { write_file_atomically(path, plan_to_json(plan)); }

RematPlan make_plan(const JointGraph& joint, const RematResult& r) {
    const Graph& g = joint.g();
    RematPlan plan;
    plan.joint = g.name;
    plan.saved = names(g, r.saved);
    plan.recomputed = names(g, r.partition.recomputed);
    plan.order = names(g, r.backward_order);
    plan.peak = r.peak.peak;
    plan.extra_flops = r.extra_flops;
    return plan;
}

ResolvedPlan resolve_plan(const JointGraph& joint, const RematPlan& plan, const std::string& source) {
    const Graph& g = joint.g();
    const std::string file = joint.file->source;
    if (plan.joint != g.name)
        throw Error(source + ": the plan is for joint graph " + quote(plan.joint) + ", not " + quote(g.name) + " of " +
                    file);
    const auto lookup = [&](const std::vector<std::string>& list, const char* key, std::size_t i) {
        const NodeId id = g.find(list[i]);
        if (!id.valid())
            throw Error(source + ": " + key + "[" + std::to_string(i) + "]: unknown node " + quote(list[i]) +
                        " (joint graph " + quote(g.name) + " of " + file + " has no such node)");
        return id;
    };
    ResolvedPlan r;
    for (std::size_t i = 0; i < plan.saved.size(); ++i) r.saved.push_back(lookup(plan.saved, "saved", i));
    try {
        r.partition = simulate_partition(joint, r.saved);
    } catch (const Error& e) {
        throw Error(source + ": the saved set does not work: " + e.what());
    }
    std::vector<std::uint8_t> mark(g.size(), 0);
    // Recomputed: exactly what the saved set makes the backward recompute.
    if (!plan.recomputed.empty() || !r.partition.recomputed.empty()) {
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
