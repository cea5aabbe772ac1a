#include "schedule/optimizerjob.h"

#include "jobs/jobtracker.h"

#include <QPointer>

OptimizerJob::OptimizerJob(QObject* parent) : QObject(parent), tracker_(new JobTracker(this, 2)) {
    connect(tracker_, &JobTracker::failed, this, &OptimizerJob::failed);
}

// The tracker (a child) stops the running job and waits for it in its destructor.
OptimizerJob::~OptimizerJob() = default;

void OptimizerJob::cancel() {
    if (finishEarly_) finishEarly_->store(true);
}

bool OptimizerJob::isRunning() const { return tracker_->busy(); }

namespace {
QString phaseName(fxmem::OptimizeProgress::Phase phase) {
    switch (phase) {
    case fxmem::OptimizeProgress::Phase::Baselines: return OptimizerJob::tr("Inductor's orders");
    case fxmem::OptimizeProgress::Phase::Exact: return OptimizerJob::tr("exact search");
    case fxmem::OptimizeProgress::Phase::Search: return OptimizerJob::tr("local search");
    case fxmem::OptimizeProgress::Phase::Done: return OptimizerJob::tr("done");
    }
    return {};
}
} // namespace

void OptimizerJob::start(std::shared_ptr<const GraphAnalysis> analysis, double timeLimitSeconds) {
    auto finishEarly = std::make_shared<std::atomic<bool>>(false);
    finishEarly_ = finishEarly;
    QPointer<OptimizerJob> self(this);
    JobTracker* tracker = tracker_;
    const quint64 generation = tracker->generation() + 1; // the one start() below takes
    tracker_->start<fxmem::OptimizeResult>(
        [self, tracker, generation, finishEarly, analysis, timeLimitSeconds](JobContext& job) {
            fxmem::OptimizeOptions options;
            options.time_limit_s = timeLimitSeconds;
            // Asked inside every phase: superseded (the tracker's flag) or the user's Cancel.
            options.cancelled = [check = job.cancelCheck(), finishEarly] { return check() || finishEarly->load(); };
            options.progress = [self, tracker, generation](const fxmem::OptimizeProgress& p) {
                const double fraction = p.fraction;
                const auto best = static_cast<qint64>(p.best_peak), bound = static_cast<qint64>(p.lower_bound);
                const QString phase = phaseName(p.phase);
                // Posted to the tracker's thread; dropped once a newer job started there.
                QMetaObject::invokeMethod(
                    tracker,
                    [self, tracker, generation, fraction, best, bound, phase] {
                        if (self && tracker->generation() == generation)
                            emit self->progress(fraction, best, bound, phase);
                    },
                    Qt::QueuedConnection);
            };
            auto result = std::make_shared<const fxmem::OptimizeResult>(
                fxmem::optimize_schedule(analysis->file(), analysis->graph(), analysis->alias(), analysis->releasable(),
                                         analysis->counted(), options));
            // Superseded: nothing to deliver (the tracker drops it anyway).
            job.throwIfCancelled();
            return result;
        },
        [self, analysis](std::shared_ptr<const fxmem::OptimizeResult> result) {
            if (self) emit self->finished(std::move(result), analysis);
        });
}
