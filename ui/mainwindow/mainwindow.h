// The fxmem main window assembles the panels: the summary bar and the find bar over the graph view
// and the memory timeline (same x axis); the live storages, the node inspector and the schedule
// dock on the right. The panels wire themselves to one ViewState (scene, cursor step, selected
// node and module, edited order), and ViewBinding ties the views to each other; the window owns
// the actions, menus, toolbar, status bar and files. Files are read by the injected FileLoader on
// a worker thread; the window keeps what it shows until a new scene is ready, and keeps it when a
// load fails.
#pragma once
#include "loading/sceneloader.h"
#include "mainwindow/viewoptions.h"
#include "mainwindow/windowparts.h"

#include <QMainWindow>

#include <cstdint>
#include <memory>
#include <vector>

class CentralArea;
class FileCommands;
class StatusLine;
class TimelineBands;
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
    // The widgets, for code that drives the window from outside (tests, the scrub benchmark).
    const WindowParts& parts() const { return parts_; }

    // Sets the views as `options` say, on the graph shown now. Returns what could not be done
    // (a module or schedule the graph does not have), empty when all was.
    QString applyViewOptions(const ViewOptions& options);
    // Whether the jobs that `options` started (bands, comparison, plan) have finished.
    ViewOptionsSettled viewOptionsSettled(const ViewOptions& options) const;
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
    void restoreSettings();
    void onSceneReady(std::shared_ptr<const Scene> scene);
    void onLoadFailed(const QString& path, const QString& message);
    void updateActions();
    void requestScene(SceneRequest request);
    void requestAllDevices();
    // The Sizes bar's binding: the same file and view, its sizes bound (SceneRequest::sizes).
    void rebindSizes(const std::vector<std::int64_t>& sizes);

    ViewState* state_ = nullptr;
    WindowParts parts_;
    bool applyingScene_ = false;
    bool rebinding_ = false; // the request in flight is the Sizes bar's
    CentralArea* centre_ = nullptr;
    StatusLine* statusLine_ = nullptr;
    TimelineBands* bands_ = nullptr;
    FileCommands* files_ = nullptr;
};
