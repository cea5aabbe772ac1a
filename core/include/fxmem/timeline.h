// Holds its analyses (and through them the file) by shared_ptr; immutable after construction,
// shared read-only between threads.
//
// What a view puts on one time axis, the same for the app (Scene) and fxmem-cli: a single graph,
// a forward/backward pair joined (the forward's profile, then the backward scored with
// get_peak_memory's releasability and raised by its baseline, the counted forward outputs it
// keeps alive), or the whole step (fxmem::whole_step: one segment per step entry, raised by what
// it carries). Global step g of segment s is its profile index g - s.offset.
//
// Under Measure::Allocated (docs/estimator.md, "The allocated measure") each segment's profile is
// its graph's program profile (fxmem/program_profile.h) instead of the estimator's; the baselines
// (a pair's kept forward outputs, the whole step's carry) are the estimator's, storage for storage.
#pragma once
#include "fxmem/analysis.h"
#include "fxmem/cancel.h"
#include "fxmem/liveset.h"
#include "fxmem/measure.h"
#include "fxmem/model.h"
#include "fxmem/program_profile.h"
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
    // Measure::Allocated: the graph's program, whose profile this segment shows (length and live
    // buffers from it); null under Estimator. `analysis` is there under both (baselines, carry).
    std::shared_ptr<const ProgramLiveIndex> program;

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
// Under Measure::Allocated the segment's own part is its program's live buffers (`buffers`) and
// `live` holds the baseline storages alone (baseline_begin 0); buffers and baseline add up to
// Timeline::profile() at that step the same way.
struct TimelineLive {
    std::optional<TimelinePoint> where; // none: outside every segment, and `live` is empty
    std::vector<LiveStorage> live;
    std::size_t baseline_begin = 0;  // live[baseline_begin, end) hold the baseline storages
    std::vector<LiveBuffer> buffers; // Allocated: the segment's program buffers, largest first
};

// One allocation or free of the allocated measure's stream (Timeline::alloc_events), what a
// caching-allocator simulation replays: the fields of its AllocEvent, plus the global step.
struct TimelineAllocEvent {
    enum class Kind : std::uint8_t { Malloc, Free } kind = Kind::Malloc;
    std::uint32_t id = 0; // one allocation: a baseline storage's index, or file.storages.size() + n
    std::int64_t bytes = 0;
    std::uint32_t stream = 0;
    std::int64_t step = 0; // global step; profile().size() for what is freed after the last step
};

class Timeline {
public:
    // Every builder takes the measure: Estimator (the default) or Allocated, which needs every
    // graph it shows to have a program (Error naming the graph otherwise) and refuses a schedule
    // (the program runs Inductor's kernel order; a reordered graph has no program until it is
    // re-captured). Reserved is computed from alloc_events() by the caching-allocator simulation:
    // Error here.
    //
    // One graph scored as `context` says (AsInPair: the app's single-graph view, a backward's
    // forward inputs never freed, no baseline). `schedule` reorders it (Error for another graph).
    static Timeline graph(std::shared_ptr<const GraphFile> file, GraphId graph,
                          DeviceFilter devices = DeviceFilter::NonCpu, const CancelCheck& cancelled = {},
                          PairContext context = PairContext::AsInPair, const Schedule* schedule = nullptr,
                          Measure measure = Measure::Estimator);
    // Pair `pair` joined, from one analyze_pair. `schedule` reorders one of its two graphs (Error
    // naming file.source for another graph, or a pair the file lacks).
    static Timeline pair(std::shared_ptr<const GraphFile> file, std::size_t pair,
                         DeviceFilter devices = DeviceFilter::NonCpu, const CancelCheck& cancelled = {},
                         const Schedule* schedule = nullptr, Measure measure = Measure::Estimator);
    // The file's step (Error when it has none): each graph analysed once however often it runs.
    // Under Allocated step()'s own numbers (timeline, peaks, segment lengths) stay the estimator's;
    // its carry is what raises the segments.
    static Timeline whole_step(std::shared_ptr<const GraphFile> file, DeviceFilter devices = DeviceFilter::NonCpu,
                               const CancelCheck& cancelled = {}, Measure measure = Measure::Estimator);

    Measure measure() const { return measure_; }
    const GraphFile& file() const { return *file_; }
    const std::vector<TimelineSegment>& segments() const { return segments_; }
    // Per global step: the segment's profile plus its baseline.
    const std::vector<std::int64_t>& profile() const { return profile_; }
    std::int64_t peak() const { return peak_; }
    std::size_t peak_step() const { return peak_step_; } // the first global step at the peak
    // A pair's get_peak_memory numbers (for a single graph: its pair's, when it has one); none
    // under Allocated (they are the estimator's).
    const std::optional<PeakMemory>& pair_peak() const { return pair_peak_; }
    // The whole step's numbers; null for a graph or a pair.
    const std::shared_ptr<const WholeStep>& step() const { return step_; }

    // What segment `segment` of the whole step carries (fxmem::carried_at, in live_at's order);
    // empty for a graph or a pair. O(the step's carried items) per call.
    std::vector<CarriedStorage> carried(std::size_t segment) const;

    // The segment a global step lies in and the profile index there. O(log segments).
    std::optional<TimelinePoint> locate(std::int64_t global_step) const;
    // `shown`, when given, lists the located segment's own storages instead of its live() (an
    // edited order of that graph; ignored under Allocated); the baseline follows as always.
    // O(log N + live).
    TimelineLive live_at(std::int64_t global_step, const LiveSetIndex* shown = nullptr) const;
    // Under Allocated: every counted allocation and free in time order. Each segment's program
    // blocks (ProgramLiveIndex::blocks) are allocated at their begin and freed at their end or at
    // the segment's end (the next segment's first step); a baseline storage is allocated at the
    // first step of the first segment of a run of segments that count it and freed at the first
    // step of the next segment that does not (or after the last step). Frees come before
    // allocations at the same step, and the bytes live after the events of step g (those with
    // step <= g) are profile()[g]. Error under Estimator. O(events).
    std::vector<TimelineAllocEvent> alloc_events() const;

private:
    Timeline() = default;
    void add(TimelineSegment segment);
    void finish();
    std::shared_ptr<const GraphFile> file_;
    Measure measure_ = Measure::Estimator;
    std::vector<TimelineSegment> segments_;
    std::vector<std::int64_t> profile_;
    std::int64_t peak_ = 0;
    std::size_t peak_step_ = 0;
    std::optional<PeakMemory> pair_peak_;
    std::shared_ptr<const WholeStep> step_;
};

} // namespace fxmem
