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
    out.carried = scene.timeline->carried(static_cast<std::size_t>(out.where.segment));
    return out;
}

int madeInSegment(const Scene& scene, const LiveAtStep& at, std::size_t i) {
    if (at.where.segment < 0) return -1;
    if (i < at.baselineBegin) return at.where.segment;
    if (!scene.wholeStep()) return 0; // a joined pair's baseline: the forward's outputs
    const std::optional<std::uint32_t> source = at.carried[i - at.baselineBegin].source;
    return source && *source < scene.segments.size() ? static_cast<int>(*source) : -1;
}

std::vector<NodeRef> liveProducers(const Scene& scene, const LiveAtStep& at) {
    std::vector<NodeRef> out;
    out.reserve(at.live.size());
    for (std::size_t i = 0; i < at.live.size(); ++i) {
        const int made = madeInSegment(scene, at, i);
        out.push_back({made >= 0 ? made : at.where.segment, at.live[i].allocator});
    }
    return out;
}
