#include "graphview/wirerows.h"

#include <QPainter>
#include <QRect>

#include <algorithm>
#include <cmath>
#include <vector>

// With lanes thinner than a pixel, thousands of horizontal wires share each pixel row (a 100k
// graph: ~10k wires over ~500 rows) and filling them was most of a paint. An aliased line of
// width 1 covers the pixels floor(x0)..floor(x1) of row floor(y), the same for any y inside the
// row: so the plain (opaque) wires of a row whose x ranges overlap are drawn as one line, which
// sets exactly the same pixels. Left alone: wires within 1/32 px of a row's edge (the painter
// rounds to 1/64 px), wires of zero length (drawn as points, rounded to the nearest row), and
// everything when the device transform is more than an integer translation.

namespace {

// The lines `mergeable` accepts, sorted by (row, x1) with their row worked out once, and those of
// one row whose x ranges overlap joined; the others as they are.
template <class Mergeable, class RowOf>
QVector<QLineF> mergeByRow(const QVector<QLineF>& lines, Mergeable mergeable, RowOf rowOf) {
    struct Keyed {
        double row;
        QLineF line;
    };
    QVector<QLineF> out;
    std::vector<Keyed> rows;
    out.reserve(lines.size());
    rows.reserve(static_cast<std::size_t>(lines.size()));
    for (const QLineF& l : lines) {
        if (l.y1() == l.y2() && l.x1() < l.x2() && mergeable(l))
            rows.push_back({rowOf(l), l});
        else
            out.push_back(l);
    }
    std::sort(rows.begin(), rows.end(), [](const Keyed& a, const Keyed& b) {
        return a.row != b.row ? a.row < b.row : a.line.x1() < b.line.x1();
    });
    for (std::size_t i = 0; i < rows.size();) {
        QLineF cur = rows[i].line;
        const double row = rows[i].row;
        for (++i; i < rows.size() && rows[i].row == row && rows[i].line.x1() <= cur.x2(); ++i)
            cur.setP2(QPointF(std::max(cur.x2(), rows[i].line.x2()), cur.y2()));
        out.push_back(cur);
    }
    return out;
}

bool nearHalf(double v) { return std::abs(v - std::floor(v) - 0.5) < 1.0 / 32; }

} // namespace

QVector<QLineF> mergeRows(const QVector<QLineF>& lines) {
    return mergeByRow(
        lines,
        [](const QLineF& l) {
            const double frac = l.y1() - std::floor(l.y1());
            return frac >= 1.0 / 32 && frac <= 31.0 / 32;
        },
        [](const QLineF& l) { return std::floor(l.y1()); });
}

// The live wires are 2 px wide (square caps): a horizontal one at y covers the two pixel rows
// whose centres lie within y ± 1, rows round(y) - 1 and round(y), and the columns whose centres
// lie within its x range widened by 1 on each side. Those of one row pair whose x ranges overlap
// are drawn as one line (same pixels, an opaque pen). Left alone: wires whose y or either end x
// lies within 1/32 px of a half pixel (where a row or column changes; the painter rounds to
// 1/64 px), and everything when the device transform is more than an integer translation.
QVector<QLineF> mergeRowPairs(const QVector<QLineF>& lines) {
    return mergeByRow(
        lines, [](const QLineF& l) { return !nearHalf(l.y1()) && !nearHalf(l.x1()) && !nearHalf(l.x2()); },
        [](const QLineF& l) { return std::floor(l.y1() + 0.5); });
}

namespace {

// Where an aliased horizontal line of one pen width lands: it covers the columns
// floor(x0 - reach)..floor(x1 + reach) and `rows` rows ending at floor(y + reach); the painter
// rounds to 1/64 px, so an end or a row within 1/32 px of an edge of those (x + reach, y + reach
// near a whole pixel) is left to the line drawer, as are runs shorter than 1/16 px.
struct PenRuns {
    double reach;
    int rows;
};

bool nearWhole(double v) {
    const double f = v - std::floor(v);
    return f < 1.0 / 32 || f > 31.0 / 32;
}

void fillRunsOf(QPainter& p, QVector<QLineF>& lines, const QColor& colour, double left, double right, PenRuns pen) {
    const double r = pen.reach;
    qsizetype kept = 0;
    for (const QLineF& l : lines) {
        // An end beyond the clip is not drawn either way.
        const bool run = l.y1() == l.y2() && l.x2() - l.x1() >= 1.0 / 16 && (l.x1() < left || !nearWhole(l.x1() - r)) &&
                         (l.x2() > right || !nearWhole(l.x2() + r)) && !nearWhole(l.y1() + r);
        if (!run) {
            lines[kept++] = l;
            continue;
        }
        const double lo = std::max(std::floor(l.x1() - r), left), hi = std::min(std::floor(l.x2() + r), right);
        if (hi >= lo)
            p.fillRect(QRect(static_cast<int>(lo), static_cast<int>(std::floor(l.y1() + r)) - (pen.rows - 1),
                             static_cast<int>(hi - lo) + 1, pen.rows),
                       colour);
    }
    lines.resize(kept);
}

} // namespace

// A width-1 aliased horizontal line fills the pixels floor(x0)..floor(x1) of row floor(y).
void fillRuns(QPainter& p, QVector<QLineF>& lines, const QColor& colour, double left, double right) {
    fillRunsOf(p, lines, colour, left, right, {0.0, 1});
}

// A width-2 line (square caps) at y covers rows round(y) - 1 and round(y) and the columns whose
// centres lie within [x0 - 1, x1 + 1]: floor(x0 - 0.5)..floor(x1 + 0.5).
void fillPairRuns(QPainter& p, QVector<QLineF>& lines, const QColor& colour, double left, double right) {
    fillRunsOf(p, lines, colour, left, right, {0.5, 2});
}
