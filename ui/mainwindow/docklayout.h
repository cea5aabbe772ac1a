// The right-hand docks of the main window: the live storages on top; the node inspector, the
// schedule and the breakdown as tabs below it. Their share of the window's width follows
// SidePanelWidth. The window hands in the panels; this places them and raises a tab on request.
#pragma once
#include "mainwindow/viewoptions.h"

#include <QList>
#include <QObject>

class QAction;
class QDockWidget;
class QMainWindow;
class QWidget;
class SidePanelWidth;

class DockLayout : public QObject {
    Q_OBJECT
public:
    DockLayout(QMainWindow* window, QWidget* live, QWidget* inspector, QWidget* schedule, QWidget* breakdown);
    void raise(ViewOptions::Tab tab);
    // The docks' show/hide actions, for the View menu.
    QList<QAction*> toggleActions() const;
    SidePanelWidth* sideWidth() const { return sideWidth_; }
    // The Recompute view, a tab next to the breakdown.
    void addRecompute(QWidget* recompute);

private:
    QDockWidget* live_ = nullptr;
    QDockWidget* inspector_ = nullptr;
    QDockWidget* schedule_ = nullptr;
    QDockWidget* breakdown_ = nullptr;
    QDockWidget* recompute_ = nullptr;
    SidePanelWidth* sideWidth_ = nullptr;
};
