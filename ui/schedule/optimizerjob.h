// Runs fxmem::optimize_schedule for one graph on the app's JobTracker (ui/jobs), with progress and
// Cancel. The job hands its cancel check to the optimizer, which asks it inside every phase (the
// bound, each baseline, the searches), so a stop lands within a bounded amount of work. Two ways
// to stop: cancel() (the user's Cancel) makes the optimizer return the best order found so far and
// finished() still comes (result.cancelled = true); a newer start() or the job's destruction
// supersedes the run through the tracker and nothing of it is delivered (the destructor waits
// for the worker, which stops at its next poll). The result crosses threads as
// std::shared_ptr<const fxmem::OptimizeResult>.
#pragma once
#include "analysis/graphanalysis.h"

#include <fxmem/optimize.h>

#include <QMetaType>
#include <QObject>

#include <atomic>
#include <memory>

class JobTracker;

class OptimizerJob : public QObject {
    Q_OBJECT
public:
    explicit OptimizerJob(QObject* parent = nullptr);
    ~OptimizerJob() override;

    // Starts on the analysis' graph in its original order's context (releasable, counted).
    // A running job is superseded (its result dropped).
    void start(std::shared_ptr<const GraphAnalysis> analysis, double timeLimitSeconds = 10);
    void cancel(); // the running job returns its best so far (finished() still comes)
    bool isRunning() const;
    JobTracker* tracker() const { return tracker_; }

signals:
    void progress(double fraction, qint64 bestPeak, qint64 lowerBound, const QString& phase);
    void finished(std::shared_ptr<const fxmem::OptimizeResult> result, std::shared_ptr<const GraphAnalysis> analysis);
    void failed(const QString& message);

private:
    JobTracker* tracker_;
    // The user's Cancel for the current run: stop early but deliver (the tracker's own cancel
    // drops the result, which is what superseding wants).
    std::shared_ptr<std::atomic<bool>> finishEarly_;
};

Q_DECLARE_METATYPE(std::shared_ptr<const fxmem::OptimizeResult>)
