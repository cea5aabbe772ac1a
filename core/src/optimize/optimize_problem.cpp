// Distils a graph into the optimizer's problem (optimize_problem.h). O(N + E + S).
#include "optimize_problem.h"

#include "estimator/estimator_checks.h"

namespace fxmem::detail {

std::vector<NodeId> OptProblem::full_order(std::span<const std::uint32_t> sched) const {
    std::vector<NodeId> order;
    order.reserve(prefix.size() + sched.size() + 1);
    order.insert(order.end(), prefix.begin(), prefix.end());
    for (std::uint32_t k : sched) order.push_back(nodes[k]);
    if (output.valid()) order.push_back(output);
    return order;
}

OptProblem build_opt_problem(const GraphFile& file, const Graph& graph, const AliasInfo& alias,
                             const NodeMask& releasable, const StorageMask& counted) {
    check_inputs(file, graph, alias, releasable, counted, "optimizer");
    OptProblem p;
    const std::size_t n = graph.size();
    if (n > 0 && graph.nodes.back().op == OpKind::Output) p.output = NodeId(static_cast<std::int32_t>(n - 1));
    p.index_of.assign(n, -1);
    for (std::size_t i = 0; i < n; ++i) {
        const NodeId id(static_cast<std::int32_t>(i));
        const OpKind op = graph.nodes[i].op;
        if (op == OpKind::Placeholder || op == OpKind::GetAttr) {
            p.prefix.push_back(id);
        } else if (id != p.output) {
            p.index_of[i] = static_cast<std::int32_t>(p.nodes.size());
            p.nodes.push_back(id);
            p.runs.push_back(has_profile_points(op) ? 1 : 0);
        }
    }
    const std::size_t K = p.nodes.size();

    // Buffers, in storage order.
    const std::size_t n_storages = file.storages.size();
    std::vector<std::int32_t> buffer_of(n_storages, -1);
    std::vector<std::uint8_t> used_by_output(n_storages, 0);
    if (p.output.valid())
        for (StorageId s : alias.uses_of(p.output)) used_by_output[s.index()] = 1;
    for (std::size_t s = 0; s < n_storages; ++s) {
        const NodeId a = alias.allocator[s];
        if (!a.valid() || !counted[s]) continue;
        const OpKind aop = graph.node(a).op;
        const bool in_prefix = aop == OpKind::Placeholder || aop == OpKind::GetAttr;
        if (!in_prefix && !(p.index_of[a.index()] >= 0 && p.runs[static_cast<std::size_t>(p.index_of[a.index()])]))
            continue; // allocated by an output-op node: the tracker never allocates it
        const StorageId sid(static_cast<std::int32_t>(s));
        const std::int64_t bytes = file.nbytes(sid);
        buffer_of[s] = static_cast<std::int32_t>(p.size.size());
        p.buffer_storage.push_back(sid);
        p.size.push_back(bytes);
        p.allocator.push_back(in_prefix ? -1 : p.index_of[a.index()]);
        p.freeable.push_back(releasable[a.index()] && !alias.users_of(sid).empty() && !used_by_output[s] ? 1 : 0);
        if (in_prefix) p.start += bytes;
        if (used_by_output[s]) p.output_bytes += bytes;
    }
    const std::size_t B = p.size.size();
    p.user_begin.assign(B + 1, 0);
    for (std::size_t b = 0; b < B; ++b) {
        for (NodeId u : alias.users_of(p.buffer_storage[b]))
            if (p.index_of[u.index()] >= 0) {
                p.users.push_back(static_cast<std::uint32_t>(p.index_of[u.index()]));
                if (p.freeable[b] && !p.runs[static_cast<std::size_t>(p.index_of[u.index()])])
                    p.nonrunning_users = true;
            }
        p.user_begin[b + 1] = static_cast<std::uint32_t>(p.users.size());
    }

    p.alloc.assign(K, 0);
    p.use_begin.assign(K + 1, 0);
    p.out_begin.assign(K + 1, 0);
    p.pred_begin.assign(K + 1, 0);
    std::vector<std::uint32_t> stamp(K, 0xffffffffu);
    for (std::size_t k = 0; k < K; ++k) {
        const NodeId id = p.nodes[k];
        for (StorageId s : alias.uses_of(id))
            if (buffer_of[s.index()] >= 0) p.uses.push_back(static_cast<std::uint32_t>(buffer_of[s.index()]));
        p.use_begin[k + 1] = static_cast<std::uint32_t>(p.uses.size());
        if (p.runs[k])
            for (StorageId s : alias.fresh_of(id))
                if (buffer_of[s.index()] >= 0) {
                    p.outs.push_back(static_cast<std::uint32_t>(buffer_of[s.index()]));
                    p.alloc[k] += file.nbytes(s);
                }
        p.out_begin[k + 1] = static_cast<std::uint32_t>(p.outs.size());
        auto add_pred = [&](std::int32_t j) {
            if (j < 0 || static_cast<std::size_t>(j) == k || stamp[static_cast<std::size_t>(j)] == k) return;
            stamp[static_cast<std::size_t>(j)] = static_cast<std::uint32_t>(k);
            p.preds.push_back(static_cast<std::uint32_t>(j));
        };
        for (NodeId in : graph.inputs(id)) add_pred(p.index_of[in.index()]);
        if (p.runs[k])
            for (StorageId s : alias.uses_of(id)) {
                const std::int32_t b = buffer_of[s.index()];
                if (b >= 0) add_pred(p.allocator[static_cast<std::size_t>(b)]);
            }
        p.pred_begin[k + 1] = static_cast<std::uint32_t>(p.preds.size());
    }
    // Successors: the reverse CSR, filled in k order so each list is in graph order.
    p.succ_begin.assign(K + 1, 0);
    for (std::uint32_t j : p.preds) ++p.succ_begin[j + 1];
    for (std::size_t k = 0; k < K; ++k) p.succ_begin[k + 1] += p.succ_begin[k];
    p.succs.resize(p.preds.size());
    std::vector<std::uint32_t> fill(p.succ_begin.begin(), p.succ_begin.end() - 1);
    for (std::size_t k = 0; k < K; ++k)
        for (std::uint32_t j : p.preds_of(k)) p.succs[fill[j]++] = static_cast<std::uint32_t>(k);
    return p;
}

} // namespace fxmem::detail
