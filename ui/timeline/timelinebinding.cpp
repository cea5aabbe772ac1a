#include "timeline/timelinebinding.h"

#include "schedule/scheduleeditor.h"
#include "schedule/timelinelink.h"
#include "state/viewstate.h"
#include "timeline/timelineplot.h"
#include "util/afterpaint.h"
#include "util/text.h"
#include "util/units.h"

#include <QFileInfo>
#include <QPointer>

namespace {

void updateOverlay(TimelinePlot* timeline, const ViewState& state) {
    if (state.orderEdited() && !timeline->hasComparison()) {
        const EditedSchedule& schedule = *state.schedule();
        const std::int64_t edited = schedule.peak(), original = schedule.originalPeak();
        timeline->setOverlay(
            state.editedProfile(), schedule.peakStep(),
            QObject::tr("edited peak %1 · %2").arg(formatBytes(edited), formatDelta(edited - original, original)));
    } else {
        timeline->clearOverlay();
    }
}

// The node at a global step (none at a segment's start step).
void selectAt(ViewState* state, std::int64_t step, bool center) {
    if (!state->scene()) return;
    const Scene::Where w = state->scene()->locate(step);
    if (w.segment < 0 || w.step == 0) return;
    if (const fxmem::NodeId n = state->nodeAt(w); n.valid()) state->selectNode({w.segment, n}, center);
}

} // namespace

void bindTimeline(TimelinePlot* timeline, ViewState* state, ScheduleEditor* editor) {
    timeline->setStepDescriber([state](std::int64_t step, bool edited) { return state->describeStep(step, edited); });
    QObject::connect(timeline, &TimelinePlot::cursorMoved, state, &ViewState::setCursorStep);
    QObject::connect(state, &ViewState::cursorStepChanged, timeline, &TimelinePlot::setCursorStep);
    // Keyboard scrubbing (←/→, P) walks node by node: the inspector follows; hovering does not.
    QObject::connect(timeline, &TimelinePlot::steppedByKey, state,
                     [state](std::int64_t step) { selectAt(state, step, false); });
    QObject::connect(timeline, &TimelinePlot::stepActivated, state,
                     [state](std::int64_t step) { selectAt(state, step, true); });
    QObject::connect(state, &ViewState::sceneChanged, timeline, [timeline](const std::shared_ptr<const Scene>& scene) {
        timeline->clearOverlay();
        if (!scene) return timeline->clearProfile();
        std::vector<TimelinePlot::Marker> sections;
        if (scene->joined())
            for (std::size_t i = 0; i < scene->segments.size(); ++i)
                sections.push_back({scene->segments[i].offset, elided(scene->segmentName(i), 60)});
        timeline->setProfile(scene->profile, scene->peakStep, std::move(sections));
        // Exported plots say what they show: the file and the graph (or pair).
        timeline->setTitle(elided(QFileInfo(scene->path).fileName(), 80) % QStringLiteral(" · ") %
                           elided(scene->title(), 80));
    });
    // The edited curve follows an edit right after the frame that shows the edit: it is a full
    // replot of the chart (~3 ms at 100k nodes), which would otherwise delay that frame.
    QObject::connect(state, &ViewState::orderChanged, timeline,
                     coalescedAfterPaint(timeline, AfterPaint::Redraw, [timeline, state = QPointer<ViewState>(state)] {
                         if (state) updateOverlay(timeline, *state);
                     }));
    QObject::connect(state, &ViewState::orderedLiveChanged, timeline, &TimelinePlot::refreshCursorText);
    QObject::connect(state, &ViewState::unitsChanged, timeline, [timeline, state] {
        updateOverlay(timeline, *state); // the edited peak's label
        timeline->refreshUnits();
    });
    linkScheduleToTimeline(editor, timeline);
    // After linkScheduleToTimeline's own handler: the overlay hides while a comparison is shown.
    QObject::connect(editor, &ScheduleEditor::comparisonChanged, timeline,
                     [timeline, state] { updateOverlay(timeline, *state); });
}
