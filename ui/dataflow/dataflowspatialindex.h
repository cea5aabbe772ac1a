// Which boxes and edges of one segment's drawing may meet a rectangle, so a frame visits what is
// in view rather than every box and edge (a 100k-node graph, an open 8B joint). A uniform grid
// over the drawing's coordinates, made once per layout (and again after an expand or collapse):
// each box in the cells its rectangle covers, each edge in the cells its segments pass through
// (a long segment cut into cell-sized pieces, so a diagonal leg does not fill its bounding box's
// cells). Boxes covering many cells (open modules' frames) are kept aside and always returned.
// Edges have their own grid, coarse enough that all their legs fill a few cells per segment on
// average (a flat graph's long edges would otherwise fill millions).
// Answers are a superset, ascending and without repeats: the painter keeps its exact tests and
// the drawing order, so what it draws does not change.
#pragma once
#include <fxmem/dataflow_layout.h>

#include <cstdint>
#include <vector>

class DataflowSpatialIndex {
public:
    struct Rect {
        double x0 = 0, y0 = 0, x1 = 0, y1 = 0; // closed, in the drawing's own coordinates
    };

    DataflowSpatialIndex() = default;
    explicit DataflowSpatialIndex(const fxmem::DataflowDrawing& drawing);

    // Every box whose rectangle meets r, and maybe others; ascending, each once.
    void boxes(const Rect& r, std::vector<std::uint32_t>& out) const;
    // Every edge with a segment that passes through r, and maybe others; ascending, each once.
    void edges(const Rect& r, std::vector<std::uint32_t>& out) const;

private:
    // A uniform grid of cells, each listing the items that may meet it, ascending.
    struct Grid {
        int cols = 1, rows = 1;
        double cellW = 1, cellH = 1, invW = 1, invH = 1;
        std::vector<std::uint32_t> start; // per cell, where its items begin in `items` (cells + 1)
        std::vector<std::uint32_t> items;
        Grid() = default;
        Grid(double w, double h, double cell);
        struct Range {
            int c0, r0, c1, r1;
            bool all(const Grid& g) const { return c0 == 0 && r0 == 0 && c1 == g.cols - 1 && r1 == g.rows - 1; }
        };
        Range range(const Rect& r) const;
        int column(double x) const;
        int row(double y) const;
        std::size_t cells() const { return static_cast<std::size_t>(cols) * static_cast<std::size_t>(rows); }
        void collect(std::size_t count, const Range& range, std::vector<std::uint32_t>& out) const;
    };

    std::size_t boxCount_ = 0, edgeCount_ = 0;
    Grid boxes_, edges_;
    std::vector<std::uint32_t> bigBoxes_; // ascending
};
