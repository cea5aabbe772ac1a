// ViewSpec: one description of what a view shows, checked against the file and opened as the
// Timeline every view reads.
#include "fxmem/view_spec.h"

#include "fxmem/error.h"
#include "fxmem/whole_step.h"

namespace fxmem {

std::string_view to_string(ViewScope scope) {
    switch (scope) {
    case ViewScope::Graph: return "graph";
    case ViewScope::Pair: return "pair";
    case ViewScope::WholeStep: return "whole_step";
    }
    return "graph";
}

ViewSpec default_view(const GraphFile& file) {
    if (!file.step.empty()) return ViewSpec::of_whole_step();
    if (!file.pairs.empty()) return ViewSpec::of_pair(0);
    if (file.graphs.empty()) throw Error(file.source + ": the file has no graphs");
    return ViewSpec::of_graph(GraphId(0));
}

namespace {

std::string count_of(std::size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

// The schedule's graph as a message names it: a schedule built in code may name any index.
std::string scheduled_graph_text(const GraphFile& file, const Schedule& schedule) {
    if (!schedule.graph.valid() || schedule.graph.index() >= file.graphs.size())
        return "graph " + std::to_string(schedule.graph.value) + ", which the file lacks";
    return "graph '" + file.graph(schedule.graph).name + "'";
}

} // namespace

void check_view(const GraphFile& file, const ViewSpec& spec) {
    switch (spec.scope) {
    case ViewScope::Graph:
        if (!spec.graph.valid() || spec.graph.index() >= file.graphs.size())
            throw Error(file.source + ": no graph " + std::to_string(spec.graph.value) + " (the file has " +
                        count_of(file.graphs.size(), "graph", "graphs") + ")");
        if (spec.schedule && spec.schedule->graph != spec.graph)
            throw Error(file.source + ": the schedule is for " + scheduled_graph_text(file, *spec.schedule) +
                        ", not '" + file.graph(spec.graph).name + "'");
        return;
    case ViewScope::Pair: {
        if (spec.pair >= file.pairs.size())
            throw Error(file.source + ": no pair " + std::to_string(spec.pair) + " (the file has " +
                        count_of(file.pairs.size(), "pair", "pairs") + ")");
        const Pair& p = file.pairs[spec.pair];
        if (spec.schedule && spec.schedule->graph != p.forward && spec.schedule->graph != p.backward)
            throw Error(file.source + ": the schedule is for " + scheduled_graph_text(file, *spec.schedule) +
                        ", not a graph of pair " + std::to_string(spec.pair));
        return;
    }
    case ViewScope::WholeStep:
        if (file.step.empty())
            throw Error(file.source +
                        ": the file has no \"step\" (the order its graphs ran in during a training step)");
        if (spec.schedule)
            throw Error(file.source + ": a schedule reorders one graph; the whole step runs every graph in its "
                                      "recorded order");
        return;
    }
}

Timeline open_view(std::shared_ptr<const GraphFile> file, const ViewSpec& spec, const CancelCheck& cancelled) {
    check_view(*file, spec);
    const Schedule* schedule = spec.schedule ? &*spec.schedule : nullptr;
    // Reserved replays the allocated timeline (reserved_view); the timeline itself is the allocated one.
    const Measure measure = spec.measure == Measure::Estimator ? Measure::Estimator : Measure::Allocated;
    switch (spec.scope) {
    case ViewScope::Graph:
        return Timeline::graph(std::move(file), spec.graph, spec.devices, cancelled, spec.context, schedule, measure);
    case ViewScope::Pair: return Timeline::pair(std::move(file), spec.pair, spec.devices, cancelled, schedule, measure);
    case ViewScope::WholeStep: break;
    }
    return Timeline::whole_step(std::move(file), spec.devices, cancelled, measure);
}

std::string describe_view(const GraphFile& file, const ViewSpec& spec) {
    switch (spec.scope) {
    case ViewScope::Graph: return "graph '" + file.graph(spec.graph).name + "'";
    case ViewScope::Pair: {
        const Pair& p = file.pairs[spec.pair];
        return "pair " + std::to_string(spec.pair) + " ('" + file.graph(p.forward).name + " + " +
               file.graph(p.backward).name + "')";
    }
    case ViewScope::WholeStep: break;
    }
    return "the whole step (" + count_of(file.step.size(), "graph run", "graph runs") + ")";
}

} // namespace fxmem
