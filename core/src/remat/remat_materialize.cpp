// materialize_partition: a simulated partition as two graphs the estimator scores, either a lean
// copy straight from the joint's arrays (the search's scoring) or a full one through GraphBuilder
// (files and views).
#include "fxmem/error.h"
#include "fxmem/remat.h"

namespace fxmem {

namespace {

// Copies node `src` of the joint into `b` as `op` (a placeholder keeps its name as target).
NodeId copy_node(GraphBuilder& b, const GraphFile& file, const Graph& g, NodeId src, OpKind op,
                 const std::vector<NodeId>& map, bool full) {
    const Node& nd = g.node(src);
    const NodeId id = b.begin_node(nd.name, op, op == OpKind::Placeholder ? std::string_view(nd.name) : g.target(src));
    if (op != OpKind::Placeholder)
        for (NodeId in : g.inputs(src)) b.add_input(map[in.index()]);
    // The val in preorder; a list's payload is its child count.
    std::vector<std::uint32_t> left; // children still to come in each open list
    const auto element_done = [&] {
        while (!left.empty() && --left.back() == 0) {
            b.val_end_list();
            left.pop_back();
        }
    };
    for (const ValToken& t : g.val(src)) {
        switch (t.kind) {
        case ValToken::Kind::Null:
            b.val_null();
            element_done();
            break;
        case ValToken::Kind::Other:
            b.val_other(g.others[t.payload]);
            element_done();
            break;
        case ValToken::Kind::Tensor: {
            const Tensor& tn = g.tensors[t.payload];
            b.val_tensor(tn.storage, file.dtypes[tn.dtype], g.shape(tn), g.stride(tn), tn.offset);
            element_done();
            break;
        }
        case ValToken::Kind::List:
            b.val_begin_list();
            if (t.payload == 0) {
                b.val_end_list();
                element_done();
            } else {
                left.push_back(t.payload);
            }
            break;
        }
    }
    if (full) {
        if (const auto trace = g.stack_trace(src); !trace.empty()) b.set_stack_trace(trace);
        if (const auto meta = g.meta_json(src); !meta.empty()) b.set_meta_json(meta);
        if (const ModuleInfo* m = g.module(src)) b.set_module(m->name, m->type);
        if (const std::optional<std::int64_t> f = g.flops(src); f && op != OpKind::Placeholder) b.set_flops(*f);
    }
    b.end_node();
    return id;
}

// The output node's inputs: `a` then `c`, mapped, each once.
std::vector<NodeId> mapped_once(std::span<const NodeId> a, std::span<const NodeId> c, const std::vector<NodeId>& map,
                                std::vector<std::uint8_t>& seen) {
    std::vector<NodeId> out;
    for (auto list : {a, c})
        for (NodeId x : list)
            if (!seen[x.index()]) {
                seen[x.index()] = 1;
                out.push_back(map[x.index()]);
            }
    for (auto list : {a, c})
        for (NodeId x : list) seen[x.index()] = 0;
    return out;
}

// The output node: `a` then `c` once each, in order (all_input_nodes); its val is left null,
// which the estimator never reads (the output node allocates nothing).
void add_output(GraphBuilder& b, std::span<const NodeId> a, std::span<const NodeId> c, const std::vector<NodeId>& map,
                std::vector<std::uint8_t>& seen) {
    b.begin_node("output", OpKind::Output, "output");
    for (NodeId x : mapped_once(a, c, map, seen)) b.add_input(x);
    b.end_node();
}

} // namespace

GraphFile storage_template(const JointGraph& j) {
    const GraphFile& src = *j.file;
    GraphFile f;
    f.source = src.source;
    for (std::size_t i = 0; i < src.storages.size(); ++i) {
        const Storage& s = src.storages[i];
        const StorageId id = f.add_storage(s.file_id, src.devices[s.device], s.nbytes);
        if (s.role != StorageRole::Unknown || s.label != 0)
            f.set_role(id, s.role, src.label(StorageId(static_cast<std::int32_t>(i))));
    }
    return f;
}

namespace {

// What the estimator reads, copied straight from the joint on dense ids: names, ops, targets
// (the joint's table, plus saved values' names as placeholder targets), inputs, vals, output
// storages; users derived as GraphBuilder::finish does. No name is hashed: the graph has no
// name index (Graph::find finds nothing), which the scoring never asks for.
class LeanGraph {
public:
    LeanGraph(const Graph& joint, std::string name, GraphKind kind) : j_(joint) {
        g_.name = std::move(name);
        g_.kind = kind;
        g_.targets = joint.targets;
    }

    void copy(NodeId src, bool as_placeholder, std::vector<NodeId>& map) {
        const Node& from = j_.node(src);
        Node n;
        n.name = from.name;
        n.op = as_placeholder ? OpKind::Placeholder : from.op;
        if (as_placeholder && from.op != OpKind::Placeholder) {
            n.target = static_cast<std::uint32_t>(g_.targets.size());
            g_.targets.push_back(from.name);
        } else {
            n.target = from.op == OpKind::Placeholder && as_placeholder && j_.target(src) != from.name
                           ? push_target(from.name)
                           : from.target;
        }
        n.inputs.begin = static_cast<std::uint32_t>(g_.input_ids.size());
        if (!as_placeholder)
            for (NodeId in : j_.inputs(src)) g_.input_ids.push_back(map[in.index()]);
        n.inputs.end = static_cast<std::uint32_t>(g_.input_ids.size());
        n.val.begin = static_cast<std::uint32_t>(g_.val_tokens.size());
        n.tensors.begin = static_cast<std::uint32_t>(g_.tensors.size());
        for (ValToken t : j_.val(src)) {
            if (t.kind == ValToken::Kind::Tensor) {
                Tensor tn = j_.tensors[t.payload];
                const auto dims = static_cast<std::uint32_t>(g_.dims.size());
                g_.dims.insert(g_.dims.end(), j_.dims.begin() + tn.dims_begin,
                               j_.dims.begin() + tn.dims_begin + 2 * tn.rank);
                tn.dims_begin = dims;
                t.payload = static_cast<std::uint32_t>(g_.tensors.size());
                g_.tensors.push_back(tn);
            } else if (t.kind == ValToken::Kind::Other) {
                g_.others.push_back(j_.others[t.payload]);
                t.payload = static_cast<std::uint32_t>(g_.others.size() - 1);
            }
            g_.val_tokens.push_back(t);
        }
        n.val.end = static_cast<std::uint32_t>(g_.val_tokens.size());
        n.tensors.end = static_cast<std::uint32_t>(g_.tensors.size());
        n.outputs.begin = static_cast<std::uint32_t>(g_.output_storages.size());
        for (StorageId st : j_.outputs(src)) g_.output_storages.push_back(st);
        n.outputs.end = static_cast<std::uint32_t>(g_.output_storages.size());
        map[src.index()] = NodeId(static_cast<std::int32_t>(g_.nodes.size()));
        g_.nodes.push_back(std::move(n));
    }

    // The output node over `inputs` (already mapped, each once), val null.
    void output(const std::vector<NodeId>& inputs) {
        Node n;
        n.name = "output";
        n.op = OpKind::Output;
        n.target = push_target("output");
        n.inputs.begin = static_cast<std::uint32_t>(g_.input_ids.size());
        g_.input_ids.insert(g_.input_ids.end(), inputs.begin(), inputs.end());
        n.inputs.end = static_cast<std::uint32_t>(g_.input_ids.size());
        n.val.begin = static_cast<std::uint32_t>(g_.val_tokens.size());
        g_.val_tokens.push_back({ValToken::Kind::Null, 0});
        n.val.end = n.val.begin + 1;
        n.tensors = {static_cast<std::uint32_t>(g_.tensors.size()), static_cast<std::uint32_t>(g_.tensors.size())};
        n.outputs = {static_cast<std::uint32_t>(g_.output_storages.size()),
                     static_cast<std::uint32_t>(g_.output_storages.size())};
        g_.nodes.push_back(std::move(n));
    }

    Graph finish() {
        const std::size_t n = g_.nodes.size();
        std::vector<std::uint32_t> count(n + 1, 0);
        for (NodeId in : g_.input_ids) ++count[in.index() + 1];
        for (std::size_t i = 0; i < n; ++i) count[i + 1] += count[i];
        g_.user_ids.assign(g_.input_ids.size(), NodeId{});
        std::vector<std::uint32_t> fill(count.begin(), count.end() - 1);
        for (std::size_t i = 0; i < n; ++i)
            for (std::uint32_t k = g_.nodes[i].inputs.begin; k < g_.nodes[i].inputs.end; ++k)
                g_.user_ids[fill[g_.input_ids[k].index()]++] = NodeId(static_cast<std::int32_t>(i));
        for (std::size_t i = 0; i < n; ++i) g_.nodes[i].users = {count[i], count[i + 1]};
        return std::move(g_);
    }

private:
    std::uint32_t push_target(std::string_view t) {
        g_.targets.emplace_back(t);
        return static_cast<std::uint32_t>(g_.targets.size() - 1);
    }
    const Graph& j_;
    Graph g_;
};

} // namespace

namespace {

// The forward returns fwd_outputs + saved_values + saved_sym_nodes: sym values last there (first
// among the backward's placeholders).
std::vector<NodeId> saved_outputs(const JointGraph& j, const Partition& p) {
    std::vector<NodeId> out;
    for (int sym = 0; sym < 2; ++sym)
        for (NodeId x : p.saved)
            if (j.symbolic[x.index()] == sym) out.push_back(x);
    return out;
}

// The partition's forward and backward appended to `f` whole (GraphBuilder, every field copied);
// `f` holds the joint's storages under the same ids.
void append_full_pair(GraphFile& f, const JointGraph& j, const Partition& p, const std::string& forward_name,
                      const std::string& backward_name, std::span<const NodeId> backward_order) {
    const GraphFile& src = *j.file;
    const Graph& g = j.g();
    std::vector<NodeId> map(g.size());
    std::vector<std::uint8_t> seen(g.size(), 0);
    {
        GraphBuilder b(f, forward_name, GraphKind::Forward);
        for (NodeId x : p.forward) map[x.index()] = copy_node(b, src, g, x, g.node(x).op, map, true);
        add_output(b, j.fwd_outputs, saved_outputs(j, p), map, seen);
        b.finish();
    }
    {
        GraphBuilder b(f, backward_name, GraphKind::Backward);
        for (NodeId x : p.saved) map[x.index()] = copy_node(b, src, g, x, OpKind::Placeholder, map, true);
        for (NodeId t : j.tangents) map[t.index()] = copy_node(b, src, g, t, OpKind::Placeholder, map, true);
        for (NodeId x : backward_order.empty() ? std::span<const NodeId>(p.backward) : backward_order)
            map[x.index()] = copy_node(b, src, g, x, g.node(x).op, map, true);
        add_output(b, j.bwd_outputs, {}, map, seen);
        b.finish();
    }
}

} // namespace

SimulatedPair materialize_partition(const JointGraph& j, const Partition& p, const std::string& forward_name,
                                    const std::string& backward_name, std::span<const NodeId> backward_order, bool full,
                                    const GraphFile* storages) {
    const Graph& g = j.g();
    SimulatedPair out;
    GraphFile& f = out.file;
    // The same storages in the same order, so StorageIds carry over.
    if (storages)
        f = *storages;
    else
        f = storage_template(j);
    if (full) {
        append_full_pair(f, j, p, forward_name, backward_name, backward_order);
        return out;
    }
    std::vector<NodeId> map(g.size());
    std::vector<std::uint8_t> seen(g.size(), 0);
    const std::span<const NodeId> order = backward_order.empty() ? std::span<const NodeId>(p.backward) : backward_order;
    LeanGraph fw(g, forward_name, GraphKind::Forward);
    for (NodeId x : p.forward) fw.copy(x, g.node(x).op == OpKind::Placeholder, map);
    fw.output(mapped_once(j.fwd_outputs, saved_outputs(j, p), map, seen));
    f.graphs.push_back(fw.finish());
    LeanGraph bw(g, backward_name, GraphKind::Backward);
    for (NodeId x : p.saved) bw.copy(x, true, map);
    for (NodeId t : j.tangents) bw.copy(t, true, map);
    for (NodeId x : order) bw.copy(x, false, map);
    bw.output(mapped_once(j.bwd_outputs, {}, map, seen));
    f.graphs.push_back(bw.finish());
    return out;
}

GraphFile with_partition(const JointGraph& j, std::size_t pair, const Partition& p,
                         std::span<const NodeId> backward_order) {
    const GraphFile& src = *j.file;
    if (pair >= src.pairs.size())
        throw Error(src.source + ": with_partition: no pair " + std::to_string(pair) + " (the file has " +
                    std::to_string(src.pairs.size()) + ")");
    const Pair at = src.pairs[pair];
    // The two graphs are built in a scratch copy of the file (its dtype table and storages, so
    // their ids are the file's), under names no graph has, then moved over the pair's own graphs,
    // which keep their names: the file's index of graph names stays true.
    GraphFile scratch = src;
    append_full_pair(scratch, j, p, "\x01with_partition forward", "\x01with_partition backward", backward_order);
    // The joint's dtypes are the file's (one table for all its graphs): none was added.
    if (scratch.dtypes.size() != src.dtypes.size())
        throw Error(src.source + ": with_partition: the joint graph has a dtype the file lacks");
    GraphFile f = src;
    const std::size_t built = src.graphs.size();
    for (const auto& [target, k] : {std::pair{at.forward, built}, std::pair{at.backward, built + 1}}) {
        scratch.graphs[k].name = src.graph(target).name;
        f.graphs[target.index()] = std::move(scratch.graphs[k]);
        std::erase_if(f.schedules, [target](const NamedSchedule& s) { return s.graph == target; });
    }
    return f;
}

PeakMemory score_partition(const JointGraph& j, const Partition& p, std::span<const NodeId> backward_order,
                           const GraphFile* storages) {
    const SimulatedPair pair = materialize_partition(j, p, "forward", "backward", backward_order, false, storages);
    return analyze_pair(pair.file, pair.forward(), pair.backward(), default_counted(pair.file)).peak;
}

} // namespace fxmem
