// get_fwd_bwd_interactions and get_peak_memory: the forward/backward pair.
#include "fxmem/estimator.h"

#include "estimator_checks.h"
#include "storage_passes.h"

#include <algorithm>

namespace fxmem {

namespace {

// The forward's alias info is built once by get_peak_memory and shared with this. `flag` is a
// per-storage scratch, all zero on entry and again on return.
FwdBwdInteractions interactions(const GraphFile& file, const Graph& forward, const AliasInfo& fwd,
                                const Graph& backward, std::vector<std::uint8_t>& flag) {
    // PyTorch: next(iter(reversed(fwd_graph.nodes)))[-1] (a TypeError in torch 2.13); the intent
    // is the forward's last node, asserted to be the output node.
    if (forward.size() == 0 || forward.nodes.back().op != OpKind::Output)
        throw Error(file.source + ": " + detail::graph_where(forward) + ": the forward graph's last node " +
                    (forward.size() ? detail::quote(forward.nodes.back().name) + " " : std::string()) +
                    "is not an output node" + (forward.size() ? std::string() : " (the graph is empty)"));
    if (flag.size() != file.storages.size()) {
        detail::count_storage_table_pass();
        flag.assign(file.storages.size(), 0);
    }

    // Storage flags: bit 1 = primal, bit 2 = forward output, bit 4 = held by a backward placeholder.
    enum : std::uint8_t { Primal = 1, FwdOutput = 2, BwdInput = 4 };
    for (std::size_t i = 0; i < forward.size(); ++i) {
        const Node& nd = forward.nodes[i];
        if (nd.op == OpKind::Placeholder && nd.name.starts_with("primals"))
            for (StorageId s : fwd.fresh_of(NodeId(static_cast<std::int32_t>(i)))) flag[s.index()] |= Primal;
    }
    const auto fwd_outputs = fwd.uses_of(NodeId(static_cast<std::int32_t>(forward.size() - 1)));
    for (StorageId s : fwd_outputs) flag[s.index()] |= FwdOutput;

    FwdBwdInteractions r;
    r.do_not_delete.assign(backward.size(), 0);
    for (std::size_t i = 0; i < backward.size(); ++i) {
        if (backward.nodes[i].op != OpKind::Placeholder) continue;
        bool primal = false, from_forward = false;
        for (StorageId s : backward.outputs(NodeId(static_cast<std::int32_t>(i)))) {
            flag[s.index()] |= BwdInput;
            primal = primal || (flag[s.index()] & Primal);
            from_forward = from_forward || (flag[s.index()] & FwdOutput);
        }
        if (primal || !from_forward) r.do_not_delete[i] = 1;
    }
    // Baseline: forward outputs no backward placeholder holds, in forward-output order; PyTorch
    // skips CPU ones when summing (a fixed device.type check, not the device filter), and so do we
    // when listing them, so the list sums to the baseline.
    for (StorageId s : fwd_outputs)
        if (!(flag[s.index()] & BwdInput) && !file.is_cpu(s)) {
            r.baseline_storages.push_back(s);
            r.backward_baseline += file.nbytes(s);
        }
    // Back to zero: what was set is what the three loops above visited.
    for (std::size_t i = 0; i < forward.size(); ++i)
        for (StorageId s : fwd.fresh_of(NodeId(static_cast<std::int32_t>(i)))) flag[s.index()] = 0;
    for (StorageId s : fwd_outputs) flag[s.index()] = 0;
    for (std::size_t i = 0; i < backward.size(); ++i)
        if (backward.nodes[i].op == OpKind::Placeholder)
            for (StorageId s : backward.outputs(NodeId(static_cast<std::int32_t>(i)))) flag[s.index()] = 0;
    return r;
}

} // namespace

// The only sum of sizes that can exceed the file's total: a storage listed in both graphs counts
// once in the baseline and again in the backward (the loader caps the sum of distinct storages).
std::int64_t pair_backward_peak(const GraphFile& file, const Graph& forward, const Graph& backward,
                                std::int64_t baseline, std::int64_t backward_peak) {
    std::int64_t sum = 0;
    if (__builtin_add_overflow(baseline, backward_peak, &sum))
        throw Error(file.source + ": " + detail::graph_where(backward) + " (backward of " +
                    detail::quote(forward.name) + "): the backward baseline (" + std::to_string(baseline) +
                    " bytes) plus the backward's peak (" + std::to_string(backward_peak) +
                    " bytes) is more than 2^63-1 bytes");
    return sum;
}

FwdBwdInteractions get_fwd_bwd_interactions(const GraphFile& file, const Graph& forward, const Graph& backward) {
    std::vector<std::uint8_t> flag;
    return interactions(file, forward, build_alias_info(file, forward), backward, flag);
}

FwdBwdInteractions get_fwd_bwd_interactions(const GraphFile& file, const Graph& forward, const AliasInfo& forward_alias,
                                            const Graph& backward, std::vector<std::uint8_t>& scratch) {
    return interactions(file, forward, forward_alias, backward, scratch);
}

NodeMask backward_releasable(const Graph& backward, const FwdBwdInteractions& interactions) {
    NodeMask mask = default_releasable(backward);
    if (interactions.do_not_delete.size() != mask.size())
        throw PreconditionError("backward_releasable: " + detail::graph_where(backward) +
                                ": the interactions were computed for another graph");
    for (std::size_t i = 0; i < mask.size(); ++i)
        if (interactions.do_not_delete[i]) mask[i] = 0;
    return mask;
}

PairAnalysis analyze_pair(const GraphFile& file, const Graph& forward, const Graph& backward,
                          const StorageMask& counted) {
    PairAnalysis a;
    a.forward_alias = build_alias_info(file, forward);
    a.forward_releasable = default_releasable(forward);
    a.forward_profile = build_memory_profile(file, forward, a.forward_alias, a.forward_releasable, counted);
    std::vector<std::uint8_t> flag;
    a.interactions = interactions(file, forward, a.forward_alias, backward, flag);
    a.backward_alias = build_alias_info(file, backward);
    a.backward_releasable = backward_releasable(backward, a.interactions);
    a.backward_profile = build_memory_profile(file, backward, a.backward_alias, a.backward_releasable, counted);
    PeakMemory& r = a.peak;
    r.forward_peak = *std::max_element(a.forward_profile.begin(), a.forward_profile.end());
    r.backward_baseline = a.interactions.backward_baseline;
    r.backward_peak = pair_backward_peak(file, forward, backward, r.backward_baseline,
                                         *std::max_element(a.backward_profile.begin(), a.backward_profile.end()));
    r.peak = std::max(r.forward_peak, r.backward_peak);
    return a;
}

PeakMemory get_peak_memory(const GraphFile& file, const Graph& forward, const Graph& backward) {
    return analyze_pair(file, forward, backward, default_counted(file)).peak;
}

} // namespace fxmem
