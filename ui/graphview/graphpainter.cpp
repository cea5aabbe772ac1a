#include "graphview/graphpainter.h"

#include "graphview/wirerows.h"

#include "util/colors.h"

#include <QImage>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

GraphPainter::GraphPainter(QPainter& p, const GraphFrame& frame, NodeColors& colors)
    : p_(p), f_(frame), items_(*frame.items), colors_(colors), base_(frame.palette.color(QPalette::Base)),
      text_(frame.palette.color(QPalette::Text)), live_(colors::live(frame.palette)), height_(frame.rect.height()) {}

void GraphPainter::paintEmpty(QPainter& p, const QRect& rect, const QPalette& pal, const QString& hint) {
    const QColor base = pal.color(QPalette::Base), text = pal.color(QPalette::Text);
    p.fillRect(rect, base);
    p.setPen(colors::mix(base, text, 0.6));
    p.drawText(rect, Qt::AlignCenter, hint);
}

void GraphPainter::paint() {
    p_.fillRect(f_.rect, base_);
    p_.setClipRect(QRect(QPoint(0, 0), f_.rect.size()));
    drawPeak();
    drawStripes();
    drawDividers();
    drawWires();
    drawSpans();
    drawGroups();
    drawDots();
    drawBoxes();
    drawEdges();
    drawBands();
    drawLabels();
    drawLegend();
    drawCursor();
    drawDrag();
}

void GraphPainter::drawPeak() {
    const double sx = f_.view.pxPerStep();
    QColor peakCol = colors::peak(f_.palette);
    peakCol.setAlphaF(0.25f);
    p_.fillRect(QRectF(f_.view.px(f_.peakStep) - std::max(1.0, sx / 2), 0, std::max(2.0, sx), height_), peakCol);
}

void GraphPainter::drawStripes() {
    const double y0 = f_.view.topPad - 2;
    QColor tint = f_.palette.color(QPalette::Highlight);
    tint.setAlphaF(0.16f);
    const QColor shade = colors::mix(base_, text_, 0.05);
    for (const VisibleItems::Stripe& st : items_.stripes)
        if (st.highlight || st.ordinal % 2 == 1)
            p_.fillRect(QRectF(st.x0, y0, st.x1 - st.x0, height_ - y0), st.highlight ? tint : shade);
}

void GraphPainter::drawDividers() {
    p_.setPen(QPen(colors::mix(base_, text_, 0.45), 1, Qt::DotLine));
    for (const VisibleItems::SegmentMark& m : items_.segmentMarks)
        if (m.segment > 0) p_.drawLine(QPointF(m.x, 0), QPointF(m.x, height_));
}

namespace {

bool integerTranslation(const QTransform& t) {
    return t.type() <= QTransform::TxTranslate && t.dx() == std::floor(t.dx()) && t.dy() == std::floor(t.dy());
}

} // namespace

void GraphPainter::drawWires() {
    QVector<QLineF> plain, lit;
    for (const VisibleItems::Wire& w : items_.wires) (w.live ? lit : plain).push_back(w.line);
    const bool smooth = f_.view.pxPerStep() > 4;
    const QColor plainCol = colors::mix(base_, text_, 0.22);
    p_.setRenderHint(QPainter::Antialiasing, smooth);
    if (!smooth && plainCol.alpha() == 255 && integerTranslation(p_.deviceTransform())) {
        plain = mergeRows(plain);
        fillRuns(p_, plain, plainCol, f_.rect.left() - 2, f_.rect.right() + 2);
    }
    p_.setPen(QPen(plainCol, 1));
    p_.drawLines(plain);
    const bool mergeLit = !smooth && live_.alpha() == 255 && integerTranslation(p_.deviceTransform());
    if (mergeLit) {
        lit = mergeRowPairs(lit);
        fillPairRuns(p_, lit, live_, f_.rect.left() - 2, f_.rect.right() + 2);
    }
    p_.setPen(QPen(live_, 2));
    p_.drawLines(lit);
}

void GraphPainter::drawSpans() {
    const QPalette& pal = f_.palette;
    QColor flight = colors::categoryColor(fxmem::OpCategory::Collective, pal);
    flight.setAlphaF(0.45f);
    p_.setRenderHint(QPainter::Antialiasing, true);
    p_.setPen(QPen(colors::categoryColor(fxmem::OpCategory::Collective, pal), 1));
    p_.setBrush(flight);
    for (const VisibleItems::Span& sp : items_.spans) p_.drawRoundedRect(sp.rect, 2, 2);
    p_.setBrush(Qt::NoBrush);
    p_.setRenderHint(QPainter::Antialiasing, false);
}

void GraphPainter::drawGroups() {
    const QColor highlight = f_.palette.color(QPalette::Highlight);
    for (const VisibleItems::GroupBox& gb : items_.groups) {
        p_.setRenderHint(QPainter::Antialiasing, true);
        p_.setPen(QPen(gb.highlight ? highlight : colors::mix(base_, text_, 0.5), gb.highlight ? 2 : 1));
        p_.setBrush(colors::mix(base_, text_, 0.16));
        p_.drawRoundedRect(gb.rect, 3, 3);
        p_.setBrush(Qt::NoBrush);
        // Marks for what it hides, as on boxes: live (inner), match (dashed), selected (outer).
        if (gb.flags & VisibleItems::Live) {
            p_.setPen(QPen(live_, 2.5));
            p_.drawRoundedRect(gb.rect.adjusted(2, 2, -2, -2), 2, 2);
        }
        if (gb.flags & VisibleItems::Match) {
            p_.setPen(QPen(highlight, 2, Qt::DashLine));
            p_.drawRoundedRect(gb.rect.adjusted(-3, -3, 3, 3), 4, 4);
        }
        if (gb.flags & VisibleItems::Selected) {
            p_.setPen(QPen(highlight, 3));
            p_.drawRoundedRect(gb.rect.adjusted(-2, -2, 2, 2), 4, 4);
        }
        p_.setRenderHint(QPainter::Antialiasing, false);
    }
}

void GraphPainter::drawDots() {
    // One draw call, no overdraw.
    p_.setRenderHint(QPainter::Antialiasing, false);
    if (items_.dots.empty()) return;
    const int w = f_.rect.width(), h = f_.rect.height();
    QImage dots(w, h, QImage::Format_ARGB32_Premultiplied);
    dots.fill(Qt::transparent);
    const int rows = items_.dotRows;
    const QRgb live = live_.rgba(), highlight = f_.palette.color(QPalette::Highlight).rgba();
    for (const VisibleItems::Dot& d : items_.dots) {
        const QRgb c = d.live ? live : d.highlight ? highlight : colors_.of(d.ref);
        // A 2x`rows` dot (live ones 3 wide), clipped to the image.
        for (int dy = -rows / 2; dy < rows - rows / 2; ++dy) {
            if (d.y + dy < 0 || d.y + dy >= h) continue;
            auto* r = reinterpret_cast<QRgb*>(dots.scanLine(d.y + dy));
            for (int dx = 0; dx < (d.live ? 3 : 2) && d.x + dx < w; ++dx) r[d.x + dx] = c;
        }
    }
    p_.drawImage(0, 0, dots);
}

void GraphPainter::drawBoxes() {
    const QColor highlight = f_.palette.color(QPalette::Highlight);
    for (const VisibleItems::Box& b : items_.boxes) {
        p_.fillRect(b.rect, QColor::fromRgba(colors_.of(b.ref)));
        if (b.flags & VisibleItems::Live) {
            p_.setPen(QPen(live_, 2.5));
            p_.drawRect(b.rect.adjusted(-1.5, -1.5, 1.5, 1.5));
        }
        if (b.flags & VisibleItems::Highlight) {
            p_.setPen(QPen(highlight, 2));
            p_.drawRect(b.rect.adjusted(-1, -1, 1, 1));
        }
        if (b.flags & VisibleItems::Match) {
            p_.setPen(QPen(highlight, 2, Qt::DashLine));
            p_.drawRect(b.rect.adjusted(-3, -3, 3, 3));
        }
        if (b.flags & VisibleItems::Recomputed) {
            p_.setPen(QPen(colors::edited(f_.palette), 1.5, Qt::DotLine));
            p_.drawRect(b.rect.adjusted(-4.5, -4.5, 4.5, 4.5));
        }
        if (b.flags & (VisibleItems::Selected | VisibleItems::Hovered)) {
            const bool sel = b.flags & VisibleItems::Selected;
            p_.setPen(QPen(sel ? highlight : text_, sel ? 3 : 1));
            p_.drawRect(b.rect.adjusted(-2, -2, 2, 2));
        }
    }
}

void GraphPainter::drawEdges() {
    // Inputs in one colour, users in another, as curves ending in an arrow.
    if (items_.edges.empty()) return;
    p_.setRenderHint(QPainter::Antialiasing, true);
    const QColor inCol = colors::curve(f_.palette), outCol = colors::edited(f_.palette);
    for (const VisibleItems::Edge& e : items_.edges) {
        // Far ends are clamped: the painter clips, but huge coordinates lose precision.
        auto clampPt = [](QPointF q) { return QPointF(std::clamp(q.x(), -1e5, 1e5), std::clamp(q.y(), -1e5, 1e5)); };
        const QPointF a = clampPt(e.from), b = clampPt(e.to);
        const double bend = std::max(12.0, std::abs(b.x() - a.x()) / 3);
        QPainterPath path(a);
        path.cubicTo(a + QPointF(bend, 0), b - QPointF(bend, 0), b);
        const QColor c = e.toUser ? outCol : inCol;
        p_.setPen(QPen(c, 2));
        p_.setBrush(Qt::NoBrush);
        p_.drawPath(path);
        // The arrow at the consumer's end, pointing right (time flows right).
        const double r = 5;
        const QPointF tip = b - QPointF(items_.nodeW / 2, 0);
        p_.setBrush(c);
        p_.setPen(Qt::NoPen);
        p_.drawPolygon(QPolygonF({tip, tip + QPointF(-r * 1.6, -r), tip + QPointF(-r * 1.6, r)}));
        p_.setBrush(Qt::NoBrush);
    }
    p_.setRenderHint(QPainter::Antialiasing, false);
}

void GraphPainter::drawBands() {
    for (const VisibleItems::Band& b : items_.bands) {
        QColor fill = colors::mix(base_, text_, b.ordinal % 2 ? 0.20 : 0.12);
        if (b.highlight) fill = f_.palette.color(QPalette::Highlight);
        p_.fillRect(b.rect, fill);
        if (b.collapsed) {
            p_.setPen(QPen(colors::mix(base_, text_, 0.6), 1));
            p_.drawRect(b.rect.adjusted(0, 0, -1, -1));
        }
    }
}

void GraphPainter::drawLabels() {
    QFont small = f_.font;
    small.setPointSizeF(std::max(6.5, std::min(f_.font.pointSizeF(), items_.nodeH * 0.62)));
    const QFont band = bandFontOf(f_.font);
    for (const VisibleItems::Label& l : items_.labels) {
        if (l.kind == VisibleItems::LabelKind::Node) {
            p_.setFont(small);
            p_.setPen(colors::isDark(f_.palette) ? QColor(10, 10, 10) : QColor(255, 255, 255));
        } else if (l.kind == VisibleItems::LabelKind::Span) {
            p_.setFont(band);
            p_.setPen(colors::categoryColor(fxmem::OpCategory::Collective, f_.palette));
        } else if (l.kind == VisibleItems::LabelKind::Segment) {
            p_.setFont(f_.font);
            p_.setPen(colors::mix(base_, text_, 0.6));
        } else {
            p_.setFont(band);
            p_.setPen(text_);
        }
        p_.drawText(l.rect, Qt::AlignVCenter | Qt::AlignLeft, l.text);
    }
    p_.setFont(f_.font);
}

void GraphPainter::drawLegend() {
    // One row at the bottom-left of the lanes, on a veil of the background, wrapping if needed.
    const std::vector<LegendEntry>& entries = f_.legend;
    if (entries.empty()) return;
    const QFont f = bandFontOf(f_.font);
    const QFontMetricsF fm(f);
    const double sw = 9, gap = 10, rowH = fm.height() + 4;
    const GraphViewport& v = f_.view;
    const double maxW = std::max(120.0, v.width - 8.0);
    std::vector<std::pair<double, double>> pos; // per entry: x, row
    double x = 0, row = 0, widest = 0;
    for (const LegendEntry& e : entries) {
        const double w = sw + 4 + fm.horizontalAdvance(e.text);
        if (x > 0 && x + w > maxW) x = 0, row += 1;
        pos.push_back({x, row});
        x += w + gap;
        widest = std::max(widest, x - gap);
    }
    const double h = (row + 1) * rowH + 2;
    const QRectF box(4, v.height - h - 3, widest + 8, h);
    QColor veil = base_;
    veil.setAlphaF(0.85f);
    p_.fillRect(box, veil);
    p_.setFont(f);
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const double ex = box.left() + 4 + pos[i].first, ey = box.top() + 1 + pos[i].second * rowH;
        p_.fillRect(QRectF(ex, ey + (rowH - sw) / 2, sw, sw), entries[i].color);
        p_.setPen(text_);
        p_.drawText(QRectF(ex + sw + 4, ey, fm.horizontalAdvance(entries[i].text) + 2, rowH),
                    Qt::AlignVCenter | Qt::AlignLeft, entries[i].text);
    }
    p_.setFont(f_.font);
}

void GraphPainter::drawCursor() {
    if (f_.cursor < 0) return;
    p_.setPen(QPen(colors::cursor(f_.palette), 1, Qt::DashLine));
    const double x = f_.view.px(static_cast<double>(f_.cursor));
    p_.drawLine(QPointF(x, 0), QPointF(x, height_));
}

void GraphPainter::drawDrag() {
    const GraphFrame::Drag& d = f_.drag;
    if (!d.active) return;
    const QPalette& pal = f_.palette;
    const double nodeW = items_.nodeW, nodeH = items_.nodeH;
    QColor band = d.ok ? QColor(60, 180, 90) : colors::peak(pal);
    band.setAlphaF(0.18f);
    const double a = f_.view.px(static_cast<double>(d.loStep) - 1), b = f_.view.px(static_cast<double>(d.hiStep) + 1);
    p_.fillRect(QRectF(a, 0, b - a, height_), band);
    const bool inside = d.step >= static_cast<double>(d.loStep) - 1 && d.step <= static_cast<double>(d.hiStep) + 1;
    const double y = f_.view.py(d.lane);
    const QRectF ghost(f_.view.px(d.step) - nodeW / 2, y - nodeH / 2, nodeW, nodeH);
    p_.setPen(QPen(inside ? pal.color(QPalette::Highlight) : colors::peak(pal), 2, Qt::DashLine));
    p_.drawRect(ghost);
    if (!inside) {
        p_.setPen(colors::peak(pal));
        p_.drawText(QRectF(f_.view.px(d.step) + 8, y + nodeH, 420, 40), Qt::TextWordWrap, d.why);
    }
}
