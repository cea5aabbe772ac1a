#include "analysis/liveatstep.h"

const fxmem::LiveSetIndex& shownIndex(const Scene& scene, const Segment& segment, const OrderedLive* ordered) {
    return ordered && !scene.joined() && ordered->analysis == segment.analysis ? ordered->index
                                                                               : segment.analysis->live();
}

LiveAtStep liveAtStep(const Scene& scene, const OrderedLive* ordered, std::int64_t globalStep) {
    LiveAtStep out;
    out.where = scene.locate(globalStep);
    if (out.where.segment < 0) return out;
    const Segment& seg = scene.segments[static_cast<std::size_t>(out.where.segment)];
    out.live = shownIndex(scene, seg, ordered).live_at(out.where.step);
    out.baselineBegin = out.live.size();
    if (seg.baselineStorages.empty()) return out;
    const fxmem::AliasInfo& fwd = scene.segments.front().analysis->alias();
    out.live.reserve(out.live.size() + seg.baselineStorages.size());
    for (fxmem::StorageId s : seg.baselineStorages) {
        fxmem::LiveStorage b;
        b.storage = s;
        b.nbytes = scene.file->nbytes(s);
        b.allocator = fwd.allocator[s.index()];
        b.last_user = fwd.last_user[s.index()];
        b.reason = fxmem::LiveReason::GraphOutput;
        out.live.push_back(b);
    }
    return out;
}
