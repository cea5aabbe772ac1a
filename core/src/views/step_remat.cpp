#include "fxmem/step_remat.h"

#include "fxmem/estimator.h"

namespace fxmem {

std::optional<StepPeakRegion> step_peak_region(const GraphFile& file, const WholeStep& step) {
    if (step.segments.empty()) return std::nullopt;
    const std::uint32_t entry = step.segments[step.peak_segment].entry;
    const GraphId graph = file.step[entry].graph;
    for (std::size_t i = 0; i < file.pairs.size(); ++i) {
        const Pair& p = file.pairs[i];
        if (p.joint && (p.forward == graph || p.backward == graph))
            return StepPeakRegion{i, *p.joint, entry, step.peak};
    }
    return std::nullopt;
}

StepPlan plan_whole_step(const GraphFile& file, const RematOptions& options) {
    const StorageMask counted = default_counted(file);
    StepPlan r;
    const WholeStep plain = whole_step(file, counted);
    r.plain_peak = plain.peak;
    r.planned_peak = plain.peak;
    r.region = step_peak_region(file, plain);
    if (!r.region) return r;
    const JointGraph joint = analyze_joint(file, r.region->joint);
    r.plan = search_remat(joint, options);
    const GraphFile planned = with_partition(joint, r.region->pair, r.plan->partition, r.plan->backward_order);
    r.planned_peak = whole_step(planned, default_counted(planned)).peak;
    return r;
}

} // namespace fxmem
