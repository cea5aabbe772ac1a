// peak_place: where a capture's pair or whole-step peak is and the storages live there, each
// described by names that survive a new capture (fxmem/peak_diff.h).
#include "fxmem/attribution.h"
#include "fxmem/error.h"
#include "fxmem/liveset.h"
#include "fxmem/peak_diff.h"
#include "fxmem/timeline.h"
#include "fxmem/whole_step.h"

#include <algorithm>
#include <optional>
#include <string_view>

namespace fxmem {

namespace {

constexpr std::uint32_t kNoHolder = 0xffffffffu;

std::string qualify(std::string_view prefix, std::string_view name) {
    if (prefix.empty()) return std::string(name);
    if (name.empty()) return std::string(prefix);
    return std::string(prefix) + "." + std::string(name);
}

// The module a parameter, buffer or optimizer state label names: "a.b.weight" -> "a.b",
// "a.b.weight exp_avg" -> "a.b", "weight" -> "".
std::string label_module(std::string_view label, StorageRole role) {
    if (role == StorageRole::OptimizerState)
        if (const auto space = label.rfind(' '); space != std::string_view::npos) label = label.substr(0, space);
    const auto dot = label.rfind('.');
    return dot == std::string_view::npos ? std::string() : std::string(label.substr(0, dot));
}

std::string shape_text(const GraphFile& file, const Graph& g, const Tensor& t) {
    std::string_view dtype = file.dtypes[t.dtype];
    if (dtype.starts_with("torch.")) dtype.remove_prefix(6);
    std::string s(dtype);
    s += '[';
    bool first = true;
    for (std::int64_t d : g.shape(t)) {
        if (!first) s += ", ";
        first = false;
        s += std::to_string(d);
    }
    return s + ']';
}

// Describes storages: roles, producers and owner modules, each graph's attribution built once.
class Describer {
public:
    explicit Describer(const GraphFile& file) : file_(file), roles_(resolve_roles(file)) {
        first_tensor_.assign(file.storages.size(), {kNoHolder, 0});
        for (std::uint32_t g = 0; g < file.graphs.size(); ++g) {
            const Graph& gr = file.graphs[g];
            for (std::uint32_t t = 0; t < gr.tensors.size(); ++t) {
                auto& slot = first_tensor_[gr.tensors[t].storage.index()];
                if (slot.first == kNoHolder) slot = {g, t};
            }
        }
        attributions_.resize(file.graphs.size());
    }

    // `graph`: a graph that holds s (its owner when no graph computes s); `prefix`: the module
    // prefix of the step entry the storage belongs to.
    PeakStorage describe(StorageId s, std::int64_t bytes, std::uint32_t graph, std::string_view prefix) {
        PeakStorage p;
        p.storage = s;
        p.bytes = bytes;
        p.role = roles_.role[s.index()];
        p.label = std::string(file_.label(s));
        const std::uint32_t pg = roles_.producer_graph[s.index()];
        const bool persistent =
            p.role == StorageRole::Parameter || p.role == StorageRole::Buffer || p.role == StorageRole::OptimizerState;
        if (persistent && !p.label.empty()) {
            p.module = qualify(prefix, label_module(p.label, p.role));
        } else {
            const std::uint32_t owner_graph = pg != kGraphNone ? pg : graph;
            if (owner_graph != kGraphNone) {
                const Attribution& a = attribution(owner_graph);
                p.module = qualify(prefix, a.tree()[a.owner(s)].name);
            } else {
                p.module = std::string(prefix);
            }
        }
        if (pg != kGraphNone) {
            const Graph& g = file_.graphs[pg];
            const NodeId n = roles_.producer_node[s.index()];
            p.op = std::string(g.target(n));
            for (const Tensor& t : g.node_tensors(n))
                if (t.storage == s) {
                    p.shape = shape_text(file_, g, t);
                    break;
                }
        }
        const auto [tg, ti] = first_tensor_[s.index()];
        if (pg == kGraphNone) p.op = tg != kNoHolder ? "placeholder" : "<" + std::string(to_string(p.role)) + ">";
        if (p.shape.empty())
            p.shape = tg != kNoHolder ? shape_text(file_, file_.graphs[tg], file_.graphs[tg].tensors[ti])
                                      : std::to_string(file_.nbytes(s)) + " bytes";
        return p;
    }

private:
    static constexpr std::uint32_t kGraphNone = kNoGraph;
    const Attribution& attribution(std::uint32_t g) {
        if (!attributions_[g]) attributions_[g].emplace(file_, GraphId(static_cast<std::int32_t>(g)), roles_);
        return *attributions_[g];
    }
    const GraphFile& file_;
    RoleAssignment roles_;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> first_tensor_; // per storage: (graph, tensor)
    std::vector<std::optional<Attribution>> attributions_;
};

void pair_place(std::shared_ptr<const GraphFile> shared, std::size_t pair, DeviceFilter filter, PeakPlace& out) {
    const GraphFile& file = *shared;
    if (file.pairs.empty())
        throw Error(file.source + ": the file has no forward/backward pairs ('pairs' is absent or empty), so there "
                                  "is no pair peak; --whole-step compares the step of a file that has one");
    if (pair >= file.pairs.size())
        throw Error(file.source + ": no pair " + std::to_string(pair) + " (the file has " +
                    std::to_string(file.pairs.size()) + (file.pairs.size() == 1 ? " pair)" : " pairs)"));
    // The joined pair as the app and `live --pair` show it (fxmem::Timeline), at its first peak.
    const Timeline t = Timeline::pair(std::move(shared), pair, filter);
    out.step = t.peak_step();
    out.peak = t.peak();
    const TimelineLive at = t.live_at(static_cast<std::int64_t>(out.step));
    const TimelineSegment& part = t.segments()[at.where->segment];
    const Graph& graph = file.graph(part.graph);
    out.graph_step = at.where->step;
    out.graph = graph.name;
    out.kind = graph.kind;
    if (out.graph_step > 0) out.node = graph.node(part.live().node_at(out.graph_step)).name;
    Describer describe(file);
    // The baseline storages are the forward's outputs.
    for (std::size_t i = 0; i < at.live.size(); ++i)
        out.live.push_back(describe.describe(
            at.live[i].storage, at.live[i].nbytes,
            static_cast<std::uint32_t>(i < at.baseline_begin ? part.graph.index() : t.segments()[0].graph.index()),
            ""));
}

void step_place(std::shared_ptr<const GraphFile> shared, DeviceFilter filter, PeakPlace& out) {
    const GraphFile& file = *shared;
    const Timeline t = Timeline::whole_step(std::move(shared), filter);
    const WholeStep& ws = *t.step();
    const TimelineLive at = t.live_at(static_cast<std::int64_t>(ws.peak_index));
    const TimelineSegment& seg = t.segments()[at.where->segment];
    const Graph& graph = file.graph(seg.graph);
    out.peak = ws.peak;
    out.step = ws.peak_index;
    out.graph_step = at.where->step;
    out.graph = step_entry_name(file, file.step[*seg.entry]);
    out.kind = graph.kind;
    if (out.graph_step > 0) out.node = graph.node(seg.live().node_at(out.graph_step)).name;
    Describer describe(file);
    const std::string& prefix = file.step[*seg.entry].module_prefix;
    for (std::size_t i = 0; i < at.baseline_begin; ++i)
        out.live.push_back(describe.describe(at.live[i].storage, at.live[i].nbytes,
                                             static_cast<std::uint32_t>(seg.graph.index()), prefix));
    // A carried parameter's label is relative to the module prefix of an entry whose graph holds it.
    std::vector<std::uint32_t> holder(ws.carried.size(), kNoHolder);
    for (std::uint32_t s = 0; s < ws.segments.size(); ++s)
        for (std::uint32_t k = ws.held_begin[s]; k < ws.held_begin[s + 1]; ++k)
            if (holder[ws.held[k]] == kNoHolder) holder[ws.held[k]] = s;
    std::vector<std::uint32_t> item_of(file.storages.size(), kNoHolder);
    for (std::uint32_t i = 0; i < ws.carried.size(); ++i) item_of[ws.carried[i].storage.index()] = i;
    for (const CarriedStorage& c : carried_at(ws, static_cast<std::uint32_t>(at.where->segment))) {
        const std::uint32_t h = holder[item_of[c.storage.index()]];
        std::uint32_t entry = c.source.value_or(kNoHolder);
        if (entry == kNoHolder && h != kNoHolder) entry = ws.segments[h].entry;
        const std::uint32_t g =
            entry == kNoHolder ? kNoHolder : static_cast<std::uint32_t>(file.step[entry].graph.index());
        const std::string_view p = entry == kNoHolder ? std::string_view() : file.step[entry].module_prefix;
        out.live.push_back(describe.describe(c.storage, c.bytes, g, p));
    }
}

} // namespace

PeakPlace peak_place(std::shared_ptr<const GraphFile> file, PeakScope scope, std::size_t pair, DeviceFilter filter) {
    PeakPlace out;
    out.scope = scope;
    out.pair = pair;
    if (scope == PeakScope::Pair)
        pair_place(std::move(file), pair, filter, out);
    else
        step_place(std::move(file), filter, out);
    std::stable_sort(out.live.begin(), out.live.end(), [](const PeakStorage& a, const PeakStorage& b) {
        return a.bytes != b.bytes ? a.bytes > b.bytes : a.storage.index() < b.storage.index();
    });
    return out;
}

} // namespace fxmem
