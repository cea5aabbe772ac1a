// The Dataflow mode's geometry: one fxmem::DataflowLayout per segment of the scene (core lays out
// one graph at a time), placed side by side left to right in one coordinate space, with where
// each node and module is drawn now. Built off the GUI thread (build()); expand and collapse
// change one segment's layout in place (core relays out one module, the rest stays) and only the
// segments to its right move sideways when its width changes.
#pragma once
#include "loading/scene.h"

#include <fxmem/dataflow_layout.h>

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

struct DataflowPiece {
    std::shared_ptr<const GraphAnalysis> analysis; // keeps the graph the layout reads alive
    std::unique_ptr<fxmem::DataflowLayout> layout;
    fxmem::DataflowDrawing drawing; // in the segment's own coordinates
    double x = 0;                   // where the segment's drawing starts, left to right
    double top = 0;                 // below the segment's title
    // Per node: the visible box drawing it (its own, or the collapsed module holding it); per
    // tree module: its box while visible (collapsed or open), else kNone.
    std::vector<std::uint32_t> nodeBox, moduleBox;
    // Per edge its points' bounding box (x0, y0, x1, y1), so a paint skips edges out of view
    // without reading their points.
    std::vector<std::array<double, 4>> edgeBounds;
};

// A value one segment makes and a later one reads through a placeholder (a pair's saved
// activations, what a whole step's run carries to a later one): drawn from the box of the node
// that made it to the box of the placeholder, each pair of boxes once with the bytes summed.
struct CrossEdge {
    std::size_t fromSegment = 0, toSegment = 0;
    std::uint32_t fromBox = 0, toBox = 0;
    std::int64_t bytes = 0;
    fxmem::NodeId placeholder; // the first placeholder it stands for
};

class DataflowLayouts {
public:
    static constexpr std::uint32_t kNone = 0xffffffffu;
    static constexpr double kSegmentGap = 120; // between the segments' drawings
    static constexpr double kTitle = 40;       // a segment's name above its drawing
    // The sizes of the boxes the view draws (text is elided to them).
    // Inputs (placeholders, get_attr) are narrower: a model's weights sit side by side in a row.
    static constexpr fxmem::BoxSize kNodeBox{150, 38}, kInputBox{100, 38}, kModuleBox{210, 58};

    // Every segment's overview: modules collapsed at the model's layer depth (Scene::layerDepth,
    // at least 1), the shallower ones open. Polls `cancelled` between segments and inside core.
    static std::shared_ptr<DataflowLayouts> build(const Scene& scene, const fxmem::CancelCheck& cancelled = {});

    std::size_t size() const { return pieces_.size(); }
    const DataflowPiece& piece(std::size_t segment) const { return pieces_[segment]; }
    const std::vector<CrossEdge>& crossEdges() const { return crossEdges_; }
    double width() const { return width_; }
    double height() const { return height_; }
    std::uint32_t depth() const { return depth_; }

    // Expands a collapsed module or collapses an open one (not the root); false when neither.
    bool toggle(std::size_t segment, std::uint32_t module);
    bool expand(std::size_t segment, std::uint32_t module);
    bool collapse(std::size_t segment, std::uint32_t module);

private:
    void redraw(std::size_t segment); // the drawing and the box maps of one segment
    void place();                     // segments' x from their widths
    void linkSegments();              // crossEdges_ from crossNodes_ and the boxes now
    std::vector<DataflowPiece> pieces_;
    struct CrossNode {
        std::size_t fromSegment, toSegment;
        fxmem::NodeId producer, placeholder;
        std::int64_t bytes;
    };
    std::vector<CrossNode> crossNodes_; // in segment and node order
    std::vector<CrossEdge> crossEdges_;
    double width_ = 0, height_ = 0;
    std::uint32_t depth_ = 1;
};
