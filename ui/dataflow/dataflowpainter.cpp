#include "dataflow/dataflowpainter.h"

#include "dataflow/dataflowlabels.h"
#include "dataflow/segmentclip.h"
#include "util/colors.h"
#include "util/text.h"
#include "util/units.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <type_traits>

namespace {

using Box = fxmem::DataflowDrawing::Box;
using Kind = fxmem::DataflowDrawing::Kind;

constexpr double kTextMinHeight = 22; // pixels of box height below which no text is drawn
constexpr double kBorderMinHeight = 5;

struct Frame {
    QPainter& p;
    const DataflowPaintInput& in;
    QRectF view;   // layout coordinates
    QRectF screen; // widget coordinates, with a margin for pen widths
    double fontPx = 11;
    // The current segment's boxes and edges that may be in view (DataflowSpatialIndex), ascending:
    // the loops below keep their own tests and order, so the index changes no pixel.
    std::vector<std::uint32_t>& boxes;
    std::vector<std::uint32_t>& edges;
    QFont labelFont{}; // the painter's font when the frame began, at fontPx
    std::optional<QFontMetricsF> labelMetrics{};
    DataflowLayer layer = DataflowLayer::Base;
};

// What a frame fills and throws away, kept from frame to frame (per painting thread): made anew,
// the line batches of a large view cost page faults on every frame (8 % of a 100k graph's paint).
struct Scratch {
    std::vector<std::uint32_t> boxes, edges;
    std::vector<QLineF> batch[8][2]; // drawEdges: [width - 1][reversed]
    std::vector<QLineF> cross[2];    // drawCrossEdges: plain, live
    std::vector<QLineF> dashes;      // appendDashes' pieces of the dashed lines being drawn
};
Scratch& scratch() {
    static thread_local Scratch s;
    return s;
}

QRectF widgetRect(const Frame& f, const DataflowPiece& piece, const Box& b) {
    const QPointF a = f.in.camera.toWidget(piece.x + b.x, piece.top + b.y);
    return {a, QSizeF(b.w * f.in.camera.scale, b.h * f.in.camera.scale)};
}

bool visible(const Frame& f, const DataflowPiece& piece, const Box& b) {
    return QRectF(piece.x + b.x, piece.top + b.y, b.w, b.h).intersects(f.view);
}

// The label font and its metrics, made once per frame (the boxes' text is all one size).
const QFontMetricsF& labelMetrics(Frame& f) {
    if (!f.labelMetrics) f.labelMetrics.emplace(f.labelFont);
    return *f.labelMetrics;
}

// Lines already elided to the box's inner width, centred, as many as fit.
void drawLines(Frame& f, const QRectF& r, const QString* lines, int count, const QColor& color) {
    const QFontMetricsF& fm = labelMetrics(f);
    f.p.setFont(f.labelFont);
    f.p.setPen(color);
    const double lh = fm.height();
    const QRectF inner = r.adjusted(4, 2, -4, -2);
    const int fit = std::max(1, static_cast<int>(inner.height() / lh));
    const int n = std::min(fit, count);
    double y = inner.center().y() - n * lh / 2;
    for (int i = 0; i < n; ++i, y += lh)
        f.p.drawText(QRectF(inner.left(), y, inner.width(), lh), Qt::AlignCenter, lines[i]);
}

QString elideToBox(Frame& f, const QRectF& r, const QString& text) {
    return labelMetrics(f).elidedText(text, Qt::ElideRight, r.width() - 8);
}

void drawModuleFrames(Frame& f, std::size_t s) {
    const DataflowPiece& piece = f.in.layouts->piece(s);
    const QColor frame = colors::mix(f.in.palette.color(QPalette::Base), f.in.palette.color(QPalette::Text), 0.25);
    const QColor fill = colors::mix(f.in.palette.color(QPalette::Base), f.in.palette.color(QPalette::Text), 0.03);
    const fxmem::ModuleTree& tree = piece.layout->tree();
    const auto& flags = (*f.in.boxFlags)[s];
    const double header = 28 * f.in.camera.scale; // DataflowOptions::module_header
    // A frame around the whole view, its border and header outside it, shows only its fill, as
    // every other such frame does: they are the nested modules around what is in view, drawn
    // outermost first. The first is drawn, the others would paint the same pixels again (one node
    // 100,000 modules deep filled the view 100,000 times, 44 s to open the Dataflow view).
    bool aroundTheViewDrawn = false;
    for (const std::uint32_t i : f.boxes) {
        const Box& b = piece.drawing.boxes[i];
        if (b.kind != Kind::Module || !b.expanded || !visible(f, piece, b)) continue;
        const QRectF r = widgetRect(f, piece, b);
        const bool aroundTheView = r.left() <= f.screen.left() && r.right() >= f.screen.right() &&
                                   r.bottom() >= f.screen.bottom() &&
                                   r.top() + (header >= 10 ? header : 0) <= f.screen.top();
        if (aroundTheView) {
            if (aroundTheViewDrawn) continue;
            aroundTheViewDrawn = true;
        }
        if (f.in.framesDrawn) ++*f.in.framesDrawn;
        const bool marked = flags[i] & kBoxModule;
        f.p.setPen(QPen(marked ? f.in.palette.color(QPalette::Highlight) : frame, marked ? 2.5 : 1));
        f.p.setBrush(fill);
        f.p.drawRect(r);
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

// Liang-Barsky: the part of segment a-b inside r; false when none. Qt strokes (and dashes) a line's
// whole length, so an edge thousands of pixels long off screen is cut to the widget first. A
// dashed line (`period`: its dash pattern's length in pixels, 0 for a solid one) is cut at a whole
// number of periods from its start, so that its dashes are where the whole line has them: where
// the view is, not where the cut falls (the dashes would crawl while panning, and the strips of
// a scrolled frame would not meet the moved pixels).
bool clip(QPointF& a, QPointF& b, const QRectF& r, double period = 0) {
    double t0 = 0, t1 = 1;
    if (!clipSegment(a.x(), a.y(), b.x(), b.y(), r.left(), r.top(), r.right(), r.bottom(), t0, t1)) return false;
    const double dx = b.x() - a.x(), dy = b.y() - a.y();
    if (period > 0 && t0 > 0) {
        const double length = std::hypot(dx, dy);
        t0 = std::floor(t0 * length / period) * period / length;
    }
    const QPointF a0 = a;
    a = a0 + t0 * QPointF(dx, dy);
    b = a0 + t1 * QPointF(dx, dy);
    return true;
}

// Qt's dash pattern, 4 on and 2 off in units of `unit` pixels, as solid pieces of l from its
// start, where clip() leaves the pattern's phase at 0. Qt's own dashes of a long line came out up
// to a pixel apart in a scrolled strip's clip and in a whole paint; solid pieces rasterize the same.
void appendDashes(const QLineF& l, double unit, std::vector<QLineF>& out) {
    const double length = l.length();
    if (length <= 0) return;
    const QPointF step = (l.p2() - l.p1()) / length;
    for (double t = 0; t < length; t += 6 * unit)
        out.emplace_back(l.p1() + t * step, l.p1() + std::min(t + 4 * unit, length) * step);
}

// pass 0: plain edges, 1: on the selection's path (the base layer), 2: live (the marks layer,
// over the rest). Each
// pass clips the polylines to the widget and draws their segments in a few batches, one per
// whole-pixel width and dash. What costs a frame is fill: thousands of wide translucent lines
// across the widget (a flat graph's long edges) took 160 ms; past kManySegments a pass draws
// its lines one pixel wide, opaque and without antialiasing (widths show once zoomed in).
void drawEdges(Frame& f, std::size_t s, int pass) {
    constexpr int kWidths = 8;
    constexpr std::size_t kManySegments = 400;
    const DataflowPiece& piece = f.in.layouts->piece(s);
    const bool cursorHere = f.in.marks && f.in.marks->segment == static_cast<int>(s);
    const auto* path = f.in.pathEdges && s < f.in.pathEdges->size() ? &(*f.in.pathEdges)[s] : nullptr;
    QColor color = pass == 2   ? colors::live(f.in.palette)
                   : pass == 1 ? f.in.palette.color(QPalette::Highlight)
                               : f.in.palette.color(QPalette::Text);
    if (pass == 0) color.setAlphaF(0.35f);
    if (pass == 1) color.setAlphaF(0.55f);
    const double zoom = std::clamp(f.in.camera.scale, 0.2, 2.0) * (pass == 2 ? 1.5 : 1);
    auto& batch = scratch().batch; // [width - 1][reversed]
    static_assert(std::extent_v<std::remove_reference_t<decltype(batch)>> == kWidths);
    for (auto& byWidth : batch)
        for (auto& lines : byWidth) lines.clear();
    std::size_t segments = 0;
    for (const std::uint32_t e : f.edges) {
        const auto& edge = piece.drawing.edges[e];
        // The base layer draws every edge plain or on the path; the marks layer draws the live
        // ones again over it.
        const bool isLive = pass == 2 && cursorHere && f.in.marks->liveEdge[e];
        const bool isPath = path && !path->empty() && (*path)[e];
        if ((isLive ? 2 : isPath ? 1 : 0) != pass) continue;
        const auto& bb = piece.edgeBounds[e];
        if (piece.x + bb[2] < f.view.left() || piece.x + bb[0] > f.view.right() || piece.top + bb[3] < f.view.top() ||
            piece.top + bb[1] > f.view.bottom())
            continue;
        const int w = std::clamp(static_cast<int>(std::lround(edgeWidth(edge.bytes) * zoom)), 1, kWidths);
        auto& out = batch[w - 1][edge.reversed ? 1 : 0];
        // Qt's dash line is 4 on, 2 off, in pen widths (one pixel for the thin opaque pens).
        const double period = edge.reversed ? 6.0 * w : 0;
        for (std::size_t k = 1; k < edge.points.size(); ++k) {
            QPointF a = f.in.camera.toWidget(piece.x + edge.points[k - 1].x, piece.top + edge.points[k - 1].y);
            QPointF b = f.in.camera.toWidget(piece.x + edge.points[k].x, piece.top + edge.points[k].y);
            if (!clip(a, b, f.screen, period)) continue;
            out.emplace_back(a, b);
            ++segments;
        }
    }
    if (segments == 0) return;
    if (f.in.style)
        *f.in.style = *f.in.style * 1000003u + s * 6 + static_cast<unsigned>(pass) * 2 + (segments > kManySegments);
    const bool thin = segments > kManySegments;
    // The reversed (dashed) lines cut into dashes: of one pixel's unit for the thin pens, else
    // of the pen's width.
    auto& dashed = scratch().dashes;
    const auto dashesOf = [&](int w) -> const std::vector<QLineF>& {
        dashed.clear();
        for (const QLineF& l : batch[w - 1][1]) appendDashes(l, thin ? 1.0 : w, dashed);
        return dashed;
    };
    f.p.save();
    if (thin) {
        f.p.setRenderHint(QPainter::Antialiasing, false);
        f.p.setPen(QPen(colors::mix(f.in.palette.color(QPalette::Base), color, color.alphaF()), 0));
        for (int reversed = 0; reversed < 2; ++reversed)
            for (int w = 1; w <= kWidths; ++w) {
                const auto& lines = reversed ? dashesOf(w) : batch[w - 1][0];
                if (!lines.empty()) f.p.drawLines(lines.data(), static_cast<int>(lines.size()));
            }
        f.p.restore();
        return;
    }
    for (int w = 1; w <= kWidths; ++w)
        for (int reversed = 0; reversed < 2; ++reversed) {
            const auto& lines = reversed ? dashesOf(w) : batch[w - 1][0];
            if (lines.empty()) continue;
            f.p.setPen(QPen(color, w, Qt::SolidLine, Qt::FlatCap));
            f.p.drawLines(lines.data(), static_cast<int>(lines.size()));
        }
    f.p.restore();
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
    for (const std::uint32_t i : f.boxes) {
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
        if (isNode) {
            const fxmem::NodeId n(static_cast<std::int32_t>(b.ref));
            const auto make = [&] {
                return DataflowLabelCache::Lines{elideToBox(f, r, opLabel(g, n)), elideToBox(f, r, shapeLabel(g, n))};
            };
            if (f.in.labels) {
                drawLines(f, r, f.in.labels->get(s, i, piece.drawing.boxes.size(), make).data(), 2, text);
            } else {
                const DataflowLabelCache::Lines lines = make();
                drawLines(f, r, lines.data(), 2, text);
            }
        } else {
            QStringList lines;
            const fxmem::ModuleRepeat rep = piece.layout->repeat(b.ref);
            const QString name = elided(tree[b.ref].name, 200);
            lines << (rep.count > 1 ? repeatLabel(tree, rep) : name);
            QString bytes = QStringLiteral("alloc ") + formatBytes(piece.layout->allocated_bytes(b.ref));
            if (marks && b.ref < marks->moduleLive.size())
                bytes += QStringLiteral(" · live ") + formatBytes(marks->moduleLive[b.ref]);
            lines << bytes;
            if (rep.count > 1) lines.insert(0, name);
            for (QString& l : lines) l = elideToBox(f, r, l);
            drawLines(f, r, lines.constData(), static_cast<int>(lines.size()), text);
        }
    }
    return drawn;
}

// What a later segment reads from an earlier one (saved activations): from the right of the box
// that made it to the left of the placeholder's, dashed (the base layer draws every one so);
// those live at the cursor again over them, solid in the live colour (the marks layer).
void drawCrossEdges(Frame& f) {
    const auto& cross = f.in.layouts->crossEdges();
    if (cross.empty()) return;
    QColor plain = f.in.palette.color(QPalette::Link);
    plain.setAlphaF(0.45f);
    const QColor live = colors::live(f.in.palette);
    auto& lines = scratch().cross; // plain, live
    lines[0].clear();
    lines[1].clear();
    for (const CrossEdge& c : cross) {
        const DataflowPiece& from = f.in.layouts->piece(c.from_segment);
        const DataflowPiece& to = f.in.layouts->piece(c.to_segment);
        const auto& a = from.drawing.boxes[c.from_box];
        const auto& b = to.drawing.boxes[c.to_box];
        QPointF p = f.in.camera.toWidget(from.x + a.x + a.w, from.top + a.y + a.h / 2);
        QPointF q = f.in.camera.toWidget(to.x + b.x, to.top + b.y + b.h / 2);
        if (!clip(p, q, f.screen, 6)) continue; // dashed (plain) at width 1; live ones are solid
        const bool isLive = f.in.marks && f.in.marks->segment == static_cast<int>(c.to_segment) &&
                            f.in.marks->liveNode[c.placeholder.index()];
        lines[isLive ? 1 : 0].emplace_back(p, q);
    }
    const bool smooth = lines[0].size() + lines[1].size() < 400;
    f.p.save();
    f.p.setRenderHint(QPainter::Antialiasing, smooth);
    if (f.layer == DataflowLayer::Base) {
        if (f.in.style) *f.in.style = *f.in.style * 1000003u + 7 + smooth;
        auto& dashed = scratch().dashes;
        dashed.clear();
        for (const auto& group : lines)
            for (const QLineF& l : group) appendDashes(l, 1, dashed);
        f.p.setPen(QPen(plain, 1, Qt::SolidLine, Qt::FlatCap));
        f.p.drawLines(dashed.data(), static_cast<int>(dashed.size()));
    } else {
        f.p.setPen(QPen(live, 1.5));
        f.p.drawLines(lines[1].data(), static_cast<int>(lines[1].size()));
    }
    f.p.restore();
}

} // namespace

double edgeWidth(std::int64_t bytes) {
    const double l = std::log2(static_cast<double>(std::max<std::int64_t>(bytes, 1)) / 1024.0);
    return 0.5 + std::max(0.0, l) / 5.0;
}

std::size_t paintDataflow(QPainter& p, const DataflowPaintInput& in, QSizeF size, DataflowLayer layer) {
    const bool base = layer == DataflowLayer::Base;
    if (base) p.fillRect(QRectF(QPointF(0, 0), size), in.palette.color(QPalette::Base));
    if (!in.scene || !in.layouts) return 0;
    Frame f{p,
            in,
            QRectF(in.camera.toLayout({0, 0}), in.camera.toLayout({size.width(), size.height()})),
            {},
            11,
            scratch().boxes,
            scratch().edges};
    f.layer = layer;
    f.screen = QRectF(QPointF(-8, -8), size + QSizeF(16, 16));
    f.fontPx = std::clamp(12.0 * in.camera.scale, 8.0, 15.0);
    // Taken before anything is drawn: both layers then letter the boxes alike, whatever a title
    // or a module's header set (pair views had their boxes' text bold from the titles' font).
    f.labelFont = p.font();
    f.labelFont.setPixelSize(std::max(1, static_cast<int>(f.fontPx)));
    if (in.labels) in.labels->setKey(in.layouts->revision(), in.camera.scale, f.labelFont);
    std::size_t drawn = 0;
    drawCrossEdges(f);
    for (std::size_t s = 0; s < in.layouts->size(); ++s) {
        const DataflowPiece& piece = in.layouts->piece(s);
        if (piece.x > f.view.right() || piece.x + piece.drawing.width < f.view.left()) continue;
        if (base && in.layouts->size() > 1) {
            p.save();
            const QPointF a = in.camera.toWidget(piece.x, 0);
            QFont font = p.font();
            font.setPixelSize(std::max(1, static_cast<int>(f.fontPx * 1.5)));
            font.setBold(true);
            p.setFont(font);
            p.setPen(in.palette.color(QPalette::Text));
            // Elided to the segment's width: a narrow graph's title would run into the next one's.
            const QRectF title(
                a, QSizeF(piece.drawing.width * in.camera.scale, DataflowLayouts::kTitle * in.camera.scale));
            p.drawText(title, Qt::AlignLeft | Qt::AlignVCenter,
                       QFontMetricsF(font).elidedText(in.scene->segmentName(s), Qt::ElideRight, title.width()));
            p.restore();
        }
        // The view in the segment's coordinates, widened by the widget margin edges are clipped to
        // (a wide pen just outside still shows) and a unit for rounding.
        const double margin = 8 / in.camera.scale + 1;
        const DataflowSpatialIndex::Rect r{f.view.left() - piece.x - margin, f.view.top() - piece.top - margin,
                                           f.view.right() - piece.x + margin, f.view.bottom() - piece.top + margin};
        if (in.useIndex) {
            piece.index.boxes(r, f.boxes);
            piece.index.edges(r, f.edges);
        } else {
            f.boxes.resize(piece.drawing.boxes.size());
            std::iota(f.boxes.begin(), f.boxes.end(), 0u);
            f.edges.resize(piece.drawing.edges.size());
            std::iota(f.edges.begin(), f.edges.end(), 0u);
        }
        if (base) {
            drawModuleFrames(f, s);
            drawEdges(f, s, 0);
            drawEdges(f, s, 1);
        } else {
            drawEdges(f, s, 2);
            drawn += drawBoxes(f, s);
        }
    }
    return drawn;
}

std::size_t paintDataflow(QPainter& p, const DataflowPaintInput& in, QSizeF size) {
    paintDataflow(p, in, size, DataflowLayer::Base);
    return paintDataflow(p, in, size, DataflowLayer::Marks);
}
