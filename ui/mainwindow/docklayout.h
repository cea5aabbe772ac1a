// The right-hand docks of the main window, made from the table in sidetabs.h: the live storages
// on top, the other panels as tabs below it, the first of them raised. Their share of the
// window's width follows SidePanelWidth. This places them and raises a tab on request.
#pragma once
#include <QList>
#include <QObject>

#include <vector>

class QAction;
class QDockWidget;
class QMainWindow;
class SidePanelWidth;
class ViewState;
struct WindowParts;

class DockLayout : public QObject {
    Q_OBJECT
public:
    // Makes every side panel (entered in `parts`) and its dock.
    DockLayout(QMainWindow* window, ViewState* state, WindowParts& parts);
    // Raises the tab of that --tab name (sideTabNames()); false for an unknown name.
    bool raise(const QString& name);
    // The docks' show/hide actions, in the table's order, for the View menu.
    QList<QAction*> toggleActions() const;
    SidePanelWidth* sideWidth() const { return sideWidth_; }

private:
    std::vector<QDockWidget*> docks_; // per row of sideTabs()
    QDockWidget* top_ = nullptr;      // the dock above the tabs
    SidePanelWidth* sideWidth_ = nullptr;
};
