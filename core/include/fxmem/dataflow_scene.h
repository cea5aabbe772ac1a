// Several graphs' dataflow drawings side by side, left to right in the order they run (a pair's
// forward then backward, a whole step's runs), in one coordinate space, with the values a later
// graph reads through a placeholder (a pair's saved activations, what a step carries) drawn as
// edges from the box of the node that made them to the placeholder's box. One DataflowLayout per
// segment: expand/collapse relay out that segment only and move the segments to its right.
// The app's Dataflow mode and `fxmem-cli layout --pair/--whole-step` draw this same scene.
#pragma once
#include "fxmem/dataflow_layout.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

namespace fxmem {

namespace detail {
struct WorkCounters;
}

struct DataflowSegment {
    GraphId graph; // index into GraphFile::graphs
    std::unique_ptr<DataflowLayout> layout;
    DataflowDrawing drawing; // in the segment's own coordinates
    double x = 0;            // where the segment's drawing starts, left to right
    double top = 0;          // below the segment's title (0 for a scene of one segment)
    // Per node: the visible box drawing it (its own, or the collapsed module holding it); per
    // tree module: its box while visible (collapsed or open), else DataflowScene::kNone.
    std::vector<std::uint32_t> node_box, module_box;
};

// A value one segment makes and a later one reads through a placeholder, per pair of boxes with
// the storages' bytes summed (each storage once per placeholder reading it).
struct DataflowCrossEdge {
    std::size_t from_segment = 0, to_segment = 0;
    std::uint32_t from_box = 0, to_box = 0;
    std::int64_t bytes = 0;
    NodeId placeholder; // the first placeholder it stands for
};

class DataflowScene {
public:
    // DataflowSegment::node_box / module_box's "no box": dense per-node arrays, so a plain integer.
    static constexpr std::uint32_t kNone = 0xffffffffu;
    static constexpr double kSegmentGap = 120; // between the segments' drawings
    static constexpr double kTitle = 40;       // a segment's name above its drawing

    // `graphs`: the segments' graphs in running order (a graph may run more than once);
    // `trees[s]` the module tree of segment s's graph and `options(s)` its layout options. The
    // file must outlive the scene. Polls `cancelled` between segments.
    DataflowScene(const GraphFile& file, const std::vector<GraphId>& graphs, const std::vector<ModuleTree>& trees,
                  const std::function<DataflowOptions(std::size_t)>& options, const CancelCheck& cancelled = {});

    std::size_t size() const { return segments_.size(); }
    const DataflowSegment& segment(std::size_t s) const { return segments_[s]; }
    const std::vector<DataflowCrossEdge>& cross_edges() const { return cross_edges_; }
    double width() const { return width_; }
    double height() const { return height_; }

    // Expands a collapsed module or collapses an open one (not the root); false when neither or
    // out of range.
    bool toggle(std::size_t segment, std::uint32_t module);
    bool expand(std::size_t segment, std::uint32_t module);
    bool collapse(std::size_t segment, std::uint32_t module);
    // Expands each of `modules` (tree indexes of `segment`'s tree; the root and indexes out of
    // range are skipped) and draws the segment once: a list of names costs one drawing, not one
    // per name. The count of modules that were collapsed.
    std::size_t expand_all(std::size_t segment, std::span<const std::uint32_t> modules);

private:
    friend struct detail::WorkCounters;
    void redraw(std::size_t segment);
    void place();
    struct CrossNode {
        std::size_t from_segment, to_segment;
        NodeId producer, placeholder;
        std::int64_t bytes;
    };
    const GraphFile* file_;
    std::vector<DataflowSegment> segments_;
    std::vector<CrossNode> cross_nodes_; // in segment and node order
    std::vector<DataflowCrossEdge> cross_edges_;
    double width_ = 0, height_ = 0;
    std::uint64_t drawings_ = 0; // segments drawn so far (WorkCounters)
};

} // namespace fxmem
