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
    a->alias_ = fxmem::build_alias_info(f, g);
    a->releasable_ = fxmem::default_releasable(g);

    for (std::size_t p = 0; p < f.pairs.size(); ++p) {
        const fxmem::Pair& pair = f.pairs[p];
        if (static_cast<int>(pair.forward) != graphIndex && static_cast<int>(pair.backward) != graphIndex) continue;
        a->pairIndex_ = static_cast<int>(p);
        const fxmem::Graph& fwd = f.graphs[pair.forward];
        const fxmem::Graph& bwd = f.graphs[pair.backward];
        a->pairPeak_ = fxmem::get_peak_memory(f, fwd, bwd);
        if (static_cast<int>(pair.backward) == graphIndex) {
            const fxmem::FwdBwdInteractions inter = fxmem::get_fwd_bwd_interactions(f, fwd, bwd);
            a->isBackward_ = true;
            a->baseline_ = inter.backward_baseline;
            a->releasable_ = fxmem::backward_releasable(bwd, inter);
        }
        break;
    }

    a->profile_ = fxmem::build_memory_profile(f, g, a->alias_, a->releasable_, a->counted_);
    const auto it = std::max_element(a->profile_.begin(), a->profile_.end());
    a->peak_ = it == a->profile_.end() ? 0 : *it;
    a->peakStep_ = it == a->profile_.end() ? 0 : static_cast<std::size_t>(it - a->profile_.begin());
    for (std::size_t s = 0; s < f.storages.size() && !a->hasCounted_; ++s)
        a->hasCounted_ = a->counted_[s] && a->alias_.allocator[s].valid();
    a->live_ = std::make_unique<fxmem::LiveSetIndex>(f, g, a->alias_, a->releasable_, a->counted_);
    return a;
}
