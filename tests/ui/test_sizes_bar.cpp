// The Sizes bar end to end, with the real loader on the bundled llama_dynamic (batch s52 and
// sequence s27 symbolic): it shows for a file with symbols only; a binding re-scores the timeline
// to exactly what `fxmem-cli peak --set` prints; "Largest that fits" gives `fxmem-cli fit`'s
// answer; the peak's label says fits / over against the device's memory. The pure parts (the log
// scale, the names, the memory sizes, the 64-bit field) are checked by hand.
#include "cli_json.h"
#include "mainwindow/mainwindow.h"
#include "mainwindow/windowparts.h"
#include "qtest_registry.h"
#include "sizes/devicememory.h"
#include "sizes/int64spinbox.h"
#include "sizes/logscale.h"
#include "sizes/sizesbar.h"
#include "sizes/symbollabel.h"
#include "state/viewstate.h"
#include "timeline/timelineplot.h"
#include "ui_open.h"
#include "util/units.h"

#include <fxmem/io.h>

#include <QComboBox>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardPaths>
#include <QToolButton>
#include <QtTest>

#include <algorithm>

class TestSizesBar : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void logScaleEndsAndOrder();
    void symbolNames();
    void memorySizes();
    void int64Field();
    void barOnlyForFilesWithSymbols();
    void bindingGivesTheCliPeak();
    void largestThatFitsIsFitsAnswer();
    void deviceLineSaysFitsOrOver();
};

namespace {

const QString kDynamic = QStringLiteral(FXMEM_EXAMPLES "/llama_dynamic.fxmem.json");
const QString kStatic = QStringLiteral(FXMEM_EXAMPLES "/llama.fxmem.json");

using ui_open::openAndWait;
using ui_open::realLoader;

// The forward/backward pair joined: its peak is the pair peak `fxmem-cli peak` prints.
bool showPair(MainWindow& w) {
    QSignalSpy shown(&w, &MainWindow::sceneShown);
    w.showGraph(-1, 0);
    return shown.wait(60000) && w.scene()->request.pair == 0;
}

std::int64_t cliPeak(const QString& set) {
    const QJsonObject o =
        cliJson({QStringLiteral("peak"), kDynamic, QStringLiteral("--set"), set, QStringLiteral("--json")});
    return o.contains(QStringLiteral("peak")) ? o.value(QStringLiteral("peak")).toInteger() : -1;
}

std::int64_t timelinePeak(const MainWindow& w) {
    const std::vector<std::int64_t>& p = w.parts().timeline->profile();
    return p.empty() ? -1 : *std::max_element(p.begin(), p.end());
}

bool boundAt(const MainWindow& w, const std::vector<std::int64_t>& values) {
    return w.scene() && w.scene()->file->symbolic.bound == values && !w.parts().sizes->pending();
}

} // namespace

void TestSizesBar::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("fxmem-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("test_sizes_bar"));
    QSettings().clear();
    ViewState().setUnits(ByteUnits::Binary);
}

void TestSizesBar::logScaleEndsAndOrder() {
    fxmem::Symbol s{"s0", 8, "", 2, std::nullopt};
    const LogScale unbounded = LogScale::of(s);
    QVERIFY(unbounded.capped);
    QCOMPARE(unbounded.max, std::int64_t{65536}); // max(64 x 8, 2^16)
    s.hint = 4096;
    QCOMPARE(LogScale::of(s).max, std::int64_t{262144}); // 64 x 4096
    s.max = 4096;
    const LogScale bounded = LogScale::of(s);
    QVERIFY(!bounded.capped);
    QCOMPARE(bounded.value(0), std::int64_t{2});
    QCOMPARE(bounded.value(LogScale::kSliderSteps), std::int64_t{4096});
    QCOMPARE(bounded.position(2), 0);
    QCOMPARE(bounded.position(4096), LogScale::kSliderSteps);
    QCOMPARE(bounded.position(1'000'000), LogScale::kSliderSteps); // beyond the end: pinned
    // Logarithmic: 64 sits near the middle of [2, 4096] (log2: 6 of 12), not at 1.5 %.
    QVERIFY(std::abs(bounded.position(64) - LogScale::kSliderSteps / 2) < 40);
    std::int64_t last = bounded.value(0);
    for (int p = 1; p <= LogScale::kSliderSteps; ++p) {
        const std::int64_t v = bounded.value(p);
        QVERIFY(v >= last);
        last = v;
    }
    // A range up to int64's maximum stays in range at every position.
    const fxmem::Symbol huge{"u0", 1, "", 0, INT64_MAX};
    const LogScale h = LogScale::of(huge);
    QCOMPARE(h.value(LogScale::kSliderSteps), INT64_MAX);
    QVERIFY(h.value(LogScale::kSliderSteps - 1) <= INT64_MAX && h.value(LogScale::kSliderSteps - 1) > 0);
}

void TestSizesBar::symbolNames() {
    const std::vector<fxmem::Symbol> llama = {{"s52", 8, "L['tokens'].size()[0]", 2, std::nullopt},
                                              {"s27", 48, "L['tokens'].size()[1]", 2, 4096}};
    QCOMPARE(symbolLabels(llama), (QStringList{QStringLiteral("batch"), QStringLiteral("sequence")}));
    QVERIFY(symbolTooltip(llama[0]).contains(QStringLiteral("s52")));
    QVERIFY(symbolTooltip(llama[1]).contains(QStringLiteral("[2, 4096]")));
    const std::vector<fxmem::Symbol> two = {{"s0", 8, "L['x'].size()[0]", 2, std::nullopt},
                                            {"s1", 8, "L['mask'].size()[0]", 2, std::nullopt},
                                            {"s2", 3, "L['x'].size()[2]", 2, std::nullopt},
                                            {"s3", 3, "L['cfg']['n']", 2, std::nullopt},
                                            {"u0", 3, "", 0, std::nullopt}};
    QCOMPARE(symbolLabels(two),
             (QStringList{QStringLiteral("batch (x)"), QStringLiteral("batch (mask)"), QStringLiteral("x dim 2"),
                          QStringLiteral("L['cfg']['n']"), QStringLiteral("u0")}));
}

void TestSizesBar::memorySizes() {
    QCOMPARE(parseDeviceMemory(QStringLiteral("80GB")), std::optional<std::int64_t>(80'000'000'000));
    QCOMPARE(parseDeviceMemory(QStringLiteral("24 GB · RTX 4090")), std::optional<std::int64_t>(24'000'000'000));
    QCOMPARE(parseDeviceMemory(QStringLiteral("80GiB")), std::optional<std::int64_t>(85'899'345'920));
    QCOMPARE(parseDeviceMemory(QStringLiteral("1.5 MiB")), std::optional<std::int64_t>(1'572'864));
    QCOMPARE(parseDeviceMemory(QStringLiteral("1000")), std::optional<std::int64_t>(1000));
    for (const char* bad : {"", "GB", "80 XB", "-1GB", "0", "1e30"})
        QVERIFY2(!parseDeviceMemory(QString::fromLatin1(bad)), bad);
    // The presets are the datasheets' GB, in bytes.
    std::vector<int> gb;
    for (const DevicePreset& p : devicePresets()) {
        gb.push_back(p.gb);
        QCOMPARE(p.bytes(), std::int64_t{p.gb} * 1'000'000'000);
        QCOMPARE(parseDeviceMemory(p.text()), std::optional<std::int64_t>(p.bytes()));
    }
    QCOMPARE(gb, (std::vector<int>{16, 24, 40, 48, 80, 94, 141, 192}));
}

void TestSizesBar::int64Field() {
    Int64SpinBox box;
    box.setRange(2, INT64_MAX);
    QSignalSpy changed(&box, &Int64SpinBox::valueChanged);
    box.findChild<QLineEdit*>()->setText(QStringLiteral("5000000000")); // over int's range: QSpinBox would refuse it
    emit box.editingFinished();
    QCOMPARE(box.value(), std::int64_t{5'000'000'000});
    QCOMPARE(changed.count(), 1);
    box.setValue(INT64_MAX);
    box.stepBy(5); // saturates
    QCOMPARE(box.value(), INT64_MAX);
    box.setValue(0); // clamped to the minimum
    QCOMPARE(box.value(), std::int64_t{2});
    QString text = QStringLiteral("12x");
    int pos = 0;
    QCOMPARE(box.validate(text, pos), QValidator::Invalid);
    text = QStringLiteral("99999999999999999999"); // beyond int64
    QCOMPARE(box.validate(text, pos), QValidator::Invalid);
}

void TestSizesBar::barOnlyForFilesWithSymbols() {
    MainWindow w(realLoader());
    w.show();
    SizesBar* bar = w.parts().sizes;
    QVERIFY(openAndWait(w, kDynamic));
    QVERIFY(bar->isVisibleTo(&w));
    QCOMPARE(bar->symbolCount(), 2);
    QCOMPARE(bar->label(0), QStringLiteral("batch"));
    QCOMPARE(bar->label(1), QStringLiteral("sequence"));
    QVERIFY(bar->slider(0)->toolTip().contains(QStringLiteral("L['tokens'].size()[0]")));
    QVERIFY(bar->slider(0)->toolTip().contains(QStringLiteral("no upper bound"))); // s52's range is [2, inf)
    QCOMPARE(bar->field(0)->value(), std::int64_t{8});
    QCOMPARE(bar->field(1)->value(), std::int64_t{48});
    QCOMPARE(bar->field(1)->maximum(), std::int64_t{4096});
    QVERIFY(openAndWait(w, kStatic));
    QVERIFY(!bar->isVisibleTo(&w));
    QCOMPARE(w.parts().timeline->deviceMemory(), std::int64_t{-1}); // the device line goes with the bar
    QVERIFY(openAndWait(w, kDynamic));
    QVERIFY(bar->isVisibleTo(&w));
}

void TestSizesBar::bindingGivesTheCliPeak() {
    MainWindow w(realLoader());
    w.show();
    QVERIFY(openAndWait(w, kDynamic));
    QVERIFY(showPair(w));
    SizesBar* bar = w.parts().sizes;
    QCOMPARE(timelinePeak(w), cliPeak(QStringLiteral("s52=8,s27=48"))); // the hints
    const auto layout = w.scene()->segments[1].layout;
    const std::int64_t cursor = w.state()->cursorStep();

    // Typed: both values, the second while the first is being computed (coalesced).
    bar->setValue(0, 64);
    bar->setValue(1, 1024);
    QTRY_VERIFY_WITH_TIMEOUT(boundAt(w, {64, 1024}), 60000);
    QCOMPARE(timelinePeak(w), cliPeak(QStringLiteral("s52=64,s27=1024")));
    QCOMPARE(w.scene()->peak, timelinePeak(w));
    QVERIFY(w.parts().timeline->peakText().contains(formatBytes(timelinePeak(w))));
    // The same view of the same graphs: the cursor stays, and every node is where it was.
    QCOMPARE(w.state()->cursorStep(), cursor);
    QCOMPARE(w.scene()->request.pair, 0);
    for (std::size_t i = 0; i < w.scene()->segments[1].analysis->graph().size(); ++i) {
        const fxmem::NodeId n(static_cast<std::int32_t>(i));
        QCOMPARE(w.scene()->segments[1].layout->step(n), layout->step(n));
        QCOMPARE(w.scene()->segments[1].layout->lane(n), layout->lane(n));
    }
    // The live storages follow: at the cursor they add up to the re-scored profile there.
    std::int64_t live = 0;
    for (const fxmem::LiveStorage& s : w.state()->liveAtCursor()->live) live += s.nbytes;
    QCOMPARE(live, w.scene()->profile[static_cast<std::size_t>(cursor)]);

    // Dragged: the slider's position gives a value on the log scale.
    const LogScale scale = LogScale::of(w.scene()->file->symbolic.symbols[0]);
    bar->slider(0)->setValue(700);
    const std::int64_t batch = scale.value(700);
    QCOMPARE(bar->field(0)->value(), batch);
    QTRY_VERIFY_WITH_TIMEOUT(boundAt(w, {batch, 1024}), 60000);
    QCOMPARE(timelinePeak(w), cliPeak(QStringLiteral("s52=%1,s27=1024").arg(batch)));
}

void TestSizesBar::largestThatFitsIsFitsAnswer() {
    MainWindow w(realLoader());
    w.show();
    QVERIFY(openAndWait(w, kDynamic));
    QVERIFY(showPair(w));
    SizesBar* bar = w.parts().sizes;
    QVERIFY(bar->setValues(QStringLiteral("sequence=1024")).isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(boundAt(w, {8, 1024}), 60000);
    // The 16 GB preset, chosen as a user would.
    QComboBox* gpu = bar->deviceCombo();
    const int preset = gpu->findData(QVariant::fromValue<qlonglong>(16'000'000'000));
    QVERIFY(preset > 0);
    gpu->setCurrentIndex(preset);
    emit gpu->activated(preset);
    QCOMPARE(bar->deviceMemory(), std::int64_t{16'000'000'000});
    QCOMPARE(bar->fitSymbol(), 0); // the batch by default
    QSignalSpy done(bar, &SizesBar::fitFinished);
    bar->fitButton()->click();
    QVERIFY(done.wait(60000));
    const QJsonObject fit = cliJson({QStringLiteral("fit"), kDynamic, QStringLiteral("--memory"),
                                     QStringLiteral("16GB"), QStringLiteral("--vary"), QStringLiteral("s52"),
                                     QStringLiteral("--set"), QStringLiteral("s27=1024"), QStringLiteral("--json")});
    const std::int64_t largest = fit.value(QStringLiteral("max_value")).toInteger(-1);
    QVERIFY(largest > 8);
    QTRY_VERIFY_WITH_TIMEOUT(boundAt(w, {largest, 1024}), 60000);
    QCOMPARE(bar->field(0)->value(), largest);
    QCOMPARE(timelinePeak(w), fit.value(QStringLiteral("peak_at_max")).toInteger());
    QVERIFY(bar->message().contains(QString::number(largest)));
    QVERIFY(w.parts().timeline->peakText().contains(QStringLiteral("fits, ")));
}

void TestSizesBar::deviceLineSaysFitsOrOver() {
    MainWindow w(realLoader());
    w.show();
    QVERIFY(openAndWait(w, kDynamic));
    QVERIFY(showPair(w));
    SizesBar* bar = w.parts().sizes;
    QVERIFY(bar->setValues(QStringLiteral("s52=512,L['tokens'].size()[1]=1024")).isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(boundAt(w, {512, 1024}), 60000);
    const std::int64_t peak = cliPeak(QStringLiteral("s52=512,s27=1024")); // 18.1 GiB
    QVERIFY(peak > 16'000'000'000 && peak < 24'000'000'000);
    bar->setDeviceMemory(24'000'000'000);
    QCOMPARE(w.parts().timeline->deviceMemory(), std::int64_t{24'000'000'000});
    QVERIFY2(w.parts().timeline->peakText().endsWith(
                 QStringLiteral("fits, %1 free").arg(formatBytes(24'000'000'000 - peak))),
             qPrintable(w.parts().timeline->peakText()));
    bar->setDeviceMemory(16'000'000'000);
    QCOMPARE(w.parts().timeline->deviceMemory(), std::int64_t{16'000'000'000});
    QVERIFY2(
        w.parts().timeline->peakText().endsWith(QStringLiteral("over by %1").arg(formatBytes(peak - 16'000'000'000))),
        qPrintable(w.parts().timeline->peakText()));
    // A size typed into the box.
    bar->deviceCombo()->setEditText(QStringLiteral("20GiB"));
    emit bar->deviceCombo()->lineEdit()->editingFinished();
    QCOMPARE(w.parts().timeline->deviceMemory(), std::int64_t{20} << 30);
    bar->deviceCombo()->setEditText(QStringLiteral("lots"));
    emit bar->deviceCombo()->lineEdit()->editingFinished();
    QCOMPARE(w.parts().timeline->deviceMemory(), std::int64_t{20} << 30); // refused: unchanged
    QVERIFY(bar->message().contains(QStringLiteral("Not a memory size")));
}

FXMEM_QTEST(TestSizesBar)
#include "test_sizes_bar.moc"
