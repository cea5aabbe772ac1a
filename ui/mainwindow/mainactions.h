// The main window's actions, its menu bar and the recent-files list. The actions are plain
// QActions the window connects to what they do; this class builds them (shortcuts, icons,
// tooltips), lays out the menus, keeps the recent files (AppSettings) and enables the actions
// for what is shown.
#pragma once
#include "util/units.h"

#include <QList>
#include <QObject>
#include <QString>

class QAction;
class QMainWindow;
class QMenu;
class QUndoGroup;

class MainActions : public QObject {
    Q_OBJECT
public:
    // The undo and redo actions follow `history`'s active stack (ViewState::history: the edited
    // schedule's for a single graph, the recompute edits' for a pair).
    MainActions(QMainWindow* window, QUndoGroup* history);

    QAction* open = nullptr;
    QAction* saveSchedule = nullptr;
    QAction* openSchedule = nullptr;
    QAction* savePlan = nullptr; // the Recompute view's current plan; enabled while there is one
    QAction* exportPlot = nullptr;
    QAction* exportCsv = nullptr;
    QAction* exportPerfetto = nullptr;  // File > Export: the view for Perfetto
    QAction* exportMemoryViz = nullptr; // File > Export: the view for PyTorch's memory_viz
    QAction* quit = nullptr;
    QAction* undo = nullptr;
    QAction* redo = nullptr;
    QAction* resetSchedule = nullptr;
    QAction* find = nullptr;
    QAction* resetZoom = nullptr;
    QAction* dataflowMode = nullptr; // checked: the graph view's Dataflow mode, else Time
    QAction* binaryUnits = nullptr;
    QAction* decimalUnits = nullptr;

    // File, Edit, View (with `panels`: the docks' toggle actions) and Help.
    void buildMenus(const QList<QAction*>& panels);
    // What is shown: any graph, a single graph (schedule tools), an edited order.
    void update(bool any, bool single, bool edited);
    // A file was opened: first in Open Recent.
    void addRecent(const QString& path);

signals:
    // Open… (after its dialog) or an Open Recent item.
    void openRequested(const QString& path);
    // Binary or decimal units were chosen (saved); the window hands them to ViewState.
    void unitsChosen(ByteUnits units);

private:
    QMainWindow* window_;
    QMenu* recentMenu_ = nullptr;
    void updateRecentMenu();
};
