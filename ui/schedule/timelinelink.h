// Connects the schedule dock to the timeline: the dock's comparison (two orders and their
// peaks) and the optimizer's lower bound are drawn on the plot, and cleared with them. One call
// where the main window creates both.
#pragma once

class ScheduleEditor;
class TimelinePlot;

void linkScheduleToTimeline(ScheduleEditor* editor, TimelinePlot* timeline);
