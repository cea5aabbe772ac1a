#include "ui/graphdragbenchmark.h"

#include "dataflow/dataflowview.h"
#include "dataflow/graphmodepane.h"
#include "graphview/graphview.h"
#include "mainwindow/mainwindow.h"
#include "mainwindow/windowparts.h"
#include "state/editedschedule.h"
#include "state/viewstate.h"
#include "ui/benchtiming.h"

#include <fxmem/layout.h>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QMouseEvent>
#include <QThread>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

using namespace bench;

namespace {

constexpr double kVisibleSteps = 300; // zoomed in: boxes a hand can grab (~5 px a step)

void mouse(QWidget* w, QEvent::Type type, QPointF at, Qt::MouseButton button, Qt::MouseButtons held) {
    QMouseEvent e(type, at, w->mapToGlobal(at), button, held, Qt::NoModifier);
    QCoreApplication::sendEvent(w, &e);
}

double ms(qint64 ns) { return static_cast<double>(ns) / 1e6; }

// Nodes near the middle of the view with a legal band that lets them move a few nodes either way,
// each with the step to drop it at.
struct Candidate {
    NodeRef ref;
    std::int64_t from = 0, to = 0;
};
std::vector<Candidate> candidates(const GraphView& view, std::size_t want) {
    std::vector<Candidate> out;
    const GraphViewport v = view.viewport();
    const double lo = v.left + (v.right - v.left) * 0.25, hi = v.right - (v.right - v.left) * 0.25;
    for (const VisibleItems::Box& b : view.visibleItems().boxes) {
        if (out.size() >= want) break;
        if (b.rect.center().x() < lo || b.rect.center().x() > hi || b.rect.center().y() < v.topPad + 4) continue;
        const GraphView::DropBand band = view.dropBand(b.ref);
        if (!band.ok) continue;
        const std::int64_t from = view.stepOf(b.ref);
        // Up to eight running nodes later, else earlier, inside the band.
        std::int64_t to = std::min(band.hiStep, from + 16);
        if (to <= from + 1) to = std::max(band.loStep, from - 16);
        if (std::abs(to - from) < 2) continue;
        out.push_back({b.ref, from, to});
    }
    return out;
}

// The head of a report: what ran, the file, the window's and the view's sizes (`detail` after
// them), the load, the columns.
QString viewHeader(MainWindow& window, const QWidget& view, const QString& what, const QString& viewName,
                   const QString& detail, const QString& load) {
    const auto& scene = window.scene();
    return QStringLiteral("fxmem %1: %2 (%3)\n%L4 nodes; window %5x%6, %7 %8x%9%10\n"
                          "load average before: %11, after: %12\n%13 %14 %15 %16\n")
        .arg(what, QFileInfo(scene->path).fileName(), scene->title())
        .arg(static_cast<qulonglong>(scene->nodeCount()))
        .arg(window.width())
        .arg(window.height())
        .arg(viewName)
        .arg(view.width())
        .arg(view.height())
        .arg(detail)
        .arg(load, loadAverage())
        .arg(QString(), -40)
        .arg(QStringLiteral("median"), 8)
        .arg(QStringLiteral("p90"), 8)
        .arg(QStringLiteral("max ms"), 8);
}

QString header(MainWindow& window, const GraphView& view, const QString& what, const QString& load) {
    const GraphViewport v = view.viewport();
    return viewHeader(window, view, QStringLiteral("graph drag benchmark (%1)").arg(what), QStringLiteral("graph view"),
                      QStringLiteral(", %1 steps visible").arg(v.x1 - v.x0, 0, 'f', 0), load);
}

void zoomIn(GraphView* view) {
    view->resetZoom();
    drain();
    const GraphViewport v = view->viewport();
    const double mid = (v.x0 + v.x1) / 2;
    view->zoomTime(std::min(1.0, kVisibleSteps / std::max(1.0, v.x1 - v.x0)), v.px(mid));
    drain();
}

QString runDrops(MainWindow& window, const ScrubBenchmarkOptions& options) {
    GraphView* view = window.parts().graphView;
    EditedSchedule* schedule = window.state()->schedule();
    const auto& scene = window.scene();
    if (!scene || scene->joined() || scene->empty() || schedule->size() == 0 ||
        schedule->analysis() != scene->segments.front().analysis)
        return QStringLiteral("nothing to drop: a drop edits a single graph's schedule (not a joined pair)\n");
    const QString load = loadAverage();
    zoomIn(view);
    const int pairs = std::max(1, (options.steps + options.warmup + 1) / 2);
    // One more node than the pairs need: it is dropped first and stays moved, so the order stays
    // edited (a drop back to the graph's own order would need no layout of its own).
    std::vector<Candidate> nodes = candidates(*view, static_cast<std::size_t>(pairs) + 1);
    if (nodes.size() < 2) return QStringLiteral("nothing to drop: too few nodes in view can move\n");
    const Candidate stays = nodes.front();
    nodes.erase(nodes.begin());

    PaintTimer pt;
    QElapsedTimer clock;
    clock.start();
    pt.clock = &clock;
    qint64 tMoved = -1, tChanged = -1;
    // Connected last: they run after every other subscriber of these signals.
    const auto c1 = QObject::connect(schedule, &EditedSchedule::moved, [&] { tMoved = clock.nsecsElapsed(); });
    const auto c2 = QObject::connect(schedule, &EditedSchedule::orderChanged, [&] { tChanged = clock.nsecsElapsed(); });
    qApp->installEventFilter(&pt);

    Series total{QStringLiteral("total: release to last paint")},
        followUps{QStringLiteral("release to the workers' lanes and live set painted")},
        graph{QStringLiteral("release to the graph view's first paint")},
        handler{QStringLiteral("  release handler (edit, subscribers)")},
        edit{QStringLiteral("    edit until EditedSchedule::moved")},
        subscribers{QStringLiteral("    orderChanged subscribers")};
    std::array<Series, BucketCount> paint;
    for (int b = 0; b < BucketCount; ++b)
        paint[static_cast<std::size_t>(b)].name =
            QStringLiteral("  paint ") + QLatin1String(kBucketNames[static_cast<std::size_t>(b)]);
    int refused = 0, done = 0;
    std::int64_t home = 0;
    const int drops = options.steps + options.warmup;
    for (int i = -1; i < drops; ++i) {
        const Candidate& c = i < 0 ? stays : nodes[static_cast<std::size_t>(i / 2) % nodes.size()];
        // There, then back (steps as they are now: the drop that stays shifted some).
        const std::int64_t before = view->stepOf(c.ref);
        if (i < 0 || i % 2 == 0) home = before;
        const std::int64_t target = i < 0 || i % 2 == 0 ? before + (c.to - c.from) : home;
        const QPointF a = view->nodeCenter(c.ref);
        const QPointF b(view->viewport().px(static_cast<double>(target)), a.y());
        mouse(view, QEvent::MouseButtonPress, a, Qt::LeftButton, Qt::LeftButton);
        mouse(view, QEvent::MouseMove, a + QPointF(b.x() > a.x() ? 6 : -6, 0), Qt::NoButton, Qt::LeftButton);
        mouse(view, QEvent::MouseMove, b, Qt::NoButton, Qt::LeftButton);
        drain(); // the ghost at the target (not measured)
        pt.reset();
        tMoved = tChanged = -1;
        const qint64 t0 = clock.nsecsElapsed();
        mouse(view, QEvent::MouseButtonRelease, b, Qt::LeftButton, Qt::NoButton);
        const qint64 t1 = clock.nsecsElapsed();
        const qint64 t2 = settle(pt, clock);
        const std::array<qint64, BucketCount> framePaint = pt.ns;
        // The follow-ups: the edited order's lanes and live set, from the workers.
        QElapsedTimer waited;
        waited.start();
        while ((schedule->layoutPending() || window.state()->liveStale()) && waited.elapsed() < 2000) {
            QCoreApplication::processEvents(QEventLoop::AllEvents);
            QThread::usleep(100);
        }
        const qint64 t3 = settle(pt, clock);
        if (view->stepOf(c.ref) == before || tMoved < 0) {
            ++refused;
            continue;
        }
        if (i < options.warmup) continue; // the node that stays moved is a warm-up drop too
        ++done;
        handler.ms.push_back(ms(t1 - t0));
        edit.ms.push_back(ms(tMoved - t0));
        subscribers.ms.push_back(ms((tChanged < 0 ? t1 : tChanged) - tMoved));
        total.ms.push_back(ms((t2 < 0 ? t1 : t2) - t0));
        followUps.ms.push_back(ms((t3 < 0 ? (t2 < 0 ? t1 : t2) : t3) - t0));
        const qint64 g = pt.firstEnd[Graph];
        graph.ms.push_back(ms((g < 0 ? t1 : g) - t0));
        for (int k = 0; k < BucketCount; ++k)
            paint[static_cast<std::size_t>(k)].ms.push_back(ms(framePaint[static_cast<std::size_t>(k)]));
    }
    qApp->removeEventFilter(&pt);
    QObject::disconnect(c1);
    QObject::disconnect(c2);

    // The whole-graph work a drop used to do on this thread, timed alone on the current order.
    Series layout{QStringLiteral("alone: GraphLayout of the edited order")},
        profile{QStringLiteral("alone: IncrementalSchedule::profile()")};
    for (int i = 0; i < 5; ++i) {
        qint64 t = clock.nsecsElapsed();
        const fxmem::GraphLayout l(schedule->analysis()->graph(), schedule->order());
        layout.ms.push_back(ms(clock.nsecsElapsed() - t));
        t = clock.nsecsElapsed();
        const std::vector<std::int64_t> p = schedule->schedule()->profile();
        profile.ms.push_back(ms(clock.nsecsElapsed() - t));
    }

    QString out = header(window, *view, QStringLiteral("drop"), load);
    out += QStringLiteral("%1 drops measured (%2 nodes, each there and back, after one that stays moved and %3 "
                          "warm-up); %4 refused or not moved\n")
               .arg(done)
               .arg(nodes.size())
               .arg(options.warmup)
               .arg(refused);
    for (const Series* s : {&graph, &total, &followUps, &handler, &edit, &subscribers}) out += statsLine(*s);
    for (const Series& s : paint) out += statsLine(s);
    out += statsLine(layout);
    out += statsLine(profile);
    return out;
}

// One move with `held` down, timed from the event to the graph view's paint (`graph`) and to the
// last paint it caused (`total`); a warm-up move is made but not recorded.
void timedMove(QWidget* view, QPointF at, Qt::MouseButton held, PaintTimer& pt, const QElapsedTimer& clock, bool warmup,
               Series& total, Series& graph) {
    pt.reset();
    const qint64 t0 = clock.nsecsElapsed();
    mouse(view, QEvent::MouseMove, at, Qt::NoButton, held);
    const qint64 t1 = clock.nsecsElapsed();
    const qint64 t2 = settle(pt, clock);
    if (warmup) return;
    total.ms.push_back(ms((t2 < 0 ? t1 : t2) - t0));
    graph.ms.push_back(ms((pt.firstEnd[Graph] < 0 ? t1 : pt.firstEnd[Graph]) - t0));
}

// Waits for the Dataflow view's layouts, then zooms to a readable scale around the node at the
// cursor's step (the peak's when opened); false when no layout came in 120 s.
bool readableDataflow(DataflowView* view) {
    QElapsedTimer waited;
    waited.start();
    while (!view->layouts() && waited.elapsed() < 120000) drain();
    if (!view->layouts()) return false;
    view->zoomBy(0.8 / view->camera().scale, QPointF(view->width() / 2.0, view->height() / 2.0));
    drain();
    return true;
}

// The Dataflow mode's pan: a left-button drag from the middle of the view, as the time mode's.
QString runDataflowPan(MainWindow& window, const ScrubBenchmarkOptions& options) {
    DataflowView* view = window.parts().dataflow;
    const QString load = loadAverage();
    if (!readableDataflow(view)) return QStringLiteral("nothing to pan: no dataflow layout in 120 s\n");
    PaintTimer pt;
    QElapsedTimer clock;
    clock.start();
    pt.clock = &clock;
    qApp->installEventFilter(&pt);
    QPointF at(view->width() / 2.0, view->height() / 2.0);
    mouse(view, QEvent::MouseButtonPress, at, Qt::LeftButton, Qt::LeftButton);
    Series total{QStringLiteral("total: move to last paint")}, graph{QStringLiteral("move to the view's paint")};
    const int moves = options.steps + options.warmup;
    // Diagonally, 4 and 3 pixels a move, back and forth so that the drawing stays in view.
    for (int i = 0; i < moves; ++i) {
        const double sign = (i / 50) % 2 == 0 ? 1 : -1;
        at += QPointF(4 * sign, 3 * sign);
        timedMove(view, at, Qt::LeftButton, pt, clock, i < options.warmup, total, graph);
    }
    mouse(view, QEvent::MouseButtonRelease, at, Qt::LeftButton, Qt::NoButton);
    qApp->removeEventFilter(&pt);
    QString out = viewHeader(window, *view, QStringLiteral("dataflow pan benchmark"), QStringLiteral("view"),
                             QStringLiteral(", scale %1").arg(view->camera().scale, 0, 'f', 2), load);
    out += QStringLiteral("%1 moves of 5 px (left button) after %2 warm-up moves\n")
               .arg(total.ms.size())
               .arg(options.warmup);
    for (const Series* s : {&graph, &total}) out += statsLine(*s);
    return out;
}

// Wheel notches over the middle of the graph view (either mode): a quarter of them in, half
// out past where they started, a quarter back in (in the Dataflow mode, scales from about 0.3
// to 2), each timed from the event to the last paint it caused.
QString runZoom(MainWindow& window, const ScrubBenchmarkOptions& options) {
    const bool dataflow = window.parts().graphModes->mode() == GraphModePane::Mode::Dataflow;
    QWidget* view = dataflow ? static_cast<QWidget*>(window.parts().dataflow) : window.parts().graphView;
    const auto& scene = window.scene();
    if (!scene || scene->empty()) return QStringLiteral("nothing to zoom: no graph shown\n");
    const QString load = loadAverage();
    if (dataflow && !readableDataflow(window.parts().dataflow))
        return QStringLiteral("nothing to zoom: no dataflow layout in 120 s\n");
    if (!dataflow) {
        zoomIn(window.parts().graphView);
        drain();
    }
    PaintTimer pt;
    QElapsedTimer clock;
    clock.start();
    pt.clock = &clock;
    qApp->installEventFilter(&pt);
    const QPointF at(view->width() / 2.0, view->height() / 2.0);
    Series total{QStringLiteral("total: notch to last paint")}, graph{QStringLiteral("notch to the view's paint")};
    const int notches = options.steps + options.warmup;
    for (int i = 0; i < notches; ++i) {
        const int k = i % 40; // in 10, out 20, in 10
        const int dy = k < 10 || k >= 30 ? 120 : -120;
        pt.reset();
        const qint64 t0 = clock.nsecsElapsed();
        QWheelEvent e(at, view->mapToGlobal(at), {}, {0, dy}, Qt::NoButton, {}, Qt::NoScrollPhase, false);
        QCoreApplication::sendEvent(view, &e);
        const qint64 t1 = clock.nsecsElapsed();
        const qint64 t2 = settle(pt, clock);
        if (i < options.warmup) continue;
        total.ms.push_back(ms((t2 < 0 ? t1 : t2) - t0));
        graph.ms.push_back(ms((pt.firstEnd[Graph] < 0 ? t1 : pt.firstEnd[Graph]) - t0));
    }
    qApp->removeEventFilter(&pt);
    QString out =
        viewHeader(window, *view,
                   dataflow ? QStringLiteral("dataflow zoom benchmark") : QStringLiteral("graph view zoom benchmark"),
                   QStringLiteral("view"), {}, load);
    out += QStringLiteral("%1 wheel notches after %2 warm-up notches\n").arg(total.ms.size()).arg(options.warmup);
    for (const Series* s : {&graph, &total}) out += statsLine(*s);
    return out;
}

QString runPan(MainWindow& window, const ScrubBenchmarkOptions& options) {
    if (window.parts().graphModes->mode() == GraphModePane::Mode::Dataflow) return runDataflowPan(window, options);
    GraphView* view = window.parts().graphView;
    const auto& scene = window.scene();
    if (!scene || scene->empty()) return QStringLiteral("nothing to pan: no graph shown\n");
    const QString load = loadAverage();
    zoomIn(view);
    PaintTimer pt;
    QElapsedTimer clock;
    clock.start();
    pt.clock = &clock;
    qApp->installEventFilter(&pt);
    // The middle button pans wherever it is pressed (the left one would drag a node).
    const GraphViewport v = view->viewport();
    QPointF at(v.right - 20, v.topPad + (v.height - v.topPad) / 2);
    mouse(view, QEvent::MouseButtonPress, at, Qt::MiddleButton, Qt::MiddleButton);
    Series total{QStringLiteral("total: move to last paint")}, graph{QStringLiteral("move to the graph view's paint")};
    std::array<Series, BucketCount> paint;
    for (int b = 0; b < BucketCount; ++b)
        paint[static_cast<std::size_t>(b)].name =
            QStringLiteral("  paint ") + QLatin1String(kBucketNames[static_cast<std::size_t>(b)]);
    const int moves = options.steps + options.warmup;
    const double dx = std::min(4.0, (v.right - v.left - 40.0) / std::max(1, moves));
    for (int i = 0; i < moves; ++i) {
        at.rx() -= dx;
        timedMove(view, at, Qt::MiddleButton, pt, clock, i < options.warmup, total, graph);
        if (i < options.warmup) continue;
        for (int k = 0; k < BucketCount; ++k)
            paint[static_cast<std::size_t>(k)].ms.push_back(ms(pt.ns[static_cast<std::size_t>(k)]));
    }
    mouse(view, QEvent::MouseButtonRelease, at, Qt::MiddleButton, Qt::NoButton);
    qApp->removeEventFilter(&pt);
    QString out = header(window, *view, QStringLiteral("pan"), load);
    out += QStringLiteral("%1 moves of %2 px (middle button) after %3 warm-up moves\n")
               .arg(total.ms.size())
               .arg(dx, 0, 'f', 1)
               .arg(options.warmup);
    for (const Series* s : {&graph, &total}) out += statsLine(*s);
    for (const Series& s : paint) out += statsLine(s);
    return out;
}

} // namespace

QString runGraphDragBenchmark(MainWindow& window, const ScrubBenchmarkOptions& options) {
    switch (options.input) {
    case ScrubBenchmarkOptions::Input::Pan: return runPan(window, options);
    case ScrubBenchmarkOptions::Input::Zoom: return runZoom(window, options);
    default: return runDrops(window, options);
    }
}
