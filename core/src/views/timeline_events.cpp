// Timeline::alloc_events: the allocated measure's allocations and frees in time order, segment by
// segment: the baseline storages that change at the segment's first step, then its program
// blocks (timeline.h says when each is allocated and freed).
#include "fxmem/error.h"
#include "fxmem/timeline.h"

#include <algorithm>

namespace fxmem {

std::vector<TimelineAllocEvent> Timeline::alloc_events() const {
    using Kind = TimelineAllocEvent::Kind;
    if (measure_ != Measure::Allocated)
        throw Error(file_->source + ": the allocation events are the program level's: build the timeline with the "
                                    "allocated measure");
    const std::size_t n_storages = file_->storages.size();
    std::vector<TimelineAllocEvent> out;
    // Baseline storages live now, with their bytes; stamp[s] == segment index: counted by it.
    std::vector<std::pair<StorageId, std::int64_t>> live;
    std::vector<std::size_t> stamp(n_storages, static_cast<std::size_t>(-1));
    std::vector<std::uint8_t> is_live(n_storages, 0);
    auto next_id = static_cast<std::uint32_t>(n_storages);
    std::vector<TimelineAllocEvent> own;                              // one segment's block events, sorted by step
    std::vector<std::pair<std::uint32_t, std::int64_t>> carried_over; // (id, bytes), freed at the end
    for (std::size_t si = 0; si < segments_.size(); ++si) {
        const TimelineSegment& seg = segments_[si];
        const std::int64_t at = seg.offset;
        // A whole step's carried items list their counted bytes; a pair's baseline is the non-CPU
        // forward outputs the backward keeps (get_peak_memory's fixed device check).
        std::vector<std::pair<StorageId, std::int64_t>> baseline;
        if (step_) {
            for (const CarriedStorage& c : this->carried(si)) baseline.emplace_back(c.storage, c.bytes);
        } else {
            for (StorageId s : seg.baseline_storages)
                if (!file_->is_cpu(s)) baseline.emplace_back(s, file_->nbytes(s));
        }
        for (const auto& b : baseline) stamp[b.first.index()] = si;
        std::erase_if(live, [&](const std::pair<StorageId, std::int64_t>& b) {
            if (stamp[b.first.index()] == si) return false;
            out.push_back({Kind::Free, static_cast<std::uint32_t>(b.first.index()), b.second, 0, at});
            is_live[b.first.index()] = 0;
            return true;
        });
        // A pair's backward under Allocated carries the forward program's leftover as one amount.
        if (!step_ && seg.baseline_storages.empty() && seg.baseline > 0) {
            carried_over.emplace_back(next_id, seg.baseline);
            out.push_back({Kind::Malloc, next_id++, seg.baseline, 0, at});
        }
        for (const auto& b : baseline) {
            if (b.second == 0 || is_live[b.first.index()]) continue;
            is_live[b.first.index()] = 1;
            live.push_back(b);
            out.push_back({Kind::Malloc, static_cast<std::uint32_t>(b.first.index()), b.second, 0, at});
        }
        own.clear();
        for (const ProgramBlock& blk : seg.program->blocks()) {
            const std::uint32_t id = next_id++;
            own.push_back({Kind::Malloc, id, blk.nbytes, blk.stream, at + blk.begin});
            own.push_back({Kind::Free, id, blk.nbytes, blk.stream, at + blk.end});
        }
        // Allocations are at index 0 or odd indices, frees at even ones or the segment's end: no
        // step has both, so a stable sort by step keeps each step's events in program order.
        std::stable_sort(own.begin(), own.end(),
                         [](const TimelineAllocEvent& a, const TimelineAllocEvent& b) { return a.step < b.step; });
        out.insert(out.end(), own.begin(), own.end());
    }
    const auto end = static_cast<std::int64_t>(profile_.size());
    for (const auto& b : live)
        out.push_back({Kind::Free, static_cast<std::uint32_t>(b.first.index()), b.second, 0, end});
    for (const auto& [id, bytes] : carried_over) out.push_back({Kind::Free, id, bytes, 0, end});
    return out;
}

} // namespace fxmem
