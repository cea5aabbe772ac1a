// A change of byte units in ViewState reaches the panels that show bytes at once, not at the next
// cursor step: the summary, the timeline's peak, the live table's footer and the breakdown's
// header, read in binary units, then again after ViewState::setUnits.
#include "mainwindow/mainwindow.h"
#include "panels/breakdownpanel.h"
#include "panels/livestoragepanel.h"
#include "panels/summarybar.h"
#include "state/viewstate.h"
#include "timeline/timelineplot.h"
#include "ui_open.h"
#include "util/units.h"

#include <QCoreApplication>
#include <QLabel>
#include <QSettings>
#include <QStandardPaths>
#include <QtTest>

class TestUnitsRefresh : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void everyPanelFollowsTheUnits();
};

void TestUnitsRefresh::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("fxmem-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("test_units_refresh"));
    QSettings().clear();
}

void TestUnitsRefresh::everyPanelFollowsTheUnits() {
    MainWindow w(ui_open::realLoader());
    w.show();
    QVERIFY(ui_open::openAndWait(w, QStringLiteral(FXMEM_EXAMPLES "/llama.fxmem.json")));
    ViewState* state = w.state();
    state->setUnits(ByteUnits::Binary);
    w.parts().breakdown->show();
    w.parts().breakdown->refresh();
    const std::int64_t peak = w.scene()->peak;
    QVERIFY(peak > 1000 * 1000); // MiB and MB differ in their digits as well as the name

    auto texts = [&] {
        return QStringList{w.parts().summary->text(), w.parts().timeline->peakText(),
                           w.parts().livePanel->footerLabel()->text(), w.parts().breakdown->headerLabel()->text()};
    };
    const QString binaryPeak = formatBytes(peak);
    const QStringList before = texts();
    QVERIFY2(before[0].contains(binaryPeak), qPrintable(before[0]));
    QVERIFY2(before[1].contains(binaryPeak), qPrintable(before[1]));
    for (const QString& t : before) QVERIFY2(t.contains(QStringLiteral("iB")), qPrintable(t));

    QSignalSpy changed(state, &ViewState::unitsChanged);
    state->setUnits(ByteUnits::Decimal);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(state->units(), ByteUnits::Decimal);
    // By hand: the peak in MB with three significant digits.
    const double mb = static_cast<double>(peak) / 1e6;
    const QString decimalPeak = mb < 10    ? QString::number(mb, 'f', 2) + QStringLiteral(" MB")
                                : mb < 100 ? QString::number(mb, 'f', 1) + QStringLiteral(" MB")
                                           : QString::number(mb, 'f', 0) + QStringLiteral(" MB");
    const QStringList after = texts();
    QVERIFY2(mb >= 1000 || after[0].contains(decimalPeak),
             qPrintable(QString(after[0] + QStringLiteral(" / ") + decimalPeak)));
    QVERIFY2(mb >= 1000 || after[1].contains(decimalPeak),
             qPrintable(QString(after[1] + QStringLiteral(" / ") + decimalPeak)));
    for (const QString& t : after) QVERIFY2(!t.contains(QStringLiteral("iB")), qPrintable(t));
    state->setUnits(ByteUnits::Binary);
    QCOMPARE(texts(), before);
}

QTEST_MAIN(TestUnitsRefresh)
#include "test_units_refresh.moc"
