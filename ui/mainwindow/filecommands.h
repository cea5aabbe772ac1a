// What the main window does with files besides opening graphs: save and open the edited
// schedule (asking before an unsaved edit is dropped), save the Recompute view's plan, export the
// profile as CSV, the plot as an image and the view as a Perfetto trace or a memory_viz snapshot,
// and where those dialogs start (the last schedule folder, else the graph
// file's folder unless it is the bundled examples', else home).
#pragma once
#include <QObject>
#include <QString>

class QMainWindow;
class RecomputePanel;
class ScheduleEditor;
class TimelinePlot;
class ViewState;

class FileCommands : public QObject {
    Q_OBJECT
public:
    FileCommands(QMainWindow* window, ViewState* state, ScheduleEditor* editor, TimelinePlot* timeline,
                 RecomputePanel* recompute);
    // The folder of the bundled examples (read-only when installed): never offered for saving.
    void setBundledExamplesDir(const QString& dir) { bundledDir_ = dir; }
    QString scheduleDir() const;
    // False when the user cancelled (an unsaved edit stays).
    bool maybeKeepSchedule();

    void saveSchedule();
    void openSchedule();
    // File ▸ Save Plan: a save dialog (it asks before replacing a file), then savePlanTo.
    void savePlan();
    // Writes the current plan to `path`; on failure a window-modal error box naming the path
    // (opened, not exec'd) and false. Refuses the graph file shown, as fxmem-cli remat -o does.
    bool savePlanTo(const QString& path);
    void exportCsv();
    void exportPlot();
    // File > Export: the view shown (whole step, pair, or graph in its edited order) as fxmem-cli
    // export writes it (fxmem/export.h), after a save dialog; the *To functions write `path`
    // atomically, or show a window-modal error box naming it (opened, not exec'd) and answer false.
    void exportPerfetto();
    void exportMemoryViz();
    bool exportPerfettoTo(const QString& path);
    bool exportMemoryVizTo(const QString& path);

private:
    QMainWindow* window_;
    ViewState* state_;
    ScheduleEditor* editor_;
    TimelinePlot* timeline_;
    RecomputePanel* recompute_;
    QString bundledDir_;
    QString scheduleDir_; // where the last schedule was saved or opened
    void rememberScheduleDir(const QString& path);
    enum class ExportFormat { Perfetto, MemoryViz };
    void exportView(ExportFormat format);
    bool exportViewTo(ExportFormat format, const QString& path);
    void showWriteError(const QString& title, const QString& path, const QString& why);
};
