// What a start or a screenshot shows besides the defaults (fxmem's command-line options): the app
// fills one of these and MainWindow::applyViewOptions sets the views from it once the chosen
// graph is shown (applyViewOptions below does it).
#pragma once
#include "timeline/timelinemodebar.h"

#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>

struct ViewOptions {
    std::optional<TimelineModeBar::Mode> timelineMode;
    std::optional<int> depth;         // the module depth of the timeline's bands
    std::optional<int> collapseDepth; // the graph view's modules collapsed at this depth
    std::optional<std::int64_t> step; // the timeline cursor
    QString selectModule;             // a module's qualified name; empty: none
    QString schedule;                 // show the file's schedule of this name (an undoable edit)
    QString compare;                  // compare the original order with this schedule
    // The right-hand tab to raise, by its --tab name (sidetabs.h); empty: none.
    QString tab;
    bool findPlan = false;                 // start the Recompute view's plan search
    std::optional<double> maxExtraPercent; // its FLOPs limit (the Recompute view's box), in %
    QString sizes;                         // the Sizes bar's values, "batch=64,s27=1024"
    QString deviceMemory;                  // the Sizes bar's GPU: "80GB", "79.6GiB"
    QString graphMode;                     // "time" or "dataflow"; empty: as last chosen
    QStringList expand;                    // modules the Dataflow mode opens (qualified names)
    bool dataflowFit = false;              // the whole Dataflow drawing in view
    // Waits for this before a screenshot: the timeline's bands and comparison are jobs.
    bool wantsComparison() const { return !compare.isEmpty(); }
};

class ViewState;
struct WindowParts;

// Sets the views as `options` say, on the graph shown now. Returns what could not be done (a
// module or schedule the graph does not have), empty when all was.
QString applyViewOptions(const ViewOptions& options, const WindowParts& parts, ViewState* state);

// Whether what the options started off the GUI thread is in: the timeline's bands and comparison
// (`views`), the Recompute view's plan (`plan`). A screenshot waits for both.
struct ViewOptionsSettled {
    bool views = false;
    bool plan = false;
};
ViewOptionsSettled viewOptionsSettled(const ViewOptions& options, const WindowParts& parts, const ViewState* state);
