#include "dataflow/dataflowlayouts.h"

#include <algorithm>
#include <map>
#include <unordered_map>

std::shared_ptr<DataflowLayouts> DataflowLayouts::build(const Scene& scene, const fxmem::CancelCheck& cancelled) {
    auto out = std::make_shared<DataflowLayouts>();
    out->depth_ = std::max<std::uint32_t>(1, scene.layerDepth());
    out->pieces_.resize(scene.segments.size());
    for (std::size_t s = 0; s < scene.segments.size(); ++s) {
        fxmem::throw_if_cancelled(cancelled);
        const Segment& seg = scene.segments[s];
        DataflowPiece& p = out->pieces_[s];
        p.analysis = seg.analysis;
        fxmem::DataflowOptions o;
        o.depth = out->depth_;
        o.default_node = kNodeBox;
        o.default_module = kModuleBox;
        o.node_size = [g = &seg.analysis->graph()](fxmem::NodeId n) {
            const fxmem::OpKind op = g->node(n).op;
            return op == fxmem::OpKind::Placeholder || op == fxmem::OpKind::GetAttr ? kInputBox : kNodeBox;
        };
        o.counted = &seg.analysis->counted();
        o.cancelled = cancelled;
        const fxmem::ModuleTree tree =
            seg.attribution ? seg.attribution->tree() : fxmem::ModuleTree(seg.analysis->graph());
        p.layout = std::make_unique<fxmem::DataflowLayout>(
            seg.analysis->file(), static_cast<std::size_t>(seg.analysis->graphIndex()), tree, o);
        out->redraw(s);
    }
    // Which earlier segment's node made each storage a placeholder holds: the latest run that
    // made it (a graph run twice makes the same storages).
    std::unordered_map<std::uint32_t, std::pair<std::size_t, fxmem::NodeId>> made;
    for (std::size_t s = 0; s < scene.segments.size(); ++s) {
        fxmem::throw_if_cancelled(cancelled);
        const fxmem::Graph& g = scene.segments[s].analysis->graph();
        const fxmem::GraphFile& f = scene.segments[s].analysis->file();
        for (std::uint32_t v = 0; v < g.size(); ++v) {
            const fxmem::NodeId id(static_cast<std::int32_t>(v));
            if (g.node(id).op != fxmem::OpKind::Placeholder) continue;
            for (fxmem::StorageId st : g.outputs(id))
                if (const auto it = made.find(static_cast<std::uint32_t>(st.index()));
                    it != made.end() && it->second.first < s)
                    out->crossNodes_.push_back({it->second.first, s, it->second.second, id, f.nbytes(st)});
        }
        for (std::uint32_t v = 0; v < g.size(); ++v) {
            const fxmem::NodeId id(static_cast<std::int32_t>(v));
            const fxmem::OpKind op = g.node(id).op;
            if (op == fxmem::OpKind::Placeholder || op == fxmem::OpKind::GetAttr || op == fxmem::OpKind::Output)
                continue;
            for (fxmem::StorageId st : g.outputs(id)) made[static_cast<std::uint32_t>(st.index())] = {s, id};
        }
    }
    out->place();
    return out;
}

void DataflowLayouts::linkSegments() {
    crossEdges_.clear();
    std::map<std::tuple<std::size_t, std::uint32_t, std::size_t, std::uint32_t>, std::size_t> at;
    for (const CrossNode& c : crossNodes_) {
        const std::uint32_t from = pieces_[c.fromSegment].nodeBox[c.producer.index()];
        const std::uint32_t to = pieces_[c.toSegment].nodeBox[c.placeholder.index()];
        if (from == kNone || to == kNone) continue;
        const auto [it, fresh] = at.try_emplace({c.fromSegment, from, c.toSegment, to}, crossEdges_.size());
        if (fresh)
            crossEdges_.push_back({c.fromSegment, c.toSegment, from, to, c.bytes, c.placeholder});
        else
            crossEdges_[it->second].bytes += c.bytes;
    }
}

void DataflowLayouts::redraw(std::size_t segment) {
    DataflowPiece& p = pieces_[segment];
    p.drawing = p.layout->drawing();
    p.edgeBounds.resize(p.drawing.edges.size());
    for (std::size_t e = 0; e < p.drawing.edges.size(); ++e) {
        std::array<double, 4> b{1e300, 1e300, -1e300, -1e300};
        for (const auto& pt : p.drawing.edges[e].points)
            b = {std::min(b[0], pt.x), std::min(b[1], pt.y), std::max(b[2], pt.x), std::max(b[3], pt.y)};
        p.edgeBounds[e] = b;
    }
    const fxmem::ModuleTree& tree = p.layout->tree();
    const std::size_t n = p.analysis->graph().size();
    p.nodeBox.assign(n, kNone);
    p.moduleBox.assign(tree.size(), kNone);
    for (std::uint32_t i = 0; i < p.drawing.boxes.size(); ++i) {
        const auto& b = p.drawing.boxes[i];
        (b.kind == fxmem::DataflowDrawing::Kind::Node ? p.nodeBox : p.moduleBox)[b.ref] = i;
    }
    // A node without a box of its own is drawn by the collapsed module around it: the first
    // visible module up from its own (every module above a visible one is visible and open).
    for (std::uint32_t v = 0; v < n; ++v) {
        if (p.nodeBox[v] != kNone) continue;
        for (std::uint32_t m = tree.node_module(fxmem::NodeId(static_cast<std::int32_t>(v)));
             m != fxmem::ModuleTree::npos; m = tree[m].parent)
            if (const std::uint32_t b = p.moduleBox[m]; b != kNone) {
                if (!p.drawing.boxes[b].expanded) p.nodeBox[v] = b;
                break;
            }
    }
}

void DataflowLayouts::place() {
    linkSegments();
    double x = 0;
    height_ = 0;
    for (DataflowPiece& p : pieces_) {
        p.x = x;
        p.top = pieces_.size() > 1 ? kTitle : 0;
        x += p.drawing.width + kSegmentGap;
        height_ = std::max(height_, p.top + p.drawing.height);
    }
    width_ = pieces_.empty() ? 0 : x - kSegmentGap;
}

bool DataflowLayouts::expand(std::size_t segment, std::uint32_t module) {
    DataflowPiece& p = pieces_[segment];
    if (module == 0 || module >= p.layout->tree().size() || p.layout->expanded(module)) return false;
    p.layout->expand(module);
    redraw(segment);
    place();
    return true;
}

bool DataflowLayouts::collapse(std::size_t segment, std::uint32_t module) {
    DataflowPiece& p = pieces_[segment];
    if (module == 0 || module >= p.layout->tree().size() || !p.layout->expanded(module)) return false;
    p.layout->collapse(module);
    redraw(segment);
    place();
    return true;
}

bool DataflowLayouts::toggle(std::size_t segment, std::uint32_t module) {
    if (segment >= pieces_.size()) return false;
    return pieces_[segment].layout->expanded(module) ? collapse(segment, module) : expand(segment, module);
}
