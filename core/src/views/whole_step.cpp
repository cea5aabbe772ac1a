// whole_step: the step's graphs on one timeline with the carry rules of whole_step.h.
#include "fxmem/whole_step.h"

#include "fxmem/attribution.h"
#include "fxmem/error.h"
#include "model/quote.h"

#include <algorithm>
#include <map>
#include <span>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace fxmem {

namespace {

constexpr std::uint32_t kUnpaired = 0xffffffffu;

bool is_persistent_role(StorageRole r) { return r == StorageRole::Parameter || r == StorageRole::Buffer; }

// What one graph contributes, computed once per graph however often the step runs it.
struct GraphFacts {
    bool done = false;
    std::vector<std::int64_t> profile;  // PyTorch's profile (a paired backward: do-not-delete)
    std::vector<StorageId> persistent;  // parameter/buffer storages its placeholders hold
    std::vector<StorageId> saved;       // a paired forward: what its backward's placeholders keep
    std::vector<StorageId> outputs;     // a paired forward: outputs no backward placeholder holds
    std::vector<StorageId> param_grads; // a backward: gradients labelled "grad of <name>"
    std::vector<StorageId> held_state;  // optimizer state its placeholders hold (a compiled opt.step)
    std::vector<StorageId> held_grads;  // gradients "grad of <name>" its placeholders hold
};

std::int64_t bytes(const GraphFile& file, const StorageMask& counted, StorageId s) {
    return counted[s.index()] ? file.nbytes(s) : 0;
}

// Distinct storages held by the graph's placeholders, in graph order.
std::vector<StorageId> placeholder_storages(const Graph& g, std::vector<std::uint32_t>& stamp, std::uint32_t mark) {
    std::vector<StorageId> out;
    for (std::size_t i = 0; i < g.size(); ++i) {
        if (g.nodes[i].op != OpKind::Placeholder) continue;
        for (StorageId s : g.outputs(NodeId(static_cast<std::int32_t>(i))))
            if (stamp[s.index()] != mark) {
                stamp[s.index()] = mark;
                out.push_back(s);
            }
    }
    return out;
}

std::span<const StorageId> output_node_uses(const Graph& g, const AliasInfo& alias) {
    if (g.size() == 0 || g.nodes.back().op != OpKind::Output) return {};
    return alias.uses_of(NodeId(static_cast<std::int32_t>(g.size() - 1)));
}

std::string key_of(std::string_view prefix, std::string_view label) {
    std::string k;
    k.reserve(prefix.size() + 1 + label.size());
    if (!prefix.empty()) {
        k.append(prefix);
        k.push_back('.');
    }
    k.append(label);
    return k;
}

} // namespace

std::string step_entry_name(const GraphFile& file, const StepEntry& e) {
    std::string s = file.graph(e.graph).name;
    if (e.call > 0) s += " #" + std::to_string(e.call + 1);
    if (!e.module_prefix.empty()) s += " (" + e.module_prefix + ")";
    return s;
}

WholeStep whole_step(const GraphFile& file, const StorageMask& counted) {
    if (file.step.empty())
        throw Error(file.source + ": the file has no \"step\" (the order the graphs ran in); export it with "
                                  "fxmem_export.backend(...) and run one training step");
    if (counted.size() != file.storages.size())
        throw PreconditionError("whole_step: the device mask is for another file");
    const std::size_t G = file.graphs.size(), S = file.storages.size();
    const RoleAssignment roles = resolve_roles(file);

    std::vector<std::uint32_t> backward_of(G, kUnpaired), forward_of(G, kUnpaired); // per graph: a dense array
    for (const Pair& p : file.pairs) {
        backward_of[p.forward.index()] = static_cast<std::uint32_t>(p.backward.value);
        forward_of[p.backward.index()] = static_cast<std::uint32_t>(p.forward.value);
    }

    std::vector<GraphFacts> facts(G);
    std::vector<std::uint32_t> stamp(S, 0);
    std::uint32_t mark = 0;
    std::vector<std::uint8_t> used_by_graph(S, 0);
    for (const Graph& g : file.graphs)
        for (StorageId s : g.output_storages) used_by_graph[s.index()] = 1;

    // Scratch reused by every graph (build_alias_info keeps its per-storage arrays and clears what
    // the previous graph touched), so each graph costs its own size, not the file's storages.
    AliasInfo alias, forward_alias;
    std::vector<std::uint8_t> pair_flags;
    const auto graph_facts = [&](GraphId gi) -> const GraphFacts& {
        GraphFacts& f = facts[gi.index()];
        if (f.done) return f;
        f.done = true;
        const Graph& g = file.graph(gi);
        for (StorageId s : placeholder_storages(g, stamp, ++mark)) {
            const StorageRole r = roles.role[s.index()];
            if (is_persistent_role(r)) f.persistent.push_back(s);
            if (r == StorageRole::OptimizerState) f.held_state.push_back(s);
            if (r == StorageRole::Gradient && file.label(s).starts_with("grad of ")) f.held_grads.push_back(s);
        }
        if (forward_of[gi.index()] != kUnpaired) { // a paired backward: the pair's releasability
            const Graph& fg = file.graphs[forward_of[gi.index()]];
            build_alias_info(file, fg, forward_alias);
            const FwdBwdInteractions inter = get_fwd_bwd_interactions(file, fg, forward_alias, g, pair_flags);
            build_alias_info(file, g, alias);
            const AliasInfo& ba = alias;
            f.profile = build_memory_profile(file, g, ba, backward_releasable(g, inter), counted);
            for (StorageId s : output_node_uses(g, ba))
                if (roles.role[s.index()] == StorageRole::Gradient && file.label(s).starts_with("grad of "))
                    f.param_grads.push_back(s);
        } else {
            build_alias_info(file, g, alias);
            const AliasInfo& a = alias;
            f.profile = build_memory_profile(file, g, a, default_releasable(g), counted);
            if (backward_of[gi.index()] != kUnpaired) {
                placeholder_storages(file.graphs[backward_of[gi.index()]], stamp, ++mark); // stamps them with mark
                const std::uint32_t held_mark = mark;
                for (StorageId s : output_node_uses(g, a)) {
                    if (stamp[s.index()] == held_mark) {
                        if (!is_persistent_role(roles.role[s.index()])) f.saved.push_back(s);
                    } else {
                        f.outputs.push_back(s);
                    }
                }
            }
        }
        return f;
    };

    // Parameters and buffers: one key per (prefix, label); an unlabelled storage is its own key.
    std::unordered_map<std::string, std::uint32_t> key_ids;
    std::vector<std::int64_t> key_bytes;
    std::vector<StorageId> key_storage; // the storage whose bytes the key counts
    const auto key = [&](std::string_view prefix, StorageId s) -> std::uint32_t {
        const std::string_view label = file.label(s);
        std::string k = label.empty() ? "#" + std::to_string(s.value) : key_of(prefix, label);
        const auto [it, fresh] = key_ids.try_emplace(std::move(k), static_cast<std::uint32_t>(key_bytes.size()));
        if (fresh) {
            key_bytes.push_back(bytes(file, counted, s));
            key_storage.push_back(s);
        }
        return it->second;
    };
    // Each entry's persistent keys (CSR: entry_keys[entry_key_begin[e], entry_key_begin[e + 1])),
    // then the whole step's.
    std::vector<std::uint32_t> entry_keys;
    std::vector<std::size_t> entry_key_begin = {0};
    for (std::size_t e = 0; e < file.step.size(); ++e) {
        const StepEntry& en = file.step[e];
        const auto from = static_cast<std::ptrdiff_t>(entry_keys.size());
        for (StorageId s : graph_facts(en.graph).persistent) entry_keys.push_back(key(en.module_prefix, s));
        std::sort(entry_keys.begin() + from, entry_keys.end());
        entry_keys.erase(std::unique(entry_keys.begin() + from, entry_keys.end()), entry_keys.end());
        entry_key_begin.push_back(entry_keys.size());
    }
    WholeStep out;
    // Optimizer state: one key per label (the exporter writes each state tensor once beside the
    // graphs, and a compiled opt.step holds it again as an input).
    std::unordered_map<std::string, std::int64_t> state_bytes;
    std::unordered_map<std::string, std::uint32_t> state_item; // -> index into out.carried
    const auto state_key = [&](StorageId s) {
        const std::string_view label = file.label(s);
        return label.empty() ? "#" + std::to_string(s.value) : std::string(label);
    };
    for (std::size_t s = 0; s < S; ++s) {
        const StorageId id(static_cast<std::int32_t>(s));
        if (roles.role[s] == StorageRole::OptimizerState) {
            std::string k = state_key(id);
            const auto [it, fresh] = state_bytes.try_emplace(k, bytes(file, counted, id));
            if (fresh) {
                out.optimizer_state += it->second;
                state_item.emplace(std::move(k), static_cast<std::uint32_t>(out.carried.size()));
                out.carried.push_back({id, CarryKind::OptimizerState, std::nullopt, 0, 0, it->second});
            }
        } else if (!used_by_graph[s] && is_persistent_role(file.role(id)))
            key(std::string_view{}, id); // a parameter no graph holds (exporter: known to the optimizer)
    }
    // State is kept for a parameter the model has: state whose parameter no step graph holds and
    // no parameter storage names was counted as if real (a file merged from another model's
    // optimizer). Labels "param_groups[g][i] <state>" are the exporter's for unnamed parameters.
    // The labels of every parameter storage, gathered only when a state's parameter is no key:
    // a step whose states all name parameters it holds (every export) pays nothing for them.
    std::unordered_set<std::string_view> parameter_labels;
    bool labels_gathered = false;
    for (std::size_t s = 0; s < S; ++s) {
        const StorageId id(static_cast<std::int32_t>(s));
        if (roles.role[s] != StorageRole::OptimizerState) continue;
        const std::string_view label = file.label(id);
        const std::size_t space = label.find(' ');
        if (space == std::string_view::npos || space == 0) continue;
        const std::string_view param = label.substr(0, space);
        if (param.starts_with("param_groups[") || key_ids.contains(std::string(param))) continue;
        if (!labels_gathered) {
            for (std::size_t p = 0; p < S; ++p)
                if (is_persistent_role(roles.role[p]))
                    parameter_labels.insert(file.label(StorageId(static_cast<std::int32_t>(p))));
            labels_gathered = true;
        }
        if (parameter_labels.contains(param)) continue;
        throw Error(file.source + ": storages[" + std::to_string(s) + "] (id " +
                    std::to_string(file.storages[s].file_id) + "): optimizer state " + detail::quote(label) +
                    " is for parameter " + detail::quote(param) +
                    ", which no graph of the step holds and no parameter storage of the file names");
    }
    for (std::int64_t b : key_bytes) out.parameters += b;
    // Parameters first in the carried list (item index = key), then optimizer state.
    const auto nseg = static_cast<std::uint32_t>(file.step.size());
    for (CarriedStorage& c : out.carried) c.last = nseg;
    const auto first_param = static_cast<std::uint32_t>(out.carried.size());
    for (std::size_t k = 0; k < key_bytes.size(); ++k)
        out.carried.push_back({key_storage[k], CarryKind::Parameter, std::nullopt, 0, nseg, key_bytes[k]});
    std::rotate(out.carried.begin(), out.carried.begin() + first_param, out.carried.end());
    for (auto& [k, i] : state_item) i += static_cast<std::uint32_t>(key_bytes.size());

    // The last forward before the first backward: its outputs (the loss) stay to the end.
    std::size_t loss_entry = file.step.size();
    for (std::size_t e = 0; e < file.step.size(); ++e) {
        const GraphKind k = file.graph(file.step[e].graph).kind;
        if (k == GraphKind::Backward || forward_of[file.step[e].graph.index()] != kUnpaired) break;
        if (backward_of[file.step[e].graph.index()] != kUnpaired) loss_entry = e;
    }

    struct Pending {
        std::int64_t saved = 0;
        std::uint32_t entry = 0;
        std::size_t items_begin = 0, items_end = 0; // its Saved items in out.carried
    };
    std::map<std::pair<std::uint32_t, std::uint32_t>, Pending> pending; // (fwd graph, call)
    std::int64_t pending_saved = 0, held_outputs = 0, grads = 0;
    std::vector<std::uint8_t> grad_done;  // per key
    std::vector<std::int64_t> grad_bytes; // per key: the carried gradient's size
    std::vector<std::uint32_t> grad_item; // per key: its item in out.carried
    // Per key: 1 + the last entry that counted the key's gradient as held (every key exists by now,
    // so one array for the whole step: each entry costs what it holds, never the number of keys).
    std::vector<std::uint32_t> held_stamp(key_bytes.size(), 0);
    out.held_begin.push_back(0);
    for (std::size_t e = 0; e < file.step.size(); ++e) {
        const StepEntry& en = file.step[e];
        const GraphFacts& f = graph_facts(en.graph);
        if (forward_of[en.graph.index()] != kUnpaired) { // its own saved activations are its placeholders now
            const auto it = pending.find({forward_of[en.graph.index()], en.call});
            if (it != pending.end()) {
                pending_saved -= it->second.saved;
                for (std::size_t i = it->second.items_begin; i < it->second.items_end; ++i)
                    out.carried[i].last = static_cast<std::uint32_t>(e);
                pending.erase(it);
            }
        }
        StepSegment seg;
        seg.entry = static_cast<std::uint32_t>(e);
        seg.graph = en.graph;
        seg.begin = out.timeline.size();
        seg.length = f.profile.size();
        std::int64_t held = 0;
        const std::size_t held_from = out.held.size();
        for (std::size_t i = entry_key_begin[e]; i < entry_key_begin[e + 1]; ++i) {
            const std::uint32_t k = entry_keys[i];
            held += key_bytes[k];
            out.held.push_back(k);
        }
        seg.carry.parameters = out.parameters - held;
        // State and gradients a graph holds as inputs (a compiled optimizer step) are its own.
        std::int64_t held_state = 0, held_grads = 0;
        {
            std::unordered_set<std::string> seen;
            for (StorageId s : f.held_state) {
                std::string k = state_key(s);
                if (const auto it = state_item.find(k); it != state_item.end() && seen.insert(std::move(k)).second) {
                    held_state += out.carried[it->second].bytes;
                    out.held.push_back(it->second);
                }
            }
            for (StorageId s : f.held_grads) {
                const auto it = key_ids.find(key_of(en.module_prefix, file.label(s).substr(8)));
                if (it != key_ids.end() && it->second < grad_done.size() && grad_done[it->second] &&
                    held_stamp[it->second] != e + 1) {
                    held_stamp[it->second] = static_cast<std::uint32_t>(e + 1);
                    held_grads += grad_bytes[it->second];
                    out.held.push_back(grad_item[it->second]);
                }
            }
        }
        std::sort(out.held.begin() + static_cast<std::ptrdiff_t>(held_from), out.held.end());
        out.held_begin.push_back(static_cast<std::uint32_t>(out.held.size()));
        seg.carry.optimizer_state = out.optimizer_state - held_state;
        seg.carry.saved = pending_saved;
        seg.carry.gradients = grads - held_grads;
        seg.carry.outputs = held_outputs;
        const std::int64_t carry = seg.carry.total();
        for (std::int64_t v : f.profile) out.timeline.push_back(carry + v);
        seg.peak = carry + (f.profile.empty() ? 0 : *std::max_element(f.profile.begin(), f.profile.end()));
        out.segments.push_back(seg);
        // After the entry: what it leaves behind.
        const auto here = static_cast<std::uint32_t>(e);
        if (backward_of[en.graph.index()] != kUnpaired) {
            Pending p;
            p.entry = here;
            p.items_begin = out.carried.size();
            for (StorageId s : f.saved) {
                p.saved += bytes(file, counted, s);
                out.carried.push_back({s, CarryKind::Saved, here, here + 1, nseg, bytes(file, counted, s)});
            }
            p.items_end = out.carried.size();
            pending_saved += p.saved;
            pending[{static_cast<std::uint32_t>(en.graph.value), en.call}] = p;
            if (e == loss_entry)
                for (StorageId s : f.outputs) {
                    held_outputs += bytes(file, counted, s);
                    out.carried.push_back({s, CarryKind::Output, here, here + 1, nseg, bytes(file, counted, s)});
                }
        }
        for (StorageId s : f.param_grads) {
            const std::string_view label = file.label(s).substr(8); // after "grad of "
            const auto it = key_ids.find(key_of(en.module_prefix, label));
            if (it == key_ids.end()) continue; // an input's gradient: the next backward's tangent
            if (grad_done.size() < key_bytes.size()) grad_done.resize(key_bytes.size(), 0);
            if (grad_done[it->second]) continue;
            grad_done[it->second] = 1;
            if (grad_bytes.size() < key_bytes.size()) grad_bytes.resize(key_bytes.size(), 0);
            if (grad_item.size() < key_bytes.size()) grad_item.resize(key_bytes.size(), 0);
            grad_bytes[it->second] = bytes(file, counted, s);
            grads += grad_bytes[it->second];
            grad_item[it->second] = static_cast<std::uint32_t>(out.carried.size());
            out.carried.push_back({s, CarryKind::Gradient, here, here + 1, nseg, grad_bytes[it->second]});
        }
    }
    for (const auto& [k, v] : pending) out.missing_backward.push_back(v.entry);
    std::sort(out.missing_backward.begin(), out.missing_backward.end());
    for (std::size_t i = 0; i < out.timeline.size(); ++i)
        if (out.timeline[i] > out.peak || i == 0) {
            out.peak = out.timeline[i];
            out.peak_index = i;
        }
    out.peak_segment = step_point(out, out.peak_index).segment;
    return out;
}

std::string_view to_string(CarryKind kind) {
    switch (kind) {
    case CarryKind::Parameter: return "parameter";
    case CarryKind::OptimizerState: return "optimizer state";
    case CarryKind::Saved: return "saved for backward";
    case CarryKind::Gradient: return "gradient";
    case CarryKind::Output: return "output";
    }
    return "?";
}

NodeMask step_releasable(const GraphFile& file, GraphId graph) {
    const Graph& g = file.graph(graph);
    for (const Pair& p : file.pairs)
        if (p.backward == graph)
            return backward_releasable(g, get_fwd_bwd_interactions(file, file.graph(p.forward), g));
    return default_releasable(g);
}

std::vector<CarriedStorage> carried_at(const WholeStep& step, std::uint32_t segment) {
    std::vector<CarriedStorage> out;
    if (segment + 1 >= step.held_begin.size()) return out;
    const auto held =
        std::span(step.held).subspan(step.held_begin[segment], step.held_begin[segment + 1] - step.held_begin[segment]);
    for (std::size_t i = 0; i < step.carried.size(); ++i) {
        const CarriedStorage& c = step.carried[i];
        if (c.bytes == 0 || segment < c.first || segment >= c.last) continue;
        if (std::binary_search(held.begin(), held.end(), static_cast<std::uint32_t>(i))) continue;
        out.push_back(c);
    }
    return out;
}

StepPoint step_point(const WholeStep& step, std::size_t timeline_index) {
    const auto it = std::upper_bound(step.segments.begin(), step.segments.end(), timeline_index,
                                     [](std::size_t i, const StepSegment& s) { return i < s.begin; });
    const std::size_t seg = it == step.segments.begin() ? 0 : static_cast<std::size_t>(it - step.segments.begin()) - 1;
    StepPoint p;
    p.segment = static_cast<std::uint32_t>(seg);
    p.index = step.segments.empty() ? 0 : timeline_index - step.segments[seg].begin;
    return p;
}

} // namespace fxmem
