// The widgets a MainWindow is assembled from, in one struct: the seam through which code that
// drives the window from outside (the QtTests, the scrub benchmark, the screenshot mode's wait for
// background jobs) reaches a panel, instead of one accessor per widget on MainWindow. The window
// owns every widget; the struct only points at them, and every pointer is set once the window
// is constructed.
#pragma once

class BreakdownPanel;
class DataflowView;
class DockLayout;
class FileCommands;
class FindBar;
class GraphModePane;
class GraphView;
class LiveStoragePanel;
class MainActions;
class MainToolbar;
class NodeInspector;
class RecomputePanel;
class SceneLoader;
class ScheduleEditor;
class SchedulePanel;
class SizesBar;
class SummaryBar;
class TimelineModeBar;
class TimelinePlot;

struct WindowParts {
    SceneLoader* loader = nullptr;
    MainActions* actions = nullptr; // undo, redo, reset schedule, find, the menus
    MainToolbar* toolbar = nullptr; // graphCombo(): the graph and joined-pair picker
    SummaryBar* summary = nullptr;  // the line over the graph view
    FindBar* findBar = nullptr;
    SizesBar* sizes = nullptr; // shown for a file with symbolic sizes
    GraphView* graphView = nullptr;
    DataflowView* dataflow = nullptr;    // the graph view's Dataflow mode
    GraphModePane* graphModes = nullptr; // Time | Dataflow over the two
    TimelineModeBar* modeBar = nullptr;
    TimelinePlot* timeline = nullptr;
    LiveStoragePanel* livePanel = nullptr; // model(), proxy(), headerLabel(), footerLabel()
    NodeInspector* inspector = nullptr;
    ScheduleEditor* editor = nullptr;
    SchedulePanel* schedulePanel = nullptr;
    BreakdownPanel* breakdown = nullptr;
    RecomputePanel* recompute = nullptr;
    DockLayout* docks = nullptr;   // sideWidth(): the side panels' share of the width
    FileCommands* files = nullptr; // savePlanTo(): Save Plan past its dialog
};
