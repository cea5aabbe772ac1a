#include "timeline/timelinebinding.h"

#include "jobs/jobtracker.h"
#include "schedule/scheduleeditor.h"
#include "state/viewstate.h"
#include "timeline/stackedbands.h"
#include "timeline/timelinemodebar.h"
#include "timeline/timelineplot.h"
#include "util/afterpaint.h"
#include "util/text.h"
#include "util/units.h"

#include <QFileInfo>
#include <QPointer>
#include <QSignalBlocker>

#include <algorithm>

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

void linkScheduleToTimeline(ScheduleEditor* editor, TimelinePlot* timeline) {
    QObject::connect(editor, &ScheduleEditor::comparisonChanged, timeline, [editor, timeline] {
        const std::shared_ptr<const OrderComparison> c = editor->comparison();
        // The timeline shows this graph's profile: a comparison only fits when the lengths agree
        // (the editor works on single graphs; a joined view has no comparison).
        if (!c || c->profile_a.size() != timeline->stepCount()) return timeline->clearComparison();
        timeline->setComparison({editor->comparisonName(0), c->profile_a, c->peak_step_a},
                                {editor->comparisonName(1), c->profile_b, c->peak_step_b});
    });
    QObject::connect(editor, &ScheduleEditor::lowerBoundChanged, timeline,
                     [timeline](qint64 bytes) { timeline->setLowerBound(bytes); });
}

TimelineBands::TimelineBands(ViewState* state, TimelineModeBar* modeBar, TimelinePlot* timeline, QObject* parent)
    : QObject(parent), state_(state), modeBar_(modeBar), timeline_(timeline), jobs_(new JobTracker(this)) {
    connect(modeBar_, &TimelineModeBar::modeChanged, this, &TimelineBands::update);
    connect(jobs_, &JobTracker::failed, this, &TimelineBands::failed);
}

namespace {
// Bands of a scene this small take about a millisecond: less than a job's round trip.
constexpr std::size_t kBandsNowNodes = 20000;
} // namespace

void TimelineBands::showScene(const Scene& scene, bool newFile, bool rebound) {
    // Stacked by role by default for a real model that says (or lets us derive) what its storages
    // are; the plain curve for small graphs.
    std::uint32_t depth = 0;
    bool modules = false;
    for (const Segment& s : scene.segments) {
        depth = std::max(depth, s.attribution->tree().max_depth());
        modules = modules || s.attribution->tree().size() > 1;
    }
    const bool roles = scene.roles && scene.roles->source != fxmem::RoleSource::Derived;
    modeBar_->setMaxDepth(static_cast<int>(depth));
    const QSignalBlocker block(modeBar_);
    if (newFile) {
        modeBar_->setMode(TimelineModeBar::defaultFor(scene.nodeCount(), roles || modules));
        modeBar_->setDepth(static_cast<int>(std::max(1u, scene.layerDepth())));
    }
    bandsNow_ = rebound && scene.nodeCount() <= kBandsNowNodes;
    update();
    bandsNow_ = false;
}

void TimelineBands::update() {
    const auto& scene = state_->scene();
    const TimelineModeBar::Mode mode = modeBar_->mode();
    if (!scene || scene->empty() || !scene->roles || mode == TimelineModeBar::Mode::Total) {
        jobs_->cancel();
        timeline_->clearStackedBands();
        return;
    }
    const fxmem::GroupBy by = mode == TimelineModeBar::Mode::ByRole ? fxmem::GroupBy::Role : fxmem::GroupBy::Module;
    const auto depth = static_cast<std::uint32_t>(modeBar_->depth());
    if (bandsNow_) {
        jobs_->cancel();
        timeline_->setStackedBands(StackedBands::forScene(*scene, *scene->roles, by, depth));
        return;
    }
    jobs_->start<std::vector<TimelinePlot::Band>>(
        [scene, by, depth](JobContext& job) {
            job.throwIfCancelled();
            return std::make_shared<const std::vector<TimelinePlot::Band>>(
                StackedBands::forScene(*scene, *scene->roles, by, depth));
        },
        [this, scene](std::shared_ptr<const std::vector<TimelinePlot::Band>> bands) {
            if (scene != state_->scene()) return;
            timeline_->setStackedBands(*bands);
        });
}
