// What a view shows, described once for the app, fxmem-cli and the exports: a graph, a
// forward/backward pair joined, or the whole step; the order it is scored in; which devices count;
// and which measure (fxmem/measure.h). open_view turns a description into the Timeline every
// view reads (fxmem/timeline.h), checking it against the file first.
//
// The size binding is not part of the description: it belongs to the file a view opens
// (bind_sizes, fxmem/symbolic.h), so that every view of one document shows one size.
//
// Plain values: any thread. open_view only reads the file.
#pragma once
#include "fxmem/analysis.h"
#include "fxmem/cancel.h"
#include "fxmem/measure.h"
#include "fxmem/model.h"
#include "fxmem/schedule.h"
#include "fxmem/timeline.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace fxmem {

enum class ViewScope : std::uint8_t { Graph, Pair, WholeStep };

// "graph", "pair" or "whole_step" (the JSON outputs' and the exports' word).
std::string_view to_string(ViewScope scope);

// `graph` for Graph, `pair` for Pair. A Graph view scores a pair's backward alone
// (PairContext::Standalone: `fxmem-cli profile --graph`) or as it runs in its pair (AsInPair: its
// forward inputs never freed, no baseline added: the app's single-graph view and `score`).
// `schedule` reorders the graph of a Graph view or one graph of the pair (never the whole step,
// whose graphs run in their recorded orders).
struct ViewSpec {
    ViewScope scope = ViewScope::WholeStep;
    GraphId graph;
    std::size_t pair = 0;
    PairContext context = PairContext::Standalone;
    DeviceFilter devices = DeviceFilter::NonCpu;
    std::optional<Schedule> schedule;
    Measure measure = Measure::Estimator;

    static ViewSpec of_graph(GraphId g, PairContext context = PairContext::Standalone) {
        ViewSpec v;
        v.scope = ViewScope::Graph;
        v.graph = g;
        v.context = context;
        return v;
    }
    static ViewSpec of_pair(std::size_t k) {
        ViewSpec v;
        v.scope = ViewScope::Pair;
        v.pair = k;
        return v;
    }
    static ViewSpec of_whole_step() { return ViewSpec{}; }
};

// The view a file opens on when nothing is asked: its whole step when it has one, else pair 0
// when it has pairs, else its first graph (Error naming file.source for a file without graphs).
ViewSpec default_view(const GraphFile& file);

// Throws Error naming file.source when the spec does not fit the file: a graph or pair it lacks,
// a whole step in a file without one, a schedule of a graph outside the view or of the whole step.
void check_view(const GraphFile& file, const ViewSpec& spec);

// The timeline of the view (check_view first). Cancelled when `cancelled` answers true. Under
// Measure::Reserved it is the allocated timeline, which reserved_view (fxmem/reserved_view.h)
// replays through the caching allocator.
Timeline open_view(std::shared_ptr<const GraphFile> file, const ViewSpec& spec, const CancelCheck& cancelled = {});

// How output names the view: "graph 'g'", "pair 0 ('f + b')", "the whole step (12 graph runs)".
// Names are as the file gives them; a caller that prints them escapes them.
std::string describe_view(const GraphFile& file, const ViewSpec& spec);

} // namespace fxmem
