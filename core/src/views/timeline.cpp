// Timeline: the builders (a graph, a pair, the whole step) and the queries on the joined axis.
// The allocation event stream is in timeline_events.cpp.
#include "fxmem/timeline.h"

#include "fxmem/error.h"

#include <algorithm>
#include <span>
#include <string>

namespace fxmem {

namespace {

// "graph 'NAME'" of a schedule, or its index when the file has no such graph.
std::string schedule_graph(const GraphFile& file, const Schedule& schedule) {
    if (schedule.graph.valid() && schedule.graph.index() < file.graphs.size())
        return "graph '" + file.graph(schedule.graph).name + "'";
    return "graph " + std::to_string(schedule.graph.value) + " (the file has " + std::to_string(file.graphs.size()) +
           ")";
}

TimelineSegment segment_of(std::shared_ptr<const GraphAnalysis> analysis, const Schedule* schedule) {
    TimelineSegment s;
    s.graph = analysis->graph_index();
    if (schedule && schedule->graph == analysis->graph_index()) {
        const GraphAnalysis& a = *analysis;
        s.reordered = std::make_shared<const LiveSetIndex>(a.file(), a.graph(), a.alias(), a.releasable(), a.counted(),
                                                           std::span<const NodeId>(schedule->order));
    }
    s.analysis = std::move(analysis);
    s.length = s.live().profile_size();
    return s;
}

// Allocated: the measure has no schedules, and Reserved is not built here (timeline.h).
void check_measure(const GraphFile& file, Measure measure, const Schedule* schedule) {
    if (measure == Measure::Reserved)
        throw Error(file.source + ": the reserved measure is simulated from the allocated timeline's allocation "
                                  "events; build the timeline with the allocated measure");
    if (measure == Measure::Allocated && schedule)
        throw Error(file.source + ": the allocated measure shows the program's own kernel order: a schedule of " +
                    schedule_graph(file, *schedule) +
                    " reorders the FX graph, which has no program until it is re-captured in that order");
}

// Under Allocated the segment shows its graph's program, indexed once per graph (`cache`: the
// runs of a graph in the whole step share it). Built before the analyses, so that a graph without
// a program is refused before any work.
std::shared_ptr<const ProgramLiveIndex> program_of(const GraphFile& file, GraphId graph, DeviceFilter devices,
                                                   std::vector<std::shared_ptr<const ProgramLiveIndex>>& cache) {
    std::shared_ptr<const ProgramLiveIndex>& index = cache[graph.index()];
    if (!index) index = std::make_shared<const ProgramLiveIndex>(file, graph, devices);
    return index;
}

void show_program(TimelineSegment& s, std::shared_ptr<const ProgramLiveIndex> program) {
    if (!program) return;
    s.length = program->profile_size();
    s.program = std::move(program);
}

// The storage as its baseline row lists it: made by `made` (null: by no graph of the timeline).
LiveStorage baseline_row(StorageId storage, std::int64_t nbytes, const AliasInfo* made) {
    LiveStorage b;
    b.storage = storage;
    b.nbytes = nbytes;
    if (made) {
        b.allocator = made->allocator[storage.index()];
        b.last_user = made->last_user[storage.index()];
    }
    b.reason = LiveReason::GraphOutput;
    return b;
}

} // namespace

void Timeline::add(TimelineSegment segment) {
    segment.offset = static_cast<std::int64_t>(profile_.size());
    // The graph's own order keeps the analysis's profile (build_memory_profile); a schedule its
    // MemoryTracker curve.
    const std::vector<std::int64_t> reordered =
        segment.reordered ? segment.reordered->profile() : std::vector<std::int64_t>();
    const std::vector<std::int64_t>& own = segment.program     ? segment.program->profile()
                                           : segment.reordered ? reordered
                                                               : segment.analysis->profile();
    for (std::int64_t v : own) profile_.push_back(v + segment.baseline);
    segments_.push_back(std::move(segment));
}

void Timeline::finish() {
    const auto it = std::max_element(profile_.begin(), profile_.end());
    if (it == profile_.end()) return;
    peak_ = *it;
    peak_step_ = static_cast<std::size_t>(it - profile_.begin());
}

Timeline Timeline::graph(std::shared_ptr<const GraphFile> file, GraphId graph, DeviceFilter devices,
                         const CancelCheck& cancelled, PairContext context, const Schedule* schedule, Measure measure) {
    if (graph.index() >= file->graphs.size())
        throw Error(file->source + ": no graph " + std::to_string(graph.value) + " (the file has " +
                    std::to_string(file->graphs.size()) + (file->graphs.size() == 1 ? " graph)" : " graphs)"));
    if (schedule && schedule->graph != graph)
        throw Error(file->source + ": the schedule is for " + schedule_graph(*file, *schedule) + ", not graph '" +
                    file->graph(graph).name + "'");
    check_measure(*file, measure, schedule);
    Timeline t;
    t.file_ = file;
    t.measure_ = measure;
    std::vector<std::shared_ptr<const ProgramLiveIndex>> programs(file->graphs.size());
    const auto program = measure == Measure::Allocated ? program_of(*file, graph, devices, programs) : nullptr;
    TimelineSegment s = segment_of(GraphAnalysis::compute(file, graph, devices, cancelled, context), schedule);
    if (!program) t.pair_peak_ = s.analysis->pair_peak();
    show_program(s, program);
    t.add(std::move(s));
    t.finish();
    return t;
}

Timeline Timeline::pair(std::shared_ptr<const GraphFile> file, std::size_t pair, DeviceFilter devices,
                        const CancelCheck& cancelled, const Schedule* schedule, Measure measure) {
    if (pair >= file->pairs.size())
        throw Error(file->source + ": no pair " + std::to_string(pair) + " (the file has " +
                    std::to_string(file->pairs.size()) + (file->pairs.size() == 1 ? " pair)" : " pairs)"));
    const Pair& gp = file->pairs[pair];
    if (schedule && schedule->graph != gp.forward && schedule->graph != gp.backward)
        throw Error(file->source + ": the schedule is for " + schedule_graph(*file, *schedule) +
                    ", which is not in pair " + std::to_string(pair));
    check_measure(*file, measure, schedule);
    Timeline t;
    t.file_ = file;
    t.measure_ = measure;
    std::vector<std::shared_ptr<const ProgramLiveIndex>> programs(file->graphs.size());
    std::shared_ptr<const ProgramLiveIndex> forward_program, backward_program;
    if (measure == Measure::Allocated) {
        forward_program = program_of(*file, gp.forward, devices, programs);
        backward_program = program_of(*file, gp.backward, devices, programs);
    }
    GraphAnalysis::Pair pa = GraphAnalysis::compute_pair(file, pair, devices, cancelled);
    if (measure == Measure::Estimator) t.pair_peak_ = pa.backward->pair_peak();
    TimelineSegment backward = segment_of(std::move(pa.backward), schedule);
    backward.baseline = backward.analysis->baseline();
    // analyze_pair lists the non-CPU forward outputs the backward keeps: they sum to the baseline,
    // whatever the device filter (PyTorch's fixed device check).
    backward.baseline_storages = std::move(pa.baseline_storages);
    TimelineSegment forward = segment_of(std::move(pa.forward), schedule);
    if (forward_program && backward_program) {
        // What a real step holds when its backward starts (measured against the CPU allocator's
        // events, docs/estimator.md): all the forward program left live (parameters, the saved
        // values, the outputs), plus the tangents the autograd engine allocates; the backward's
        // own profile starts with the saved values and tangents it takes as inputs.
        backward.baseline =
            forward_program->profile().back() + backward_program->tangent_bytes() - backward_program->profile().front();
        backward.baseline_storages.clear();
    }
    show_program(forward, std::move(forward_program));
    show_program(backward, std::move(backward_program));
    t.add(std::move(forward));
    t.add(std::move(backward));
    t.finish();
    return t;
}

Timeline Timeline::whole_step(std::shared_ptr<const GraphFile> file, DeviceFilter devices, const CancelCheck& cancelled,
                              Measure measure) {
    check_measure(*file, measure, nullptr);
    Timeline t;
    t.file_ = file;
    t.measure_ = measure;
    const GraphFile& f = *file;
    auto step = std::make_shared<const WholeStep>(fxmem::whole_step(f, counted_for(f, devices)));
    // A graph that runs several times is analysed once, in pair context: a paired backward with
    // get_peak_memory's releasability, as whole_step profiles it.
    std::vector<std::shared_ptr<const GraphAnalysis>> by_graph(f.graphs.size());
    std::vector<std::shared_ptr<const ProgramLiveIndex>> programs(f.graphs.size());
    for (std::size_t e = 0; e < step->segments.size(); ++e) {
        throw_if_cancelled(cancelled);
        const StepSegment& ss = step->segments[e];
        std::shared_ptr<const GraphAnalysis>& analysis = by_graph[ss.graph.index()];
        if (!analysis) analysis = GraphAnalysis::compute(file, ss.graph, devices, cancelled);
        TimelineSegment s = segment_of(analysis, nullptr);
        if (measure == Measure::Allocated) {
            show_program(s, program_of(f, ss.graph, devices, programs));
        } else if (s.length != ss.length || static_cast<std::size_t>(t.profile_.size()) != ss.begin) {
            throw Error(f.source + ": the whole step and the analysis of " + f.graph(ss.graph).name +
                        " disagree on its length");
        }
        s.baseline = ss.carry.total();
        s.entry = ss.entry;
        t.add(std::move(s));
    }
    t.step_ = std::move(step);
    t.finish();
    return t;
}

std::vector<CarriedStorage> Timeline::carried(std::size_t segment) const {
    if (!step_ || segment >= segments_.size()) return {};
    return carried_at(*step_, static_cast<std::uint32_t>(segment));
}

std::optional<TimelinePoint> Timeline::locate(std::int64_t global_step) const {
    // The last segment starting at or before the step; segments are contiguous and in order.
    const auto after = std::upper_bound(segments_.begin(), segments_.end(), global_step,
                                        [](std::int64_t g, const TimelineSegment& s) { return g < s.offset; });
    if (after == segments_.begin()) return std::nullopt;
    const TimelineSegment& s = *(after - 1);
    if (global_step >= s.offset + static_cast<std::int64_t>(s.length)) return std::nullopt;
    return TimelinePoint{static_cast<std::size_t>(after - 1 - segments_.begin()),
                         static_cast<std::size_t>(global_step - s.offset)};
}

TimelineLive Timeline::live_at(std::int64_t global_step, const LiveSetIndex* shown) const {
    TimelineLive out;
    out.where = locate(global_step);
    if (!out.where) return out;
    const TimelineSegment& seg = segments_[out.where->segment];
    if (seg.program) {
        out.buffers = seg.program->live_at(out.where->step);
    } else {
        out.live = (shown ? *shown : seg.live()).live_at(out.where->step);
    }
    out.baseline_begin = out.live.size();
    if (step_) {
        // Carried storages: made by the run of their source entry (segment i runs entry i); none
        // for parameters and optimizer state, which no graph allocates.
        const std::vector<CarriedStorage> carried = this->carried(out.where->segment);
        out.live.reserve(out.live.size() + carried.size());
        for (const CarriedStorage& c : carried)
            out.live.push_back(baseline_row(
                c.storage, c.bytes,
                c.source && *c.source < segments_.size() ? &segments_[*c.source].analysis->alias() : nullptr));
        return out;
    }
    out.live.reserve(out.live.size() + seg.baseline_storages.size());
    const AliasInfo& forward = segments_.front().analysis->alias();
    for (StorageId s : seg.baseline_storages) out.live.push_back(baseline_row(s, file_->nbytes(s), &forward));
    return out;
}

} // namespace fxmem
