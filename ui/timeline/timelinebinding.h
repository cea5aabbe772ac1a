// Wires the memory timeline to the shared state, as the panels wire themselves: the scene's
// profile, title and pair sections; the cursor both ways; a click or a key step selects the node
// at that step; the edited order's curve as an overlay (hidden while two orders are compared:
// their curves say it all); the schedule dock's comparison and the optimizer's lower bound
// (linkScheduleToTimeline). The timeline itself stays plain data in, signals out.
#pragma once

class ScheduleEditor;
class TimelinePlot;
class ViewState;

void bindTimeline(TimelinePlot* timeline, ViewState* state, ScheduleEditor* editor);
