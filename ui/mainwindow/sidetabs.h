// The right-hand docks, one row each: the live storages above, then the tabs below it. The rows'
// order is the order the panels are made (and connect to the ViewState), placed and listed in the
// View menu. DockLayout makes the docks from this table, its toggleActions() are the View menu's
// entries, QMainWindow::saveState/restoreState find the docks by their object names, and fxmem's
// --tab takes the tabs' names: adding a tab is one row in sidetabs.cpp.
#pragma once
#include <QString>
#include <QStringList>

#include <span>

class QWidget;
class ViewState;
struct WindowParts;

struct SideTab {
    const char* name;     // --tab NAME; nullptr for the one dock above the tabs (the live table)
    const char* dockName; // the dock's object name, kept in the saved window state
    const char* title;    // the dock's title, translated in DockLayout's context
    bool tall;            // raised, the dock takes 2/3 of the height (a plot over a table)
    // Makes the panel and enters it, and what it is made of, in the window's parts.
    QWidget* (*make)(ViewState* state, WindowParts& parts);
};

std::span<const SideTab> sideTabs();
// The tabs' names in the table's order ("node", "schedule", ...).
QStringList sideTabNames();
// The same as a choice in a sentence: "node, schedule, breakdown or recompute".
QString sideTabChoices();
