#include "ui/scrubbenchmark.h"

#include "mainwindow/mainwindow.h"
#include "state/viewstate.h"
#include "timeline/qcp.h"
#include "timeline/timelineplot.h"
#include "ui/benchtiming.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QSignalBlocker>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <vector>

using namespace bench;

QString runScrubBenchmark(MainWindow& window, const ScrubBenchmarkOptions& options) {
    TimelinePlot* timeline = window.parts().timeline;
    ViewState* state = window.state();
    const auto& scene = window.scene();
    if (!scene || timeline->stepCount() < 2) return QStringLiteral("nothing to scrub: no profile shown\n");
    const bool hover = options.input == ScrubBenchmarkOptions::Input::Hover;
    const int total = std::max(1, options.steps) + std::max(0, options.warmup);
    const QRect plot = timeline->chart()->axisRect()->rect();
    const auto steps = static_cast<std::int64_t>(timeline->stepCount());

    // The inputs: mouse positions left to right across the plot, or key presses from mid-profile.
    std::vector<QPoint> positions;
    if (hover) {
        const double dx = std::max(1.0, static_cast<double>(plot.width() - 4) / total);
        for (int i = 0; i < total; ++i)
            positions.emplace_back(plot.left() + 2 + static_cast<int>(std::lround(dx * i)), plot.center().y());
    }
    const std::int64_t keyStart = std::max<std::int64_t>(0, steps / 2 - total / 2);
    auto start = [&] {
        if (hover) {
            QMouseEvent away(QEvent::MouseMove, QPointF(plot.left() + 1, plot.center().y()),
                             timeline->mapToGlobal(QPointF(0, 0)), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
            QCoreApplication::sendEvent(timeline->chart(), &away);
        } else {
            timeline->setCursorStep(keyStart);
        }
        drain();
    };

    const QString loadBefore = loadAverage();
    PaintTimer pt;
    qApp->installEventFilter(&pt);
    QElapsedTimer clock;
    clock.start();

    // Pass 1: real input events, end to end.
    std::array<Series, BucketCount> paint;
    for (int b = 0; b < BucketCount; ++b)
        paint[static_cast<std::size_t>(b)].name =
            QStringLiteral("  paint ") + QLatin1String(kBucketNames[static_cast<std::size_t>(b)]);
    Series totalMs{QStringLiteral("total: input to last paint")}, handlers{QStringLiteral("  input handlers")};
    std::vector<std::int64_t> visited;
    start();
    int unchanged = 0;
    for (int i = 0; i < total; ++i) {
        const std::int64_t before = state->cursorStep();
        pt.reset();
        const qint64 t0 = clock.nsecsElapsed();
        if (hover) {
            const QPointF at = positions[static_cast<std::size_t>(i)];
            QMouseEvent move(QEvent::MouseMove, at, timeline->mapToGlobal(at), Qt::NoButton, Qt::NoButton,
                             Qt::NoModifier);
            QCoreApplication::sendEvent(timeline->chart(), &move);
        } else {
            QKeyEvent key(QEvent::KeyPress, Qt::Key_Right, Qt::NoModifier);
            QCoreApplication::sendEvent(timeline, &key);
        }
        const qint64 t1 = clock.nsecsElapsed();
        const qint64 t2 = settle(pt, clock);
        if (state->cursorStep() == before) {
            ++unchanged; // two positions on one step: nothing to measure
            continue;
        }
        visited.push_back(state->cursorStep());
        if (i < options.warmup) {
            pt.byClass.clear(); // only measured steps count
            continue;
        }
        handlers.ms.push_back(static_cast<double>(t1 - t0) / 1e6);
        totalMs.ms.push_back(static_cast<double>((t2 < 0 ? t1 : t2) - t0) / 1e6);
        for (int b = 0; b < BucketCount; ++b)
            paint[static_cast<std::size_t>(b)].ms.push_back(static_cast<double>(pt.ns[static_cast<std::size_t>(b)]) /
                                                            1e6);
    }

    const std::map<QString, qint64> firstPassByClass = pt.byClass;

    // Pass 2: the same steps, the handlers split: the timeline alone (its signals blocked), then
    // what the shared state's change runs (live set, live table, breakdown, graph view marks).
    Series tlMs{QStringLiteral("  timeline (cursor, replot)")},
        stateMs{QStringLiteral("  state subscribers (live set, panels)")},
        paintMs{QStringLiteral("  paint and posted events")}, paintSum{QStringLiteral("    of which widget paints")},
        total2{QStringLiteral("total")};
    start();
    for (std::size_t i = 0; i < visited.size(); ++i) {
        const std::int64_t s = visited[i];
        pt.reset();
        const qint64 t0 = clock.nsecsElapsed();
        {
            const QSignalBlocker quiet(timeline);
            timeline->setCursorStep(s);
        }
        const qint64 t1 = clock.nsecsElapsed();
        state->setCursorStep(s);
        const qint64 t2 = clock.nsecsElapsed();
        const qint64 t3 = settle(pt, clock);
        if (static_cast<int>(i) < options.warmup) continue;
        tlMs.ms.push_back(static_cast<double>(t1 - t0) / 1e6);
        stateMs.ms.push_back(static_cast<double>(t2 - t1) / 1e6);
        paintMs.ms.push_back(static_cast<double>((t3 < 0 ? t2 : t3) - t2) / 1e6);
        qint64 painted = 0;
        for (qint64 ns : pt.ns) painted += ns;
        paintSum.ms.push_back(static_cast<double>(painted) / 1e6);
        total2.ms.push_back(static_cast<double>((t3 < 0 ? t2 : t3) - t0) / 1e6);
    }
    // Pass 3: data changes, the timeline alone (its signals blocked): an edited order's profile
    // shown as the overlay (what a drop does; a dip of 2 % of the peak over 1 % of the steps,
    // moved each time, so the y axis stays), then the profile itself set again (a file load).
    Series overlayMs{QStringLiteral("  setOverlay + paint")}, profileMs{QStringLiteral("  setProfile + paint")};
    const std::vector<std::int64_t>& base = scene->profile;
    const std::size_t width = std::max<std::size_t>(1, base.size() / 100);
    std::vector<TimelinePlot::Marker> sections;
    if (scene->joined())
        for (const Segment& s : scene->segments)
            sections.push_back({s.offset, QString::fromStdString(s.analysis->graph().name)});
    for (int i = 0; i < 20 + options.warmup; ++i) {
        std::vector<std::int64_t> edited = base;
        const std::size_t from = static_cast<std::size_t>(i % 20) * (base.size() - width) / 20;
        for (std::size_t k = from; k < from + width; ++k)
            edited[k] = std::max<std::int64_t>(0, edited[k] - base[scene->peakStep] / 50);
        const std::size_t peak =
            static_cast<std::size_t>(std::max_element(edited.begin(), edited.end()) - edited.begin());
        const QSignalBlocker quiet(timeline);
        qint64 t0 = clock.nsecsElapsed();
        timeline->setOverlay(std::move(edited), peak, QStringLiteral("edited"));
        qint64 t1 = settle(pt, clock);
        if (i >= options.warmup)
            overlayMs.ms.push_back(static_cast<double>((t1 < 0 ? clock.nsecsElapsed() : t1) - t0) / 1e6);
        t0 = clock.nsecsElapsed();
        timeline->setProfile(base, scene->peakStep, sections);
        t1 = settle(pt, clock);
        if (i >= options.warmup)
            profileMs.ms.push_back(static_cast<double>((t1 < 0 ? clock.nsecsElapsed() : t1) - t0) / 1e6);
    }
    qApp->removeEventFilter(&pt);

    QString out;
    out += QStringLiteral("fxmem scrub benchmark: %1 (%2)\n").arg(QFileInfo(scene->path).fileName(), scene->title());
    out += QStringLiteral("%L1 nodes, %L2 profile steps; window %3x%4, plot %5 px wide\n")
               .arg(static_cast<qulonglong>(scene->nodeCount()))
               .arg(steps)
               .arg(window.width())
               .arg(window.height())
               .arg(plot.width());
    out += hover ? QStringLiteral("%1 hover steps (mouse moves of ~%2 px over the timeline)")
                       .arg(totalMs.ms.size())
                       .arg(std::max(1.0, static_cast<double>(plot.width() - 4) / total), 0, 'f', 1)
                 : QStringLiteral("%1 key steps (Right) from step %2").arg(totalMs.ms.size()).arg(keyStart);
    out += QStringLiteral(" after %1 warm-up steps; %2 moves left the step unchanged (not counted)\n")
               .arg(options.warmup)
               .arg(unchanged);
    out += QStringLiteral("load average before: %1, after: ").arg(loadBefore);
    out += loadAverage() + QLatin1Char('\n');
    out += QStringLiteral("%1 %2 %3 %4\n")
               .arg(QString(), -40)
               .arg(QStringLiteral("median"), 8)
               .arg(QStringLiteral("p90"), 8)
               .arg(QStringLiteral("max ms"), 8);
    out += statsLine(totalMs);
    out += statsLine(handlers);
    for (const Series& s : paint) out += statsLine(s);
    // Which widgets the paint time goes to (first pass, mean per step), the largest first.
    std::vector<std::pair<qint64, QString>> classes;
    for (const auto& [name, ns] : firstPassByClass) classes.emplace_back(ns, name);
    std::sort(classes.rbegin(), classes.rend());
    out += QStringLiteral("paint by widget class, mean ms per step:");
    for (std::size_t i = 0; i < std::min<std::size_t>(classes.size(), 8); ++i)
        out += QStringLiteral(" %1 %2;")
                   .arg(classes[i].second)
                   .arg(static_cast<double>(classes[i].first) / 1e6 /
                            std::max<double>(1, static_cast<double>(totalMs.ms.size())),
                        0, 'f', 2);
    out += QLatin1Char('\n');
    out += QStringLiteral("second pass, the same steps set directly (no input event):\n");
    out += statsLine(total2);
    out += statsLine(tlMs);
    out += statsLine(stateMs);
    out += statsLine(paintMs);
    out += statsLine(paintSum);
    out += QStringLiteral("data change, the timeline alone (%1 times):\n").arg(overlayMs.ms.size());
    out += statsLine(overlayMs);
    out += statsLine(profileMs);
    return out;
}
