// Scrubbing the 100k-node synthetic joined pair (32-layer module hierarchy) with the live table
// and the breakdown panel both showing: GUI-thread time per cursor step, printed, never asserted
// (timings depend on the machine). The numbers are checked: at every step visited, the role
// groups and the module tree's root add up to the joined profile.
#include "models/breakdownmodels.h"
#include "models/livestoragemodel.h"
#include "panels/breakdownpanel.h"
#include "panels/livestoragepanel.h"
#include "qtest_registry.h"
#include "state/viewstate.h"

#include <QElapsedTimer>
#include <QtTest>

#if __has_include("synth.h")
#include "synth.h"
#define FXMEM_HAVE_SYNTH 1
#endif

class TestLargeBreakdown : public QObject {
    Q_OBJECT
private slots:
    void scrubTheJoinedPair();
};

void TestLargeBreakdown::scrubTheJoinedPair() {
#ifndef FXMEM_HAVE_SYNTH
    QSKIP("fxmem_synth is not built");
#else
    fxmem::synth::Options options;
    options.nodes =
        qEnvironmentVariableIsSet("FXMEM_LARGE_NODES") ? qEnvironmentVariableIntValue("FXMEM_LARGE_NODES") : 100000;
    options.pair = true;
    auto file = std::make_shared<const fxmem::GraphFile>(fxmem::synth::generate(options));
    QElapsedTimer t;
    t.start();
    const auto scene = buildScene(file, QStringLiteral("synth.json"), SceneRequest{-1, 0, DeviceFilter::NonCpu});
    qInfo("scene of the joined pair (%zu nodes, attribution included): %lld ms on the worker", scene->nodeCount(),
          static_cast<long long>(t.elapsed()));
    ViewState state;
    QWidget host;
    auto* live = new LiveStoragePanel(&state, &host);
    auto* breakdown = new BreakdownPanel(&state, &host);
    host.resize(1200, 800);
    live->setGeometry(0, 0, 600, 800);
    breakdown->setGeometry(600, 0, 600, 800);
    host.show();
    QVERIFY(QTest::qWaitForWindowExposed(&host));
    state.setScene(scene);
    const auto n = static_cast<std::int64_t>(scene->profile.size());
    qint64 worst = 0;
    t.restart();
    for (int i = 0; i < 50; ++i) {
        QElapsedTimer step;
        step.start();
        state.setCursorStep(n * i / 50);
        worst = std::max(worst, step.elapsed());
        std::int64_t roles = 0;
        for (const auto& g : breakdown->roleModel()->groups()) roles += g.bytes;
        const auto expected = scene->profile[static_cast<std::size_t>(n * i / 50)];
        QCOMPARE(roles, expected);
        QCOMPARE(breakdown->moduleModel()->total(), expected);
        QCOMPARE(live->model()->totalBytes(), expected);
    }
    qInfo("scrub with the live table and the breakdown: %.1f ms per step, worst %lld ms (live rows at the last: %d, "
          "modules: %zu)",
          static_cast<double>(t.elapsed()) / 50, static_cast<long long>(worst), live->model()->rowCount(),
          breakdown->moduleModel()->tree()->size());
    breakdown->hide();
    t.restart();
    for (int i = 0; i < 50; ++i) state.setCursorStep(n * i / 50 + 1);
    qInfo("scrub with the live table alone: %.1f ms per step", static_cast<double>(t.elapsed()) / 50);
#endif
}

FXMEM_QTEST(TestLargeBreakdown)
#include "test_largebreakdown.moc"
