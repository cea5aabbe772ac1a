// What the main window does with files besides opening graphs: save and open the edited
// schedule (asking before an unsaved edit is dropped), export the profile as CSV and the plot
// as an image, and where those dialogs start (the last schedule folder, else the graph file's
// folder unless it is the bundled examples', else home).
#pragma once
#include <QObject>
#include <QString>

class QMainWindow;
class ScheduleEditor;
class TimelinePlot;
class ViewState;

class FileCommands : public QObject {
    Q_OBJECT
public:
    FileCommands(QMainWindow* window, ViewState* state, ScheduleEditor* editor, TimelinePlot* timeline);
    // The folder of the bundled examples (read-only when installed): never offered for saving.
    void setBundledExamplesDir(const QString& dir) { bundledDir_ = dir; }
    QString scheduleDir() const;
    // False when the user cancelled (an unsaved edit stays).
    bool maybeKeepSchedule();

    void saveSchedule();
    void openSchedule();
    void exportCsv();
    void exportPlot();

private:
    QMainWindow* window_;
    ViewState* state_;
    ScheduleEditor* editor_;
    TimelinePlot* timeline_;
    QString bundledDir_;
    QString scheduleDir_; // where the last schedule was saved or opened
    void rememberScheduleDir(const QString& path);
};
