#include "dataflow/dataflowspatialindex.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace {

constexpr std::uint32_t kNoItem = 0xffffffffu;
constexpr int kBigCells = 32;     // a box over more cells than this is returned by every query
constexpr int kMaxSide = 1 << 14; // cells per axis at most
constexpr double kMinCell = 8;    // layout units: no finer than a fraction of a box
constexpr std::size_t kCellsCap = 1u << 22;
constexpr double kPiecesPerSegment = 1; // pieces a leg is cut into, on average

// Items pushed in ascending item order; a cell keeps one entry per item.
struct Pairs {
    std::vector<std::uint32_t> cellOf, item, last;
    explicit Pairs(std::size_t cells) : last(cells, kNoItem) {}
    void add(std::size_t cell, std::uint32_t i) {
        if (last[cell] == i) return;
        last[cell] = i;
        cellOf.push_back(static_cast<std::uint32_t>(cell));
        item.push_back(i);
    }
};

} // namespace

DataflowSpatialIndex::Grid::Grid(double w, double h, double cell) {
    cols = static_cast<int>(std::clamp(std::ceil(w / cell), 1.0, double(kMaxSide)));
    rows = static_cast<int>(std::clamp(std::ceil(h / cell), 1.0, double(kMaxSide)));
    cellW = w / cols;
    cellH = h / rows;
    invW = 1 / cellW;
    invH = 1 / cellH;
}

namespace {
// The cell of a coordinate; out of the drawing (or NaN) falls in the border cells, so nothing is
// ever lost. Multiplying by the inverse is monotonic, as the superset answers need.
int cellOf(double v, double inverse, int n) {
    const double c = std::floor(v * inverse);
    if (!(c > 0)) return 0;
    return c >= n - 1 ? n - 1 : static_cast<int>(c);
}
} // namespace

int DataflowSpatialIndex::Grid::column(double x) const { return cellOf(x, invW, cols); }
int DataflowSpatialIndex::Grid::row(double y) const { return cellOf(y, invH, rows); }

DataflowSpatialIndex::Grid::Range DataflowSpatialIndex::Grid::range(const Rect& r) const {
    return {column(r.x0), row(r.y0), column(r.x1), row(r.y1)};
}

void DataflowSpatialIndex::Grid::collect(std::size_t count, const Range& r, std::vector<std::uint32_t>& out) const {
    if (r.all(*this)) {
        out.resize(count);
        std::iota(out.begin(), out.end(), 0u);
        return;
    }
    for (int y = r.r0; y <= r.r1; ++y) {
        const std::size_t row = static_cast<std::size_t>(y) * static_cast<std::size_t>(cols);
        out.insert(out.end(), items.begin() + start[row + static_cast<std::size_t>(r.c0)],
                   items.begin() + start[row + static_cast<std::size_t>(r.c1) + 1]);
    }
    // Many hits (a view of most of the drawing): a pass over a mark per item beats sorting them.
    if (out.size() > count / 4) {
        std::vector<std::uint8_t> seen(count, 0);
        for (std::uint32_t i : out) seen[i] = 1;
        out.clear();
        for (std::size_t i = 0; i < count; ++i)
            if (seen[i]) out.push_back(static_cast<std::uint32_t>(i));
        return;
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
}

DataflowSpatialIndex::DataflowSpatialIndex(const fxmem::DataflowDrawing& d)
    : boxCount_(d.boxes.size()), edgeCount_(d.edges.size()) {
    const double w = std::max(d.width, 1.0), h = std::max(d.height, 1.0);
    const auto fill = [](Grid& g, const Pairs& p) {
        g.start.assign(g.cells() + 1, 0);
        for (std::uint32_t c : p.cellOf) ++g.start[c + 1];
        std::partial_sum(g.start.begin(), g.start.end(), g.start.begin());
        g.items.resize(p.item.size());
        std::vector<std::uint32_t> next(g.start.begin(), g.start.end() - 1);
        for (std::size_t k = 0; k < p.item.size(); ++k) g.items[next[p.cellOf[k]]++] = p.item[k];
    };
    const auto cover = [](const Grid& g, const Grid::Range& r, Pairs& p, std::uint32_t item) {
        for (int y = r.r0; y <= r.r1; ++y)
            for (int x = r.c0; x <= r.c1; ++x)
                p.add(static_cast<std::size_t>(y) * static_cast<std::size_t>(g.cols) + static_cast<std::size_t>(x),
                      item);
    };

    // About one cell per box: a view's worth of cells holds a view's worth of boxes.
    const double boxTarget = static_cast<double>(std::clamp<std::size_t>(boxCount_, 1, kCellsCap));
    boxes_ = Grid(w, h, std::max(std::sqrt(w * h / boxTarget), kMinCell));
    Pairs boxes(boxes_.cells());
    for (std::size_t i = 0; i < d.boxes.size(); ++i) {
        const auto& b = d.boxes[i];
        const Grid::Range r = boxes_.range({b.x, b.y, b.x + b.w, b.y + b.h});
        if ((r.c1 - r.c0 + 1) * (r.r1 - r.r0 + 1) > kBigCells)
            bigBoxes_.push_back(static_cast<std::uint32_t>(i));
        else
            cover(boxes_, r, boxes, static_cast<std::uint32_t>(i));
    }
    fill(boxes_, boxes);

    // The edges' cells: about one per 8 segments (the dummies' short legs), coarser when the legs
    // are long, so that cutting every leg into cell-sized pieces makes a few pieces per segment.
    std::size_t segments = 0;
    double length = 0; // the legs' summed extent, the larger axis of each
    for (const auto& e : d.edges)
        for (std::size_t k = 1; k < e.points.size(); ++k) {
            ++segments;
            length +=
                std::max(std::abs(e.points[k].x - e.points[k - 1].x), std::abs(e.points[k].y - e.points[k - 1].y));
        }
    const double edgeTarget = static_cast<double>(std::clamp<std::size_t>(segments / 8, 1, kCellsCap));
    const double perSegment = length / (kPiecesPerSegment * static_cast<double>(std::max<std::size_t>(segments, 1)));
    edges_ = Grid(w, h, std::max({std::sqrt(w * h / edgeTarget), kMinCell, perSegment}));
    Pairs edges(edges_.cells());
    const auto cell = [&](const fxmem::DataflowDrawing::Point& p) {
        const int c = edges_.column(p.x), r = edges_.row(p.y);
        return Grid::Range{c, r, c, r};
    };
    for (std::size_t e = 0; e < d.edges.size(); ++e) {
        const auto& pts = d.edges[e].points;
        if (pts.empty()) continue;
        const auto item = static_cast<std::uint32_t>(e);
        // Most edges (and most legs) lie within a cell or two: their points' cells say which.
        double x0 = pts[0].x, y0 = pts[0].y, x1 = x0, y1 = y0;
        for (const auto& pt : pts)
            x0 = std::min(x0, pt.x), y0 = std::min(y0, pt.y), x1 = std::max(x1, pt.x), y1 = std::max(y1, pt.y);
        if (const Grid::Range all = edges_.range({x0, y0, x1, y1});
            (all.c1 - all.c0 + 1) * (all.r1 - all.r0 + 1) <= 4) {
            cover(edges_, all, edges, item);
            continue;
        }
        Grid::Range a = cell(pts[0]);
        for (std::size_t k = 1; k < pts.size(); ++k) {
            const Grid::Range b = cell(pts[k]);
            if (std::abs(b.c0 - a.c0) <= 1 && std::abs(b.r0 - a.r0) <= 1) {
                cover(edges_, {std::min(a.c0, b.c0), std::min(a.r0, b.r0), std::max(a.c0, b.c0), std::max(a.r0, b.r0)},
                      edges, item);
                a = b;
                continue;
            }
            a = b;
            const double ax = pts[k - 1].x, ay = pts[k - 1].y, dx = pts[k].x - ax, dy = pts[k].y - ay;
            // Pieces no longer than a cell on either axis: the cells of a piece's two ends (each
            // worked out once) bound it.
            const double steps = std::ceil(std::max(std::abs(dx) / edges_.cellW, std::abs(dy) / edges_.cellH));
            const int n = static_cast<int>(std::clamp(steps, 1.0, double(2 * kMaxSide)));
            Grid::Range p = cell(pts[k - 1]);
            for (int j = 1; j <= n; ++j) {
                const Grid::Range q = j == n ? b : cell({ax + dx * j / n, ay + dy * j / n});
                cover(edges_, {std::min(p.c0, q.c0), std::min(p.r0, q.r0), std::max(p.c0, q.c0), std::max(p.r0, q.r0)},
                      edges, item);
                p = q;
            }
        }
    }
    fill(edges_, edges);
}

void DataflowSpatialIndex::boxes(const Rect& r, std::vector<std::uint32_t>& out) const {
    out.clear();
    out.insert(out.end(), bigBoxes_.begin(), bigBoxes_.end());
    boxes_.collect(boxCount_, boxes_.range(r), out);
}

void DataflowSpatialIndex::edges(const Rect& r, std::vector<std::uint32_t>& out) const {
    out.clear();
    edges_.collect(edgeCount_, edges_.range(r), out);
}
