#include "mainwindow/docklayout.h"

#include "mainwindow/sidepanelwidth.h"

#include <QAction>
#include <QDockWidget>
#include <QMainWindow>

DockLayout::DockLayout(QMainWindow* window, QWidget* live, QWidget* inspector, QWidget* schedule, QWidget* breakdown)
    : QObject(window) {
    // Object names: QMainWindow::saveState/restoreState find the docks by them.
    const auto dock = [window](const QString& title, const char* name, QWidget* content) {
        auto* d = new QDockWidget(title, window);
        d->setObjectName(QLatin1String(name));
        d->setWidget(content);
        window->addDockWidget(Qt::RightDockWidgetArea, d);
        d->toggleViewAction()->setObjectName(d->objectName());
        return d;
    };
    live_ = dock(tr("Live storages"), "liveDock", live);
    inspector_ = dock(tr("Node"), "inspectorDock", inspector);
    schedule_ = dock(tr("Schedule"), "scheduleDock", schedule);
    window->tabifyDockWidget(inspector_, schedule_);
    breakdown_ = dock(tr("Breakdown"), "breakdownDock", breakdown);
    window->tabifyDockWidget(schedule_, breakdown_);
    inspector_->raise();
    sideWidth_ = new SidePanelWidth(window, live_);
    window->resizeDocks({live_, inspector_}, {400, 300}, Qt::Vertical);
}

void DockLayout::raise(ViewOptions::Tab tab) {
    switch (tab) {
    case ViewOptions::Tab::Node: inspector_->raise(); break;
    case ViewOptions::Tab::Schedule: schedule_->raise(); break;
    case ViewOptions::Tab::Breakdown: breakdown_->raise(); break;
    case ViewOptions::Tab::Recompute:
        if (!recompute_) break;
        recompute_->raise();
        // The plot and its table need more height than the live table.
        if (auto* window = static_cast<QMainWindow*>(parent()); window->height() > 0)
            window->resizeDocks({live_, recompute_}, {window->height() / 3, window->height() * 2 / 3}, Qt::Vertical);
        break;
    }
}

QList<QAction*> DockLayout::toggleActions() const {
    QList<QAction*> actions{live_->toggleViewAction(), inspector_->toggleViewAction(), schedule_->toggleViewAction(),
                            breakdown_->toggleViewAction()};
    if (recompute_) actions.push_back(recompute_->toggleViewAction());
    return actions;
}

void DockLayout::addRecompute(QWidget* recompute) {
    auto* window = static_cast<QMainWindow*>(parent());
    recompute_ = new QDockWidget(tr("Recompute"), window);
    recompute_->setObjectName(QStringLiteral("recomputeDock"));
    recompute_->setWidget(recompute);
    window->addDockWidget(Qt::RightDockWidgetArea, recompute_);
    recompute_->toggleViewAction()->setObjectName(recompute_->objectName());
    window->tabifyDockWidget(breakdown_, recompute_);
    inspector_->raise();
}
