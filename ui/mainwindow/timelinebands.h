// The timeline's stacked bands, by role or by module as the mode bar says, computed off the GUI
// thread for the shown scene (O(N + S + P * groups)); a newer scene or mode supersedes a running
// job and a stale result is dropped.
#pragma once
#include "loading/scene.h"

#include <QObject>
#include <QString>

class JobTracker;
class TimelineModeBar;
class TimelinePlot;
class ViewState;

class TimelineBands : public QObject {
    Q_OBJECT
public:
    TimelineBands(ViewState* state, TimelineModeBar* modeBar, TimelinePlot* timeline, QObject* parent);
    // A scene is shown: the mode bar's depths, its default mode and depth for a new file, the bands.
    // `rebound`: the same view at other sizes (the Sizes bar); a small one gets its bands at once,
    // so a drag never shows the plain total for a frame between two stacked ones.
    void showScene(const Scene& scene, bool newFile, bool rebound = false);

signals:
    void failed(const QString& message);

private:
    void update();
    bool bandsNow_ = false; // the next update computes on this thread

    ViewState* state_;
    TimelineModeBar* modeBar_;
    TimelinePlot* timeline_;
    JobTracker* jobs_;
};
