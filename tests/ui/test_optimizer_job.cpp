// OptimizerJob on the app's JobTracker: progress and a result on the GUI thread; the user's Cancel
// lands inside a phase on a 100k-node graph and still delivers the best order so far; a newer
// start supersedes the running one (only the latest result comes); destroying a running job
// stops it. How many steps a cancel may take is counted in the core's test
// (Optimize.CancelLandsInsideEachPhaseOnALargeGraph); here the times are printed.
#include "jobs/jobtracker.h"
#include "qtest_registry.h"
#include "schedule/optimizerjob.h"
#include "test_schedule_graphs.h"

#include <fxmem/schedule.h>

#include <synth.h>

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>

namespace {

std::shared_ptr<const GraphAnalysis> largeAnalysis() {
    static const std::shared_ptr<const GraphAnalysis> a = [] {
        fxmem::synth::Options options;
        options.nodes = 100000;
        options.pair = false;
        options.seed = 5;
        auto file = std::make_shared<const fxmem::GraphFile>(fxmem::synth::generate(options));
        return GraphAnalysis::compute(file, *file->find_graph(fxmem::synth::kForwardName));
    }();
    return a;
}

std::shared_ptr<const fxmem::OptimizeResult> resultOf(const QSignalSpy& spy, int i = 0) {
    return spy.at(i).at(0).value<std::shared_ptr<const fxmem::OptimizeResult>>();
}

} // namespace

class TestOptimizerJob : public QObject {
    Q_OBJECT
private slots:
    void runsOnTheTracker() {
        OptimizerJob job;
        QSignalSpy finished(&job, &OptimizerJob::finished);
        QSignalSpy busy(job.tracker(), &JobTracker::busyChanged);
        job.start(schedtest::smallAnalysis(), 5);
        QVERIFY(job.isRunning());
        QVERIFY(job.tracker()->busy());
        QVERIFY(finished.wait(20000));
        QVERIFY(!job.isRunning());
        QCOMPARE(busy.size(), 2); // busy, then idle
        const auto r = resultOf(finished);
        QVERIFY(!r->cancelled);
        // Graph g's optimum (test_schedule_graphs.h): c before b, peak 2110.
        QCOMPARE(r->peak, 2110);
        QVERIFY(r->exact);
    }

    void cancelInsideAPhaseDeliversTheBestSoFar() {
        const auto analysis = largeAnalysis();
        OptimizerJob job;
        QSignalSpy progress(&job, &OptimizerJob::progress);
        QSignalSpy finished(&job, &OptimizerJob::finished);
        job.start(analysis, 600);
        QVERIFY(progress.wait(30000)); // running (the first phase reports at its start)
        QElapsedTimer t;
        t.start();
        job.cancel();
        QVERIFY(finished.wait(30000));
        qInfo("%zu nodes: finished %lld ms after Cancel (phase at the last report: %s)", analysis->graph().size(),
              t.elapsed(), qPrintable(progress.last().at(3).toString()));
        const auto r = resultOf(finished);
        QVERIFY(r->cancelled);
        QVERIFY_THROWS_NO_EXCEPTION(fxmem::check_schedule(analysis->graph(), r->order));
        QVERIFY(r->peak <= r->original_peak);
        QVERIFY(!job.isRunning());
    }

    void newerStartSupersedes() {
        OptimizerJob job;
        QSignalSpy finished(&job, &OptimizerJob::finished);
        job.start(largeAnalysis(), 600);
        const auto small = schedtest::smallAnalysis();
        job.start(small, 5);
        QVERIFY(finished.wait(30000));
        // Both workers are done and what they posted is delivered: the large one's never came.
        QVERIFY(job.tracker()->waitForWorkers(30000));
        QCoreApplication::sendPostedEvents();
        QCOMPARE(finished.size(), 1);
        QCOMPARE(finished.at(0).at(1).value<std::shared_ptr<const GraphAnalysis>>(), small);
        QCOMPARE(resultOf(finished)->peak, 2110);
    }

    void destroyingARunningJobStopsIt() {
        auto* job = new OptimizerJob;
        QSignalSpy progress(job, &OptimizerJob::progress);
        job->start(largeAnalysis(), 600);
        QVERIFY(progress.wait(30000));
        QElapsedTimer t;
        t.start();
        delete job; // waits for the worker, which stops at its next poll
        qInfo("100k nodes: a running job destroyed in %lld ms", t.elapsed());
    }
};

FXMEM_QTEST(TestOptimizerJob)
#include "test_optimizer_job.moc"
