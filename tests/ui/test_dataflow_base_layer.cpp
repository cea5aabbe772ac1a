// The Dataflow view keeps its base layer (background, frames, edges plain or on the path) as an
// image while the view stays still, so a step of the timeline paints only the marks over it. On
// llama's pair, two views bound to one state, one keeping its base and one painting it every
// frame: across steps of the cursor, a selection (the path), a module opened and a zoom, what the
// two windows show is the same, pixel for pixel, and the steps over a still view reused the kept
// base.
#include "dataflow_fixtures.h"
#include "qtest_registry.h"

#include <QtTest>

namespace {

using namespace dataflow_fixtures;

std::int64_t differing(const QImage& a, const QImage& b) {
    std::int64_t n = 0;
    for (int y = 0; y < a.height(); ++y) {
        const auto* pa = reinterpret_cast<const QRgb*>(a.constScanLine(y));
        const auto* pb = reinterpret_cast<const QRgb*>(b.constScanLine(y));
        for (int x = 0; x < a.width(); ++x) n += pa[x] != pb[x];
    }
    return n;
}

} // namespace

class TestDataflowBaseLayer : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void keptBaseShowsWhatAFullPaintShows();
};

void TestDataflowBaseLayer::keptBaseShowsWhatAFullPaintShows() {
    const auto scene = llamaPair();
    QVERIFY(scene && scene->joined());
    ViewState state;
    DataflowView kept(&state), full(&state);
    full.setKeepBase(false);
    QVERIFY(showLaidOut(kept, state, scene));
    QVERIFY(showLaidOut(full, state, scene));
    const auto peak = static_cast<std::int64_t>(scene->peakStep);
    state.setCursorStep(peak);
    // The same camera in both: around the node at the peak, at half size.
    const Scene::Where at = scene->locate(peak);
    for (DataflowView* v : {&kept, &full}) {
        v->zoomBy(0.5 / v->camera().scale, {500, 350});
        v->centerOn({at.segment, state.nodeAt(at)});
    }
    QCOMPARE(kept.camera().origin, full.camera().origin);

    // One frame of each view, then both windows compared; returns whether the kept view reused
    // its base.
    const auto frame = [&](const char* what) {
        kept.repaint();
        full.repaint();
        const std::int64_t d = differing(shown(kept), shown(full));
        if (d != 0) qWarning("%s: %lld pixels differ", what, static_cast<long long>(d));
        return d == 0;
    };
    QVERIFY(frame("first frame"));
    QVERIFY(!kept.reusedBase() && !full.reusedBase());
    std::size_t reused = 0, changed = 0;
    QImage before = shown(kept);
    const auto steps = [&](std::int64_t from, int count, const char* what) {
        for (int i = 0; i < count; ++i) {
            state.setCursorStep(from + i);
            if (!frame(what)) return false;
            reused += kept.reusedBase() ? 1 : 0;
            if (full.reusedBase()) return false; // the reference paints its base every frame
            const QImage now = shown(kept);
            changed += differing(now, before) > 0 ? 1 : 0;
            before = now;
        }
        return true;
    };
    // A still view: from the second frame on, the kept base is drawn and only the marks painted.
    QVERIFY(steps(peak - 40, 40, "steps before the peak"));
    QVERIFY(reused >= 38);
    QVERIFY(changed >= 10); // the live edges and boxes moved with the cursor: not a still picture
    // A selection marks its path (base layer): the kept base is painted again, then kept.
    const std::size_t reusedBefore = reused;
    state.selectNode({at.segment, state.nodeAt(at)});
    QVERIFY(frame("selection"));
    QVERIFY(!kept.reusedBase());
    QVERIFY(steps(peak, 20, "steps after the selection"));
    QVERIFY(reused >= reusedBefore + 18);
    // A module opened (a new layout revision), then steps.
    kept.expandModules({QStringLiteral("layers.3")});
    full.expandModules({QStringLiteral("layers.3")});
    QCOMPARE(kept.camera().origin, full.camera().origin);
    QVERIFY(frame("layers.3 opened"));
    QVERIFY(!kept.reusedBase());
    QVERIFY(steps(peak - 300, 10, "steps with layers.3 open"));
    // Zoomed (a new camera), then steps.
    for (DataflowView* v : {&kept, &full}) v->zoomBy(1.5, {300, 200});
    QVERIFY(frame("zoomed"));
    QVERIFY(!kept.reusedBase());
    QVERIFY(steps(peak + 100, 10, "steps after the zoom"));
    QVERIFY(kept.reusedBase());
}

FXMEM_QTEST(TestDataflowBaseLayer)
#include "test_dataflow_base_layer.moc"
