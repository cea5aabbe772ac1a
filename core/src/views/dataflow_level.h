// One expanded module's layered drawing (fxmem/dataflow_layout.h): its children as items, the
// lifted edges between them, and the steps that place them. Local coordinates: x from the left
// of the module's contents, y from their top.
#pragma once
#include "fxmem/cancel.h"
#include "fxmem/dataflow_layout.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace fxmem::detail {

// In: the module's entry (edges from outside), Out: its exit; Dummy: a bend of a long edge.
enum class ItemKind : std::uint8_t { Node, Module, In, Out, Dummy };

// What the layering starts from: items 0..n-1 and the lifted edges between them.
struct LevelInput {
    std::vector<ItemKind> kind;
    std::vector<std::uint32_t> ref; // NodeId index or tree index (In/Out: the module)
    std::vector<BoxSize> size;
    std::vector<std::int64_t> key; // the item's first node in graph order; In -1, Out the largest
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges; // (from, to), deduplicated, from != to
    std::size_t size_items() const { return kind.size(); }
};

struct Level {
    std::uint32_t module = 0; // tree index
    // Per item: the input's items first (same indices), then the dummies.
    std::vector<ItemKind> kind;
    std::vector<std::uint32_t> ref;
    std::vector<double> w, h, x; // x: left edge
    std::vector<std::int32_t> layer;
    std::vector<std::uint32_t> pos; // place in its row
    std::vector<std::vector<std::uint32_t>> rows;
    std::vector<double> row_top, row_height;
    // One per lifted edge, sorted by (src, dst): its dummies, top to bottom, in dummies[begin, end).
    struct Route {
        std::uint32_t src = 0, dst = 0;
        bool reversed = false; // dst lies above src
        bool straight = false; // too long for the dummy budget: one straight line, no dummies
        std::uint32_t begin = 0, end = 0;
    };
    std::vector<Route> routes;
    std::vector<std::uint32_t> dummies;
    // Segments between adjacent layers as adjacency lists (CSR): up = neighbours one layer above.
    std::vector<std::uint32_t> up_start, up, down_start, down;
    std::uint64_t crossings = 0;
    double width = 0, height = 0;      // contents' extent
    std::size_t real_items = 0;        // items before the dummies
    std::uint32_t entry = 0, exit = 0; // the In and Out items (a module's level; not the root's)

    double cx(std::uint32_t i) const { return x[i] + w[i] / 2; }
    double top(std::uint32_t i) const { return row_top[static_cast<std::size_t>(layer[i])]; }
    // The route of lifted edge (src, dst); throws Error when there is none (a bug, not bad input).
    const Route& route(std::uint32_t src, std::uint32_t dst) const;
};

struct Spacing {
    double layer_gap = 0, node_gap = 0, edge_gap = 0;
};

// dataflow_layering.cpp: layers (cycles broken by key), dummies, routes, rows in key order, the
// adjacency. O(items + edges + dummies + sort of each layer).
void assign_layers(const LevelInput& input, Level& level);
// dataflow_crossing.cpp: barycenter sweeps; keeps the best order; returns its crossings.
std::uint64_t reduce_crossings(Level& level, int sweeps, const CancelCheck& cancelled);
std::uint64_t count_crossings(const Level& level); // O(segments log)
// dataflow_coords.cpp: x, rows' tops and heights, width and height.
void assign_coordinates(Level& level, const Spacing& spacing, int sweeps);
// dataflow_coords.cpp: the least gap between neighbours a (left) and b in a row.
double separation(const Level& level, std::uint32_t a, std::uint32_t b, const Spacing& spacing);
// dataflow_routing.cpp: appends route r's points, shifted by (ox, oy): from the source's bottom
// (a reversed route: its top) through the dummies to the target's top (bottom).
void append_route(const Level& level, const Level::Route& r, double ox, double oy,
                  std::vector<DataflowDrawing::Point>& out);

} // namespace fxmem::detail
