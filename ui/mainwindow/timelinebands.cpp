#include "mainwindow/timelinebands.h"

#include "jobs/jobtracker.h"
#include "state/viewstate.h"
#include "timeline/stackedbands.h"
#include "timeline/timelinemodebar.h"
#include "timeline/timelineplot.h"

#include <QSignalBlocker>

#include <algorithm>

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
