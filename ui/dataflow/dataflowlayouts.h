// The Dataflow mode's geometry: core's fxmem::DataflowScene over the scene's segments (one
// DataflowLayout each, side by side left to right, the values read across segments as edges),
// the same drawing `fxmem-cli layout --pair/--whole-step` prints, with the box sizes the view
// draws. Built off the GUI thread (build()); expand and collapse change one segment's layout in
// place (core relays out one module, the rest stays) and only the segments to its right move
// sideways when its width changes.
#pragma once
#include "dataflow/dataflowspatialindex.h"
#include "loading/scene.h"

#include <fxmem/dataflow_layout.h>
#include <fxmem/dataflow_scene.h>

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

// One segment as the view reads it: core's DataflowScene segment (fxmem/dataflow_scene.h) with
// the analysis that keeps its graph alive and its edges' bounds. Rebuilt whenever the scene changes.
struct DataflowPiece {
    std::shared_ptr<const GraphAnalysis> analysis;
    const fxmem::DataflowLayout* layout = nullptr;
    const fxmem::DataflowDrawing& drawing; // in the segment's own coordinates
    double x = 0;                          // where the segment's drawing starts, left to right
    double top = 0;                        // below the segment's title
    // Per node: the visible box drawing it (its own, or the collapsed module holding it); per
    // tree module: its box while visible (collapsed or open), else kNone.
    const std::vector<std::uint32_t>&nodeBox, &moduleBox;
    // Per edge its points' bounding box (x0, y0, x1, y1), so a paint skips edges out of view
    // without reading their points.
    const std::vector<std::array<double, 4>>& edgeBounds;
    // Which boxes and edges may meet a rectangle, so a frame visits only what is in view.
    const DataflowSpatialIndex& index;
    // Per box, the edges leaving it: edgesFrom[edgesFromStart[b] .. edgesFromStart[b + 1]).
    const std::vector<std::uint32_t>&edgesFromStart, &edgesFrom;
};

// A value one segment makes and a later one reads through a placeholder (a pair's saved
// activations, what a whole step's run carries to a later one), as core composes it.
using CrossEdge = fxmem::DataflowCrossEdge;

class DataflowLayouts {
public:
    static constexpr std::uint32_t kNone = 0xffffffffu;
    static constexpr double kSegmentGap = fxmem::DataflowScene::kSegmentGap; // between the segments' drawings
    static constexpr double kTitle = fxmem::DataflowScene::kTitle;           // a segment's name above its drawing

    // Every segment's overview: modules collapsed at the model's layer depth (Scene::layerDepth,
    // at least 1), the shallower ones open. Polls `cancelled` between segments and inside core.
    static std::shared_ptr<DataflowLayouts> build(const Scene& scene, const fxmem::CancelCheck& cancelled = {});

    std::size_t size() const { return pieces_.size(); }
    const DataflowPiece& piece(std::size_t segment) const { return pieces_[segment]; }
    const std::vector<CrossEdge>& crossEdges() const { return scene_->cross_edges(); }
    double width() const { return scene_->width(); }
    double height() const { return scene_->height(); }
    const fxmem::DataflowScene& scene() const { return *scene_; }
    std::uint32_t depth() const { return depth_; }
    // Changes with every expand or collapse, and differs between two layouts: what was worked out
    // from one revision (the marks) is for that drawing only.
    std::uint64_t revision() const { return revision_; }

    // Expands a collapsed module or collapses an open one (not the root); false when neither.
    bool toggle(std::size_t segment, std::uint32_t module);
    bool expand(std::size_t segment, std::uint32_t module);
    bool collapse(std::size_t segment, std::uint32_t module);

private:
    void bound(std::size_t segment); // edgeBounds_, index_ and edgesFrom_ of one segment from its drawing
    void pieces();                   // pieces_ from the scene now
    std::vector<std::shared_ptr<const GraphAnalysis>> analyses_;
    std::unique_ptr<fxmem::DataflowScene> scene_;
    std::vector<std::vector<std::array<double, 4>>> edgeBounds_;
    std::vector<DataflowSpatialIndex> index_;
    std::vector<std::vector<std::uint32_t>> edgesFromStart_, edgesFrom_;
    std::vector<DataflowPiece> pieces_;
    std::uint32_t depth_ = 1;
    std::uint64_t revision_ = 0;
};
