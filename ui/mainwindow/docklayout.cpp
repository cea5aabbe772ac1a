#include "mainwindow/docklayout.h"

#include "mainwindow/sidepanelwidth.h"
#include "mainwindow/sidetabs.h"

#include <QAction>
#include <QCoreApplication>
#include <QDockWidget>
#include <QMainWindow>

DockLayout::DockLayout(QMainWindow* window, ViewState* state, WindowParts& parts) : QObject(window) {
    QDockWidget* firstTab = nullptr;
    QDockWidget* lastTab = nullptr;
    for (const SideTab& tab : sideTabs()) {
        auto* d = new QDockWidget(QCoreApplication::translate("DockLayout", tab.title), window);
        // Object names: QMainWindow::saveState/restoreState find the docks by them.
        d->setObjectName(QLatin1String(tab.dockName));
        d->setWidget(tab.make(state, parts));
        window->addDockWidget(Qt::RightDockWidgetArea, d);
        d->toggleViewAction()->setObjectName(d->objectName());
        docks_.push_back(d);
        if (!tab.name) {
            top_ = d;
            continue;
        }
        if (lastTab) window->tabifyDockWidget(lastTab, d);
        if (!firstTab) firstTab = d;
        lastTab = d;
    }
    Q_ASSERT(top_ && firstTab);
    firstTab->raise();
    sideWidth_ = new SidePanelWidth(window, top_);
    window->resizeDocks({top_, firstTab}, {400, 300}, Qt::Vertical);
}

bool DockLayout::raise(const QString& name) {
    const auto tabs = sideTabs();
    for (std::size_t i = 0; i < tabs.size(); ++i) {
        if (!tabs[i].name || name != QLatin1String(tabs[i].name)) continue;
        QDockWidget* d = docks_[i];
        d->raise();
        // A plot over a table needs more height than the live table.
        if (auto* window = static_cast<QMainWindow*>(parent()); tabs[i].tall && window->height() > 0)
            window->resizeDocks({top_, d}, {window->height() / 3, window->height() * 2 / 3}, Qt::Vertical);
        return true;
    }
    return false;
}

QList<QAction*> DockLayout::toggleActions() const {
    QList<QAction*> actions;
    for (QDockWidget* d : docks_) actions.push_back(d->toggleViewAction());
    return actions;
}
