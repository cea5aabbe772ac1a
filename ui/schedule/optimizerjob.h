// Runs fxmem::optimize_schedule for one graph on a worker thread (QThreadPool), with progress and
// Cancel. Progress and the result come back on the GUI thread as signals; the result crosses as
// std::shared_ptr<const fxmem::OptimizeResult>. Cancel makes the optimizer stop at its next
// progress check and return the best order found so far (result.cancelled = true); a job whose
// owner is gone, or that was superseded by a newer start(), delivers nothing.
#pragma once
#include "analysis/graphanalysis.h"

#include <fxmem/optimize.h>

#include <QMetaType>
#include <QObject>

#include <atomic>
#include <memory>

class OptimizerJob : public QObject {
    Q_OBJECT
public:
    explicit OptimizerJob(QObject* parent = nullptr);
    ~OptimizerJob() override;

    // Starts on the analysis' graph in its original order's context (releasable, counted).
    // A running job is cancelled and its result dropped.
    void start(std::shared_ptr<const GraphAnalysis> analysis, double timeLimitSeconds = 10);
    void cancel();  // the running job returns its best so far (finished() still comes)
    bool isRunning() const { return running_; }

signals:
    void progress(double fraction, qint64 bestPeak, qint64 lowerBound, const QString& phase);
    void finished(std::shared_ptr<const fxmem::OptimizeResult> result, std::shared_ptr<const GraphAnalysis> analysis);
    void failed(const QString& message);

private:
    struct Shared;
    std::shared_ptr<Shared> current_;
    bool running_ = false;
};

Q_DECLARE_METATYPE(std::shared_ptr<const fxmem::OptimizeResult>)
