#include "ui/opentiming.h"

#include "mainwindow/mainwindow.h"

#include <QCoreApplication>

OpenTiming::OpenTiming(MainWindow& window, const QElapsedTimer& sinceMain) : QObject(&window), clock_(sinceMain) {
    paints_.clock = &clock_;
    connect(&window, &MainWindow::sceneShown, this, [this] {
        if (shown_ >= 0) return;
        shown_ = clock_.nsecsElapsed();
        // Only the paints after the scene: the first frame that shows it.
        paints_.reset();
        qApp->installEventFilter(&paints_);
        timing_ = true;
    });
}

OpenTiming::~OpenTiming() {
    if (timing_) qApp->removeEventFilter(&paints_);
}

void OpenTiming::settled() {
    if (settled_ < 0) settled_ = clock_.nsecsElapsed();
    if (timing_) qApp->removeEventFilter(&paints_);
    timing_ = false;
}

QString OpenTiming::report() const {
    const auto ms = [](qint64 ns) { return ns < 0 ? QStringLiteral("-") : QString::number(ns / 1e6, 'f', 0); };
    QString out = QStringLiteral("open (ms since main()): scene shown %1").arg(ms(shown_));
    for (const bench::Bucket b : {bench::Timeline, bench::Graph})
        out += QStringLiteral(", %1 first painted %2")
                   .arg(QLatin1String(bench::kBucketNames[static_cast<std::size_t>(b)]),
                        ms(paints_.firstEnd[static_cast<std::size_t>(b)]));
    out += QStringLiteral(", views settled %1 (load %2)\n").arg(ms(settled_), bench::loadAverage());
    return out;
}
