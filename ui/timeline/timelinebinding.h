// All the memory timeline's wiring, in one place:
// - bindTimeline: to the shared state, as the panels wire themselves: the scene's profile, title
//   and pair sections; the cursor both ways; a click or a key step selects the node at that step;
//   the edited order's curve as an overlay (hidden while two orders are compared: their curves
//   say it all); and through linkScheduleToTimeline the schedule dock's comparison (two orders
//   and their peaks) and the optimizer's lower bound, drawn on the plot and cleared with them.
// - TimelineBands: the stacked bands, by role or by module as the mode bar says, computed off
//   the GUI thread for the shown scene (O(N + S + P * groups)); a newer scene or mode supersedes
//   a running job and a stale result is dropped.
// The timeline itself (TimelinePlot) stays plain data in, signals out.
#pragma once
#include "loading/scene.h"

#include <QObject>
#include <QString>

class JobTracker;
class ScheduleEditor;
class TimelineModeBar;
class TimelinePlot;
class ViewState;

void bindTimeline(TimelinePlot* timeline, ViewState* state, ScheduleEditor* editor);
void linkScheduleToTimeline(ScheduleEditor* editor, TimelinePlot* timeline);

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
