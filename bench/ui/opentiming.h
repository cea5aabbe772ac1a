// fxmem --benchmark-scrub's open figures: how long from the start of main() until the file's
// scene is shown (read, analysed and laid out off the GUI thread), until the timeline and the
// graph view have painted it once, and until the views the options asked for have settled.
// Printed, never asserted (the machine's load decides them).
#pragma once
#include "ui/benchtiming.h"

#include <QElapsedTimer>
#include <QObject>
#include <QString>

class MainWindow;

class OpenTiming : public QObject {
public:
    // `sinceMain` was started first thing in main(); the window's first sceneShown is timed.
    OpenTiming(MainWindow& window, const QElapsedTimer& sinceMain);
    ~OpenTiming() override;
    // The views the options asked for are done (what --benchmark-scrub waits for before it scrubs);
    // also stops timing paints, so that the scrub's own timers see every paint.
    void settled();
    QString report() const;

private:
    const QElapsedTimer& clock_;
    bench::PaintTimer paints_;
    qint64 shown_ = -1, settled_ = -1;
    bool timing_ = false;
};
