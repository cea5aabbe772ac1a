#include "graphview/wirerows.h"

#include <QPainter>
#include <QRect>

#include <algorithm>
#include <cmath>

// With lanes thinner than a pixel, thousands of horizontal wires share each pixel row (a 100k
// graph: ~10k wires over ~500 rows) and filling them was most of a paint. An aliased line of
// width 1 covers the pixels floor(x0)..floor(x1) of row floor(y), the same for any y inside the
// row: so the plain (opaque) wires of a row whose x ranges overlap are drawn as one line, which
// sets exactly the same pixels. Left alone: wires within 1/32 px of a row's edge (the painter
// rounds to 1/64 px), wires of zero length (drawn as points, rounded to the nearest row), and
// everything when the device transform is more than an integer translation.

QVector<QLineF> mergeRows(const QVector<QLineF>& lines) {
    QVector<QLineF> out, rows;
    out.reserve(lines.size());
    rows.reserve(lines.size());
    for (const QLineF& l : lines) {
        const double frac = l.y1() - std::floor(l.y1());
        if (l.y1() == l.y2() && l.x1() < l.x2() && frac >= 1.0 / 32 && frac <= 31.0 / 32)
            rows.push_back(l);
        else
            out.push_back(l);
    }
    std::sort(rows.begin(), rows.end(), [](const QLineF& a, const QLineF& b) {
        const double ra = std::floor(a.y1()), rb = std::floor(b.y1());
        return ra != rb ? ra < rb : a.x1() < b.x1();
    });
    for (qsizetype i = 0; i < rows.size();) {
        QLineF cur = rows[i];
        const double row = std::floor(cur.y1());
        for (++i; i < rows.size() && std::floor(rows[i].y1()) == row && rows[i].x1() <= cur.x2(); ++i)
            cur.setP2(QPointF(std::max(cur.x2(), rows[i].x2()), cur.y2()));
        out.push_back(cur);
    }
    return out;
}

// The live wires are 2 px wide (square caps): a horizontal one at y covers the two pixel rows
// whose centres lie within y ± 1, rows round(y) - 1 and round(y), and the columns whose centres
// lie within its x range widened by 1 on each side. Those of one row pair whose x ranges overlap
// are drawn as one line (same pixels, an opaque pen). Left alone: wires whose y or either end x
// lies within 1/32 px of a half pixel (where a row or column changes; the painter rounds to
// 1/64 px), and everything when the device transform is more than an integer translation.
static bool nearHalf(double v) { return std::abs(v - std::floor(v) - 0.5) < 1.0 / 32; }

QVector<QLineF> mergeRowPairs(const QVector<QLineF>& lines) {
    QVector<QLineF> out, rows;
    out.reserve(lines.size());
    rows.reserve(lines.size());
    for (const QLineF& l : lines) {
        if (l.y1() == l.y2() && l.x1() < l.x2() && !nearHalf(l.y1()) && !nearHalf(l.x1()) && !nearHalf(l.x2()))
            rows.push_back(l);
        else
            out.push_back(l);
    }
    auto top = [](const QLineF& l) { return std::floor(l.y1() + 0.5); };
    std::sort(rows.begin(), rows.end(), [&](const QLineF& a, const QLineF& b) {
        const double ra = top(a), rb = top(b);
        return ra != rb ? ra < rb : a.x1() < b.x1();
    });
    for (qsizetype i = 0; i < rows.size();) {
        QLineF cur = rows[i];
        const double row = top(cur);
        for (++i; i < rows.size() && top(rows[i]) == row && rows[i].x1() <= cur.x2(); ++i)
            cur.setP2(QPointF(std::max(cur.x2(), rows[i].x2()), cur.y2()));
        out.push_back(cur);
    }
    return out;
}

// A width-1 aliased horizontal line fills the pixels floor(x0)..floor(x1) of row floor(y): a
// rectangle skips the line drawer's per-pixel steps. Left to it: runs shorter than 1/16 px and
// ends or rows within 1/32 px of a pixel edge, where it rounds to 1/64 px differently.
void fillRuns(QPainter& p, QVector<QLineF>& lines, const QColor& colour, double left, double right) {
    auto nearEdge = [](double v) {
        const double f = v - std::floor(v);
        return f < 1.0 / 32 || f > 31.0 / 32;
    };
    qsizetype kept = 0;
    for (const QLineF& l : lines) {
        const bool run = l.y1() == l.y2() && l.x2() - l.x1() >= 1.0 / 16 && !nearEdge(l.x1()) && !nearEdge(l.x2()) &&
                         !nearEdge(l.y1());
        if (!run) {
            lines[kept++] = l;
            continue;
        }
        const double lo = std::max(std::floor(l.x1()), left), hi = std::min(std::floor(l.x2()), right);
        if (hi >= lo)
            p.fillRect(
                QRect(static_cast<int>(lo), static_cast<int>(std::floor(l.y1())), static_cast<int>(hi - lo) + 1, 1),
                colour);
    }
    lines.resize(kept);
}
