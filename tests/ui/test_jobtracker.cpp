// JobTracker: results arrive on the GUI thread as shared_ptr<const T>, a newer job stops the
// running one through its cancel check (the work stops, not just its delivery), cancel() delivers
// nothing, exceptions end a job the same way whatever runs it, and a Background tracker's
// workers yield to the GUI thread while a Normal one's keep the GUI thread's priority.
#include "jobs/jobtracker.h"
#include "qtest_registry.h"
#include "util/text.h"

#include <fxmem/error.h>

#include <QSignalSpy>
#include <QWidget>
#include <QtTest>

#include <atomic>
#include <stdexcept>

class TestJobTracker : public QObject {
    Q_OBJECT
private slots:
    void deliversOnTheGuiThread();
    void newerJobStopsTheRunningOne();
    void cancelDeliversNothing();
    void exceptionsBecomeFailed();
    void backgroundJobsYieldToTheGuiThread();
    void backgroundJobsStartAfterThePendingPaint();
};

void TestJobTracker::deliversOnTheGuiThread() {
    JobTracker jobs;
    QThread* gui = QThread::currentThread();
    std::atomic<QThread*> ranOn{nullptr};
    std::shared_ptr<const int> got;
    QThread* deliveredOn = nullptr;
    QSignalSpy busy(&jobs, &JobTracker::busyChanged);
    jobs.start<int>(
        [&](JobContext&) {
            ranOn = QThread::currentThread();
            return std::make_shared<const int>(42);
        },
        [&](std::shared_ptr<const int> v) {
            deliveredOn = QThread::currentThread();
            got = std::move(v);
        });
    QVERIFY(jobs.busy());
    QTRY_VERIFY(got != nullptr);
    QCOMPARE(*got, 42);
    QVERIFY(ranOn.load() != gui);
    QCOMPARE(deliveredOn, gui);
    QVERIFY(!jobs.busy());
    QCOMPARE(busy.count(), 2);
}

void TestJobTracker::newerJobStopsTheRunningOne() {
    JobTracker jobs;
    std::atomic<bool> firstStarted{false}, firstSawStop{false};
    std::vector<int> delivered;
    jobs.start<int>(
        [&](JobContext& job) {
            firstStarted = true;
            // Polls like the analysis does; without the stop it would run for a minute.
            for (int i = 0; i < 60000 && !job.cancelled(); ++i) QThread::msleep(1);
            firstSawStop = job.cancelled();
            job.throwIfCancelled();
            return std::make_shared<const int>(1);
        },
        [&](std::shared_ptr<const int> v) { delivered.push_back(*v); });
    QTRY_VERIFY(firstStarted.load());
    jobs.start<int>([](JobContext&) { return std::make_shared<const int>(2); },
                    [&](std::shared_ptr<const int> v) { delivered.push_back(*v); });
    QTRY_COMPARE(delivered.size(), std::size_t(1));
    QCOMPARE(delivered.front(), 2);
    QTRY_VERIFY(firstSawStop.load());
    // Both workers done and what they posted delivered: the first job's result never came.
    QVERIFY(jobs.waitForWorkers(30000));
    QCoreApplication::sendPostedEvents();
    QCOMPARE(delivered.size(), std::size_t(1));
}

void TestJobTracker::cancelDeliversNothing() {
    JobTracker jobs;
    std::atomic<bool> started{false}, stopped{false};
    bool delivered = false;
    jobs.start<int>(
        [&](JobContext& job) {
            started = true;
            const fxmem::CancelCheck check = job.cancelCheck(); // what core code receives
            while (!check()) QThread::msleep(1);
            stopped = true;
            return std::make_shared<const int>(3);
        },
        [&](std::shared_ptr<const int>) { delivered = true; });
    QTRY_VERIFY(started.load());
    QVERIFY(jobs.cancel());
    QVERIFY(!jobs.busy());
    QTRY_VERIFY(stopped.load());
    // The worker is done and what it posted delivered: nothing of it arrived.
    QVERIFY(jobs.waitForWorkers(30000));
    QCoreApplication::sendPostedEvents();
    QVERIFY(!delivered);
    QVERIFY(!jobs.cancel()); // nothing runs any more
}

void TestJobTracker::exceptionsBecomeFailed() {
    JobTracker jobs;
    QSignalSpy failed(&jobs, &JobTracker::failed);
    jobs.start<int>([](JobContext&) -> std::shared_ptr<const int> { throw fxmem::Error("g.json: graph 'g': broken"); },
                    [](std::shared_ptr<const int>) {});
    QTRY_COMPARE(failed.count(), 1);
    QCOMPARE(failed.front().front().toString(), QStringLiteral("g.json: graph 'g': broken"));
    QVERIFY(!jobs.busy());
    jobs.start<int>([](JobContext&) -> std::shared_ptr<const int> { throw std::bad_alloc(); },
                    [](std::shared_ptr<const int>) {});
    QTRY_COMPARE(failed.count(), 2);
    QCOMPARE(failed.back().front().toString(), QStringLiteral("std::bad_alloc"));
    // Cancelled is silent.
    jobs.start<int>([](JobContext&) -> std::shared_ptr<const int> { throw fxmem::Cancelled(); },
                    [](std::shared_ptr<const int>) {});
    QTRY_VERIFY(!jobs.busy());
    QVERIFY(jobs.waitForWorkers(30000));
    QCoreApplication::sendPostedEvents(); // anything the worker posted has arrived: no failure
    QCOMPARE(failed.count(), 2);
    // A message quoting a huge node name (a hostile file) comes out elided, not 16 MiB long.
    jobs.start<int>(
        [](JobContext&) -> std::shared_ptr<const int> {
            throw fxmem::Error("g.json: node '" + std::string(16u << 20, 'n') + "': broken");
        },
        [](std::shared_ptr<const int>) {});
    QTRY_COMPARE(failed.count(), 3);
    const QString shown = failed.back().front().toString();
    QVERIFY2(shown.size() <= 4 * qsizetype(kMaxShownNameBytes) + 1, qPrintable(QString::number(shown.size())));
    QVERIFY(shown.startsWith(QStringLiteral("g.json: node 'nnn")));
}

void TestJobTracker::backgroundJobsYieldToTheGuiThread() {
#if !defined(Q_OS_LINUX)
    QSKIP("thread scheduling classes are read on Linux only");
#endif
    const ThreadSchedulingInfo gui = currentThreadScheduling();
    auto seenBy = [](JobPriority priority) {
        JobTracker jobs(nullptr, 2, priority);
        std::shared_ptr<const ThreadSchedulingInfo> seen;
        // Twice: the second job may run on the thread the first one lowered.
        for (int i = 0; i < 2; ++i) {
            seen.reset();
            jobs.start<ThreadSchedulingInfo>(
                [](JobContext&) { return std::make_shared<const ThreadSchedulingInfo>(currentThreadScheduling()); },
                [&](std::shared_ptr<const ThreadSchedulingInfo> v) { seen = std::move(v); });
            if (!QTest::qWaitFor([&] { return seen != nullptr; }, 5000)) return ThreadSchedulingInfo{-100, false};
        }
        return *seen;
    };
    const ThreadSchedulingInfo normal = seenBy(JobPriority::Normal), background = seenBy(JobPriority::Background);
    QCOMPARE(normal.nice, gui.nice);
    QCOMPARE(normal.batch, gui.batch);
    QVERIFY(!gui.batch);
    QVERIFY(background.batch);
    QCOMPARE(background.nice, std::max(gui.nice, 10));
    // Lowering a worker leaves the GUI thread as it was.
    QCOMPARE(currentThreadScheduling().nice, gui.nice);
    QVERIFY(!currentThreadScheduling().batch);
}

namespace {
struct CountingWidget : QWidget {
    int paints = 0;
    void paintEvent(QPaintEvent*) override { ++paints; }
};
} // namespace

void TestJobTracker::backgroundJobsStartAfterThePendingPaint() {
    CountingWidget w;
    w.resize(200, 100);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTRY_VERIFY(w.paints > 0);
    for (JobPriority priority : {JobPriority::Background, JobPriority::Normal}) {
        JobTracker jobs(nullptr, 2, priority);
        int paintsAtStart = -1;
        connect(&jobs, &JobTracker::started, this, [&] { paintsAtStart = w.paints; });
        std::atomic<int> runs{0};
        bool delivered = false;
        const int before = w.paints;
        // An edit: the view asks for a repaint, then its follow-up job is started.
        w.update();
        jobs.start<int>(
            [&](JobContext&) {
                ++runs;
                return std::make_shared<const int>(1);
            },
            [&](std::shared_ptr<const int>) { delivered = true; });
        QVERIFY(jobs.busy());
        QTRY_VERIFY(delivered);
        if (priority == JobPriority::Background)
            QCOMPARE(paintsAtStart, before + 1); // handed to the pool after the paint, not before
        else
            QCOMPARE(paintsAtStart, before); // at once
        // A job superseded before its deferred start never reaches the pool.
        const int started = runs;
        jobs.start<int>(
            [&](JobContext&) {
                ++runs;
                return std::make_shared<const int>(2);
            },
            [](auto) {});
        jobs.start<int>(
            [&](JobContext&) {
                ++runs;
                return std::make_shared<const int>(3);
            },
            [&](std::shared_ptr<const int>) { delivered = true; });
        delivered = false;
        QTRY_VERIFY(delivered);
        // The superseded job's deferred start ran before the latest's (posted in that order), and
        // no worker runs any more: whatever ran has counted.
        QVERIFY(jobs.waitForWorkers(30000));
        if (priority == JobPriority::Background) QCOMPARE(runs.load(), started + 1);
    }
}

FXMEM_QTEST(TestJobTracker)
#include "test_jobtracker.moc"
