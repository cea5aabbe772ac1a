#include "ui/sizesbenchmark.h"

#include "mainwindow/mainwindow.h"
#include "sizes/logscale.h"
#include "sizes/sizesbar.h"
#include "state/viewstate.h"
#include "timeline/timelinemodebar.h"
#include "timeline/timelineplot.h"
#include "ui/benchtiming.h"

#include <fxmem/symbolic.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>

#include <algorithm>
#include <ctime>
#include <vector>

using namespace bench;

namespace {
// The GUI thread's own CPU time: on a shared, loaded machine the wall clock also counts waiting
// for a core.
qint64 threadCpuNs() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<qint64>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}
} // namespace

QString runSizesBenchmark(MainWindow& window, int steps) {
    SizesBar* bar = window.parts().sizes;
    const auto scene = window.scene();
    if (!scene || !scene->file || scene->file->symbolic.empty() || bar->symbolCount() == 0)
        return QStringLiteral("nothing to re-score: the file shown has no symbolic sizes\n");
    const int symbol = bar->fitSymbol();
    const fxmem::Symbol& s = scene->file->symbolic.symbols[static_cast<std::size_t>(symbol)];
    const LogScale scale = LogScale::of(s);
    // Values across the slider's first two thirds (the far end of an unbounded range is a
    // capture thousands of times the traced one), each different from the one before.
    std::vector<std::vector<std::int64_t>> bindings;
    std::vector<std::int64_t> values = scene->file->symbolic.bound;
    for (int i = 0; static_cast<int>(bindings.size()) < steps && i < 100 * steps; ++i) {
        const int pos = (i * 37) % (2 * LogScale::kSliderSteps / 3);
        const std::int64_t v = scale.value(pos);
        if (v == values[static_cast<std::size_t>(symbol)]) continue;
        values[static_cast<std::size_t>(symbol)] = v;
        bindings.push_back(values);
    }

    QElapsedTimer clock;
    clock.start();
    // The worker's part, here on the GUI thread so that nothing else runs meanwhile.
    Series bind{QStringLiteral("  copy + bind_sizes")}, build{QStringLiteral("scene: bind + analyse + lay out")},
        apply{QStringLiteral("views: ViewState::setScene + paint")},
        applyCpu{QStringLiteral("  of which GUI thread CPU")};
    PaintTimer pt;
    for (const auto& b : bindings) {
        qint64 t0 = clock.nsecsElapsed();
        fxmem::GraphFile copy = *scene->file;
        fxmem::bind_sizes(copy, fxmem::SizeBinding{b});
        bind.ms.push_back(static_cast<double>(clock.nsecsElapsed() - t0) / 1e6);
        SceneRequest r = scene->request;
        r.sizes = b;
        t0 = clock.nsecsElapsed();
        const auto built = buildScene(scene->file, scene->path, r, {}, scene->loaded);
        build.ms.push_back(static_cast<double>(clock.nsecsElapsed() - t0) / 1e6);
        // The panels following a new scene of the same graphs, without the window's other steps.
        drain();
        t0 = clock.nsecsElapsed();
        const qint64 c0 = threadCpuNs();
        window.state()->setScene(built);
        const qint64 t1 = settle(pt, clock);
        applyCpu.ms.push_back(static_cast<double>(threadCpuNs() - c0) / 1e6);
        apply.ms.push_back(static_cast<double>((t1 < 0 ? clock.nsecsElapsed() : t1) - t0) / 1e6);
    }
    window.state()->setScene(scene);
    drain();

    // End to end: the bar's value set as if typed, the worker, the scene shown, the paints.
    qApp->installEventFilter(&pt);
    Series shown{QStringLiteral("window: value set to scene shown")}, cpu{QStringLiteral("  of which GUI thread CPU")},
        painted{QStringLiteral("window: ... and every panel painted")},
        banded{QStringLiteral("window: ... and the stacked bands drawn")};
    const bool stacked = window.parts().timeline->isStacked();
    for (const auto& b : bindings) {
        drain();
        pt.reset();
        const qint64 t0 = clock.nsecsElapsed();
        const qint64 c0 = threadCpuNs();
        bar->setValue(symbol, b[static_cast<std::size_t>(symbol)]);
        while (window.scene()->file->symbolic.bound != b)
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents | QEventLoop::AllEvents, 50);
        const qint64 t1 = clock.nsecsElapsed();
        const qint64 t2 = settle(pt, clock);
        cpu.ms.push_back(static_cast<double>(threadCpuNs() - c0) / 1e6);
        while (stacked && !window.parts().timeline->isStacked())
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents | QEventLoop::AllEvents, 50);
        const qint64 t3 = settle(pt, clock);
        shown.ms.push_back(static_cast<double>(t1 - t0) / 1e6);
        painted.ms.push_back(static_cast<double>((t2 < 0 ? t1 : t2) - t0) / 1e6);
        banded.ms.push_back(static_cast<double>(std::max({t1, t2, t3}) - t0) / 1e6);
    }
    qApp->removeEventFilter(&pt);

    QString out;
    out += QStringLiteral("fxmem sizes benchmark: %1 (%2)\n").arg(QFileInfo(scene->path).fileName(), scene->title());
    out += QStringLiteral("%L1 nodes, %L2 storages; %3 bindings of %4 (%5) from %6 to %7; window %8x%9\n")
               .arg(static_cast<qulonglong>(scene->nodeCount()))
               .arg(static_cast<qulonglong>(scene->file->storages.size()))
               .arg(bindings.size())
               .arg(QString::fromStdString(s.name), bar->label(symbol))
               .arg(scale.value(0))
               .arg(scale.value(2 * LogScale::kSliderSteps / 3))
               .arg(window.width())
               .arg(window.height());
    out += QStringLiteral("load average: %1\n").arg(loadAverage());
    out += QStringLiteral("%1 %2 %3 %4\n")
               .arg(QString(), -40)
               .arg(QStringLiteral("median"), 8)
               .arg(QStringLiteral("p90"), 8)
               .arg(QStringLiteral("max ms"), 8);
    out += statsLine(build);
    out += statsLine(bind);
    out += statsLine(apply);
    out += statsLine(applyCpu);
    out += statsLine(shown);
    out += statsLine(painted);
    out += statsLine(cpu);
    if (stacked) out += statsLine(banded);
    return out;
}
