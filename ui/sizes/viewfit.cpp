#include "sizes/viewfit.h"

#include <fxmem/analysis.h>
#include <fxmem/estimator.h>
#include <fxmem/whole_step.h>

std::int64_t viewPeak(const fxmem::GraphFile& file, const SceneRequest& request) {
    const fxmem::StorageMask counted = fxmem::counted_for(file, request.filter);
    if (request.wholeStep) return fxmem::whole_step(file, counted).peak;
    if (request.pair >= 0) {
        const fxmem::Pair& p = file.pairs[static_cast<std::size_t>(request.pair)];
        return fxmem::analyze_pair(file, file.graph(p.forward), file.graph(p.backward), counted).peak.peak;
    }
    if (request.graph < 0) return 0;
    // Borrowed, not owned: the analysis lives only inside this call.
    const std::shared_ptr<const fxmem::GraphFile> borrowed(std::shared_ptr<void>(), &file);
    return GraphAnalysis::compute(borrowed, fxmem::GraphId(request.graph), request.filter)->peak();
}

fxmem::FitResult fitView(fxmem::GraphFile file, const SceneRequest& request, std::size_t symbol,
                         const std::vector<std::int64_t>& binding, std::int64_t limit,
                         const fxmem::CancelCheck& cancelled) {
    fxmem::FitQuery q;
    q.cancelled = cancelled;
    q.symbol = symbol;
    q.binding.values = binding;
    q.limit = limit;
    q.count_cpu = request.filter == fxmem::DeviceFilter::All;
    return fxmem::fit_symbol(std::move(file), q, [request](const fxmem::GraphFile& f) { return viewPeak(f, request); });
}
