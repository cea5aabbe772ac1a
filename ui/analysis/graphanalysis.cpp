#include "analysis/graphanalysis.h"

#include <algorithm>

std::shared_ptr<const GraphAnalysis> GraphAnalysis::compute(std::shared_ptr<const fxmem::GraphFile> file,
                                                            int graphIndex, DeviceFilter filter) {
    std::shared_ptr<GraphAnalysis> a(new GraphAnalysis());
    a->file_ = std::move(file);
    a->graphIndex_ = graphIndex;
    a->filter_ = filter;
    const fxmem::GraphFile& f = *a->file_;
    const fxmem::Graph& g = a->graph();

    a->counted_ = filter == DeviceFilter::NonCpu ? fxmem::default_counted(f)
                                                 : fxmem::counted_by_device(f, [](std::string_view) { return true; });

    // A graph of a pair: analyze_pair computes its alias info and profile on the way to the pair's
    // peak, so take them from there instead of computing them twice.
    for (std::size_t p = 0; p < f.pairs.size() && a->pairIndex_ < 0; ++p) {
        const fxmem::Pair& pair = f.pairs[p];
        const bool forward = static_cast<int>(pair.forward) == graphIndex;
        if (!forward && static_cast<int>(pair.backward) != graphIndex) continue;
        fxmem::PairAnalysis pa = fxmem::analyze_pair(f, f.graphs[pair.forward], f.graphs[pair.backward], a->counted_);
        a->pairIndex_ = static_cast<int>(p);
        a->pairPeak_ = pa.peak;
        a->isBackward_ = !forward;
        a->baseline_ = forward ? 0 : pa.interactions.backward_baseline;
        a->alias_ = std::move(forward ? pa.forward_alias : pa.backward_alias);
        a->releasable_ = std::move(forward ? pa.forward_releasable : pa.backward_releasable);
        a->profile_ = std::move(forward ? pa.forward_profile : pa.backward_profile);
    }
    if (a->pairIndex_ < 0) {
        a->alias_ = fxmem::build_alias_info(f, g);
        a->releasable_ = fxmem::default_releasable(g);
        a->profile_ = fxmem::build_memory_profile(f, g, a->alias_, a->releasable_, a->counted_);
    }
    const auto it = std::max_element(a->profile_.begin(), a->profile_.end());
    a->peak_ = it == a->profile_.end() ? 0 : *it;
    a->peakStep_ = it == a->profile_.end() ? 0 : static_cast<std::size_t>(it - a->profile_.begin());
    for (std::size_t s = 0; s < f.storages.size() && !a->hasCounted_; ++s)
        a->hasCounted_ = a->counted_[s] && a->alias_.allocator[s].valid();
    a->live_ = std::make_unique<fxmem::LiveSetIndex>(f, g, a->alias_, a->releasable_, a->counted_);
    return a;
}
