// The side panels share the window's width with the views in proportion, and remember the share
// the user dragged them to: at 1920 px the live table got a fixed 560 px, so "Why live" was cut.
#include "mainwindow/appsettings.h"
#include "mainwindow/docklayout.h"
#include "mainwindow/mainwindow.h"
#include "mainwindow/sidepanelwidth.h"
#include "qtest_registry.h"

#include "ui_fixtures.h"

#include <QDockWidget>
#include <QSettings>
#include <QStandardPaths>
#include <QtTest>

class TestSidePanels : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void sharesWidthInProportionAndRemembersIt();
};

namespace {
QDockWidget* liveDock(MainWindow& w) { return w.findChild<QDockWidget*>(QStringLiteral("liveDock")); }

// Resizes the window, waits until it has that size, and delivers the share queued on its resize
// (SidePanelWidth applies it after the window's layout) and the layout that follows.
bool sized(MainWindow& w, int width, int height) {
    w.resize(width, height);
    if (!QTest::qWaitFor([&] { return w.size() == QSize(width, height); })) return false;
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
    return true;
}

bool near(int value, double expected, int tolerance = 12) { return std::abs(value - expected) <= tolerance; }
} // namespace

void TestSidePanels::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("fxmem-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("test_side_panels"));
    QSettings().clear();
}

void TestSidePanels::sharesWidthInProportionAndRemembersIt() {
    const double share = SidePanelWidth::kDefaultFraction;
    double dragged = 0;
    {
        MainWindow w(fixtures::fakeLoader());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(sized(w, 1920, 1080));
        QDockWidget* dock = liveDock(w);
        QVERIFY(dock);
        QVERIFY2(near(dock->width(), share * 1920), qPrintable(QString::number(dock->width())));
        QVERIFY(dock->width() > 600); // more than the fixed 560 px it had
        // A narrower window: the panels shrink with it, in proportion.
        QVERIFY(sized(w, 1366, 768));
        QVERIFY2(near(dock->width(), share * 1366), qPrintable(QString::number(dock->width())));
        // The user drags the dock's edge (the window keeps its width): that share is kept ...
        w.resizeDocks({dock}, {640}, Qt::Horizontal);
        QCoreApplication::sendPostedEvents(); // the layout request that resizes the dock
        QCoreApplication::processEvents();
        dragged = static_cast<double>(dock->width()) / 1366;
        QVERIFY2(dragged > share + 0.05, qPrintable(QString::number(dock->width())));
        QCOMPARE(w.parts().docks->sideWidth()->fraction(), dragged);
        QVERIFY(sized(w, 1600, 900));
        QVERIFY2(near(dock->width(), dragged * 1600), qPrintable(QString::number(dock->width())));
    }
    // ... and remembered by the next window.
    QCOMPARE(AppSettings::sidePanelFraction(), dragged);
    MainWindow w(fixtures::fakeLoader());
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(sized(w, 1920, 1080));
    QVERIFY2(near(liveDock(w)->width(), dragged * 1920), qPrintable(QString::number(liveDock(w)->width())));
}

FXMEM_QTEST(TestSidePanels)
#include "test_side_panels.moc"
