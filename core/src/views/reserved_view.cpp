// reserved_view: the allocated timeline replayed through the caching-allocator simulation.
#include "fxmem/reserved_view.h"

#include "fxmem/error.h"

#include <algorithm>

namespace fxmem {

ReservedView reserved_view(const Timeline& allocated, const AllocatorConfig& config,
                           std::optional<std::int64_t> capacity) {
    if (allocated.measure() != Measure::Allocated)
        throw Error(allocated.file().source + ": the reserved measure replays the allocated one");
    const std::vector<TimelineAllocEvent> stream = allocated.alloc_events();
    std::vector<AllocEvent> events;
    events.reserve(stream.size());
    for (const TimelineAllocEvent& e : stream)
        events.push_back(
            {e.kind == TimelineAllocEvent::Kind::Malloc ? AllocEvent::Kind::Malloc : AllocEvent::Kind::Free, e.id,
             e.bytes, e.stream});
    const AllocatorRun run = simulate_caching_allocator(events, config, capacity);

    ReservedView v;
    const std::size_t steps = allocated.profile().size();
    v.allocated.assign(steps, 0);
    v.reserved.assign(steps, 0);
    // The events that ran (all, or up to the failing one): the numbers after the last event of
    // each step hold until the next step's events.
    const std::size_t ran = run.allocated.size();
    std::size_t e = 0;
    std::int64_t a = 0, r = 0;
    for (std::size_t g = 0; g < steps; ++g) {
        while (e < ran && stream[e].step <= static_cast<std::int64_t>(g)) {
            a = run.allocated[e];
            r = run.reserved[e];
            ++e;
        }
        v.allocated[g] = a;
        v.reserved[g] = r;
    }
    v.peak_allocated = run.peak_allocated;
    v.peak_reserved = run.peak_reserved;
    v.segments_at_peak = run.segments_at_peak;
    if (!run.reserved.empty()) {
        const std::int64_t at = stream[run.peak_reserved_event].step;
        v.peak_step = static_cast<std::size_t>(std::clamp<std::int64_t>(at, 0, static_cast<std::int64_t>(steps) - 1));
    }
    if (run.oom) {
        v.oom = run.oom;
        v.oom_step = stream[run.oom->event].step;
    }
    return v;
}

} // namespace fxmem
