// Holds its analyses (and through them the file) by shared_ptr; immutable after construction,
// shared read-only between threads.
//
// What a view puts on one time axis, the same for the app (Scene) and fxmem-cli: a single graph,
// a forward/backward pair joined (the forward's profile, then the backward scored with
// get_peak_memory's releasability and raised by its baseline, the counted forward outputs it
// keeps alive), or the whole step (fxmem::whole_step: one segment per step entry, raised by what
// it carries). Global step g of segment s is its profile index g - s.offset.
#pragma once
#include "fxmem/analysis.h"
#include "fxmem/cancel.h"
#include "fxmem/liveset.h"
#include "fxmem/model.h"
#include "fxmem/schedule.h"
#include "fxmem/whole_step.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace fxmem {

struct TimelineSegment {
    std::shared_ptr<const GraphAnalysis> analysis; // shared by the runs of one graph (whole step)
    std::shared_ptr<const LiveSetIndex> reordered; // the given schedule's index of this graph; null: none
    GraphId graph;                                 // index into GraphFile::graphs
    std::int64_t offset = 0;                       // global step of this graph's profile index 0
    std::size_t length = 0;                        // its profile's length (1 + 2K)
    std::int64_t baseline = 0;                     // bytes under its profile: the pair's baseline or the carry
    // The storages that make a pair's backward's baseline: the forward's outputs it keeps. A
    // whole step's run leaves it empty: what it carries is Timeline::carried(segment), made on
    // demand (a copy per run would make the step's memory quadratic in its length).
    std::vector<StorageId> baseline_storages;
    std::optional<std::uint32_t> entry; // the whole step's entry this segment runs

    // The index the timeline's numbers come from: the schedule's when one reorders this graph.
    const LiveSetIndex& live() const { return reordered ? *reordered : analysis->live(); }
};

struct TimelinePoint {
    std::size_t segment = 0;
    std::size_t step = 0; // profile index within the segment
};

// The storages live at a global step: the segment's live set (largest first), then its baseline
// storages, which hold the allocator and last user of the graph that made them (the pair's
// forward, a carried item's source run; none for parameters and optimizer state) and
// LiveReason::GraphOutput. Their bytes add up to Timeline::profile() at that step.
struct TimelineLive {
    std::optional<TimelinePoint> where; // none: outside every segment, and `live` is empty
    std::vector<LiveStorage> live;
    std::size_t baseline_begin = 0; // live[baseline_begin, end) hold the baseline storages
};

class Timeline {
public:
    // One graph scored as `context` says (AsInPair: the app's single-graph view, a backward's
    // forward inputs never freed, no baseline). `schedule` reorders it (Error for another graph).
    static Timeline graph(std::shared_ptr<const GraphFile> file, GraphId graph,
                          DeviceFilter devices = DeviceFilter::NonCpu, const CancelCheck& cancelled = {},
                          PairContext context = PairContext::AsInPair, const Schedule* schedule = nullptr);
    // Pair `pair` joined, from one analyze_pair. `schedule` reorders one of its two graphs (Error
    // naming file.source for another graph, or a pair the file lacks).
    static Timeline pair(std::shared_ptr<const GraphFile> file, std::size_t pair,
                         DeviceFilter devices = DeviceFilter::NonCpu, const CancelCheck& cancelled = {},
                         const Schedule* schedule = nullptr);
    // The file's step (Error when it has none): each graph analysed once however often it runs.
    static Timeline whole_step(std::shared_ptr<const GraphFile> file, DeviceFilter devices = DeviceFilter::NonCpu,
                               const CancelCheck& cancelled = {});

    const GraphFile& file() const { return *file_; }
    const std::vector<TimelineSegment>& segments() const { return segments_; }
    // Per global step: the segment's profile plus its baseline.
    const std::vector<std::int64_t>& profile() const { return profile_; }
    std::int64_t peak() const { return peak_; }
    std::size_t peak_step() const { return peak_step_; } // the first global step at the peak
    // A pair's get_peak_memory numbers (for a single graph: its pair's, when it has one).
    const std::optional<PeakMemory>& pair_peak() const { return pair_peak_; }
    // The whole step's numbers; null for a graph or a pair.
    const std::shared_ptr<const WholeStep>& step() const { return step_; }

    // What segment `segment` of the whole step carries (fxmem::carried_at, in live_at's order);
    // empty for a graph or a pair. O(the step's carried items) per call.
    std::vector<CarriedStorage> carried(std::size_t segment) const;

    // The segment a global step lies in and the profile index there. O(log segments).
    std::optional<TimelinePoint> locate(std::int64_t global_step) const;
    // `shown`, when given, lists the located segment's own storages instead of its live() (an
    // edited order of that graph); the baseline follows as always. O(log N + live).
    TimelineLive live_at(std::int64_t global_step, const LiveSetIndex* shown = nullptr) const;

private:
    Timeline() = default;
    void add(TimelineSegment segment);
    void finish();
    std::shared_ptr<const GraphFile> file_;
    std::vector<TimelineSegment> segments_;
    std::vector<std::int64_t> profile_;
    std::int64_t peak_ = 0;
    std::size_t peak_step_ = 0;
    std::optional<PeakMemory> pair_peak_;
    std::shared_ptr<const WholeStep> step_;
};

} // namespace fxmem
