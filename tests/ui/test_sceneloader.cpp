// The worker-thread loader: results arrive on the GUI thread, Cancel stops a load and drops its
// result, the latest request wins, loader errors are reported with their message.
#include "loading/sceneloader.h"
#include "qtest_registry.h"
#include "ui_fixtures.h"
#include "ui_settle.h"

#include <QSignalSpy>
#include <QtTest>

#include <atomic>

class TestSceneLoader : public QObject {
    Q_OBJECT
private slots:
    void deliversOnTheGuiThread();
    void reportsLoaderErrors();
    void cancelStopsTheLoad();
    void latestRequestWins();
    void rebuildShowsAnotherGraph();
};

void TestSceneLoader::deliversOnTheGuiThread() {
    std::atomic<bool> workerThread{false};
    QThread* gui = QThread::currentThread();
    SceneLoader loader([&](const std::string& path, const LoadControl& control) {
        workerThread = QThread::currentThread() != gui;
        return fixtures::fakeLoader()(path, control);
    });
    QSignalSpy ready(&loader, &SceneLoader::sceneReady);
    QSignalSpy busy(&loader, &SceneLoader::busyChanged);
    std::shared_ptr<const Scene> scene;
    connect(&loader, &SceneLoader::sceneReady, this, [&](std::shared_ptr<const Scene> s) {
        QCOMPARE(QThread::currentThread(), gui);
        scene = std::move(s);
    });
    loader.open(QStringLiteral("chain.json"));
    QVERIFY(loader.busy());
    QTRY_COMPARE(ready.count(), 1);
    QVERIFY(workerThread.load());
    QVERIFY(!loader.busy());
    QCOMPARE(busy.count(), 2); // true, then false
    QVERIFY(scene);
    QCOMPARE(scene->profile, fixtures::kChainProfile);
    QCOMPARE(scene->path, QStringLiteral("chain.json"));
}

void TestSceneLoader::reportsLoaderErrors() {
    SceneLoader loader(fixtures::fakeLoader());
    QSignalSpy failed(&loader, &SceneLoader::failed);
    QSignalSpy ready(&loader, &SceneLoader::sceneReady);
    loader.open(QStringLiteral("nope.json"));
    QTRY_COMPARE(failed.count(), 1);
    QCOMPARE(failed.front().at(0).toString(), QStringLiteral("nope.json"));
    QVERIFY(failed.front().at(1).toString().startsWith(QStringLiteral("nope.json:3:7:")));
    QCOMPARE(ready.count(), 0);
    QVERIFY(!loader.busy());
}

void TestSceneLoader::cancelStopsTheLoad() {
    // A loader that runs until told to stop, as load_file does through its cancel check.
    std::atomic<bool> started{false}, stopped{false};
    SceneLoader loader([&](const std::string&, const LoadControl& control) -> fxmem::GraphFile {
        started = true;
        for (double f = 0;; f += 1e-6) {
            if (control.cancelled()) {
                stopped = true;
                throw fxmem::Cancelled();
            }
            control.progress(std::min(f, 1.0));
            QThread::usleep(100);
        }
    });
    QSignalSpy cancelled(&loader, &SceneLoader::cancelled);
    QSignalSpy ready(&loader, &SceneLoader::sceneReady);
    QSignalSpy failed(&loader, &SceneLoader::failed);
    QSignalSpy progress(&loader, &SceneLoader::progress);
    loader.open(QStringLiteral("endless.json"));
    QTRY_VERIFY(started.load());
    QTRY_VERIFY(progress.count() >= 2); // throttled, but it comes
    loader.cancel();
    QCOMPARE(cancelled.count(), 1);
    QVERIFY(!loader.busy());
    QTRY_VERIFY(stopped.load());
    // The worker is done and what it posted delivered: no scene, no failure.
    QVERIFY(settle::jobsUnder(&loader));
    QCOMPARE(ready.count(), 0);
    QCOMPARE(failed.count(), 0); // a cancel is not an error
}

void TestSceneLoader::latestRequestWins() {
    // The first request is slow; the second, started later, must be the one delivered.
    std::atomic<bool> slowStarted{false};
    SceneLoader loader([&](const std::string& path, const LoadControl& control) {
        if (path == "slow/chain.json")
            for (int i = 0; i < 30; ++i) {
                slowStarted = true;
                QThread::msleep(10);
                control.progress(i / 30.0); // never asks control.cancelled: a stale result must still be dropped
            }
        return fixtures::fakeLoader()(path, {});
    });
    std::vector<QString> delivered;
    connect(&loader, &SceneLoader::sceneReady, this,
            [&](std::shared_ptr<const Scene> s) { delivered.push_back(s->path); });
    loader.open(QStringLiteral("slow/chain.json"));
    QTRY_VERIFY(slowStarted.load()); // the second request comes while the slow one runs
    loader.open(QStringLiteral("pair.json"));
    QTRY_COMPARE(delivered.size(), std::size_t(1));
    // The slow one has finished and what it posted is delivered: it was dropped.
    QVERIFY(settle::jobsUnder(&loader));
    QCOMPARE(delivered.size(), std::size_t(1));
    QCOMPARE(delivered.front(), QStringLiteral("pair.json"));
}

void TestSceneLoader::rebuildShowsAnotherGraph() {
    SceneLoader loader(fixtures::fakeLoader());
    std::shared_ptr<const Scene> scene;
    connect(&loader, &SceneLoader::sceneReady, this, [&](std::shared_ptr<const Scene> s) { scene = std::move(s); });
    loader.open(QStringLiteral("pair.json"));
    QTRY_VERIFY(scene);
    QCOMPARE(scene->title(), QStringLiteral("fwd"));
    const auto file = scene->file;
    scene.reset();
    loader.rebuild(file, QStringLiteral("pair.json"), SceneRequest{1, -1, DeviceFilter::NonCpu});
    QTRY_VERIFY(scene);
    QCOMPARE(scene->title(), QStringLiteral("bwd"));
    QCOMPARE(scene->file, file); // the file is shared, not reloaded
    QCOMPARE(scene->profile, (std::vector<std::int64_t>{15, 55, 45}));
}

FXMEM_QTEST(TestSceneLoader)
#include "test_sceneloader.moc"
