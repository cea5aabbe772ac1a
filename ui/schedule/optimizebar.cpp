#include "schedule/optimizebar.h"

#include "state/editedschedule.h"
#include "util/units.h"

#include <QHBoxLayout>
#include <QProgressBar>
#include <QToolButton>

#include <algorithm>

OptimizeBar::OptimizeBar(EditedSchedule* edited, QWidget* parent)
    : QWidget(parent), edited_(edited), job_(new OptimizerJob(this)) {
    auto* o = new QHBoxLayout(this);
    o->setContentsMargins(4, 0, 4, 0);
    progress_ = new QProgressBar(this);
    progress_->setObjectName(QStringLiteral("optimizeProgress"));
    progress_->setRange(0, 1000);
    auto* stop = new QToolButton(this);
    stop->setObjectName(QStringLiteral("optimizeCancel"));
    stop->setText(tr("Cancel"));
    stop->setToolTip(tr("Stop the search; the order stays as it is"));
    o->addWidget(progress_, 1);
    o->addWidget(stop);
    hide();
    connect(stop, &QToolButton::clicked, this, &OptimizeBar::cancel);
    connect(
        job_, &OptimizerJob::progress, this, [this](double fraction, qint64 best, qint64 bound, const QString& phase) {
            progress_->setValue(static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 1000));
            progress_->setFormat(tr("%1: best %2, bound %3")
                                     .arg(phase, formatBytes(std::int64_t(best)), formatBytes(std::int64_t(bound))));
        });
    connect(job_, &OptimizerJob::finished, this,
            [this](std::shared_ptr<const fxmem::OptimizeResult> result, std::shared_ptr<const GraphAnalysis> analysis) {
                hide();
                onFinished(*result, analysis);
            });
    connect(job_, &OptimizerJob::failed, this, [this](const QString& message) {
        hide();
        emit status(tr("Optimize failed: %1").arg(message), true);
        emit done(false);
    });
}

void OptimizeBar::start(double timeLimitSeconds) {
    if (!edited_->analysis() || isRunning()) return;
    emit status(tr("Optimizing (at most %1 s)…").arg(timeLimitSeconds), false);
    progress_->setValue(0);
    progress_->setFormat(tr("starting…"));
    show();
    job_->start(edited_->analysis(), timeLimitSeconds);
}

void OptimizeBar::cancel() { job_->cancel(); }

void OptimizeBar::forgetBound() {
    if (lowerBound_ < 0) return;
    lowerBound_ = -1;
    emit boundChanged(-1);
}

void OptimizeBar::onFinished(const fxmem::OptimizeResult& result,
                             const std::shared_ptr<const GraphAnalysis>& analysis) {
    if (analysis != edited_->analysis() || !edited_->schedule()) {
        emit done(false);
        return; // another graph is open now
    }
    lowerBound_ = result.lower_bound;
    emit boundChanged(result.lower_bound);
    // The one definition of a backward's peak (docs/estimator.md): in its pair, as fxmem-cli scores it.
    const QString bound =
        tr("no order can go below %1").arg(formatBytes(result.lower_bound)) +
        (analysis->is_backward_of_pair()
             ? tr(" (the backward in its pair, as fxmem-cli scores it: primal and tangent inputs kept; "
                  "the forward's baseline of %1 comes on top)")
                   .arg(formatBytes(analysis->baseline()))
             : QString());
    if (result.cancelled) {
        emit status(tr("Optimize cancelled; the best order found so far (peak %1) was not applied; %2.")
                        .arg(formatBytes(result.peak), bound),
                    false);
        emit done(false);
        return;
    }
    const std::int64_t before = edited_->peak();
    const bool better = result.peak < before && result.order != edited_->order();
    if (better) {
        const MoveOutcome out = edited_->setOrder(
            result.order,
            tr("Optimize: peak %1 → %2 (%3)")
                .arg(formatBytes(before), formatBytes(result.peak), formatDelta(result.peak - before, before)),
            true);
        if (!out.ok) { // core's optimizer returns legal orders: this would be a bug, said rather than hidden
            emit status(tr("The optimized order was refused: %1").arg(out.why), true);
            emit done(false);
            return;
        }
    }
    const QString how = result.exact ? tr("the exact optimum")
                                     : tr("the best order found (%1)").arg(QString::fromStdString(result.method));
    if (better)
        // The change spelled out: on a large peak both ends can round to the same "113 GiB".
        emit status(tr("Optimized: peak %1 → %2 (%3), %4; %5.")
                        .arg(formatBytes(before), formatBytes(result.peak), formatDelta(result.peak - before, before),
                             how, bound),
                    false);
    else if (before <= result.lower_bound)
        emit status(tr("This order is already optimal: no order can go below its peak %1.").arg(formatBytes(before)),
                    false);
    else
        emit status(tr("No order found below the current peak %1 (%2); %3.").arg(formatBytes(before), how, bound),
                    false);
    emit done(better);
}
