// budget_rows: PyTorch's partitions at several activation_memory_budget values, scored.
#include "fxmem/error.h"
#include "fxmem/remat.h"

#include <algorithm>

namespace fxmem {

std::int64_t pair_flops(const GraphFile& file, const Pair& pair) {
    std::int64_t sum = 0;
    for (GraphId gi : {pair.forward, pair.backward}) {
        const Graph& g = file.graph(gi);
        for (std::int64_t f : g.node_flops) sum += std::max<std::int64_t>(f, 0);
    }
    return sum;
}

std::vector<BudgetRow> budget_rows(const GraphFile& file) {
    std::vector<BudgetRow> rows;
    const StorageMask counted = default_counted(file);
    std::vector<std::uint8_t> seen(file.storages.size(), 0);
    for (std::size_t i = 0; i < file.pairs.size(); ++i) {
        const Pair& p = file.pairs[i];
        if (!p.budget) continue;
        const Graph& fwd = file.graph(p.forward);
        const Graph& bwd = file.graph(p.backward);
        const PairAnalysis a = analyze_pair(file, fwd, bwd, counted);
        BudgetRow row;
        row.pair = i;
        row.budget = *p.budget;
        row.peak = a.peak;
        row.in_backward = a.peak.backward_peak > a.peak.forward_peak;
        const auto& prof = row.in_backward ? a.backward_profile : a.forward_profile;
        const std::int64_t target =
            row.in_backward ? a.peak.backward_peak - a.peak.backward_baseline : a.peak.forward_peak;
        row.step = static_cast<std::size_t>(std::find(prof.begin(), prof.end(), target) - prof.begin());
        if (row.step > 0) {
            const std::vector<NodeId> nodes = profile_nodes(row.in_backward ? bwd : fwd);
            row.node = (row.in_backward ? bwd : fwd).node(nodes[(row.step - 1) / 2]).name;
        }
        // Saved activations: storages of the backward's placeholders that are not tangents, once each.
        std::vector<StorageId> listed;
        for (std::size_t k = 0; k < bwd.size(); ++k) {
            const Node& nd = bwd.nodes[k];
            if (nd.op != OpKind::Placeholder ||
                bwd.target(NodeId(static_cast<std::int32_t>(k))).find("tangents") != std::string_view::npos)
                continue;
            for (StorageId s : bwd.outputs(NodeId(static_cast<std::int32_t>(k))))
                if (!seen[s.index()] && counted[s.index()]) {
                    seen[s.index()] = 1;
                    listed.push_back(s);
                    row.saved_bytes += file.nbytes(s);
                }
        }
        for (StorageId s : listed) seen[s.index()] = 0;
        row.flops = pair_flops(file, p);
        rows.push_back(std::move(row));
    }
    // Extra FLOPs against the budget-1.0 pair of the same joint graph, or, in a sweep without one,
    // its highest budget (the least recomputation PyTorch was asked for): the rows always carry the
    // FLOPs the file stores, and say what they are measured against.
    for (BudgetRow& row : rows) {
        const std::optional<GraphId> joint = file.pairs[row.pair].joint;
        const BudgetRow* base = nullptr;
        for (const BudgetRow& o : rows)
            if (file.pairs[o.pair].joint == joint && (base == nullptr || o.budget > base->budget)) base = &o;
        row.base_budget = base->budget;
        row.base_flops = base->flops;
        row.extra_flops = row.flops - base->flops;
    }
    for (BudgetRow& row : rows) {
        row.pareto = true;
        for (const BudgetRow& o : rows) {
            if (file.pairs[o.pair].joint != file.pairs[row.pair].joint) continue;
            const bool no_worse = o.peak.peak <= row.peak.peak && o.extra_flops <= row.extra_flops;
            const bool better = o.peak.peak < row.peak.peak || o.extra_flops < row.extra_flops;
            if (no_worse && better) row.pareto = false;
        }
    }
    std::size_t lowest = rows.size();
    for (std::size_t k = 0; k < rows.size(); ++k)
        if (lowest == rows.size() || rows[k].peak.peak < rows[lowest].peak.peak) lowest = k;
    if (lowest < rows.size()) rows[lowest].lowest = true;
    return rows;
}

} // namespace fxmem
