#include "schedule/optimizerjob.h"

#include <QCoreApplication>
#include <QPointer>
#include <QThreadPool>

#include <exception>

// What the worker and the job share: the cancel flag, and whether anyone still wants the result.
struct OptimizerJob::Shared {
    std::atomic<bool> cancel{false};
    std::atomic<bool> wanted{true};
};

OptimizerJob::OptimizerJob(QObject* parent) : QObject(parent) {}

OptimizerJob::~OptimizerJob() {
    if (current_) {
        current_->wanted = false;
        current_->cancel = true;
    }
}

void OptimizerJob::cancel() {
    if (current_) current_->cancel = true;
}

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
    if (current_) {
        current_->wanted = false;
        current_->cancel = true;
    }
    auto shared = std::make_shared<Shared>();
    current_ = shared;
    running_ = true;
    QPointer<OptimizerJob> self(this);
    QThreadPool::globalInstance()->start([self, shared, analysis = std::move(analysis), timeLimitSeconds] {
        fxmem::OptimizeOptions options;
        options.time_limit_s = timeLimitSeconds;
        options.progress = [&](const fxmem::OptimizeProgress& p) {
            if (shared->wanted) {
                const double fraction = p.fraction;
                const auto best = static_cast<qint64>(p.best_peak), bound = static_cast<qint64>(p.lower_bound);
                const QString phase = phaseName(p.phase);
                // qApp as the context: `self` is only looked at on the GUI thread.
                QMetaObject::invokeMethod(QCoreApplication::instance(), [self, shared, fraction, best, bound, phase] {
                    if (self && shared->wanted) emit self->progress(fraction, best, bound, phase);
                });
            }
            return !shared->cancel.load();
        };
        std::shared_ptr<const fxmem::OptimizeResult> result;
        QString error;
        try {
            result = std::make_shared<const fxmem::OptimizeResult>(fxmem::optimize_schedule(
                analysis->file(), analysis->graph(), analysis->alias(), analysis->releasable(), analysis->counted(), options));
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
        }
        QMetaObject::invokeMethod(QCoreApplication::instance(), [self, shared, result, analysis, error] {
            if (!self || !shared->wanted || self->current_ != shared) return;
            self->running_ = false;
            self->current_.reset();
            if (result) emit self->finished(result, analysis);
            else emit self->failed(error);
        });
    });
}
