#include "dataflow/dataflowpainter.h"

#include "dataflow/dataflowlabels.h"
#include "util/colors.h"
#include "util/text.h"
#include "util/units.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace {

using Box = fxmem::DataflowDrawing::Box;
using Kind = fxmem::DataflowDrawing::Kind;

constexpr double kTextMinHeight = 22; // pixels of box height below which no text is drawn
constexpr double kBorderMinHeight = 5;

struct Frame {
    QPainter& p;
    const DataflowPaintInput& in;
    QRectF view; // layout coordinates
    double fontPx = 11;
};

QRectF widgetRect(const Frame& f, const DataflowPiece& piece, const Box& b) {
    const QPointF a = f.in.camera.toWidget(piece.x + b.x, piece.top + b.y);
    return {a, QSizeF(b.w * f.in.camera.scale, b.h * f.in.camera.scale)};
}

bool visible(const Frame& f, const DataflowPiece& piece, const Box& b) {
    return QRectF(piece.x + b.x, piece.top + b.y, b.w, b.h).intersects(f.view);
}

void drawText(Frame& f, const QRectF& r, const QStringList& lines, const QColor& color) {
    QFont font = f.p.font();
    font.setPixelSize(std::max(1, static_cast<int>(f.fontPx)));
    f.p.setFont(font);
    f.p.setPen(color);
    const QFontMetricsF fm(font);
    const double lh = fm.height();
    const QRectF inner = r.adjusted(4, 2, -4, -2);
    const int fit = std::max(1, static_cast<int>(inner.height() / lh));
    const int n = std::min<int>(fit, static_cast<int>(lines.size()));
    double y = inner.center().y() - n * lh / 2;
    for (int i = 0; i < n; ++i, y += lh)
        f.p.drawText(QRectF(inner.left(), y, inner.width(), lh), Qt::AlignCenter,
                     fm.elidedText(lines[i], Qt::ElideRight, inner.width()));
}

void drawModuleFrames(Frame& f, std::size_t s) {
    const DataflowPiece& piece = f.in.layouts->piece(s);
    const QColor frame = colors::mix(f.in.palette.color(QPalette::Base), f.in.palette.color(QPalette::Text), 0.25);
    const QColor fill = colors::mix(f.in.palette.color(QPalette::Base), f.in.palette.color(QPalette::Text), 0.03);
    const fxmem::ModuleTree& tree = piece.layout->tree();
    const auto& flags = (*f.in.boxFlags)[s];
    for (std::size_t i = 0; i < piece.drawing.boxes.size(); ++i) {
        const Box& b = piece.drawing.boxes[i];
        if (b.kind != Kind::Module || !b.expanded || !visible(f, piece, b)) continue;
        const QRectF r = widgetRect(f, piece, b);
        const bool marked = flags[i] & kBoxModule;
        f.p.setPen(QPen(marked ? f.in.palette.color(QPalette::Highlight) : frame, marked ? 2.5 : 1));
        f.p.setBrush(fill);
        f.p.drawRect(r);
        const double header = 28 * f.in.camera.scale; // DataflowOptions::module_header
        if (header >= 10) {
            QRectF h(r.left() + 4, r.top(), r.width() - 8, header);
            QFont font = f.p.font();
            font.setPixelSize(std::max(1, static_cast<int>(std::min(f.fontPx, header * 0.5))));
            f.p.setFont(font);
            f.p.setPen(f.in.palette.color(QPalette::Text));
            const QString name = elided(tree[b.ref].name, 200);
            f.p.drawText(h, Qt::AlignLeft | Qt::AlignVCenter,
                         QFontMetricsF(font).elidedText(name, Qt::ElideMiddle, h.width()));
        }
    }
}

// pass 0: plain edges, 1: on the selection's path, 2: live (drawn last, over the rest).
void drawEdges(Frame& f, std::size_t s, int pass) {
    const DataflowPiece& piece = f.in.layouts->piece(s);
    const bool cursorHere = f.in.marks && f.in.marks->segment == static_cast<int>(s);
    const auto* path = f.in.pathEdges && s < f.in.pathEdges->size() ? &(*f.in.pathEdges)[s] : nullptr;
    QColor plain = f.in.palette.color(QPalette::Text);
    plain.setAlphaF(0.35f);
    const QColor live = colors::live(f.in.palette);
    QColor onPath = f.in.palette.color(QPalette::Highlight);
    onPath.setAlphaF(0.55f);
    const double zoom = std::clamp(f.in.camera.scale, 0.2, 2.0);
    QPolygonF poly;
    for (std::size_t e = 0; e < piece.drawing.edges.size(); ++e) {
        const auto& edge = piece.drawing.edges[e];
        const bool isLive = cursorHere && f.in.marks->liveEdge[e];
        const bool isPath = path && !path->empty() && (*path)[e];
        if ((isLive ? 2 : isPath ? 1 : 0) != pass) continue;
        double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300;
        for (const auto& pt : edge.points) {
            x0 = std::min(x0, pt.x), x1 = std::max(x1, pt.x), y0 = std::min(y0, pt.y), y1 = std::max(y1, pt.y);
        }
        if (!QRectF(piece.x + x0, piece.top + y0, x1 - x0 + 1, y1 - y0 + 1).intersects(f.view)) continue;
        poly.resize(0);
        for (const auto& pt : edge.points) poly << f.in.camera.toWidget(piece.x + pt.x, piece.top + pt.y);
        QPen pen(isLive ? live : isPath ? onPath : plain, edgeWidth(edge.bytes) * zoom * (isLive ? 1.5 : 1));
        if (edge.reversed) pen.setStyle(Qt::DashLine);
        f.p.setPen(pen);
        f.p.drawPolyline(poly);
    }
}

std::size_t drawBoxes(Frame& f, std::size_t s) {
    const DataflowPiece& piece = f.in.layouts->piece(s);
    const Segment& seg = f.in.scene->segments[s];
    const fxmem::Graph& g = seg.analysis->graph();
    const fxmem::ModuleTree& tree = piece.layout->tree();
    const DataflowMarks* marks = f.in.marks && f.in.marks->segment == static_cast<int>(s) ? f.in.marks : nullptr;
    const auto& flags = (*f.in.boxFlags)[s];
    const QColor base = f.in.palette.color(QPalette::Base), text = f.in.palette.color(QPalette::Text);
    const QColor moduleFill = colors::mix(base, text, 0.12), live = colors::live(f.in.palette);
    const QColor highlight = f.in.palette.color(QPalette::Highlight), cursor = colors::cursor(f.in.palette);
    std::size_t drawn = 0;
    for (std::size_t i = 0; i < piece.drawing.boxes.size(); ++i) {
        const Box& b = piece.drawing.boxes[i];
        if (b.expanded || !visible(f, piece, b)) continue;
        ++drawn;
        const QRectF r = widgetRect(f, piece, b);
        const bool isNode = b.kind == Kind::Node;
        const QColor own = isNode ? QColor::fromRgba(f.in.colors->of(
                                        {static_cast<int>(s), fxmem::NodeId(static_cast<std::int32_t>(b.ref))}))
                                  : moduleFill;
        const QColor fill = isNode ? colors::mix(base, own, 0.55) : own;
        if (r.height() < kBorderMinHeight) {
            f.p.fillRect(r, marks && marks->liveBox[i] ? live : isNode ? own : text);
            continue;
        }
        const std::uint8_t fl = flags[i];
        const bool executing = marks && marks->executingBox == i;
        QPen pen(isNode ? own.darker(130) : colors::mix(base, text, 0.5), 1);
        if (marks && marks->liveBox[i]) pen = QPen(live, 2.5);
        if (fl & (kBoxPath | kBoxModule)) pen = QPen(highlight, 2);
        if (fl & kBoxMatch) pen = QPen(colors::peak(f.in.palette), 2.5);
        if (fl & kBoxSelected) pen = QPen(highlight, 3.5);
        if (executing) pen = QPen(cursor, 4);
        if (fl & kBoxRecomputed) pen.setStyle(Qt::DotLine);
        f.p.setPen(pen);
        f.p.setBrush(fl & kBoxHovered ? fill.lighter(fill.lightnessF() < 0.5 ? 140 : 108) : fill);
        const double radius = isNode ? 4 * std::min(1.0, f.in.camera.scale) : 0;
        f.p.drawRoundedRect(r, radius, radius);
        if (r.height() < kTextMinHeight) continue;
        QStringList lines;
        if (isNode) {
            const fxmem::NodeId n(static_cast<std::int32_t>(b.ref));
            lines << opLabel(g, n) << shapeLabel(g, n);
        } else {
            const fxmem::ModuleRepeat rep = piece.layout->repeat(b.ref);
            const QString name = elided(tree[b.ref].name, 200);
            lines << (rep.count > 1 ? repeatLabel(tree, rep) : name);
            QString bytes = QStringLiteral("alloc ") + formatBytes(piece.layout->allocated_bytes(b.ref));
            if (marks && b.ref < marks->moduleLive.size())
                bytes += QStringLiteral(" · live ") + formatBytes(marks->moduleLive[b.ref]);
            lines << bytes;
            if (rep.count > 1) lines.insert(0, name);
        }
        drawText(f, r, lines, text);
    }
    return drawn;
}

} // namespace

double edgeWidth(std::int64_t bytes) {
    const double l = std::log2(static_cast<double>(std::max<std::int64_t>(bytes, 1)) / 1024.0);
    return 0.5 + std::max(0.0, l) / 5.0;
}

std::size_t paintDataflow(QPainter& p, const DataflowPaintInput& in, QSizeF size) {
    p.fillRect(QRectF(QPointF(0, 0), size), in.palette.color(QPalette::Base));
    if (!in.scene || !in.layouts) return 0;
    Frame f{p, in, QRectF(in.camera.toLayout({0, 0}), in.camera.toLayout({size.width(), size.height()}))};
    f.fontPx = std::clamp(12.0 * in.camera.scale, 8.0, 15.0);
    std::size_t drawn = 0;
    for (std::size_t s = 0; s < in.layouts->size(); ++s) {
        const DataflowPiece& piece = in.layouts->piece(s);
        if (piece.x > f.view.right() || piece.x + piece.drawing.width < f.view.left()) continue;
        if (in.layouts->size() > 1) {
            const QPointF a = in.camera.toWidget(piece.x, 0);
            QFont font = p.font();
            font.setPixelSize(std::max(1, static_cast<int>(f.fontPx * 1.5)));
            font.setBold(true);
            p.setFont(font);
            p.setPen(in.palette.color(QPalette::Text));
            p.drawText(
                QRectF(a, QSizeF(piece.drawing.width * in.camera.scale, DataflowLayouts::kTitle * in.camera.scale)),
                Qt::AlignLeft | Qt::AlignVCenter, in.scene->segmentName(s));
        }
        drawModuleFrames(f, s);
        for (int pass = 0; pass < 3; ++pass) drawEdges(f, s, pass);
        drawn += drawBoxes(f, s);
    }
    return drawn;
}
