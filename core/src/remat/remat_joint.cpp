// analyze_joint: what the partitioner's classify_nodes and helpers know about a joint graph.
#include "fxmem/error.h"
#include "fxmem/remat.h"
#include "model/quote.h"

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

namespace fxmem {

using detail::quote;

namespace {

// An in-place aten op ("aten.copy_.default", "aten.add_.Tensor"): its schema is mutable, which
// makes it impure for dead-code removal and _must_be_in_forward for the partitioner.
bool is_mutating(std::string_view target) {
    if (!target.starts_with("aten.")) return false;
    std::string_view op = target.substr(5);
    op = op.substr(0, op.find('.'));
    return op.size() > 1 && op.back() == '_' && !op.starts_with("__");
}

// get_default_op_list().view_ops: recomputable_view_ops, by overload packet.
bool is_view_op(std::string_view target) {
    if (target.starts_with("prims.broadcast_in_dim.")) return true;
    if (!target.starts_with("aten.")) return false;
    std::string_view op = target.substr(5);
    op = op.substr(0, op.find('.'));
    for (std::string_view v :
         {"squeeze", "unsqueeze", "alias", "view", "slice", "t", "expand", "as_strided", "permute", "select", "split"})
        if (op == v) return true;
    return false;
}

} // namespace

namespace {

// JointGraph::symbol_binding and node_symbols: O(nodes + the joint's symbolic tensor entries).
void joint_symbols(JointGraph& j) {
    const SymbolicSizes& sy = j.file->symbolic;
    if (sy.symbols.empty()) return;
    const Graph& g = j.g();
    const std::size_t n = g.size();
    j.symbol_binding.assign(sy.symbols.size(), NodeId{});
    std::vector<std::int32_t> owner(g.tensors.size(), -1);
    for (std::size_t i = 0; i < n; ++i) {
        const Node& nd = g.nodes[i];
        for (std::uint32_t t = nd.tensors.begin; t < nd.tensors.end; ++t) owner[t] = static_cast<std::int32_t>(i);
        if (nd.op != OpKind::Placeholder || !j.symbolic[i]) continue;
        const auto val = g.val(NodeId(static_cast<std::int32_t>(i)));
        if (const std::optional<std::size_t> k = sy.find_symbol(g.others[val[0].payload]);
            k && sy.symbols[*k].name == g.others[val[0].payload] && !j.symbol_binding[*k].valid())
            j.symbol_binding[*k] = NodeId(static_cast<std::int32_t>(i));
    }
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs; // (node, symbol)
    for (const SymbolicSizes::TensorEntry& e : sy.tensor_entries) {
        if (e.graph != j.graph || owner[e.tensor] < 0) continue;
        for (const ExprInstr& in : sy.expr_code(e.expr))
            if (in.op == ExprOp::Sym)
                pairs.emplace_back(static_cast<std::uint32_t>(owner[e.tensor]), static_cast<std::uint32_t>(in.value));
    }
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    j.node_symbols_begin.assign(n + 1, 0);
    for (const auto& [node, symbol] : pairs) ++j.node_symbols_begin[node + 1];
    for (std::size_t i = 0; i < n; ++i) j.node_symbols_begin[i + 1] += j.node_symbols_begin[i];
    j.node_symbols.reserve(pairs.size());
    for (const auto& [node, symbol] : pairs) j.node_symbols.push_back(symbol);
}

} // namespace

JointGraph analyze_joint(const GraphFile& file, GraphId graph) {
    const Graph& g = file.graphs.at(graph.index());
    const auto where = [&] { return file.source + ": graph " + quote(g.name) + ": "; };
    const auto at = [&](NodeId n) {
        return where().substr(0, where().size() - 2) + ", node " + quote(g.node(n).name) + ": ";
    };
    if (g.kind != GraphKind::Joint)
        throw Error(where() + "not a joint graph (kind '" + std::string(to_string(g.kind)) + "')");
    if (!g.num_fwd_outputs) throw Error(where() + "a joint graph needs 'num_fwd_outputs'");
    const std::int64_t num_fwd_outputs = *g.num_fwd_outputs;
    if (g.size() == 0 || g.nodes.back().op != OpKind::Output)
        throw Error(where() + "a joint graph must end with its output node");

    JointGraph j;
    j.file = &file;
    j.graph = graph;
    const std::size_t n = g.size();
    j.output = NodeId(static_cast<std::int32_t>(n - 1));
    const auto outs = g.inputs(j.output);
    if (static_cast<std::uint64_t>(num_fwd_outputs) > outs.size())
        throw Error(where() + "'num_fwd_outputs' is " + std::to_string(num_fwd_outputs) + " but the output node has " +
                    std::to_string(outs.size()) + " inputs");
    j.fwd_outputs.assign(outs.begin(), outs.begin() + num_fwd_outputs);
    j.bwd_outputs.assign(outs.begin() + num_fwd_outputs, outs.end());

    j.computable.assign(n, 0);
    j.forward.assign(n, 0);
    j.mutating.assign(n, 0);
    j.getitem.assign(n, 0);
    j.copy.assign(n, 0);
    j.view.assign(n, 0);
    j.free_to_save.assign(n, 0);
    j.symbolic.assign(n, 0);
    j.seeded.assign(n, 0);
    j.multi.assign(n, 0);
    j.flops.assign(n, 0);
    std::vector<std::int32_t> blame(n, -1); // a node the forward cannot compute: the input why
    for (std::size_t i = 0; i < n; ++i) {
        const NodeId id(static_cast<std::int32_t>(i));
        const Node& nd = g.nodes[i];
        const std::string_view target = g.target(id);
        j.flops[i] = g.flops(id).value_or(0);
        j.getitem[i] = nd.op == OpKind::CallFunction && target == "operator.getitem";
        j.copy[i] = nd.op == OpKind::CallFunction && target == "aten.copy_.default";
        j.mutating[i] = nd.op == OpKind::CallFunction && is_mutating(target);
        j.view[i] = nd.op == OpKind::CallFunction && is_view_op(target);
        // The exporter writes the op's torch.Tag.nondeterministic_seeded into the node's meta (the
        // reader keeps meta as compact JSON text).
        j.seeded[i] = nd.op == OpKind::CallFunction &&
                      g.meta_json(id).find("\"nondeterministic_seeded\":true") != std::string_view::npos;
        const auto val = g.val(id);
        j.symbolic[i] = val.size() == 1 && val[0].kind == ValToken::Kind::Other;
        j.multi[i] = !val.empty() && val[0].kind == ValToken::Kind::List;
        switch (nd.op) {
        case OpKind::Placeholder: {
            // _is_tangent / _is_primal look at the target; seed offsets are neither primal nor tangent.
            const bool tangent = target.find("tangents") != std::string_view::npos;
            const bool seed = target.find("fwd_seed") != std::string_view::npos ||
                              target.find("fwd_base_offset") != std::string_view::npos ||
                              target.find("bwd_seed") != std::string_view::npos ||
                              target.find("bwd_base_offset") != std::string_view::npos;
            if (tangent)
                j.tangents.push_back(id);
            else if (!seed)
                j.primals.push_back(id);
            if (!tangent && !seed) {
                bool param = !g.outputs(id).empty();
                for (StorageId st : g.outputs(id))
                    param = param && (file.role(st) == StorageRole::Parameter || file.role(st) == StorageRole::Buffer);
                j.free_to_save[i] = param;
            }
            j.computable[i] = !tangent && !seed;
            if (!j.computable[i]) blame[i] = id.value;
            break;
        }
        case OpKind::GetAttr: j.computable[i] = 1; break;
        case OpKind::Output: break;
        default: {
            bool ok = true;
            for (NodeId in : g.inputs(id))
                if (!j.computable[in.index()] && ok) {
                    ok = false;
                    blame[i] = blame[in.index()];
                }
            j.computable[i] = ok;
        }
        }
    }
    // Said with the input that makes it so: a tangent, or an RNG seed input, which the forward
    // of a partition takes but a joint graph's forward part cannot produce.
    for (NodeId o : j.fwd_outputs)
        if (!j.computable[o.index()]) {
            const NodeId why(blame[o.index()]);
            const bool tangent = g.target(why).find("tangents") != std::string_view::npos;
            throw Error(at(o) + "a forward output that needs " + (tangent ? "the tangent " : "the RNG seed input ") +
                        quote(g.node(why).name) +
                        (tangent ? "" : " (seeds are the partition's inputs, not the joint's forward)"));
        }

    // Required forward nodes: what the forward-only graph keeps (the primals, the ancestors of
    // the forward outputs, and in-place ops computable from the primals, which dead-code removal keeps).
    std::vector<std::uint8_t> derived(n, 0);
    for (NodeId p : j.primals) derived[p.index()] = 1;
    for (NodeId o : j.fwd_outputs) derived[o.index()] = 1;
    for (std::size_t i = 0; i < n; ++i)
        if (j.mutating[i] && j.computable[i]) derived[i] = 1;
    for (std::size_t i = n; i-- > 0;)
        if (derived[i] && g.nodes[i].op != OpKind::Placeholder)
            for (NodeId in : g.inputs(NodeId(static_cast<std::int32_t>(i)))) derived[in.index()] = 1;

    // The file's phase, where given, is PyTorch's own classification; it must not contradict the
    // structure.
    for (std::size_t i = 0; i + 1 < n; ++i) {
        const NodeId id(static_cast<std::int32_t>(i));
        const NodePhase phase = g.phase(id);
        if (phase == NodePhase::Forward && !j.computable[i])
            throw Error(at(id) + "the file says phase 'forward' but the node needs a tangent");
        if (phase == NodePhase::Backward && derived[i] && !j.mutating[i])
            throw Error(at(id) + "the file says phase 'backward' but the forward outputs need the node");
        j.forward[i] = phase == NodePhase::Unknown ? derived[i] : phase == NodePhase::Forward;
    }
    joint_symbols(j);
    return j;
}

std::vector<NodeId> saved_of_pair(const JointGraph& joint, const Pair& pair) {
    const GraphFile& file = *joint.file;
    const Graph& bwd = file.graph(pair.backward);
    const Graph& g = joint.g();
    std::vector<NodeId> saved;
    for (std::size_t i = 0; i < bwd.size(); ++i) {
        const Node& nd = bwd.nodes[i];
        if (nd.op != OpKind::Placeholder) continue;
        const NodeId id = g.find(nd.name);
        if (!id.valid())
            throw Error(file.source + ": graph " + quote(bwd.name) + ", node " + quote(nd.name) +
                        ": a backward input that the joint graph " + quote(g.name) + " does not have");
        if (g.node(id).op == OpKind::Placeholder &&
            std::string_view(g.target(id)).find("tangents") != std::string_view::npos)
            continue;
        saved.push_back(id);
    }
    return saved;
}

} // namespace fxmem
