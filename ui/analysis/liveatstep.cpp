#include "analysis/liveatstep.h"

const fxmem::LiveSetIndex& shownIndex(const Scene& scene, const Segment& segment, const OrderedLive* ordered) {
    return ordered && !scene.joined() && ordered->analysis == segment.analysis ? ordered->index
                                                                               : segment.analysis->live();
}

LiveAtStep liveAtStep(const Scene& scene, const OrderedLive* ordered, std::int64_t globalStep) {
    LiveAtStep out;
    out.where = scene.locate(globalStep);
    if (out.where.segment < 0) return out;
    // Core lists the segment's storages in the order shown, then its baseline (Timeline::live_at).
    const Segment& seg = scene.segments[static_cast<std::size_t>(out.where.segment)];
    fxmem::TimelineLive at = scene.timeline->live_at(globalStep, &shownIndex(scene, seg, ordered));
    out.live = std::move(at.live);
    out.baselineBegin = at.baseline_begin;
    return out;
}
