#include "fxmem/analysis.h"

#include <algorithm>

namespace fxmem {

StorageMask counted_for(const GraphFile& file, DeviceFilter filter) {
    return filter == DeviceFilter::NonCpu ? default_counted(file)
                                          : counted_by_device(file, [](std::string_view) { return true; });
}

std::shared_ptr<GraphAnalysis> GraphAnalysis::start(std::shared_ptr<const GraphFile> file, GraphId graph,
                                                    DeviceFilter filter, StorageMask counted) {
    std::shared_ptr<GraphAnalysis> a(new GraphAnalysis());
    a->file_ = std::move(file);
    a->graph_index_ = graph;
    a->filter_ = filter;
    a->counted_ = std::move(counted);
    return a;
}

// Takes one side's alias info, releasability and profile out of `pa` (they are not needed twice).
void GraphAnalysis::take_from_pair(PairAnalysis& pa, std::size_t pair_index, bool forward) {
    pair_index_ = pair_index;
    pair_peak_ = pa.peak;
    is_backward_ = !forward;
    baseline_ = forward ? 0 : pa.interactions.backward_baseline;
    alias_ = std::move(forward ? pa.forward_alias : pa.backward_alias);
    releasable_ = std::move(forward ? pa.forward_releasable : pa.backward_releasable);
    profile_ = std::move(forward ? pa.forward_profile : pa.backward_profile);
}

void GraphAnalysis::finish(const CancelCheck& cancelled) {
    throw_if_cancelled(cancelled);
    const GraphFile& f = *file_;
    const auto it = std::max_element(profile_.begin(), profile_.end());
    peak_ = it == profile_.end() ? 0 : *it;
    peak_step_ = it == profile_.end() ? 0 : static_cast<std::size_t>(it - profile_.begin());
    for (std::size_t s = 0; s < f.storages.size() && !has_counted_; ++s)
        has_counted_ = counted_[s] && alias_.allocator[s].valid();
    live_ = std::make_unique<LiveSetIndex>(f, graph(), alias_, releasable_, counted_);
}

std::shared_ptr<const GraphAnalysis> GraphAnalysis::compute(std::shared_ptr<const GraphFile> file, GraphId graph,
                                                            DeviceFilter filter, const CancelCheck& cancelled,
                                                            PairContext context) {
    StorageMask counted = counted_for(*file, filter);
    std::shared_ptr<GraphAnalysis> a = start(std::move(file), graph, filter, std::move(counted));
    const GraphFile& f = *a->file_;
    const Graph& g = a->graph();

    // A graph of a pair: analyze_pair computes its alias info and profile on the way to the pair's
    // peak, so take them from there instead of computing them twice.
    for (std::size_t p = 0; p < f.pairs.size() && context == PairContext::AsInPair; ++p) {
        const fxmem::Pair& pair = f.pairs[p];
        const bool forward = pair.forward == graph;
        if (!forward && pair.backward != graph) continue;
        throw_if_cancelled(cancelled);
        PairAnalysis pa = analyze_pair(f, f.graph(pair.forward), f.graph(pair.backward), a->counted_);
        a->take_from_pair(pa, p, forward);
        break;
    }
    if (!a->pair_index_) {
        throw_if_cancelled(cancelled);
        a->alias_ = build_alias_info(f, g);
        a->releasable_ = default_releasable(g);
        throw_if_cancelled(cancelled);
        a->profile_ = build_memory_profile(f, g, a->alias_, a->releasable_, a->counted_);
    }
    a->finish(cancelled);
    return a;
}

GraphAnalysis::Pair GraphAnalysis::compute_pair(std::shared_ptr<const GraphFile> file, std::size_t pair_index,
                                                DeviceFilter filter, const CancelCheck& cancelled) {
    const GraphFile& f = *file;
    const fxmem::Pair& pair = f.pairs.at(pair_index);
    StorageMask counted = counted_for(f, filter);
    throw_if_cancelled(cancelled);
    PairAnalysis pa = analyze_pair(f, f.graph(pair.forward), f.graph(pair.backward), counted);
    std::shared_ptr<GraphAnalysis> fwd = start(file, pair.forward, filter, counted);
    std::shared_ptr<GraphAnalysis> bwd = start(file, pair.backward, filter, std::move(counted));
    fwd->take_from_pair(pa, pair_index, true);
    bwd->take_from_pair(pa, pair_index, false);
    fwd->finish(cancelled);
    bwd->finish(cancelled);
    Pair out;
    out.forward = std::move(fwd);
    out.backward = std::move(bwd);
    out.baseline_storages = std::move(pa.interactions.baseline_storages);
    return out;
}

} // namespace fxmem
