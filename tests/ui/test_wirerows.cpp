// The merged and filled wires set exactly the pixels the painter's own lines set: random wires
// (lanes thinner than a pixel, far off-screen ends, ends on the painter's 1/64 px grid, on half
// pixels and on pixel edges) drawn both ways into images that must be equal.
#include "graphview/wirerows.h"
#include "qtest_registry.h"

#include <QImage>
#include <QPainter>
#include <QTest>

#include <cmath>
#include <random>

namespace {

struct Case {
    QVector<QLineF> lines;
    QSize size;
    QPoint offset;
};

Case randomCase(std::mt19937& rng, int t) {
    Case c;
    c.size = QSize(100 + static_cast<int>(rng() % 300), 50 + static_cast<int>(rng() % 150));
    c.offset = QPoint(static_cast<int>(rng() % 5), static_cast<int>(rng() % 5));
    const double w = c.size.width();
    std::uniform_real_distribution<double> ux(-w * (t % 3 == 0 ? 1e6 : 0.5), w * 1.5), uy(-3, c.size.height() + 3),
        len(0.001, w * (t % 2 ? 2.0 : 0.05));
    const int n = 20 + static_cast<int>(rng() % 400);
    for (int i = 0; i < n; ++i) {
        double y = uy(rng), x = ux(rng), l = len(rng);
        if (t % 4 == 1) y = std::floor(y) + static_cast<double>(rng() % 64) / 64;
        if (t % 5 == 0) x = std::floor(x) + static_cast<double>(rng() % 64) / 64;
        if (t % 5 == 1) l = std::floor(l) + static_cast<double>(rng() % 64) / 64;
        if (i % 13 == 0)
            c.lines.push_back(QLineF(x, y, x + 3, y + 5)); // a wire into a user on another lane
        else
            c.lines.push_back(QLineF(x, y, x + l, y));
    }
    return c;
}

QImage draw(const Case& c, const std::function<void(QPainter&)>& paint) {
    QImage img(c.size, QImage::Format_ARGB32_Premultiplied);
    img.fill(Qt::white);
    QPainter p(&img);
    p.translate(c.offset);
    paint(p);
    return img;
}

} // namespace

class TestWireRows : public QObject {
    Q_OBJECT
private slots:
    void plainRowsFilledAsRunsSetTheSamePixels() {
        std::mt19937 rng(7);
        const QColor colour(90, 90, 90);
        int merged = 0, filled = 0;
        for (int t = 0; t < 600; ++t) {
            const Case c = randomCase(rng, t);
            const QImage want = draw(c, [&](QPainter& p) {
                p.setPen(QPen(colour, 1));
                p.drawLines(c.lines);
            });
            const QImage got = draw(c, [&](QPainter& p) {
                QVector<QLineF> lines = mergeRows(c.lines);
                merged += static_cast<int>(c.lines.size() - lines.size());
                const qsizetype before = lines.size();
                fillRuns(p, lines, colour, -c.offset.x() - 2.0, c.size.width() - c.offset.x() + 2.0);
                filled += static_cast<int>(before - lines.size());
                p.setPen(QPen(colour, 1));
                p.drawLines(lines);
            });
            QVERIFY2(want == got, qPrintable(QStringLiteral("case %1").arg(t)));
        }
        QVERIFY(merged > 1000); // the cases do exercise both
        QVERIFY(filled > 10000);
    }

    void liveRowPairsMergedAndFilledSetTheSamePixels() {
        std::mt19937 rng(11);
        const QColor colour(200, 40, 40);
        int merged = 0, filled = 0;
        for (int t = 0; t < 600; ++t) {
            const Case c = randomCase(rng, t);
            auto lines = [&](const QVector<QLineF>& l) {
                return [&, l](QPainter& p) {
                    p.setPen(QPen(colour, 2));
                    p.drawLines(l);
                };
            };
            const QVector<QLineF> m = mergeRowPairs(c.lines);
            merged += static_cast<int>(c.lines.size() - m.size());
            QVERIFY2(draw(c, lines(c.lines)) == draw(c, lines(m)), qPrintable(QStringLiteral("case %1").arg(t)));
            const QImage filledImg = draw(c, [&](QPainter& p) {
                QVector<QLineF> rest = m;
                fillPairRuns(p, rest, colour, -c.offset.x() - 2.0, c.size.width() - c.offset.x() + 2.0);
                filled += static_cast<int>(m.size() - rest.size());
                p.setPen(QPen(colour, 2));
                p.drawLines(rest);
            });
            QVERIFY2(draw(c, lines(c.lines)) == filledImg, qPrintable(QStringLiteral("filled, case %1").arg(t)));
        }
        QVERIFY(merged > 1000);
        QVERIFY(filled > 10000);
    }
};

FXMEM_QTEST(TestWireRows)
#include "test_wirerows.moc"
