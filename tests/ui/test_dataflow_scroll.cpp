// Panning the Dataflow mode scrolls what is painted and repaints only the strips the scroll
// exposes (and the minimap): each frame of a drag on llama's pair (its cross edges dashed, the
// cursor's live edges marked) paints a small part of the widget, and what the window then holds
// matches a whole paint of the view at the same camera; the drag ends on a whole paint, exactly.
#include "dataflow_fixtures.h"
#include "qtest_registry.h"

#include <QPaintEvent>
#include <QtTest>

namespace {

using namespace dataflow_fixtures;

// The regions of the paint events a widget gets.
class PaintRegions : public QObject {
public:
    std::vector<QRegion> regions;
    bool eventFilter(QObject*, QEvent* e) override {
        if (e->type() == QEvent::Paint) regions.push_back(static_cast<QPaintEvent*>(e)->region());
        return false;
    }
};

std::int64_t area(const QRegion& r) {
    std::int64_t a = 0;
    for (const QRect& rect : r) a += std::int64_t{rect.width()} * rect.height();
    return a;
}

// A whole paint of the view, as RGB (what the window shows: dataflow_fixtures::shown).
QImage wholePaint(QWidget& view) { return view.grab().toImage().convertToFormat(QImage::Format_RGB32); }

// Pixels that differ, and those that differ by more than 8 in a channel (not antialiasing's
// rounding: a thin line's end one pixel over, where a strip cut it).
struct Difference {
    std::int64_t pixels = 0, strong = 0;
};
Difference difference(const QImage& a, const QImage& b) {
    Difference d;
    for (int y = 0; y < a.height(); ++y) {
        const auto* pa = reinterpret_cast<const QRgb*>(a.constScanLine(y));
        const auto* pb = reinterpret_cast<const QRgb*>(b.constScanLine(y));
        for (int x = 0; x < a.width(); ++x) {
            if (pa[x] == pb[x]) continue;
            ++d.pixels;
            const int most = std::max({std::abs(qRed(pa[x]) - qRed(pb[x])), std::abs(qGreen(pa[x]) - qGreen(pb[x])),
                                       std::abs(qBlue(pa[x]) - qBlue(pb[x]))});
            d.strong += most > 8;
        }
    }
    return d;
}

void mouse(QWidget& w, QEvent::Type type, QPointF at, Qt::MouseButton button, Qt::MouseButtons buttons) {
    QMouseEvent e(type, at, w.mapToGlobal(at), button, buttons, {});
    QCoreApplication::sendEvent(&w, &e);
}

} // namespace

class TestDataflowScroll : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void dragScrollsAndPaintsOnlyTheStrips();
};

void TestDataflowScroll::dragScrollsAndPaintsOnlyTheStrips() {
    const auto scene = llamaPair();
    QVERIFY(scene && scene->joined());
    ViewState state;
    DataflowView view(&state);
    QVERIFY(showLaidOut(view, state, scene));
    QVERIFY(!view.layouts()->crossEdges().empty()); // dashed lines across the pair
    // Every layer open: hundreds of boxes and edges in view.
    view.expandModules({QStringLiteral("layers.0"), QStringLiteral("layers.1"), QStringLiteral("layers.2"),
                        QStringLiteral("layers.3")});
    state.setCursorStep(static_cast<std::int64_t>(scene->peakStep));
    // Around the node at the peak, at half size.
    view.zoomBy(0.5 / view.camera().scale, {500, 350});
    const Scene::Where at = scene->locate(static_cast<std::int64_t>(scene->peakStep));
    view.centerOn({at.segment, state.nodeAt(at)});
    QCoreApplication::sendPostedEvents(nullptr, QEvent::UpdateRequest);
    QVERIFY(view.lastPaintedBoxes() > 10);
    QCOMPARE(difference(shown(view), wholePaint(view)).pixels, 0);

    PaintRegions paints;
    view.installEventFilter(&paints);
    const QPointF start(500, 350);
    mouse(view, QEvent::MouseButtonPress, start, Qt::LeftButton, Qt::LeftButton);
    const std::int64_t whole = std::int64_t{view.width()} * view.height();
    QPointF pos = start;
    // Right and down, then back up and left, past where it started: 24 frames of 7 and 5 pixels
    // (the first move starts the drag after 3 pixels, as a hand does).
    for (int i = 0; i < 24; ++i) {
        pos += i < 12 ? QPointF(7, 5) : QPointF(-9, -6);
        paints.regions.clear();
        const QPointF origin = view.camera().origin;
        mouse(view, QEvent::MouseMove, pos, Qt::NoButton, Qt::LeftButton);
        QVERIFY(view.camera().origin != origin);
        QCoreApplication::sendPostedEvents(nullptr, QEvent::UpdateRequest);
        QCOMPARE(paints.regions.size(), std::size_t(1));
        // The strips and the minimap, not the widget: a few percent of it.
        QVERIFY2(
            area(paints.regions[0]) < whole / 10,
            qPrintable(
                QStringLiteral("frame %1 painted %2 of %3 pixels").arg(i).arg(area(paints.regions[0])).arg(whole)));
        const QImage now = shown(view);
        const Difference d = difference(now, wholePaint(view));
        QVERIFY2(
            d.pixels * 100 < whole && d.strong * 10000 < whole,
            qPrintable(
                QStringLiteral("frame %1: %2 pixels differ, %3 by more than 8").arg(i).arg(d.pixels).arg(d.strong)));
    }
    // The drag ends on a whole paint: what the window shows is the view's paint, exactly.
    paints.regions.clear();
    mouse(view, QEvent::MouseButtonRelease, pos, Qt::LeftButton, Qt::NoButton);
    QCoreApplication::sendPostedEvents(nullptr, QEvent::UpdateRequest);
    QCOMPARE(paints.regions.size(), std::size_t(1));
    QCOMPARE(paints.regions[0], QRegion(view.rect()));
    QCOMPARE(difference(shown(view), wholePaint(view)).pixels, 0);
}

FXMEM_QTEST(TestDataflowScroll)
#include "test_dataflow_scroll.moc"
