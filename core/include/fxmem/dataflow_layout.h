// A layered (Sugiyama) drawing of one graph's dataflow, grouped by module: inputs at the top,
// outputs at the bottom, y growing downward. Nodes and collapsed modules are boxes of a size the
// caller gives (core measures no text); an expanded module is a box around its children's own
// layered drawing. Each expanded module (the root included) is laid out on its own, over its
// children only:
//   layering    edges lifted to the children, in a topological order of them (a cycle the
//               lifting makes is broken at the child whose first node comes first in graph
//               order: the edges into it from the cycle are drawn reversed),
//               longest path from the sources, sources then moved down to just above their
//               first user (parameters sit beside the layer that reads them), dummy items on
//               edges longer than one layer; inside a module an entry item on top and an exit
//               item at the bottom stand for the edges from and to the outside;
//   crossings   barycenter sweeps, a fixed number, the order with the fewest crossings kept;
//   coordinates per layer the x closest (least squares) to the mean of each item's neighbours
//               in the layer before, with the items' order and gaps kept (pool adjacent
//               violators, O(items) per layer), a few sweeps down and up;
//   routing     an edge is a polyline through its dummies, which hold a gap in their layers, so
//               it passes between boxes; across modules it joins its legs at each level. Dummies
//               are capped at 8 per item and edge of a level: past that the longest edges are
//               drawn straight (Edge::straight), so a flat graph's output node costs no
//               edges x layers.
// A collapsed module's insides are not laid out. expand()/collapse() lay out only the module
// itself and then shift, in each ancestor's layer holding it, the items to its right and the
// layers below: nothing above the module's row at any level moves, and a collapse after an
// expand restores every box exactly.
// Cost per laid-out module: O((items + edges + dummies) * passes + crossings' log factor).
#pragma once
#include "fxmem/attribution.h"
#include "fxmem/cancel.h"
#include "fxmem/estimator.h"
#include "fxmem/model.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace fxmem {

struct BoxSize {
    double w = 0, h = 0;
};

struct DataflowOptions {
    // Modules shallower than `depth` are expanded, those at `depth` drawn collapsed (1: the
    // top-level modules are boxes; the root is always expanded).
    std::uint32_t depth = 1;
    // Box sizes: a node's, a collapsed module's (tree index). Empty: the fixed sizes below.
    std::function<BoxSize(NodeId)> node_size;
    std::function<BoxSize(std::uint32_t)> module_size;
    BoxSize default_node{120, 32}, default_module{180, 44};
    double layer_gap = 36;     // between layers
    double node_gap = 24;      // between neighbours in a layer
    double edge_gap = 8;       // beside a dummy (an edge passing through a layer)
    double module_pad = 12;    // inside an expanded module's box, left, right and bottom
    double module_header = 28; // above an expanded module's contents (its name)
    int crossing_sweeps = 4;   // barycenter sweeps (down, up, ...)
    int coordinate_sweeps = 4;
    // Which storages count for the bytes (edges, modules); null: all.
    const StorageMask* counted = nullptr;
    CancelCheck cancelled; // polled between modules and sweeps (fxmem::Cancelled)
};

// Structurally equal consecutive siblings: the same sequence of (op target, depth below the
// module) over their nodes in graph order, compared by two 64-bit hashes. A module alone has
// count 1, index 0.
struct ModuleRepeat {
    std::uint32_t first = 0; // tree index of the run's first module
    std::uint32_t last = 0;
    std::uint32_t count = 1;
    std::uint32_t index = 0; // this module's place in the run
};

struct DataflowDrawing {
    enum class Kind : std::uint8_t { Node, Module };
    struct Box {
        Kind kind = Kind::Node;
        std::uint32_t ref = 0;               // NodeId index, or tree index
        std::optional<std::uint32_t> parent; // index into boxes of the enclosing expanded module; none at the top
        bool expanded = false;               // a module laid out inside its box
        double x = 0, y = 0, w = 0, h = 0;   // top-left corner and size
    };
    struct Point {
        double x = 0, y = 0;
        bool operator==(const Point&) const = default;
    };
    struct Edge {
        std::uint32_t from = 0, to = 0; // indices into boxes (nodes or collapsed modules)
        std::int64_t bytes = 0;         // each producer's output storages once per target box
        bool reversed = false;          // against the layering (a cycle among lifted modules): drawn upward
        // Its leg at the level where it runs spans more layers than the dummy budget allows (at
        // most 8 dummies per item and edge of that level; the longest edges go first): a straight
        // line there, which may cross boxes.
        bool straight = false;
        std::vector<Point> points; // from `from` to `to`
    };
    std::vector<Box> boxes; // parents before their children
    std::vector<Edge> edges;
    double width = 0, height = 0;
};

class DataflowLayout {
public:
    // Lays out file.graph(graph); the file must outlive the layout. `tree` is the graph's
    // ModuleTree (Attribution::tree() or ModuleTree(graph)); it is copied.
    DataflowLayout(const GraphFile& file, GraphId graph, const ModuleTree& tree, DataflowOptions options = {});
    ~DataflowLayout();
    DataflowLayout(DataflowLayout&&) noexcept;
    DataflowLayout& operator=(DataflowLayout&&) noexcept;

    // Expands `module` (tree index) and every collapsed ancestor; lays out only those. No-op
    // when already expanded. Throws Error for an index out of range.
    void expand(std::uint32_t module);
    // Collapses `module` (not the root) back into its box; its expanded descendants are
    // remembered and laid out again on its next expand.
    void collapse(std::uint32_t module);
    bool expanded(std::uint32_t module) const;
    bool laid_out(std::uint32_t module) const; // its insides computed (expanded and visible)

    const ModuleTree& tree() const;
    // The module the drawing puts a node in (tree index): its own, except a node without one (an
    // input, a saved transpose, a gradient sum) whose neighbours that have one all run inside a
    // module, drawn in the innermost such module (a layer's weights inside the layer); a value the
    // graph only returns, not a view, stays at the top. Throws Error for a node out of range.
    std::uint32_t module_of(NodeId node) const;
    ModuleRepeat repeat(std::uint32_t module) const;
    // Bytes of the storages first held in this graph by a computing node inside the module
    // (its descendants included; inputs and get_attr storages belong to no module). Counted
    // storages only.
    std::int64_t allocated_bytes(std::uint32_t module) const;

    // The visible boxes and edges, in absolute coordinates. O(N * depth + E + points).
    DataflowDrawing drawing() const;
    // Edge crossings between adjacent layers, summed over the laid-out modules (the crossing
    // reduction's objective; edges between modules count at the level where they run).
    std::uint64_t crossings() const;
    std::size_t laid_out_items() const; // items (dummies included) over the laid-out modules

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace fxmem
