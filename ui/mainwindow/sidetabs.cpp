#include "mainwindow/sidetabs.h"

#include "inspector/nodeinspector.h"
#include "mainwindow/windowparts.h"
#include "panels/breakdownpanel.h"
#include "panels/livestoragepanel.h"
#include "panels/schedulepanel.h"
#include "recompute/recomputepanel.h"
#include "schedule/scheduleeditor.h"
#include "state/viewstate.h"

#include <QtGlobal>

#include <array>

namespace {

const std::array kSideTabs{
    SideTab{nullptr, "liveDock", QT_TRANSLATE_NOOP("DockLayout", "Live storages"), false,
            [](ViewState* state, WindowParts& p) -> QWidget* { return p.livePanel = new LiveStoragePanel(state); }},
    SideTab{"node", "inspectorDock", QT_TRANSLATE_NOOP("DockLayout", "Node"), false,
            [](ViewState* state, WindowParts& p) -> QWidget* { return p.inspector = new NodeInspector(state); }},
    SideTab{"schedule", "scheduleDock", QT_TRANSLATE_NOOP("DockLayout", "Schedule"), false,
            [](ViewState* state, WindowParts& p) -> QWidget* {
                p.editor = new ScheduleEditor(state);
                return p.schedulePanel = new SchedulePanel(state, p.editor);
            }},
    SideTab{"breakdown", "breakdownDock", QT_TRANSLATE_NOOP("DockLayout", "Breakdown"), false,
            [](ViewState* state, WindowParts& p) -> QWidget* { return p.breakdown = new BreakdownPanel(state); }},
    SideTab{"recompute", "recomputeDock", QT_TRANSLATE_NOOP("DockLayout", "Recompute"), true,
            [](ViewState* state, WindowParts& p) -> QWidget* { return p.recompute = new RecomputePanel(state); }},
};

} // namespace

std::span<const SideTab> sideTabs() { return kSideTabs; }

QStringList sideTabNames() {
    QStringList names;
    for (const SideTab& t : kSideTabs)
        if (t.name) names.push_back(QLatin1String(t.name));
    return names;
}

QString sideTabChoices() {
    QStringList names = sideTabNames();
    if (names.size() < 2) return names.join(QString());
    const QString last = names.takeLast();
    return names.join(QStringLiteral(", ")) + QStringLiteral(" or ") + last;
}
