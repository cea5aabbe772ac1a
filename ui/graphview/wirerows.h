// Many wires drawn as few: the graph view's horizontal wires, merged per pixel row (or pair of
// rows) and filled as runs of whole pixels where that sets exactly the pixels the painter's
// aliased lines would. Only for opaque pens, no antialiasing, and a device transform that is an
// integer translation (the caller checks).
#pragma once
#include <QColor>
#include <QLineF>
#include <QVector>

class QPainter;

// Width-1 lines: those of one pixel row whose x ranges overlap become one line.
QVector<QLineF> mergeRows(const QVector<QLineF>& lines);
// Width-2 lines (square caps): those covering the same two pixel rows whose x ranges overlap
// become one line.
QVector<QLineF> mergeRowPairs(const QVector<QLineF>& lines);
// Fills the width-1 horizontal lines that are runs of whole pixels as rectangles, clipped to
// [left, right] (logical x; nothing beyond them may show), and leaves in `lines` the ones to draw as lines.
void fillRuns(QPainter& p, QVector<QLineF>& lines, const QColor& colour, double left, double right);
// The same for width-2 lines (square caps): each fills two rows.
void fillPairRuns(QPainter& p, QVector<QLineF>& lines, const QColor& colour, double left, double right);
