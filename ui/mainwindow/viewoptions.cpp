#include "mainwindow/viewoptions.h"

#include "dataflow/dataflowview.h"
#include "dataflow/graphmodepane.h"
#include "graphview/graphview.h"
#include "mainwindow/docklayout.h"
#include "mainwindow/windowparts.h"
#include "recompute/recomputepanel.h"
#include "schedule/scheduleeditor.h"
#include "sizes/devicememory.h"
#include "sizes/sizesbar.h"
#include "state/viewstate.h"
#include "timeline/timelineplot.h"

#include <QCoreApplication>

#include <algorithm>

namespace {
QString tr(const char* text) { return QCoreApplication::translate("ViewOptions", text); }
} // namespace

QString applyViewOptions(const ViewOptions& options, const WindowParts& parts, ViewState* state) {
    const auto& scene = state->scene();
    if (!scene) return tr("no graph is shown");
    if (options.timelineMode) {
        if (options.depth) parts.modeBar->setDepth(*options.depth);
        parts.modeBar->setMode(*options.timelineMode);
    }
    if (options.collapseDepth) parts.graphView->setGroupDepth(*options.collapseDepth);
    if (!options.graphMode.isEmpty())
        parts.graphModes->setMode(options.graphMode == QStringLiteral("dataflow") ? GraphModePane::Mode::Dataflow
                                                                                  : GraphModePane::Mode::Time);
    for (const QString& m : options.expand) {
        bool known = false;
        for (std::size_t s = 0; s < scene->segments.size(); ++s)
            known = known || scene->findModule(s, m) != fxmem::ModuleTree::npos;
        if (!known) return tr("the shown graph has no module named '%1'").arg(m);
    }
    if (!options.expand.isEmpty()) parts.dataflow->expandModules(options.expand);
    if (options.dataflowFit) parts.dataflow->fitWhenLaidOut();
    if (options.step) state->setCursorStep(*options.step);
    if (!options.selectModule.isEmpty()) {
        bool known = false;
        for (std::size_t s = 0; s < scene->segments.size(); ++s)
            known = known || scene->findModule(s, options.selectModule) != fxmem::ModuleTree::npos;
        if (!known) return tr("the shown graph has no module named '%1'").arg(options.selectModule);
        state->selectModule(options.selectModule);
    }
    ScheduleEditor* editor = parts.editor;
    const auto noSchedule = [editor](const QString& name) {
        return tr("the shown graph has no schedule named '%1' (it has: %2)")
            .arg(name, editor->sourceNames().join(QStringLiteral(", ")));
    };
    if (!options.schedule.isEmpty() && !editor->pickSchedule(options.schedule)) return noSchedule(options.schedule);
    if (!options.compare.isEmpty()) {
        const int b = static_cast<int>(editor->sourceNames().indexOf(options.compare));
        if (b < 0) return noSchedule(options.compare);
        editor->setComparison(0, b);
    }
    if (!options.deviceMemory.isEmpty()) {
        const std::optional<std::int64_t> bytes = parseDeviceMemory(options.deviceMemory);
        if (!bytes) return tr("not a memory size: '%1' (80GB, 79.6GiB, 512MiB)").arg(options.deviceMemory);
        parts.sizes->setDeviceMemory(*bytes);
    }
    if (!options.sizes.isEmpty())
        if (const QString error = parts.sizes->setValues(options.sizes); !error.isEmpty()) return error;
    if (!options.tab.isEmpty() && !parts.docks->raise(options.tab)) return tr("no tab '%1'").arg(options.tab);
    if (options.maxExtraPercent) parts.recompute->setMaxExtraPercent(*options.maxExtraPercent);
    if (options.findPlan) {
        const auto& graphs = scene->file->graphs;
        if (std::none_of(graphs.begin(), graphs.end(),
                         [](const fxmem::Graph& g) { return g.kind == fxmem::GraphKind::Joint; }))
            return tr("the file has no joint graph to search a recompute plan on (fxmem_export.sweep writes one)");
        parts.recompute->findPlan(-1, true);
    }
    return {};
}

ViewOptionsSettled viewOptionsSettled(const ViewOptions& options, const WindowParts& parts, const ViewState* state) {
    const bool bands = parts.modeBar->mode() == TimelineModeBar::Mode::Total || parts.timeline->isStacked();
    const bool compared = !options.wantsComparison() || parts.timeline->hasComparison();
    const auto& plan = parts.recompute->plan();
    const bool planned = !options.findPlan || (plan && state->scene() && state->scene()->file == plan->pairFile);
    const bool drawn = parts.graphModes->mode() != GraphModePane::Mode::Dataflow || parts.dataflow->layouts();
    return {bands && compared && drawn && !parts.sizes->pending(), planned};
}
