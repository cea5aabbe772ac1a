// Schedules: scoring with MemoryTracker (score_schedule). Legality is in model/schedule_check.cpp.
#include "fxmem/schedule.h"

#include "estimator_checks.h"

namespace fxmem {

ScheduleScore score_schedule(const GraphFile& file, const Graph& graph, const AliasInfo& alias,
                             std::span<const NodeId> order, const NodeMask& releasable, const StorageMask& counted) {
    MemoryTracker tracker(file, graph, alias, releasable, counted);
    ScheduleScore score;
    score.current.reserve(order.size());
    for (NodeId node : order) {
        tracker.schedule(node);
        score.current.push_back(tracker.current());
    }
    score.peak = tracker.peak();
    return score;
}

} // namespace fxmem
