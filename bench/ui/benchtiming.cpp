#include "ui/benchtiming.h"

#include "dataflow/dataflowview.h"
#include "graphview/graphview.h"
#include "inspector/nodeinspector.h"
#include "panels/breakdownpanel.h"
#include "panels/livestoragepanel.h"
#include "panels/summarybar.h"
#include "timeline/timelineplot.h"

#include <QCoreApplication>
#include <QEvent>
#include <QFile>
#include <QThread>

#include <algorithm>
#include <cmath>

namespace bench {

const std::array<const char*, BucketCount> kBucketNames = {"timeline",  "graph view", "live table", "breakdown",
                                                           "inspector", "summary",    "other"};

namespace {
Bucket bucketOf(QObject* o) {
    for (QObject* w = o; w; w = w->parent()) {
        if (qobject_cast<TimelinePlot*>(w)) return Timeline;
        if (qobject_cast<GraphView*>(w) || qobject_cast<DataflowView*>(w)) return Graph; // either mode
        if (qobject_cast<LiveStoragePanel*>(w)) return Live;
        if (qobject_cast<BreakdownPanel*>(w)) return Breakdown;
        if (qobject_cast<NodeInspector*>(w)) return Inspector;
        if (qobject_cast<SummaryBar*>(w)) return Summary;
    }
    return Other;
}
} // namespace

bool PaintTimer::eventFilter(QObject* o, QEvent* e) {
    if (e->type() != QEvent::Paint || inside_ || !o->isWidgetType()) return false;
    inside_ = true;
    QElapsedTimer t;
    t.start();
    QCoreApplication::sendEvent(o, e);
    const qint64 took = t.nsecsElapsed();
    const Bucket b = bucketOf(o);
    ns[b] += took;
    if (firstEnd[b] < 0 && clock) firstEnd[b] = clock->nsecsElapsed();
    byClass[QLatin1String(kBucketNames[b]) + QStringLiteral(" / ") + QLatin1String(o->metaObject()->className())] +=
        took;
    inside_ = false;
    ++paints;
    return true;
}

qint64 settle(PaintTimer& pt, const QElapsedTimer& clock) {
    qint64 lastPaint = -1;
    QElapsedTimer waited;
    waited.start();
    while (waited.elapsed() < 200) {
        const int before = pt.paints;
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents(QEventLoop::AllEvents);
        if (pt.paints > before)
            lastPaint = clock.nsecsElapsed();
        else if (lastPaint >= 0)
            break;
        else
            QThread::usleep(200);
    }
    return lastPaint;
}

void drain() {
    for (int i = 0; i < 3; ++i) {
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents(QEventLoop::AllEvents);
    }
}

QString statsLine(const Series& s) {
    std::vector<double> v = s.ms;
    if (v.empty()) return QStringLiteral("%1  (no samples)\n").arg(s.name, -40);
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    const double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    const double p90 = v[static_cast<std::size_t>(std::ceil(0.9 * static_cast<double>(n))) - 1];
    return QStringLiteral("%1 %2 %3 %4\n")
        .arg(s.name, -40)
        .arg(median, 8, 'f', 2)
        .arg(p90, 8, 'f', 2)
        .arg(v.back(), 8, 'f', 2);
}

QString loadAverage() {
    QFile f(QStringLiteral("/proc/loadavg"));
    if (!f.open(QIODevice::ReadOnly)) return QStringLiteral("unknown");
    return QString::fromLatin1(f.readAll()).section(QLatin1Char(' '), 0, 2);
}

} // namespace bench
