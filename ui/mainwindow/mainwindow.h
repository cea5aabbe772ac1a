// The fxmem main window: graph view above the memory timeline (same x axis), the storages live
// at the cursor and the node inspector on the right, the schedule editor in a dock. Files are
// read by the injected FileLoader on a worker thread; the window keeps what it shows until a
// new scene is ready, and keeps it when a load fails.
#pragma once
#include "graphview/graphview.h"
#include "loading/sceneloader.h"

#include <QMainWindow>

#include <memory>

class QAction;
class QActionGroup;
class QComboBox;
class QLabel;
class QLineEdit;
class QMenu;
class QProgressBar;
class QSplitter;
class QTableView;
class QTimer;
class QToolButton;
class LiveStorageModel;
class LiveStorageProxy;
class NodeInspector;
class OrderedLiveBuilder;
class ScheduleEditor;
class TimelinePlot;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(FileLoader loader, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Starts loading (asynchronous); sceneShown() or loadFailed() follows.
    void openFile(const QString& path);
    // What to say when no file could be opened at start-up.
    void showEmptyHint(const QString& hint);

    std::shared_ptr<const Scene> scene() const { return scene_; }
    SceneLoader* sceneLoader() const { return loader_; }
    TimelinePlot* timeline() const { return timeline_; }
    GraphView* graphView() const { return graphView_; }
    LiveStorageModel* liveModel() const { return liveModel_; }
    LiveStorageProxy* liveProxy() const { return liveProxy_; }
    NodeInspector* inspector() const { return inspector_; }
    ScheduleEditor* scheduleEditor() const { return editor_; }
    QLabel* summaryLabel() const { return summary_; }
    QLabel* liveTotalLabel() const { return liveTotal_; }
    QLabel* liveHeaderLabel() const { return liveHeader_; }
    QComboBox* graphCombo() const { return graphCombo_; }

    // Moves the timeline cursor (and everything that follows it) to a global step.
    void setCursorStep(std::int64_t step);
    // Chooses a graph (or, with pair >= 0, a joined pair) of the current file.
    void showGraph(int graph, int pair = -1);

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
    void onCursor(std::int64_t step);
    void onScheduleChanged();
    void onNodeChosen(NodeRef ref, bool center);
    void updateSummary();
    void updateStatus();
    void updateActions();
    void updateRecentMenu();
    void addRecent(const QString& path);
    void fillGraphCombo();
    void requestScene(SceneRequest request);
    void runSearch();
    void stepSearch(int delta);
    bool maybeKeepSchedule();  // false: the user cancelled
    void exportPlot();
    void exportCsv();
    void saveSchedule();
    void openSchedule();
    // "name (after alloc)" for a global step; `edited`: in the edited schedule when the live
    // table follows one, otherwise in the graph's own order.
    QString describeStep(std::int64_t step, bool edited = true) const;
    std::vector<std::int64_t> editedProfile() const;
    // The node at a located step: in the edited schedule when the live table follows one.
    fxmem::NodeId nodeAt(const Scene::Where& where, bool edited = true) const;
    // Whether the edited schedule's live-set index is in use but not yet rebuilt after an edit.
    bool liveIsStale() const;

    SceneLoader* loader_ = nullptr;
    std::shared_ptr<const Scene> scene_;
    QString pendingPath_;
    std::vector<NodeRef> matches_;
    int matchIndex_ = -1;
    bool applyingScene_ = false;

    // Widgets
    GraphView* graphView_ = nullptr;
    TimelinePlot* timeline_ = nullptr;
    QSplitter* splitter_ = nullptr;
    QLabel* summary_ = nullptr;
    QLabel* banner_ = nullptr;
    QWidget* findBar_ = nullptr;
    QLineEdit* findEdit_ = nullptr;
    QLabel* findCount_ = nullptr;
    QTimer* findTimer_ = nullptr;
    LiveStorageModel* liveModel_ = nullptr;
    LiveStorageProxy* liveProxy_ = nullptr;
    QTableView* liveTable_ = nullptr;
    QLineEdit* liveFilter_ = nullptr;
    QTimer* liveFilterTimer_ = nullptr;
    QLabel* liveTotal_ = nullptr;
    QLabel* liveHeader_ = nullptr;
    NodeInspector* inspector_ = nullptr;
    ScheduleEditor* editor_ = nullptr;
    OrderedLiveBuilder* orderedLive_ = nullptr;  // builds the edited order's live-set index
    QComboBox* graphCombo_ = nullptr;
    QComboBox* deviceCombo_ = nullptr;
    QComboBox* colorCombo_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QToolButton* cancelButton_ = nullptr;
    QLabel* statusFile_ = nullptr;

    // Actions
    QAction* openAction_ = nullptr;
    QMenu* recentMenu_ = nullptr;
    QAction* saveScheduleAction_ = nullptr;
    QAction* openScheduleAction_ = nullptr;
    QAction* exportPlotAction_ = nullptr;
    QAction* exportCsvAction_ = nullptr;
    QAction* quitAction_ = nullptr;
    QAction* undoAction_ = nullptr;
    QAction* redoAction_ = nullptr;
    QAction* resetScheduleAction_ = nullptr;
    QAction* findAction_ = nullptr;
    QAction* resetZoomAction_ = nullptr;
    QAction* binaryUnitsAction_ = nullptr;
    QAction* decimalUnitsAction_ = nullptr;
};
