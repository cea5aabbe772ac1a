// An edge's leg inside one module: from its source's bottom centre down through its dummies (a
// dummy holds a gap in its row, so the leg crosses the row between boxes, vertically over the
// row's whole height) to its target's top centre. A reversed leg runs the same way upward.
#include "views/dataflow_level.h"

namespace fxmem::detail {

namespace {

// A point in line with the two before it, straight down or up (a long edge through dummies
// that sit in one column), extends the last segment instead: the same line, with fewer points
// to store, index and draw (a flat 100k-node graph's edges had 61 % of theirs so).
void push(std::vector<DataflowDrawing::Point>& out, double x, double y) {
    const DataflowDrawing::Point p{x, y};
    if (!out.empty() && out.back() == p) return;
    const std::size_t n = out.size();
    if (n >= 2 && out[n - 2].x == x && out[n - 1].x == x && (out[n - 1].y - out[n - 2].y) * (y - out[n - 1].y) > 0) {
        out.back().y = y;
        return;
    }
    out.push_back(p);
}

} // namespace

void append_route(const Level& level, const Level::Route& r, double ox, double oy,
                  std::vector<DataflowDrawing::Point>& out) {
    const auto bottom = [&](std::uint32_t i) { return level.top(i) + level.h[i]; };
    const auto row_bottom = [&](std::uint32_t i) {
        const auto l = static_cast<std::size_t>(level.layer[i]);
        return level.row_top[l] + level.row_height[l];
    };
    if (!r.reversed) {
        push(out, ox + level.cx(r.src), oy + bottom(r.src));
        for (std::uint32_t k = r.begin; k < r.end; ++k) {
            const std::uint32_t d = level.dummies[k];
            push(out, ox + level.cx(d), oy + level.top(d));
            push(out, ox + level.cx(d), oy + row_bottom(d));
        }
        push(out, ox + level.cx(r.dst), oy + level.top(r.dst));
        return;
    }
    push(out, ox + level.cx(r.src), oy + level.top(r.src));
    for (std::uint32_t k = r.end; k-- > r.begin;) {
        const std::uint32_t d = level.dummies[k];
        push(out, ox + level.cx(d), oy + row_bottom(d));
        push(out, ox + level.cx(d), oy + level.top(d));
    }
    push(out, ox + level.cx(r.dst), oy + bottom(r.dst));
}

} // namespace fxmem::detail
