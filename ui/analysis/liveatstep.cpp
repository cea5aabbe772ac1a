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
    out.live.reserve(out.live.size() + seg.baselineStorages.size());
    if (scene.wholeStep()) {
        // Carried storages: allocated by the graph run that made them (none for parameters and
        // optimizer state, which no graph allocates).
        for (const fxmem::CarriedStorage& c : seg.carried) {
            fxmem::LiveStorage b;
            b.storage = c.storage;
            b.nbytes = c.bytes;
            if (c.source < scene.segments.size()) {
                const fxmem::AliasInfo& made = scene.segments[c.source].analysis->alias();
                b.allocator = made.allocator[c.storage.index()];
                b.last_user = made.last_user[c.storage.index()];
            }
            b.reason = fxmem::LiveReason::GraphOutput;
            out.live.push_back(b);
        }
        return out;
    }
    const fxmem::AliasInfo& fwd = scene.segments.front().analysis->alias();
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
