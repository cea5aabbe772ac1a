// Recompute for the whole training step: plan the joint graph of the region whose pair holds the
// step's peak, and score the step as it runs under the plan (the pair's graphs replaced by the
// plan's partition, everything the step carries unchanged). What fit's whole-step answer with
// --max-extra-percent and remat on a file with a step use.
//
// The plan is searched on its pair's peak (search_remat) and then scored on the whole step: the
// step's carry (parameters, optimizer state, earlier gradients) is the same under every plan of
// one region, so the pair that peaks lowest is, in every case measured, the step that peaks
// lowest; where it is not, the step's own peak without a plan is kept (StepPlan::peak).
//
// Lifetime and threads: values; reads the file during the call only. Any thread.
#pragma once
#include "fxmem/remat.h"
#include "fxmem/whole_step.h"

#include <cstdint>
#include <optional>
#include <string>

namespace fxmem {

// The pair whose forward or backward run holds the step's peak, when it has a joint graph.
struct StepPeakRegion {
    std::size_t pair = 0; // index into file.pairs
    GraphId joint;
    std::uint32_t entry = 0; // the step entry holding the peak
    std::int64_t step_peak = 0;
};
// nullopt when the peak is in a graph of no pair with a joint (the optimizer's, or a file
// captured without joint graphs).
std::optional<StepPeakRegion> step_peak_region(const GraphFile& file, const WholeStep& step);

struct StepPlan {
    std::int64_t plain_peak = 0;          // the step as captured
    std::optional<StepPeakRegion> region; // where the plain step peaks (none: nothing to plan)
    std::optional<RematResult> plan;      // the region's plan, when there is a region
    std::int64_t planned_peak = 0;        // the step under the plan (plain_peak without one)
    // The step's peak with the better of the two: the plan only when it lowers the step.
    std::int64_t peak() const { return planned_peak < plain_peak ? planned_peak : plain_peak; }
    bool uses_plan() const { return plan && planned_peak < plain_peak; }
};
// Counts non-CPU storages, as remat scores plans (PyTorch's partitioner's view). Throws Error
// when the file has no step; Cancelled when options.cancelled says.
StepPlan plan_whole_step(const GraphFile& file, const RematOptions& options);

} // namespace fxmem
