// simulate_partition: the pair _extract_fwd_bwd_modules extracts for a saved set, then
// reordering_to_mimic_autograd_engine and raise_getitems, on dense joint ids (O(N + E), plus a
// sort of each batch of nodes the reordering inserts at once).
#include "fxmem/error.h"
#include "fxmem/remat.h"
#include "model/quote.h"

#include <algorithm>

namespace fxmem {

using detail::quote;

namespace {

// raise_getitems: every getitem, taken in reverse order, moves right after its parent, so each
// parent ends up followed by its getitems in their earlier relative order. A doubly linked list
// over the order's positions makes each move O(1).
void raise_getitems(const JointGraph& j, std::vector<NodeId>& order, std::size_t first) {
    const Graph& g = j.g();
    const std::size_t m = order.size();
    if (m <= first) return;
    std::vector<std::int32_t> pos(g.size(), -1);
    for (std::size_t p = first; p < m; ++p) pos[order[p].index()] = static_cast<std::int32_t>(p);
    bool any = false;
    for (std::size_t p = first; p < m && !any; ++p) any = j.getitem[order[p].index()] && g.inputs(order[p]).size() == 1;
    if (!any) return;
    // Links by position; -1 ends. Position m is a head sentinel.
    std::vector<std::int32_t> next(m + 1, -1), prev(m + 1, -1);
    const auto head = static_cast<std::int32_t>(m);
    std::int32_t last = head;
    for (std::size_t p = first; p < m; ++p) {
        next[static_cast<std::size_t>(last)] = static_cast<std::int32_t>(p);
        prev[p] = last;
        last = static_cast<std::int32_t>(p);
    }
    for (std::size_t p = m; p-- > first;) {
        const NodeId node = order[p];
        if (!j.getitem[node.index()] || g.inputs(node).size() != 1) continue;
        const std::int32_t parent = pos[g.inputs(node)[0].index()];
        if (parent < 0) continue; // a placeholder of this graph's inputs: already first
        const auto self = static_cast<std::int32_t>(p);
        if (next[static_cast<std::size_t>(parent)] == self) continue;
        // unlink
        next[static_cast<std::size_t>(prev[p])] = next[p];
        if (next[p] >= 0) prev[static_cast<std::size_t>(next[p])] = prev[p];
        // insert after parent
        const std::int32_t after = next[static_cast<std::size_t>(parent)];
        next[static_cast<std::size_t>(parent)] = self;
        prev[p] = parent;
        next[p] = after;
        if (after >= 0) prev[static_cast<std::size_t>(after)] = self;
    }
    std::vector<NodeId> out(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(first));
    for (std::int32_t p = next[m]; p >= 0; p = next[static_cast<std::size_t>(p)])
        out.push_back(order[static_cast<std::size_t>(p)]);
    order.swap(out);
}

} // namespace

namespace {

// _extract_fwd_bwd_modules, after the saved values are final: every symbol the backward's inputs
// name in their sizes (the saved sym nodes', the saved values' and the tangents' vals, each
// node's new symbols sorted by name) is bound by saving its binding node, though the backward
// graph never reads it; the binding sym nodes come first, then the other (derived) sym nodes,
// then the tensors. A symbol no node binds is skipped, as PyTorch skips it. No bytes change: a
// SymInt holds no storage; the backward's placeholders do.
void save_symbol_bindings(const JointGraph& j, std::vector<NodeId>& saved) {
    if (j.symbol_binding.empty()) return;
    const std::vector<Symbol>& symbols = j.file->symbolic.symbols;
    std::vector<std::uint8_t> bound(symbols.size(), 0);
    std::vector<NodeId> binding, derived, tensors;
    const auto binds = [&](NodeId x) -> std::optional<std::size_t> {
        for (std::size_t k = 0; k < symbols.size(); ++k)
            if (j.symbol_binding[k] == x) return k;
        return std::nullopt;
    };
    for (NodeId x : saved) {
        if (!j.symbolic[x.index()]) {
            tensors.push_back(x);
        } else if (const std::optional<std::size_t> k = binds(x)) {
            bound[*k] = 1;
            binding.push_back(x);
        } else {
            derived.push_back(x);
        }
    }
    std::vector<std::uint32_t> fresh;
    const auto bind_symbols_of = [&](NodeId x) {
        fresh.clear();
        for (std::uint32_t k = j.node_symbols_begin[x.index()]; k < j.node_symbols_begin[x.index() + 1]; ++k)
            if (!bound[j.node_symbols[k]]) fresh.push_back(j.node_symbols[k]);
        std::sort(fresh.begin(), fresh.end(),
                  [&](std::uint32_t a, std::uint32_t b) { return symbols[a].name < symbols[b].name; });
        for (std::uint32_t s : fresh) {
            bound[s] = 1;
            if (j.symbol_binding[s].valid()) binding.push_back(j.symbol_binding[s]);
        }
    };
    for (NodeId x : derived) bind_symbols_of(x);
    for (NodeId x : tensors) bind_symbols_of(x);
    for (NodeId t : j.tangents) bind_symbols_of(t);
    saved = std::move(binding);
    saved.insert(saved.end(), derived.begin(), derived.end());
    saved.insert(saved.end(), tensors.begin(), tensors.end());
}

} // namespace

Partition simulate_partition(const JointGraph& j, std::span<const NodeId> saved_in) {
    const GraphFile& file = *j.file;
    const Graph& g = j.g();
    const std::size_t n = g.size();
    const auto at = [&](NodeId id) {
        return file.source + ": graph " + quote(g.name) + ", node " + quote(g.node(id).name) + ": ";
    };

    std::vector<std::uint8_t> is_input(n, 0); // backward inputs: saved values and tangents
    for (NodeId s : saved_in) {
        if (!s.valid() || s.index() >= n)
            throw Error(file.source + ": graph " + quote(g.name) + ": saved node id out of range");
        if (s == j.output) throw Error(at(s) + "the output node cannot be saved");
        if (!j.computable[s.index()])
            throw Error(at(s) + "cannot be saved: the forward cannot compute it (it needs a tangent)");
        is_input[s.index()] = 1;
    }
    for (NodeId t : j.tangents) is_input[t.index()] = 1;

    // Backward: _extract_graph_with_inputs_outputs(saved + tangents -> gradients). A node is
    // valid when it is an input, a get_attr, or a call whose inputs are all valid; placeholders
    // that are not inputs and forward in-place ops (_must_be_in_forward) are not.
    std::vector<std::uint8_t> valid(n, 0), needed(n, 0);
    for (std::size_t i = 0; i + 1 < n; ++i) {
        const NodeId id(static_cast<std::int32_t>(i));
        const Node& nd = g.nodes[i];
        if (is_input[i])
            valid[i] = 1;
        else if (nd.op == OpKind::Placeholder)
            valid[i] = 0;
        else if (j.mutating[i] && j.forward[i])
            valid[i] = 0;
        else if (nd.op == OpKind::GetAttr)
            valid[i] = 1;
        else {
            bool ok = true;
            for (NodeId in : g.inputs(id)) ok = ok && valid[in.index()];
            valid[i] = ok;
        }
    }
    // Dead-code removal keeps what the gradients need and valid in-place ops of the backward.
    for (NodeId o : j.bwd_outputs) needed[o.index()] = 1;
    for (std::size_t i = 0; i + 1 < n; ++i)
        if (j.mutating[i] && !j.forward[i] && valid[i] && !is_input[i]) needed[i] = 1;
    for (std::size_t i = n - 1; i-- > 0;) {
        if (!needed[i] || is_input[i]) continue;
        const NodeId id(static_cast<std::int32_t>(i));
        if (!valid[i]) {
            // Name what it lacks: follow invalid inputs down to a value that is neither saved
            // nor computable from saved values (an unsaved primal, a forward in-place op).
            NodeId lack = id;
            for (;;) {
                NodeId next_lack;
                if (g.node(lack).op != OpKind::Placeholder && !(j.mutating[lack.index()] && j.forward[lack.index()]))
                    for (NodeId in : g.inputs(lack))
                        if (!valid[in.index()]) {
                            next_lack = in;
                            break;
                        }
                if (!next_lack.valid()) break;
                lack = next_lack;
            }
            throw Error(at(id) + "the backward needs it but cannot compute it from the saved values: it needs " +
                        quote(g.node(lack).name) + ", which is neither saved nor computable from saved values");
        }
        for (NodeId in : g.inputs(id)) needed[in.index()] = 1;
    }

    Partition p;
    // Saved values the backward uses, sym nodes first (saved_sym_nodes + saved_values), each in
    // joint order (solve_min_cut sorts them so). Tangents are inputs too but not computable.
    for (int pass = 0; pass < 2; ++pass)
        for (std::size_t i = 0; i + 1 < n; ++i)
            if (is_input[i] && needed[i] && j.computable[i] && j.symbolic[i] == (pass == 0 ? 1 : 0))
                p.saved.push_back(NodeId(static_cast<std::int32_t>(i)));
    save_symbol_bindings(j, p.saved);

    // Forward: primals -> forward outputs + used saved values, dead code removed (in-place ops
    // computable from the primals stay).
    std::vector<std::uint8_t> fneeded(n, 0);
    for (NodeId o : j.fwd_outputs) fneeded[o.index()] = 1;
    for (NodeId s : p.saved) fneeded[s.index()] = 1;
    for (std::size_t i = 0; i + 1 < n; ++i)
        if (j.mutating[i] && j.forward[i] && j.computable[i]) fneeded[i] = 1;
    for (std::size_t i = n - 1; i-- > 0;)
        if (fneeded[i])
            for (NodeId in : g.inputs(NodeId(static_cast<std::int32_t>(i)))) fneeded[in.index()] = 1;
    for (NodeId prim : j.primals) p.forward.push_back(prim);
    for (std::size_t i = 0; i + 1 < n; ++i)
        if (fneeded[i] && g.nodes[i].op != OpKind::Placeholder)
            p.forward.push_back(NodeId(static_cast<std::int32_t>(i)));
    raise_getitems(j, p.forward, j.primals.size());

    // Backward in extraction order: placeholders (saved, tangents), then the needed nodes.
    std::vector<NodeId> bw;
    for (std::size_t i = 0; i + 1 < n; ++i)
        if (needed[i] && !is_input[i]) bw.push_back(NodeId(static_cast<std::int32_t>(i)));
    bw.push_back(j.output);

    // reordering_to_mimic_autograd_engine: from the first user of a tangent on, each node is
    // inserted together with its inputs not yet inserted, those in their extraction order; before
    // it only copy_ nodes are inserted that way. Without a tangent user the order stays.
    std::vector<std::int32_t> pos(n, -1);
    for (std::size_t k = 0; k < bw.size(); ++k) pos[bw[k].index()] = static_cast<std::int32_t>(k);
    std::size_t first_bwd = bw.size();
    for (NodeId t : j.tangents)
        for (NodeId u : g.users(t))
            if (pos[u.index()] >= 0) first_bwd = std::min(first_bwd, static_cast<std::size_t>(pos[u.index()]));
    std::vector<NodeId> order;
    if (first_bwd == bw.size()) {
        order = bw;
    } else {
        std::vector<std::uint8_t> placed(n, 0);
        for (std::size_t i = 0; i < n; ++i) placed[i] = is_input[i];
        std::vector<NodeId> stack, batch;
        // The output node stands for the gradients: its batch is everything they still need.
        const auto insert = [&](NodeId v) {
            if (placed[v.index()]) return;
            stack.clear();
            batch.clear();
            if (v == j.output) {
                for (NodeId o : j.bwd_outputs)
                    if (!placed[o.index()]) placed[o.index()] = 2, stack.push_back(o);
            } else {
                placed[v.index()] = 2; // collected
                stack.push_back(v);
            }
            while (!stack.empty()) {
                const NodeId x = stack.back();
                stack.pop_back();
                batch.push_back(x);
                for (NodeId in : g.inputs(x))
                    if (!placed[in.index()]) {
                        placed[in.index()] = 2;
                        stack.push_back(in);
                    }
            }
            std::sort(batch.begin(), batch.end(), [&](NodeId a, NodeId b) { return pos[a.index()] < pos[b.index()]; });
            for (NodeId x : batch) {
                placed[x.index()] = 1;
                order.push_back(x);
            }
        };
        for (std::size_t k = 0; k < first_bwd; ++k)
            if (j.copy[bw[k].index()]) insert(bw[k]);
        for (std::size_t k = first_bwd; k < bw.size(); ++k) insert(bw[k]);
    }
    std::erase(order, j.output);
    raise_getitems(j, order, 0);
    p.backward = std::move(order);

    for (NodeId x : p.backward)
        if (j.forward[x.index()]) p.recomputed.push_back(x);
    std::sort(p.recomputed.begin(), p.recomputed.end());
    for (NodeId x : p.forward) p.flops += j.flops[x.index()];
    for (NodeId x : p.backward) p.flops += j.flops[x.index()];
    return p;
}

std::vector<NodeId> recompute_in_backward(const JointGraph& j, std::span<const NodeId> saved, NodeId x) {
    const Graph& g = j.g();
    const auto at = [&] {
        return j.file->source + ": graph " + quote(g.name) + ", node " + quote(g.node(x).name) + ": ";
    };
    if (std::find(saved.begin(), saved.end(), x) == saved.end())
        throw Error(at() + "not saved, so there is nothing to recompute");
    if (g.node(x).op == OpKind::Placeholder)
        throw Error(at() + "a primal (an input of the forward) cannot be recomputed, only saved");
    if (j.mutating[x.index()] && j.forward[x.index()])
        throw Error(at() + "an in-place op the forward must run cannot be recomputed in the backward");
    if (j.seeded[x.index()] && j.forward[x.index()])
        throw Error(at() + "a random op cannot be recomputed in the backward (PyTorch's partitioner would replay its "
                           "RNG state instead)");
    std::vector<NodeId> out;
    for (NodeId y : saved)
        if (y != x) out.push_back(y);
    for (NodeId in : g.inputs(x))
        if (j.computable[in.index()]) out.push_back(in);
    simulate_partition(j, out); // throws, naming what the backward would lack
    return out;
}

std::vector<NodeId> save_in_forward(const JointGraph& j, std::span<const NodeId> saved, NodeId x) {
    const Graph& g = j.g();
    const auto at = [&] {
        return j.file->source + ": graph " + quote(g.name) + ", node " + quote(g.node(x).name) + ": ";
    };
    if (std::find(saved.begin(), saved.end(), x) != saved.end()) throw Error(at() + "already saved");
    if (x == j.output) throw Error(at() + "the output node cannot be saved");
    if (!j.computable[x.index()])
        throw Error(at() + "cannot be saved: the forward cannot compute it (it needs a tangent)");
    std::vector<NodeId> out(saved.begin(), saved.end());
    out.push_back(x);
    return out;
}

bool view_like(const JointGraph& j, NodeId x) {
    if (j.view[x.index()]) return true;
    const auto in = j.g().inputs(x);
    return j.getitem[x.index()] && !in.empty() && j.view[in[0].index()];
}

namespace {

// A node a MUST_SAVE tag bans from recompute (should_ban_recomputation, ban_recomputation_if_allowed):
// a primal, or a required forward call that is not a getitem and not a view op.
bool bannable(const JointGraph& j, NodeId x) {
    const OpKind op = j.g().node(x).op;
    if (op == OpKind::Placeholder) return true;
    return op == OpKind::CallFunction && j.forward[x.index()] && !j.getitem[x.index()] && !j.view[x.index()];
}

// Per node: the backward has it at no cost to the cut: it is saved, computed in the backward, a
// tangent, a parameter or buffer (saved at weight 0), or a call no tag bans whose inputs all are.
std::vector<std::uint8_t> free_in_backward(const JointGraph& j, const Partition& p) {
    const Graph& g = j.g();
    std::vector<std::uint8_t> free(g.size(), 0);
    for (NodeId x : p.saved) free[x.index()] = 1;
    for (NodeId x : p.backward) free[x.index()] = 1;
    for (NodeId t : j.tangents) free[t.index()] = 1;
    for (std::size_t i = 0; i < g.size(); ++i) {
        const NodeId id(static_cast<std::int32_t>(i));
        if (free[i] || j.free_to_save[i]) {
            free[i] = 1;
            continue;
        }
        if (g.node(id).op != OpKind::CallFunction || bannable(j, id) || id == j.output) continue;
        bool all = true;
        for (NodeId in : g.inputs(id)) all = all && free[in.index()];
        free[i] = all;
    }
    return free;
}

} // namespace

std::vector<NodeId> unstable_saved(const JointGraph& j, const Partition& p) {
    const Graph& g = j.g();
    const std::vector<std::uint8_t> free = free_in_backward(j, p);
    std::vector<NodeId> out;
    for (NodeId x : p.saved) {
        if (j.multi[x.index()] && g.node(x).op == OpKind::CallFunction) {
            out.push_back(x); // a tuple: its getitems are what can be saved
            continue;
        }
        if (bannable(j, x) || g.node(x).op != OpKind::CallFunction) continue;
        // Recomputing it costs the cut nothing: min-cut does not save it.
        bool all = true;
        for (NodeId in : g.inputs(x)) all = all && free[in.index()];
        // A view op (or a getitem of one: split) is never banned from recompute: the partitioner
        // saves it or its base, whichever its weights favour. Saving the base (the same storage)
        // instead is a choice a tag can force.
        if (all || view_like(j, x)) out.push_back(x);
    }
    return out;
}

std::vector<NodeId> seeded_recomputed(const JointGraph& j, const Partition& p) {
    std::vector<NodeId> out;
    for (NodeId x : p.recomputed)
        if (j.seeded[x.index()]) out.push_back(x);
    return out;
}

std::vector<NodeId> stable_saved(const JointGraph& j, const Partition& p) {
    const Graph& g = j.g();
    const std::vector<NodeId> drop = unstable_saved(j, p);
    const std::vector<NodeId> seeded = seeded_recomputed(j, p);
    if (drop.empty() && seeded.empty()) return p.saved;
    std::vector<std::uint8_t> dropped(g.size(), 0), added(g.size(), 0);
    for (NodeId x : drop) dropped[x.index()] = 1;
    std::vector<NodeId> out;
    for (NodeId x : p.saved)
        if (!dropped[x.index()]) {
            out.push_back(x);
            added[x.index()] = 1;
        }
    for (NodeId x : seeded) // a random op the plan recomputes: saved instead
        if (!added[x.index()]) {
            out.push_back(x);
            added[x.index()] = 1;
        }
    std::vector<std::uint8_t> there(g.size(), 0);
    for (NodeId x : p.backward) there[x.index()] = 1;
    for (NodeId t : j.tangents) there[t.index()] = 1;
    // What a dropped value is recomputed from: a view's base joins the saved set; the parameters
    // and buffers its chain reads are saved for free.
    std::vector<NodeId> stack;
    for (NodeId x : drop) {
        if (j.multi[x.index()]) { // saved as its getitems (the backward keeps those it uses)
            for (NodeId u : g.users(x))
                if (j.getitem[u.index()] && !added[u.index()]) {
                    out.push_back(u);
                    added[u.index()] = 1;
                }
            continue;
        }
        if (view_like(j, x)) { // its base, through views and split: the storage it keeps
            NodeId base = g.inputs(x)[0];
            while (g.node(base).op == OpKind::CallFunction && view_like(j, base) && !g.inputs(base).empty())
                base = g.inputs(base)[0];
            if (j.computable[base.index()] && !added[base.index()]) {
                out.push_back(base);
                added[base.index()] = 1;
            }
        }
        for (NodeId in : g.inputs(x)) stack.push_back(in);
    }
    std::vector<std::uint8_t> seen(g.size(), 0);
    while (!stack.empty()) {
        const NodeId y = stack.back();
        stack.pop_back();
        if (seen[y.index()] || added[y.index()] || there[y.index()]) continue;
        seen[y.index()] = 1;
        if (j.free_to_save[y.index()]) {
            out.push_back(y);
            added[y.index()] = 1;
        } else if (g.node(y).op == OpKind::CallFunction && !bannable(j, y)) {
            for (NodeId in : g.inputs(y)) stack.push_back(in);
        }
    }
    return out;
}

} // namespace fxmem
