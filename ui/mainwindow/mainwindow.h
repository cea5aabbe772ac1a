// The fxmem main window assembles the panels: the summary bar and the find bar over the graph view
// and the memory timeline (same x axis); the live storages, the node inspector and the schedule
// dock on the right. The panels wire themselves to one ViewState (scene, cursor step, selected
// node and module, edited order); the window owns the actions, menus, toolbar, status bar and
// files. Files are read by the injected FileLoader on a worker thread; the window keeps what it
// shows until a new scene is ready, and keeps it when a load fails.
#pragma once
#include "graphview/graphview.h"
#include "loading/sceneloader.h"
#include "mainwindow/viewoptions.h"

#include <QMainWindow>

#include <memory>

class QAction;
class QComboBox;
class QLabel;
class QMenu;
class QProgressBar;
class QSplitter;
class QToolButton;
class BreakdownPanel;
class FindBar;
class JobTracker;
class TimelineModeBar;
class DockLayout;
class LiveStorageModel;
class MainActions;
class MainToolbar;
class LiveStoragePanel;
class LiveStorageProxy;
class NodeInspector;
class RecomputePanel;
class ScheduleEditor;
class SidePanelWidth;
class SchedulePanel;
class SummaryBar;
class TimelinePlot;
class ViewState;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(FileLoader loader, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Starts loading (asynchronous); sceneShown() or loadFailed() follows.
    void openFile(const QString& path);
    // What to say when no file could be opened at start-up.
    void showEmptyHint(const QString& hint);
    // The folder of the bundled examples (read-only when installed): never offered for saving.
    void setBundledExamplesDir(const QString& dir);

    std::shared_ptr<const Scene> scene() const;
    ViewState* state() const { return state_; }
    SceneLoader* sceneLoader() const { return loader_; }
    TimelinePlot* timeline() const { return timeline_; }
    TimelineModeBar* timelineModeBar() const { return modeBar_; }
    GraphView* graphView() const { return graphView_; }
    LiveStoragePanel* livePanel() const { return livePanel_; }
    LiveStorageModel* liveModel() const;
    LiveStorageProxy* liveProxy() const;
    NodeInspector* inspector() const { return inspector_; }
    ScheduleEditor* scheduleEditor() const { return editor_; }
    SchedulePanel* schedulePanel() const { return schedulePanel_; }
    FindBar* findBar() const { return findBar_; }
    BreakdownPanel* breakdownPanel() const { return breakdown_; }
    RecomputePanel* recomputePanel() const { return recompute_; }
    QLabel* summaryLabel() const;
    QLabel* liveTotalLabel() const;
    QLabel* liveHeaderLabel() const;
    QComboBox* graphCombo() const;
    MainActions* actions() const { return actions_; }
    QAction* undoAction() const;
    QAction* redoAction() const;
    QAction* resetScheduleAction() const;
    SidePanelWidth* sidePanelWidth() const;

    // Sets the views as `options` say, on the graph shown now. Returns what could not be done
    // (a module or schedule the graph does not have), empty when all was.
    QString applyViewOptions(const ViewOptions& options);
    // Moves the timeline cursor (and everything that follows it) to a global step.
    void setCursorStep(std::int64_t step);
    // Chooses a graph (or, with pair >= 0, a joined pair) of the current file.
    void showGraph(int graph, int pair = -1);
    // Where Save Schedule starts: the last schedule folder, else the graph file's folder unless
    // it is the bundled examples' folder, else home.
    QString scheduleDir() const;

signals:
    void sceneShown();
    void loadFailed(const QString& message);

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void buildActions();
    void buildWidgets();
    void buildMenus();
    void restoreSettings();
    void onSceneReady(std::shared_ptr<const Scene> scene);
    void onLoadFailed(const QString& path, const QString& message);
    void onScheduleChanged();
    void updateStatus();
    void updateActions();
    void updateBanner();
    void updateBands(); // the stacked timeline of the mode bar's choice, computed as a job
    void requestScene(SceneRequest request);

    SceneLoader* loader_ = nullptr;
    ViewState* state_ = nullptr;
    bool applyingScene_ = false;

    // Panels and widgets
    GraphView* graphView_ = nullptr;
    TimelinePlot* timeline_ = nullptr;
    TimelineModeBar* modeBar_ = nullptr;
    JobTracker* bandJobs_ = nullptr;
    QSplitter* splitter_ = nullptr;
    SummaryBar* summary_ = nullptr;
    DockLayout* docks_ = nullptr;
    class FileCommands* files_ = nullptr;
    QLabel* banner_ = nullptr;
    FindBar* findBar_ = nullptr;
    LiveStoragePanel* livePanel_ = nullptr;
    NodeInspector* inspector_ = nullptr;
    ScheduleEditor* editor_ = nullptr;
    SchedulePanel* schedulePanel_ = nullptr;
    BreakdownPanel* breakdown_ = nullptr;
    RecomputePanel* recompute_ = nullptr;
    MainToolbar* toolbar_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QToolButton* cancelButton_ = nullptr;
    QLabel* statusFile_ = nullptr;

    MainActions* actions_ = nullptr;
};
