// Timeline pieces: bucket-maximum downsampling (no peak lost), byte formatting in both unit
// systems, and the plot's cursor and zoom clamping.
#include "timeline/downsample.h"
#include "timeline/plotexport.h"
#include "timeline/timelineplot.h"
#include "util/units.h"

#include <QSignalSpy>
#include <QtTest>

class TestTimeline : public QObject {
    Q_OBJECT
private slots:
    void smallRangesAreKeptAsIs();
    void bucketsKeepTheirMaximum();
    void formatsBytes();
    void cursorAndZoom();
    void exportsEveryFormat();
};

void TestTimeline::smallRangesAreKeptAsIs() {
    const std::vector<std::int64_t> v = {5, 1, 7, 3};
    QVector<double> keys, out;
    downsampleMax(v, 1, 3, 10, keys, out);
    QCOMPARE(keys, (QVector<double>{1, 2, 3}));
    QCOMPARE(out, (QVector<double>{1, 7, 3}));
    downsampleMax(v, 3, 1, 10, keys, out);  // empty range
    QVERIFY(keys.isEmpty());
}

void TestTimeline::bucketsKeepTheirMaximum() {
    // 12 values into 3 buckets of 4: maxima 9, 8, 6, plus the last point.
    const std::vector<std::int64_t> v = {1, 9, 2, 3, 4, 4, 8, 0, 6, 5, 1, 2};
    QVector<double> keys, out;
    downsampleMax(v, 0, 11, 3, keys, out);
    QCOMPARE(keys, (QVector<double>{0, 4, 8, 11}));
    QCOMPARE(out, (QVector<double>{9, 8, 6, 2}));
    // A single spike in a long flat profile survives any bucket count.
    std::vector<std::int64_t> flat(100000, 10);
    flat[77777] = 1000;
    downsampleMax(flat, 0, flat.size() - 1, 640, keys, out);
    QVERIFY(keys.size() <= 641);
    QCOMPARE(*std::max_element(out.begin(), out.end()), 1000.0);
}

void TestTimeline::formatsBytes() {
    setByteUnits(ByteUnits::Binary);
    QCOMPARE(formatBytes(std::int64_t(0)), QStringLiteral("0 B"));
    QCOMPARE(formatBytes(std::int64_t(1023)), QStringLiteral("1023 B"));
    QCOMPARE(formatBytes(std::int64_t(1024)), QStringLiteral("1.00 KiB"));
    QCOMPARE(formatBytes(std::int64_t(12) << 20 | std::int64_t(1) << 19), QStringLiteral("12.5 MiB"));
    QCOMPARE(formatBytes(-(std::int64_t(3) << 30)), QStringLiteral("-3.00 GiB"));
    QCOMPARE(formatBytes(std::int64_t(1048575)), QStringLiteral("1.00 MiB"));  // 1023.999 KiB rounds up a unit
    QCOMPARE(formatDelta(-10, 115), QStringLiteral("-10 B (-8.7 %)"));
    QCOMPARE(formatDelta(0, 115), QStringLiteral("±0 B"));
    setByteUnits(ByteUnits::Decimal);
    QCOMPARE(formatBytes(std::int64_t(1500)), QStringLiteral("1.50 kB"));
    QCOMPARE(formatBytes(std::int64_t(2000000000)), QStringLiteral("2.00 GB"));
    setByteUnits(ByteUnits::Binary);
}

void TestTimeline::cursorAndZoom() {
    TimelinePlot plot;
    plot.resize(800, 300);
    plot.show();
    QSignalSpy moved(&plot, &TimelinePlot::cursorMoved);
    QSignalSpy range(&plot, &TimelinePlot::xRangeChanged);
    plot.setProfile({100, 110, 110, 130, 120, 120, 120}, 3);
    QVERIFY(plot.peakText().startsWith(QStringLiteral("peak 130 B · step 3")));
    plot.setCursorStep(99);  // clamped to the last step
    QCOMPARE(plot.cursorStep(), 6);
    QCOMPARE(moved.count(), 1);
    QTest::keyClick(&plot, Qt::Key_Home);
    QCOMPARE(plot.cursorStep(), 0);
    QTest::keyClick(&plot, Qt::Key_P);
    QCOMPARE(plot.cursorStep(), 3);
    // Zooming never leaves the data: a range past the end is pulled back.
    plot.setXRange(100, 200);
    QVERIFY(plot.xAxis->range().upper <= 6.5 + 1e-9);
    QVERIFY(plot.xAxis->range().lower >= -0.5 - 1e-9);
    QVERIFY(range.count() > 0);
    plot.resetZoom();
    QCOMPARE(plot.xAxis->range().lower, -0.5);
    QCOMPARE(plot.xAxis->range().upper, 6.5);
    // The y axis leaves room above the peak for its label.
    QVERIFY(plot.yAxis->range().upper > 130);
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
    QVERIFY(text.contains("<path") || text.contains("<polyline"));  // the curve is vector data
    QVERIFY(!PlotExport::save(plot, dir.filePath(QStringLiteral("p.bmpx")), &error));
    QVERIFY(error.contains(QStringLiteral(".bmpx")));
}

QTEST_MAIN(TestTimeline)
#include "test_timeline.moc"
