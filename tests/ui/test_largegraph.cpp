// A 100k-node synthetic graph through the real loader. Asserted: the file is read off the GUI
// thread, and an event posted after openFile runs before the scene is shown (the event loop
// turns while it loads). Printed, never asserted (timings depend on the machine): the largest gap
// between ticks of a 10 ms timer during the load, and how long painting and scrubbing take.
#include "graphview/graphview.h"
#include "mainwindow/mainwindow.h"
#include "models/livestoragemodel.h"
#include "panels/livestoragepanel.h"
#include "panels/summarybar.h"
#include "qtest_registry.h"
#include "timeline/timelineplot.h"

#include <fxmem/io.h>

#include <QElapsedTimer>
#include <QPixmap>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <atomic>

#if __has_include("synth.h")
#include "synth.h"
#define FXMEM_HAVE_SYNTH 1
#endif

class TestLargeGraph : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void openStaysResponsive();

private:
    QTemporaryDir dir_;
    QString path_;
};

void TestLargeGraph::initTestCase() {
#ifndef FXMEM_HAVE_SYNTH
    QSKIP("fxmem_synth is not built");
#else
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("fxmem-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("test_largegraph"));
    QSettings().clear();
    QVERIFY(dir_.isValid());
    fxmem::synth::Options options;
    // FXMEM_LARGE_NODES overrides the size (e.g. a small graph under valgrind).
    options.nodes =
        qEnvironmentVariableIsSet("FXMEM_LARGE_NODES") ? qEnvironmentVariableIntValue("FXMEM_LARGE_NODES") : 100000;
    options.pair = false;
    const std::string json = fxmem::synth::generate_json(options);
    path_ = dir_.filePath(QStringLiteral("synth100k.fxmem.json"));
    fxmem::write_file_atomically(path_.toStdString(), json);
    qInfo("synthetic file: %zu nodes requested, %.1f MiB of JSON", options.nodes,
          static_cast<double>(json.size()) / (1 << 20));
#endif
}

void TestLargeGraph::openStaysResponsive() {
    std::atomic<QThread*> readOn{nullptr};
    MainWindow w([&readOn](const std::string& p, const LoadControl& control) {
        readOn = QThread::currentThread();
        return fxmem::load_file(p, control);
    });
    w.resize(1600, 1000);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));

    QElapsedTimer clock, total;
    qint64 last = 0, maxGap = 0;
    int ticks = 0;
    QTimer ticker;
    ticker.setInterval(10);
    connect(&ticker, &QTimer::timeout, this, [&] {
        const qint64 now = clock.elapsed();
        maxGap = std::max(maxGap, now - last);
        last = now;
        ++ticks;
    });
    QSignalSpy shown(&w, &MainWindow::sceneShown);
    clock.start();
    total.start();
    ticker.start();
    w.openFile(path_);
    // Posted now, run at the event loop's next turn: before the scene arrives only if openFile
    // did not block on the load.
    bool turnedBeforeShown = false;
    QTimer::singleShot(0, this, [&] { turnedBeforeShown = shown.count() == 0; });
    QVERIFY(QTest::qWaitFor([&] { return shown.count() > 0; }, 55000));
    QVERIFY2(readOn.load() != nullptr && readOn.load() != thread(), "the file was read on the GUI thread");
    QVERIFY2(turnedBeforeShown, "the event loop did not turn while the file loaded");
    const qint64 loadMs = total.elapsed();
    // The paints and follow-ups posted when the scene arrived count too: run them all now.
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
    ticker.stop();
    maxGap = std::max(maxGap, clock.elapsed() - last);
    qInfo("open %zu nodes: %lld ms until shown; event loop max gap %lld ms over %d ticks of 10 ms",
          w.scene()->nodeCount(), static_cast<long long>(loadMs), static_cast<long long>(maxGap), ticks);

    // Painting the whole graph (dots) and a zoomed-in window (boxes, names, wires).
    GraphView* view = w.parts().graphView;
    QElapsedTimer t;
    t.start();
    view->grab();
    qInfo("graph view, all %lld steps: %lld ms, %zu nodes drawn", static_cast<long long>(w.scene()->profile.size()),
          static_cast<long long>(t.elapsed()), view->lastPaintedNodes());
    // Zoomed out, the view is an overview of every lane: the node on the last lane is on screen
    // and far more than a window's worth of lanes is drawn.
    {
        const fxmem::GraphLayout& layout = *w.scene()->segments[0].layout;
        const fxmem::Graph& g = w.scene()->segments[0].analysis->graph();
        QVERIFY(layout.lanes() > 1000);
        fxmem::NodeId deepest(0);
        for (std::size_t i = 0; i < g.size(); ++i)
            if (layout.lane(fxmem::NodeId(static_cast<std::int32_t>(i))) > layout.lane(deepest))
                deepest = fxmem::NodeId(static_cast<std::int32_t>(i));
        const QPointF at = view->nodeCenter({0, deepest});
        QVERIFY2(at.y() >= 0 && at.y() < view->height(), qPrintable(QString::number(at.y())));
        QVERIFY(view->lastPaintedNodes() > 3000);
        // Hovering that dot finds a node at that spot.
        QVERIFY(view->nodeAt(at.toPoint()).valid());
    }
    const double mid = static_cast<double>(w.scene()->profile.size()) / 2;
    w.parts().timeline->setXRange(mid - 200, mid + 200);
    t.restart();
    view->grab();
    qInfo("graph view, 400 steps: %lld ms, %zu nodes drawn", static_cast<long long>(t.elapsed()),
          view->lastPaintedNodes());
    w.parts().timeline->resetZoom();
    t.restart();
    w.parts().timeline->grab();
    qInfo("timeline, all steps: %lld ms", static_cast<long long>(t.elapsed()));

    // Scrubbing: 50 cursor moves across the graph (live query, table, highlights).
    t.restart();
    const auto n = static_cast<std::int64_t>(w.scene()->profile.size());
    for (int i = 0; i < 50; ++i) w.setCursorStep(n * i / 50);
    qInfo("scrub: %.1f ms per step (live rows at the last: %d)", static_cast<double>(t.elapsed()) / 50,
          w.parts().livePanel->model()->rowCount());
    QCOMPARE(w.parts().livePanel->model()->totalBytes(),
             w.scene()->profile[static_cast<std::size_t>(w.parts().timeline->cursorStep())]);
}

FXMEM_QTEST(TestLargeGraph)
#include "test_largegraph.moc"
