#include "analysis/liveatstep.h"

LiveAtStep liveAtStep(const Scene& scene, const OrderedLive* ordered, std::int64_t globalStep) {
    LiveAtStep out;
    out.where = scene.locate(globalStep);
    if (out.where.segment < 0) return out;
    const Segment& seg = scene.segments[static_cast<std::size_t>(out.where.segment)];
    const bool edited = ordered && !scene.joined() && ordered->analysis == seg.analysis;
    out.live = (edited ? ordered->index : seg.analysis->live()).live_at(out.where.step);
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
