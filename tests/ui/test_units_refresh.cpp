// A change of byte units in ViewState reaches the panels that show bytes at once, not at the next
// cursor step: the summary, the timeline's peak, the live table's footer and the breakdown's
// header, read in binary units, then again after ViewState::setUnits; the peak's text in both
// units worked out by hand here.
#include "mainwindow/mainwindow.h"
#include "panels/breakdownpanel.h"
#include "panels/livestoragepanel.h"
#include "panels/summarybar.h"
#include "qtest_registry.h"
#include "state/viewstate.h"
#include "timeline/timelineplot.h"
#include "ui_open.h"
#include "util/units.h"

#include <QCoreApplication>

#include <QLabel>
#include <QSettings>
#include <QStandardPaths>
#include <QtTest>
#include <array>
#include <cstdio>
#include <cstdlib>

namespace {

// `bytes` as the app should show it, worked out here (not with formatBytes): divided by `base`
// while at least `base`, three significant digits (2, 1 or 0 decimals, printed by snprintf), and
// a rounding that reaches `base` carried into the next unit.
QString byHand(std::int64_t bytes, long double base, const std::array<const char*, 5>& names) {
    long double v = static_cast<long double>(bytes);
    std::size_t unit = 0;
    for (; v >= base && unit + 1 < names.size(); ++unit) v /= base;
    if (unit == 0) return QString::number(bytes) + QStringLiteral(" B");
    char text[64];
    int decimals = v < 10 ? 2 : v < 100 ? 1 : 0;
    std::snprintf(text, sizeof text, "%.*Lf", decimals, v);
    if (std::strtold(text, nullptr) >= base && unit + 1 < names.size()) {
        ++unit;
        std::snprintf(text, sizeof text, "%.2Lf", v / base);
    }
    return QString::fromLatin1(text) + QLatin1Char(' ') + QString::fromLatin1(names[unit]);
}

const std::array<const char*, 5> kBinaryUnits = {"B", "KiB", "MiB", "GiB", "TiB"};
const std::array<const char*, 5> kDecimalUnits = {"B", "kB", "MB", "GB", "TB"};

} // namespace

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
    const QString binaryPeak = byHand(peak, 1024, kBinaryUnits);
    const QStringList before = texts();
    QVERIFY2(before[0].contains(binaryPeak), qPrintable(before[0]));
    QVERIFY2(before[1].contains(binaryPeak), qPrintable(before[1]));
    for (const QString& t : before) QVERIFY2(t.contains(QStringLiteral("iB")), qPrintable(t));

    QSignalSpy changed(state, &ViewState::unitsChanged);
    state->setUnits(ByteUnits::Decimal);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(state->units(), ByteUnits::Decimal);
    // By hand, whatever the peak's size (MB or GB): three significant digits in powers of 1000.
    const QString decimalPeak = byHand(peak, 1000, kDecimalUnits);
    QVERIFY(decimalPeak != binaryPeak);
    const QStringList after = texts();
    QVERIFY2(after[0].contains(decimalPeak), qPrintable(QString(after[0] + QStringLiteral(" / ") + decimalPeak)));
    QVERIFY2(after[1].contains(decimalPeak), qPrintable(QString(after[1] + QStringLiteral(" / ") + decimalPeak)));
    for (const QString& t : after) QVERIFY2(!t.contains(QStringLiteral("iB")), qPrintable(t));
    state->setUnits(ByteUnits::Binary);
    QCOMPARE(texts(), before);
}

FXMEM_QTEST(TestUnitsRefresh)
#include "test_units_refresh.moc"
