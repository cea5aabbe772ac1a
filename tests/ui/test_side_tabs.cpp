// The side docks come from one table (sidetabs.cpp): the View menu lists them in its order, the
// saved window state finds them by their object names, --tab raises them by name, and the
// window's parts point at the panels the table made.
#include "inspector/nodeinspector.h"
#include "mainwindow/docklayout.h"
#include "mainwindow/mainwindow.h"
#include "mainwindow/sidetabs.h"
#include "mainwindow/windowparts.h"
#include "panels/breakdownpanel.h"
#include "panels/livestoragepanel.h"
#include "panels/schedulepanel.h"
#include "qtest_registry.h"
#include "recompute/recomputepanel.h"

#include "ui_fixtures.h"

#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QStandardPaths>
#include <QTabBar>
#include <QtTest>

class TestSideTabs : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void namesAndChoices();
    void docksMenuAndRaise();
};

namespace {
// The current tab of the side docks' tab bar (the one with a tab per tabbed dock).
QString currentTab(MainWindow& w) {
    for (QTabBar* b : w.findChildren<QTabBar*>())
        if (b->count() == 4) return b->tabText(b->currentIndex());
    return {};
}
} // namespace

void TestSideTabs::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("fxmem-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("test_side_tabs"));
    QSettings().clear();
}

void TestSideTabs::namesAndChoices() {
    QCOMPARE(sideTabNames(), (QStringList{QStringLiteral("node"), QStringLiteral("schedule"),
                                          QStringLiteral("breakdown"), QStringLiteral("recompute")}));
    QCOMPARE(sideTabChoices(), QStringLiteral("node, schedule, breakdown or recompute"));
}

void TestSideTabs::docksMenuAndRaise() {
    MainWindow w(fixtures::fakeLoader());
    w.resize(1366, 768);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const WindowParts& p = w.parts();
    // Every panel the table makes is in the parts, inside the dock of its row.
    const std::vector<std::pair<const char*, QWidget*>> docks = {{"liveDock", p.livePanel},
                                                                 {"inspectorDock", p.inspector},
                                                                 {"scheduleDock", p.schedulePanel},
                                                                 {"breakdownDock", p.breakdown},
                                                                 {"recomputeDock", p.recompute}};
    for (const auto& [name, panel] : docks) {
        auto* d = w.findChild<QDockWidget*>(QLatin1String(name));
        QVERIFY2(d, name);
        QVERIFY(panel);
        QCOMPARE(d->widget(), panel);
    }
    QVERIFY(p.editor);
    // The View menu ends with the docks' show/hide entries, in the table's order.
    QMenu* view = nullptr;
    for (QAction* a : w.menuBar()->actions())
        if (a->text() == QStringLiteral("&View")) view = a->menu();
    QVERIFY(view);
    QStringList entries;
    for (QAction* a : view->actions()) entries.push_back(a->text());
    QVERIFY2(entries.size() >= 5, qPrintable(entries.join(QLatin1Char('|'))));
    QCOMPARE(entries.mid(entries.size() - 5),
             (QStringList{QStringLiteral("Live storages"), QStringLiteral("Node"), QStringLiteral("Schedule"),
                          QStringLiteral("Breakdown"), QStringLiteral("Recompute")}));
    // The tabs share one place below the live table, the node tab on top at the start.
    auto* node = w.findChild<QDockWidget*>(QStringLiteral("inspectorDock"));
    QCOMPARE(w.tabifiedDockWidgets(node).size(), 3);
    QVERIFY(w.tabifiedDockWidgets(w.findChild<QDockWidget*>(QStringLiteral("liveDock"))).isEmpty());
    // (Qt keeps a tabbed dock "visible" behind the current one: the tab bar says which is shown.)
    QCoreApplication::sendPostedEvents(); // the dock area's tab bar is made by the layout
    QCOMPARE(currentTab(w), QStringLiteral("Node"));
    // Raising by --tab name shows that tab; a name not in the table raises nothing.
    QVERIFY(p.docks->raise(QStringLiteral("breakdown")));
    QCoreApplication::sendPostedEvents();
    QCOMPARE(currentTab(w), QStringLiteral("Breakdown"));
    QVERIFY(!p.docks->raise(QStringLiteral("live")));
    QVERIFY(!p.docks->raise(QStringLiteral("bogus")));
    QCoreApplication::sendPostedEvents();
    QCOMPARE(currentTab(w), QStringLiteral("Breakdown"));
}

FXMEM_QTEST(TestSideTabs)
#include "test_side_tabs.moc"
