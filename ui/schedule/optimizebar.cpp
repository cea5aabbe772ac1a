#include "schedule/optimizebar.h"

#include "util/units.h"

#include <QHBoxLayout>
#include <QProgressBar>
#include <QToolButton>

#include <algorithm>

OptimizeBar::OptimizeBar(QWidget* parent) : QWidget(parent), job_(new OptimizerJob(this)) {
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
                emit finished(std::move(result), std::move(analysis));
            });
    connect(job_, &OptimizerJob::failed, this, [this](const QString& message) {
        hide();
        emit failed(message);
    });
}

void OptimizeBar::start(std::shared_ptr<const GraphAnalysis> analysis, double timeLimitSeconds) {
    progress_->setValue(0);
    progress_->setFormat(tr("starting…"));
    show();
    job_->start(std::move(analysis), timeLimitSeconds);
}

void OptimizeBar::cancel() { job_->cancel(); }
