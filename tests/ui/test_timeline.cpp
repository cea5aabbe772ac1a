// Timeline pieces: min/max downsampling (no peak and no free lost), byte formatting in both unit
// systems, the plot's cursor and zoom clamping, section labels that never overprint, whole-step
// tick labels, and exports with a title and legend but without the hover box.
#include "qtest_registry.h"
#include "state/viewstate.h"
#include "timeline/downsample.h"
#include "timeline/plotexport.h"
#include "timeline/qcp.h"
#include "timeline/timelinekeys.h"
#include "timeline/timelineplot.h"
#include "util/units.h"

#include <QLineEdit>
#include <QSignalSpy>
#include <QtTest>

class TestTimeline : public QObject {
    Q_OBJECT
private slots:
    void smallRangesAreKeptAsIs();
    void bucketsKeepTheirMinimumAndMaximum();
    void zoomedOutPlotKeepsFrees();
    void sectionLabelsNeverOverprint();
    void sectionLabelsGiveWayToThePeakLabel();
    void wholeStepSectionLabelsStayBesideThePeakLabel();
    void cursorBoxOnlyWhileHoveredOrWalked();
    void peakLabelHiddenWhenThePeakIsOutOfView();
    void tinyProfilesHaveWholeStepTicks();
    void exportHasTitleAndLegendButNoHoverBox();
    void lowerBoundAndComparison();
    void formatsBytes();
    void cursorAndZoom();
    void cursorMoveReplotsOnlyItsLayer();
    void exportsEveryFormat();
    void keysMoveTheCursor();
    void dataChangesReplotOnce();
    void clickOnTheChartFocusesThePlot();
};

void TestTimeline::smallRangesAreKeptAsIs() {
    const std::vector<std::int64_t> v = {5, 1, 7, 3};
    QVector<double> keys, out;
    downsampleMinMax(v, 1, 3, 10, keys, out);
    QCOMPARE(keys, (QVector<double>{1, 2, 3}));
    QCOMPARE(out, (QVector<double>{1, 7, 3}));
    downsampleMinMax(v, 3, 1, 10, keys, out); // empty range
    QVERIFY(keys.isEmpty());
}

void TestTimeline::bucketsKeepTheirMinimumAndMaximum() {
    // 12 values into 3 buckets of 4, each giving its min and max at their own index, in index
    // order: [1 9 2 3] -> (0: 1), (1: 9); [4 4 8 0] -> (6: 8), (7: 0); [6 5 1 2] -> (8: 6),
    // (10: 1); plus the last point (11: 2).
    const std::vector<std::int64_t> v = {1, 9, 2, 3, 4, 4, 8, 0, 6, 5, 1, 2};
    QVector<double> keys, out;
    downsampleMinMax(v, 0, 11, 3, keys, out);
    QCOMPARE(keys, (QVector<double>{0, 1, 6, 7, 8, 10, 11}));
    QCOMPARE(out, (QVector<double>{1, 9, 8, 0, 6, 1, 2}));
    // A flat bucket gives one point.
    const std::vector<std::int64_t> flat4 = {3, 3, 3, 3, 3, 3, 3, 3, 3};
    downsampleMinMax(flat4, 0, 8, 3, keys, out);
    QCOMPARE(keys, (QVector<double>{0, 3, 6, 8}));
    // A single spike and a single dip in a long flat profile survive any bucket count; every
    // key is a real index whose value is drawn.
    std::vector<std::int64_t> flat(100000, 10);
    flat[77777] = 1000;
    flat[33333] = 2;
    downsampleMinMax(flat, 0, flat.size() - 1, 640, keys, out);
    QVERIFY(keys.size() <= 2 * 640 + 1);
    QCOMPARE(*std::max_element(out.begin(), out.end()), 1000.0);
    QCOMPARE(*std::min_element(out.begin(), out.end()), 2.0);
    QVector<double> sampled;
    sampleAt(flat, keys, sampled);
    QCOMPARE(sampled, out);
}

// A synthetic profile: a staircase of allocations with one short free (a dip to 1 KiB) and one
// short spike, 200k steps on an 800-pixel plot. Zoomed out, the drawn curve must still reach
// down to the free and up to the spike.
void TestTimeline::zoomedOutPlotKeepsFrees() {
    std::vector<std::int64_t> profile(200000);
    for (std::size_t i = 0; i < profile.size(); ++i) profile[i] = (std::int64_t(1) << 20) + std::int64_t(i % 1000) * 64;
    profile[123457] = 1024;                 // everything freed for one step
    profile[54321] = std::int64_t(9) << 20; // the peak
    TimelinePlot plot;
    plot.resize(800, 300);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setProfile(profile, 54321);
    const QSharedPointer<QCPGraphDataContainer> data = plot.chart()->graph(0)->data();
    QVERIFY(data->size() < 4000); // reduced to a few points per pixel
    double lo = 1e300, hi = -1e300;
    for (const QCPGraphData& d : *data) lo = std::min(lo, d.value), hi = std::max(hi, d.value);
    QCOMPARE(hi, double(std::int64_t(9) << 20));
    QCOMPARE(lo, 1024.0);
}

void TestTimeline::sectionLabelsNeverOverprint() {
    // A joined pair whose forward is 4 steps of 1000: zoomed out, "forward" has 3 px of room.
    std::vector<std::int64_t> profile(1000, 100);
    TimelinePlot plot;
    plot.resize(800, 300);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setProfile(profile, 0, {{0, QStringLiteral("forward")}, {4, QStringLiteral("backward")}});
    const auto labels = [&] {
        plot.chart()->replot(QCustomPlot::rpImmediateRefresh);
        std::vector<std::pair<QString, QRectF>> out;
        for (int i = 0; i < plot.chart()->itemCount(); ++i) {
            auto* t = qobject_cast<QCPItemText*>(plot.chart()->item(i));
            if (!t || !t->visible() ||
                !(t->text() == QStringLiteral("forward") || t->text() == QStringLiteral("backward") ||
                  t->text().endsWith(QStringLiteral("…"))))
                continue;
            out.emplace_back(t->text(), QRectF(t->topLeft->pixelPosition(), t->bottomRight->pixelPosition()));
        }
        return out;
    };
    const auto noOverlap = [](const std::vector<std::pair<QString, QRectF>>& ls) {
        for (std::size_t i = 0; i < ls.size(); ++i)
            for (std::size_t j = i + 1; j < ls.size(); ++j)
                if (ls[i].second.intersects(ls[j].second)) return false;
        return true;
    };
    auto shown = labels();
    QVERIFY(noOverlap(shown));
    QVERIFY(
        std::any_of(shown.begin(), shown.end(), [](const auto& l) { return l.first == QStringLiteral("backward"); }));
    // Zoomed in around the boundary: both whole, side by side.
    plot.setXRange(-0.5, 9.5);
    shown = labels();
    QCOMPARE(shown.size(), std::size_t(2));
    QVERIFY(noOverlap(shown));
    // Zoomed into the backward alone: its label stays at the plot's left edge.
    plot.setXRange(500, 600);
    shown = labels();
    QCOMPARE(shown.size(), std::size_t(1));
    QCOMPARE(shown.front().first, QStringLiteral("backward"));
    QVERIFY(shown.front().second.left() >= plot.chart()->axisRect()->rect().left());
}

void TestTimeline::sectionLabelsGiveWayToThePeakLabel() {
    // The llama pair on a laptop: a short plot, the peak just after the forward/backward boundary,
    // so the peak's label reaches the top row where "backward" sits.
    std::vector<std::int64_t> profile(4000);
    for (std::size_t i = 0; i < profile.size(); ++i)
        profile[i] = 1000 + static_cast<std::int64_t>(i < 1700 ? i : 3400 - i);
    TimelinePlot plot;
    plot.resize(700, 170);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setProfile(profile, 1700, {{0, QStringLiteral("forward")}, {1690, QStringLiteral("backward")}});
    plot.chart()->replot(QCustomPlot::rpImmediateRefresh);
    QCPItemText* peak = nullptr;
    std::vector<QCPItemText*> sections;
    for (int i = 0; i < plot.chart()->itemCount(); ++i) {
        auto* t = qobject_cast<QCPItemText*>(plot.chart()->item(i));
        if (!t || !t->visible()) continue;
        if (t->text().startsWith(QStringLiteral("peak ")))
            peak = t;
        else if (t->text() == QStringLiteral("forward") || t->text().startsWith(QStringLiteral("back")) ||
                 t->text().startsWith(QStringLiteral("b")))
            sections.push_back(t);
    }
    QVERIFY(peak);
    QVERIFY(!sections.empty()); // "forward" at least keeps its place
    const QRectF peakBox(peak->topLeft->pixelPosition(), peak->bottomRight->pixelPosition());
    for (QCPItemText* t : sections) {
        const QRectF box(t->topLeft->pixelPosition(), t->bottomRight->pixelPosition());
        QVERIFY2(!box.intersects(peakBox), qPrintable(QStringLiteral("'%1' overprints the peak label").arg(t->text())));
    }
}

void TestTimeline::wholeStepSectionLabelsStayBesideThePeakLabel() {
    // gpt_break's whole step as the app shows it at 1366x768 (a 1,066-step profile, four graph
    // runs, the peak at step 419 just before region1.backward starts, a long node name): the
    // centred peak label spanned region1.forward and the start of region1.backward, whose names
    // were hidden under it, and it was cut at the plot's left edge.
    std::vector<std::int64_t> profile(1066);
    for (std::size_t i = 0; i < profile.size(); ++i)
        profile[i] = 10'000'000 + static_cast<std::int64_t>(i <= 419 ? i * 90'000 : (1066 - i) * 40'000);
    const std::vector<TimelinePlot::Marker> sections = {{0, QStringLiteral("region0.forward")},
                                                        {130, QStringLiteral("region1.forward")},
                                                        {420, QStringLiteral("region1.backward")},
                                                        {850, QStringLiteral("region0.backward")}};
    for (const QSize size : {QSize(540, 190), QSize(700, 220)}) {
        const bool stacked = size.width() > 600; // as the app's role mode: bands and a legend beside
        TimelinePlot plot;
        plot.setStepDescriber(
            [](std::int64_t, bool) { return QStringLiteral("region1.backward: scatter_add (after alloc)"); });
        plot.resize(size);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        plot.setProfile(profile, 419, sections);
        if (stacked) {
            // The legend narrows the plot when the replot lays it out, after the labels were placed.
            TimelinePlot::Band params{QStringLiteral("parameter"), QColor(Qt::blue), {}}, acts = params;
            acts.name = QStringLiteral("activation");
            for (const std::int64_t v : profile) {
                params.values.push_back(10'000'000);
                acts.values.push_back(v - 10'000'000);
            }
            plot.setStackedBands({params, acts});
        }
        plot.chart()->replot(QCustomPlot::rpImmediateRefresh);
        QVERIFY(plot.chart()->legend->visible() == stacked);
        const QRect area = plot.chart()->axisRect()->rect();
        QCPItemText* peak = nullptr;
        std::vector<QCPItemText*> labels;
        for (int i = 0; i < plot.chart()->itemCount(); ++i) {
            auto* t = qobject_cast<QCPItemText*>(plot.chart()->item(i));
            if (t && t->text().startsWith(QStringLiteral("peak ")))
                peak = t;
            else if (t && t->position->typeX() == QCPItemPosition::ptAbsolute) // placed in pixels: a section's
                labels.push_back(t);
        }
        QVERIFY(peak && peak->visible());
        const QRectF peakBox(peak->topLeft->pixelPosition(), peak->bottomRight->pixelPosition());
        // Whole inside the plot: nothing of it cut at an edge.
        QVERIFY2(peakBox.left() >= area.left() - 1 && peakBox.right() <= area.right() + 1,
                 qPrintable(QStringLiteral("peak label %1..%2 outside the plot %3..%4")
                                .arg(peakBox.left())
                                .arg(peakBox.right())
                                .arg(area.left())
                                .arg(area.right())));
        // Every section wide enough for a few letters shows its name, clear of the peak label.
        QCOMPARE(labels.size(), sections.size());
        for (std::size_t i = 0; i < sections.size(); ++i) {
            const double from = plot.chart()->xAxis->coordToPixel(static_cast<double>(sections[i].step) - 0.5);
            const double to = i + 1 < sections.size()
                                  ? plot.chart()->xAxis->coordToPixel(static_cast<double>(sections[i + 1].step) - 0.5)
                                  : area.right();
            if (to - from < 60) continue;
            QCPItemText* t = labels[i];
            QVERIFY2(
                t->visible() && !t->text().isEmpty(),
                qPrintable(QStringLiteral("%1 (%2 px wide) hides its name").arg(sections[i].label).arg(to - from)));
            const QRectF box(t->topLeft->pixelPosition(), t->bottomRight->pixelPosition());
            QVERIFY2(!box.intersects(peakBox), qPrintable(QStringLiteral("'%1' under the peak label").arg(t->text())));
        }
    }
}

namespace {
// A mouse move over the chart (QTest::mouseMove drops a move to where the mouse already is).
void hoverAt(QWidget* chart, QPoint at) {
    QMouseEvent move(QEvent::MouseMove, QPointF(at), chart->mapToGlobal(QPointF(at)), Qt::NoButton, Qt::NoButton,
                     Qt::NoModifier);
    QCoreApplication::sendEvent(chart, &move);
}
} // namespace

void TestTimeline::cursorBoxOnlyWhileHoveredOrWalked() {
    // At 1366x768 the box stayed over the curves after the file opened on its peak (the cursor
    // set by another view), with no mouse on the plot.
    TimelinePlot plot;
    plot.resize(700, 240);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setProfile({10, 20, 40, 30, 30, 20, 10, 5, 5, 5}, 2);
    // Set from outside: the line at the step, no box; its text is there for whoever asks.
    plot.setCursorStep(2);
    QCOMPARE(plot.cursorStep(), std::int64_t(2));
    QVERIFY(!plot.cursorBoxVisible());
    QVERIFY(plot.cursorText().contains(QStringLiteral("step 2")));
    // The mouse over the plot: the box, at the step under it.
    const QRect area = plot.chart()->axisRect()->rect();
    const QPoint at(static_cast<int>(plot.chart()->xAxis->coordToPixel(6)), area.center().y());
    hoverAt(plot.chart(), at);
    QCOMPARE(plot.cursorStep(), std::int64_t(6));
    QVERIFY(plot.cursorBoxVisible());
    // The same step set again from outside (the state echoing the hover) keeps it.
    plot.setCursorStep(6);
    QVERIFY(plot.cursorBoxVisible());
    // The mouse leaves: the box goes, the line stays.
    QEvent leave(QEvent::Leave);
    QCoreApplication::sendEvent(&plot, &leave);
    QVERIFY(!plot.cursorBoxVisible());
    QCOMPARE(plot.cursorStep(), std::int64_t(6));
    // Below the plot area (over the axis), no box either.
    hoverAt(plot.chart(), at);
    QVERIFY(plot.cursorBoxVisible());
    hoverAt(plot.chart(), QPoint(at.x(), area.bottom() + 10));
    QVERIFY(!plot.cursorBoxVisible());
    // Walking with the keys shows it; another view moving the cursor hides it.
    QTest::keyClick(&plot, Qt::Key_Right);
    QCOMPARE(plot.cursorStep(), std::int64_t(7));
    QVERIFY(plot.cursorBoxVisible());
    plot.setCursorStep(3);
    QVERIFY(!plot.cursorBoxVisible());
    QVERIFY(plot.cursorText().contains(QStringLiteral("step 3")));
}

void TestTimeline::peakLabelHiddenWhenThePeakIsOutOfView() {
    // Zoomed to steps 100..300 of a profile peaking at 900, the peak label (anchored at 900)
    // would be drawn cut off at the plot's right edge.
    std::vector<std::int64_t> profile(1000);
    for (std::size_t i = 0; i < profile.size(); ++i) profile[i] = static_cast<std::int64_t>(i);
    TimelinePlot plot;
    plot.resize(800, 300);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setProfile(profile, 999);
    const auto peakLabelVisible = [&] {
        for (int i = 0; i < plot.chart()->itemCount(); ++i)
            if (auto* t = qobject_cast<QCPItemText*>(plot.chart()->item(i));
                t && t->text().startsWith(QStringLiteral("peak ")))
                return t->visible();
        return false;
    };
    QVERIFY(peakLabelVisible());
    plot.setXRange(100, 300);
    QVERIFY(!peakLabelVisible());
    plot.resetZoom();
    QVERIFY(peakLabelVisible());
}

void TestTimeline::tinyProfilesHaveWholeStepTicks() {
    for (const std::vector<std::int64_t>& profile :
         {std::vector<std::int64_t>{0, 8}, std::vector<std::int64_t>{0, 8, 8}}) {
        TimelinePlot plot;
        plot.resize(800, 300);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        plot.setProfile(profile, 1);
        plot.chart()->replot(QCustomPlot::rpImmediateRefresh);
        const QVector<QString> labels = plot.chart()->xAxis->tickVectorLabels();
        const QVector<double> ticks = plot.chart()->xAxis->tickVector();
        QVERIFY(!labels.isEmpty());
        QStringList seen;
        for (int i = 0; i < labels.size(); ++i) {
            QVERIFY2(!seen.contains(labels[i]), qPrintable(QStringList(labels.toList()).join(QStringLiteral(", "))));
            seen << labels[i];
            QCOMPARE(ticks[i], std::round(ticks[i]));
            QVERIFY2(!labels[i].startsWith(QLatin1Char('-')), qPrintable(labels[i]));
        }
    }
}

void TestTimeline::exportHasTitleAndLegendButNoHoverBox() {
    TimelinePlot plot;
    plot.resize(640, 240);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setProfile({100, 110, 110, 130, 120, 120, 120}, 3);
    plot.setOverlay({100, 110, 110, 125, 120, 120, 120}, 3, QStringLiteral("edited peak 125 B"));
    plot.setTitle(QStringLiteral("chain.json · chain"));
    plot.setCursorStep(5);
    QVERIFY(plot.cursorText().contains(QStringLiteral("step 5")));
    QTemporaryDir dir;
    QString error;
    const QString path = dir.filePath(QStringLiteral("t.svg"));
    QVERIFY2(PlotExport::save(plot, path, &error), qPrintable(error));
    QFile svg(path);
    QVERIFY(svg.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(svg.readAll());
    QVERIFY(text.contains(QStringLiteral(">chain.json · chain<"))); // the title is drawn
    QVERIFY(text.contains(QStringLiteral(">original order<")));     // the legend names both curves
    QVERIFY(text.contains(QStringLiteral(">edited order<")));
    QVERIFY2(!text.contains(QStringLiteral(">step 5<")), "the hover box was exported");
    // On screen nothing changed: the cursor is back, no title row, no legend.
    QVERIFY(plot.cursorText().contains(QStringLiteral("step 5")));
    QVERIFY(!plot.exportMode());
    QVERIFY(!plot.chart()->legend->visible());
    QCOMPARE(plot.chart()->plotLayout()->rowCount(), 1);
}

void TestTimeline::lowerBoundAndComparison() {
    TimelinePlot plot;
    plot.resize(800, 300);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setProfile({100, 110, 110, 130, 120, 120, 120}, 3);
    const auto textItems = [&] {
        QStringList out;
        for (int i = 0; i < plot.chart()->itemCount(); ++i)
            if (auto* t = qobject_cast<QCPItemText*>(plot.chart()->item(i)); t && t->visible()) out << t->text();
        return out;
    };
    // The bound above the curve (a bound from another context) still fits in the y range.
    plot.setLowerBound(200);
    QVERIFY(textItems().contains(QStringLiteral("no order can go below 200 B")));
    QVERIFY(plot.chart()->yAxis->range().upper > 200);
    plot.setLowerBound(-1);
    QVERIFY(!textItems().join(QLatin1Char('|')).contains(QStringLiteral("no order")));
    // Two orders compared: both drawn, their peaks labelled, the legend names them.
    plot.setComparison({QStringLiteral("A: original"), {100, 110, 110, 130, 120, 120, 120}, 3},
                       {QStringLiteral("B: overlap"), {100, 140, 140, 150, 120, 120, 120}, 3});
    QVERIFY(plot.hasComparison());
    QVERIFY(plot.chart()->legend->visible());
    const QStringList texts = textItems();
    QVERIFY2(texts.contains(QStringLiteral("A: original peak 130 B · step 3")),
             qPrintable(texts.join(QLatin1Char('|'))));
    QVERIFY(texts.contains(QStringLiteral("B: overlap peak 150 B · step 3")));
    QVERIFY(plot.chart()->yAxis->range().upper > 150);
    plot.setCursorStep(1);
    QVERIFY(plot.cursorText().contains(QStringLiteral("B: overlap: 140 B")));
    plot.clearComparison();
    QVERIFY(!plot.hasComparison());
    QVERIFY(!plot.chart()->legend->visible());
}

void TestTimeline::formatsBytes() {
    ViewState().setUnits(ByteUnits::Binary);
    QCOMPARE(formatBytes(std::int64_t(0)), QStringLiteral("0 B"));
    QCOMPARE(formatBytes(std::int64_t(1023)), QStringLiteral("1023 B"));
    QCOMPARE(formatBytes(std::int64_t(1024)), QStringLiteral("1.00 KiB"));
    QCOMPARE(formatBytes(std::int64_t(12) << 20 | std::int64_t(1) << 19), QStringLiteral("12.5 MiB"));
    QCOMPARE(formatBytes(-(std::int64_t(3) << 30)), QStringLiteral("-3.00 GiB"));
    QCOMPARE(formatBytes(std::int64_t(1048575)), QStringLiteral("1.00 MiB")); // 1023.999 KiB rounds up a unit
    QCOMPARE(formatDelta(-10, 115), QStringLiteral("-10 B (-8.7 %)"));
    QCOMPARE(formatDelta(0, 115), QStringLiteral("±0 B"));
    ViewState().setUnits(ByteUnits::Decimal);
    QCOMPARE(formatBytes(std::int64_t(1500)), QStringLiteral("1.50 kB"));
    QCOMPARE(formatBytes(std::int64_t(2000000000)), QStringLiteral("2.00 GB"));
    ViewState().setUnits(ByteUnits::Binary);
}

void TestTimeline::cursorAndZoom() {
    TimelinePlot plot;
    plot.resize(800, 300);
    plot.show();
    QSignalSpy moved(&plot, &TimelinePlot::cursorMoved);
    QSignalSpy range(&plot, &TimelinePlot::xRangeChanged);
    plot.setProfile({100, 110, 110, 130, 120, 120, 120}, 3);
    QVERIFY(plot.peakText().startsWith(QStringLiteral("peak 130 B · step 3")));
    plot.setCursorStep(99); // clamped to the last step
    QCOMPARE(plot.cursorStep(), 6);
    QCOMPARE(moved.count(), 1);
    QTest::keyClick(&plot, Qt::Key_Home);
    QCOMPARE(plot.cursorStep(), 0);
    QTest::keyClick(&plot, Qt::Key_P);
    QCOMPARE(plot.cursorStep(), 3);
    // Zooming never leaves the data: a range past the end is pulled back.
    plot.setXRange(100, 200);
    QVERIFY(plot.chart()->xAxis->range().upper <= 6.5 + 1e-9);
    QVERIFY(plot.chart()->xAxis->range().lower >= -0.5 - 1e-9);
    QVERIFY(range.count() > 0);
    plot.resetZoom();
    QCOMPARE(plot.chart()->xAxis->range().lower, -0.5);
    QCOMPARE(plot.chart()->xAxis->range().upper, 6.5);
    // The y axis leaves room above the peak for its label.
    QVERIFY(plot.chart()->yAxis->range().upper > 130);
}

void TestTimeline::cursorMoveReplotsOnlyItsLayer() {
    const std::vector<std::int64_t> profile = {100, 110, 110, 130, 120, 120, 120, 90, 80, 95};
    TimelinePlot plot;
    plot.resize(800, 300);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setProfile(profile, 3, {{0, QStringLiteral("forward")}, {5, QStringLiteral("backward")}});
    plot.setCursorStep(1);
    plot.chart()->replot();
    QCPLayer* cursor = plot.chart()->layer(QStringLiteral("cursor"));
    QVERIFY(cursor);
    QCOMPARE(cursor->mode(), QCPLayer::lmBuffered);
    // Stacking as before the layer existed: curves, then the cursor, then peak and section marks.
    QVERIFY(plot.chart()->layer(QStringLiteral("main"))->index() < cursor->index());
    QVERIFY(cursor->index() < plot.chart()->layer(QStringLiteral("marks"))->index());
    QSignalSpy full(plot.chart(), &QCustomPlot::afterReplot);
    for (std::int64_t step : {2, 4, 7, 8, 9, 0}) plot.setCursorStep(step);
    // A hover over the plot moves the cursor the same way.
    const QRect area = plot.chart()->axisRect()->rect();
    const QPoint hover(area.left() + area.width() / 3, area.center().y());
    QTest::mouseMove(plot.chart(), hover);
    QVERIFY(plot.cursorStep() > 0);
    QVERIFY(plot.cursorBoxVisible());
    QCOMPARE(full.count(), 0); // the curves and marks were not redrawn
    // What is shown equals a plot drawn whole at that step.
    TimelinePlot fresh;
    fresh.resize(800, 300);
    fresh.show();
    QVERIFY(QTest::qWaitForWindowExposed(&fresh));
    fresh.setProfile(profile, 3, {{0, QStringLiteral("forward")}, {5, QStringLiteral("backward")}});
    hoverAt(fresh.chart(), hover); // the same step, its box shown as a hover shows it
    QCOMPARE(fresh.cursorStep(), plot.cursorStep());
    fresh.chart()->replot();
    QCOMPARE(plot.grab().toImage(), fresh.grab().toImage());
    // Zooming still redraws everything.
    plot.setXRange(1, 6);
    QVERIFY(full.count() > 0);
}

void TestTimeline::exportsEveryFormat() {
    TimelinePlot plot;
    plot.resize(640, 240);
    plot.setProfile({100, 110, 110, 130, 120, 120, 120}, 3);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const auto head = [](const QString& path) {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.read(512) : QByteArray();
    };
    QString error;
    QVERIFY(PlotExport::save(plot, dir.filePath(QStringLiteral("p.png")), &error));
    QVERIFY(head(dir.filePath(QStringLiteral("p.png"))).startsWith("\x89PNG"));
    QVERIFY(PlotExport::save(plot, dir.filePath(QStringLiteral("p.pdf")), &error));
    QVERIFY(head(dir.filePath(QStringLiteral("p.pdf"))).startsWith("%PDF"));
    QVERIFY(PlotExport::save(plot, dir.filePath(QStringLiteral("p.jpg")), &error));
    QVERIFY(head(dir.filePath(QStringLiteral("p.jpg"))).startsWith("\xff\xd8"));
    QVERIFY(PlotExport::save(plot, dir.filePath(QStringLiteral("p.svg")), &error));
    QFile svg(dir.filePath(QStringLiteral("p.svg")));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    const QByteArray text = svg.readAll();
    QVERIFY(text.contains("<svg"));
    QVERIFY(text.contains("<path") || text.contains("<polyline")); // the curve is vector data
    QVERIFY(!PlotExport::save(plot, dir.filePath(QStringLiteral("p.bmpx")), &error));
    QVERIFY(error.contains(QStringLiteral(".bmpx")));
}

void TestTimeline::keysMoveTheCursor() {
    // From step 10 of 100, a page of 7, the peak at 42.
    const auto to = [](int key, Qt::KeyboardModifiers mods = Qt::NoModifier) {
        return cursorStepForKey(key, mods, 10, 100, 7, 42);
    };
    QCOMPARE(to(Qt::Key_Left), std::optional<std::int64_t>(9));
    QCOMPARE(to(Qt::Key_Right), std::optional<std::int64_t>(11));
    QCOMPARE(to(Qt::Key_Left, Qt::ShiftModifier), std::optional<std::int64_t>(3));
    QCOMPARE(to(Qt::Key_Right, Qt::ShiftModifier), std::optional<std::int64_t>(17));
    QCOMPARE(to(Qt::Key_PageUp), std::optional<std::int64_t>(3));
    QCOMPARE(to(Qt::Key_PageDown), std::optional<std::int64_t>(17));
    QCOMPARE(to(Qt::Key_Home), std::optional<std::int64_t>(0));
    QCOMPARE(to(Qt::Key_End), std::optional<std::int64_t>(99));
    QCOMPARE(to(Qt::Key_P), std::optional<std::int64_t>(42));
    QVERIFY(!to(Qt::Key_A));
}

void TestTimeline::dataChangesReplotOnce() {
    // 10k steps: a ramp up to 5000 and down again (the peak, 5000 B, at step 5000).
    std::vector<std::int64_t> profile(10000);
    for (std::size_t i = 0; i < profile.size(); ++i) profile[i] = std::int64_t(std::min(i, profile.size() - i));
    TimelinePlot plot;
    plot.resize(800, 300);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    QSignalSpy full(plot.chart(), &QCustomPlot::afterReplot);
    // A new profile (with a new zoom) is drawn once, not once per step of setting it up.
    plot.setProfile(profile, 5000, {{0, QStringLiteral("forward")}, {6000, QStringLiteral("backward")}});
    QCOMPARE(full.count(), 1);
    const double yTop = plot.chart()->yAxis->range().upper;
    // With section labels the headroom also holds their row above the peak's label.
    const double factor = yTop / 5000;
    QVERIFY2(factor >= 1.22, qPrintable(QString::number(factor)));
    // An edited order below the peak (what most drops give): one replot, and the profile's
    // points are not sampled again (the same data, where it was).
    const QCPGraphData* profilePoints = &*plot.chart()->graph(0)->data()->constBegin();
    std::vector<std::int64_t> edited = profile;
    for (std::size_t i = 2000; i < 2100; ++i) edited[i] -= 1000;
    full.clear();
    plot.setOverlay(edited, 5000, QStringLiteral("edited peak"));
    QCOMPARE(full.count(), 1);
    QCOMPARE(&*plot.chart()->graph(0)->data()->constBegin(), profilePoints);
    QVERIFY(!plot.chart()->graph(1)->data()->isEmpty());
    QCOMPARE(plot.chart()->yAxis->range().upper, yTop);
    // The edited curve's points are the dip's: its lowest drawn value is 2000 - 1000 at step 2000.
    double lowest = 1e18;
    for (const QCPGraphData& d : *plot.chart()->graph(1)->data())
        if (d.key >= 2000 && d.key < 2100) lowest = std::min(lowest, d.value);
    QCOMPARE(lowest, 1000.0);
    // An edited peak above the original moves the y axis: everything is sampled again, still
    // one replot.
    edited[7000] = 6000;
    full.clear();
    plot.setOverlay(edited, 7000, QStringLiteral("edited peak"));
    QCOMPARE(full.count(), 1);
    QCOMPARE(plot.chart()->yAxis->range().upper, 6000 * factor);
    // Sampled again at the same width: the points are replaced in place, without reallocating.
    QCOMPARE(&*plot.chart()->graph(0)->data()->constBegin(), profilePoints);
    full.clear();
    plot.clearOverlay();
    QCOMPARE(full.count(), 1);
    QVERIFY(plot.chart()->graph(1)->data()->isEmpty());
    QCOMPARE(plot.chart()->yAxis->range().upper, yTop);
    // Stacked bands: one replot too.
    full.clear();
    plot.setStackedBands({{QStringLiteral("a"), Qt::red, profile}});
    QCOMPARE(full.count(), 1);
}

void TestTimeline::clickOnTheChartFocusesThePlot() {
    // The mouse lands on the contained chart; the plot takes the focus (and so the keys) and
    // names the clicked step.
    QWidget window;
    auto* other = new QLineEdit(&window);
    auto* plot = new TimelinePlot(&window);
    other->setGeometry(0, 0, 100, 20);
    plot->setGeometry(0, 30, 800, 300);
    window.resize(800, 340);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    plot->setProfile({100, 110, 110, 130, 120, 120, 120}, 3);
    other->setFocus();
    QVERIFY(!plot->hasFocus());
    QSignalSpy clicked(plot, &TimelinePlot::stepActivated);
    const QPoint at(static_cast<int>(plot->chart()->xAxis->coordToPixel(4)),
                    plot->chart()->axisRect()->rect().center().y());
    QTest::mouseClick(plot->chart(), Qt::LeftButton, {}, at);
    QTRY_VERIFY(plot->hasFocus());
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.front().front().value<std::int64_t>(), 4);
    plot->setCursorStep(4);
    QCOMPARE(QApplication::focusWidget(), plot);
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Right);
    QCOMPARE(plot->cursorStep(), 5);
}

FXMEM_QTEST(TestTimeline)
#include "test_timeline.moc"
