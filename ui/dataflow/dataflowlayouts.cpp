#include "dataflow/dataflowlayouts.h"

#include <fxmem/dataflow_sizes.h>
#include <fxmem/error.h>

#include <algorithm>
#include <atomic>

namespace {
// One counter for every layouts object, so two of them never share a revision.
std::uint64_t nextRevision() {
    static std::atomic<std::uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
}
} // namespace

std::shared_ptr<DataflowLayouts> DataflowLayouts::build(const Scene& scene, const fxmem::CancelCheck& cancelled) {
    auto out = std::make_shared<DataflowLayouts>();
    out->revision_ = nextRevision();
    out->depth_ = std::max<std::uint32_t>(1, scene.layerDepth());
    std::vector<fxmem::GraphId> graphs;
    std::vector<fxmem::ModuleTree> trees;
    for (const Segment& seg : scene.segments) {
        fxmem::throw_if_cancelled(cancelled);
        // One file under every segment: the scene's edges between segments match storages by index.
        if (&seg.analysis->file() != &scene.segments.front().analysis->file())
            throw fxmem::PreconditionError("DataflowLayouts: the scene's segments read different files");
        out->analyses_.push_back(seg.analysis);
        graphs.push_back(seg.analysis->graph_index());
        trees.push_back(seg.attribution ? seg.attribution->tree() : fxmem::ModuleTree(seg.analysis->graph()));
    }
    if (scene.segments.empty()) {
        static const fxmem::GraphFile kNoFile;
        out->scene_ = std::make_unique<fxmem::DataflowScene>(kNoFile, graphs, trees,
                                                             [](std::size_t) { return fxmem::DataflowOptions{}; });
        return out;
    }
    const auto options = [&](std::size_t s) {
        const GraphAnalysis& a = *scene.segments[s].analysis;
        fxmem::DataflowOptions o;
        o.depth = out->depth_;
        // The sizes of the boxes the view draws (text is elided to them), as fxmem-cli layout.
        fxmem::use_drawn_sizes(o, a.graph());
        o.counted = &a.counted();
        return o;
    };
    out->scene_ = std::make_unique<fxmem::DataflowScene>(scene.segments.front().analysis->file(), graphs, trees,
                                                         options, cancelled);
    out->edgeBounds_.resize(scene.segments.size());
    out->index_.resize(scene.segments.size());
    out->edgesFromStart_.resize(scene.segments.size());
    out->edgesFrom_.resize(scene.segments.size());
    for (std::size_t s = 0; s < scene.segments.size(); ++s) out->bound(s);
    out->pieces();
    return out;
}

void DataflowLayouts::bound(std::size_t segment) {
    const fxmem::DataflowDrawing& d = scene_->segment(segment).drawing;
    auto& bounds = edgeBounds_[segment];
    bounds.resize(d.edges.size());
    for (std::size_t e = 0; e < d.edges.size(); ++e) {
        std::array<double, 4> b{1e300, 1e300, -1e300, -1e300};
        for (const auto& pt : d.edges[e].points)
            b = {std::min(b[0], pt.x), std::min(b[1], pt.y), std::max(b[2], pt.x), std::max(b[3], pt.y)};
        bounds[e] = b;
    }
    index_[segment] = DataflowSpatialIndex(d);
    auto& start = edgesFromStart_[segment];
    auto& from = edgesFrom_[segment];
    start.assign(d.boxes.size() + 1, 0);
    for (const auto& e : d.edges) ++start[e.from + 1];
    for (std::size_t b = 0; b < d.boxes.size(); ++b) start[b + 1] += start[b];
    from.resize(d.edges.size());
    std::vector<std::uint32_t> next(start.begin(), start.end() - 1);
    for (std::size_t e = 0; e < d.edges.size(); ++e) from[next[d.edges[e].from]++] = static_cast<std::uint32_t>(e);
}

void DataflowLayouts::pieces() {
    pieces_.clear();
    pieces_.reserve(scene_->size());
    for (std::size_t s = 0; s < scene_->size(); ++s) {
        const fxmem::DataflowSegment& seg = scene_->segment(s);
        pieces_.push_back(DataflowPiece{analyses_[s], seg.layout.get(), seg.drawing, seg.x, seg.top, seg.node_box,
                                        seg.module_box, edgeBounds_[s], index_[s], edgesFromStart_[s], edgesFrom_[s]});
    }
}

bool DataflowLayouts::expand(std::size_t segment, std::uint32_t module) {
    if (!scene_->expand(segment, module)) return false;
    revision_ = nextRevision();
    bound(segment);
    pieces();
    return true;
}

bool DataflowLayouts::collapse(std::size_t segment, std::uint32_t module) {
    if (!scene_->collapse(segment, module)) return false;
    revision_ = nextRevision();
    bound(segment);
    pieces();
    return true;
}

bool DataflowLayouts::toggle(std::size_t segment, std::uint32_t module) {
    if (segment >= size() || module >= piece(segment).layout->tree().size()) return false;
    return piece(segment).layout->expanded(module) ? collapse(segment, module) : expand(segment, module);
}
