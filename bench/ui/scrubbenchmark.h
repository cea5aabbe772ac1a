// fxmem --benchmark-scrub: moves the timeline cursor of a shown window N times, as a hover (mouse
// moves over the plot) or as ←/→ key steps, and measures each step from the input event until
// every widget it made dirty has painted. Paint time is split by panel (timeline, graph view,
// live table, breakdown, ...): a filter on the application times each widget's paint event
// exactly. A second pass splits the handlers: the timeline's own work, then the shared state's
// subscribers (live set, models, graph view marks). Runs synchronously on the GUI thread.
#pragma once
#include <QString>

class MainWindow;

struct ScrubBenchmarkOptions {
    enum class Input { Hover, Key, Drop, Pan, Zoom }; // Drop, Pan and Zoom: runGraphDragBenchmark
    Input input = Input::Hover;
    int steps = 400;
    int warmup = 5; // steps before the measured ones (first paints fill caches)
};

// The report: one line per measured quantity with median, p90 and max in ms.
QString runScrubBenchmark(MainWindow& window, const ScrubBenchmarkOptions& options);
