#include "fxmem/dataflow_scene.h"

#include "fxmem/error.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace fxmem {

DataflowScene::DataflowScene(const GraphFile& file, const std::vector<GraphId>& graphs,
                             const std::vector<ModuleTree>& trees,
                             const std::function<DataflowOptions(std::size_t)>& options, const CancelCheck& cancelled)
    : file_(&file) {
    if (trees.size() != graphs.size())
        throw PreconditionError("DataflowScene: " + std::to_string(graphs.size()) + " graphs but " +
                                std::to_string(trees.size()) + " module trees");
    segments_.resize(graphs.size());
    for (std::size_t s = 0; s < graphs.size(); ++s) {
        throw_if_cancelled(cancelled);
        DataflowSegment& seg = segments_[s];
        seg.graph = graphs[s];
        DataflowOptions o = options(s);
        if (!o.cancelled) o.cancelled = cancelled;
        seg.layout = std::make_unique<DataflowLayout>(file, graphs[s], trees[s], std::move(o));
        redraw(s);
    }
    // Which earlier segment's node made each storage a placeholder holds: the latest run that
    // made it (a graph run twice makes the same storages), and in it the first node outputting it.
    std::unordered_map<std::uint32_t, std::pair<std::size_t, NodeId>> made;
    for (std::size_t s = 0; s < graphs.size(); ++s) {
        throw_if_cancelled(cancelled);
        const Graph& g = file.graph(graphs[s]);
        for (std::uint32_t v = 0; v < g.size(); ++v) {
            const NodeId id(static_cast<std::int32_t>(v));
            if (g.node(id).op != OpKind::Placeholder) continue;
            for (StorageId st : g.outputs(id))
                if (const auto it = made.find(static_cast<std::uint32_t>(st.index()));
                    it != made.end() && it->second.first < s)
                    cross_nodes_.push_back({it->second.first, s, it->second.second, id, file.nbytes(st)});
        }
        for (std::uint32_t v = 0; v < g.size(); ++v) {
            const NodeId id(static_cast<std::int32_t>(v));
            const OpKind op = g.node(id).op;
            if (op == OpKind::Placeholder || op == OpKind::GetAttr || op == OpKind::Output) continue;
            // The node that allocated it: the first in this run (later ones are views of it).
            for (StorageId st : g.outputs(id))
                if (auto [it, fresh] = made.try_emplace(static_cast<std::uint32_t>(st.index()), s, id);
                    !fresh && it->second.first != s)
                    it->second = {s, id};
        }
    }
    place();
}

void DataflowScene::redraw(std::size_t segment) {
    DataflowSegment& p = segments_[segment];
    ++drawings_;
    p.drawing = p.layout->drawing();
    const ModuleTree& tree = p.layout->tree();
    const std::size_t n = file_->graph(p.graph).size();
    p.node_box.assign(n, kNone);
    p.module_box.assign(tree.size(), kNone);
    for (std::uint32_t i = 0; i < p.drawing.boxes.size(); ++i) {
        const auto& b = p.drawing.boxes[i];
        (b.kind == DataflowDrawing::Kind::Node ? p.node_box : p.module_box)[b.ref] = i;
    }
    // A node without a box of its own is drawn by the collapsed module around it: the first
    // visible module up from its own (every module above a visible one is visible and open).
    for (std::uint32_t v = 0; v < n; ++v) {
        if (p.node_box[v] != kNone) continue;
        for (std::uint32_t m = p.layout->module_of(NodeId(static_cast<std::int32_t>(v))); m != ModuleTree::npos;
             m = tree[m].parent)
            if (const std::uint32_t b = p.module_box[m]; b != kNone) {
                if (!p.drawing.boxes[b].expanded) p.node_box[v] = b;
                break;
            }
    }
}

void DataflowScene::place() {
    cross_edges_.clear();
    std::map<std::tuple<std::size_t, std::uint32_t, std::size_t, std::uint32_t>, std::size_t> at;
    for (const CrossNode& c : cross_nodes_) {
        const std::uint32_t from = segments_[c.from_segment].node_box[c.producer.index()];
        const std::uint32_t to = segments_[c.to_segment].node_box[c.placeholder.index()];
        if (from == kNone || to == kNone) continue;
        const auto [it, fresh] = at.try_emplace({c.from_segment, from, c.to_segment, to}, cross_edges_.size());
        if (fresh)
            cross_edges_.push_back({c.from_segment, c.to_segment, from, to, c.bytes, c.placeholder});
        else
            cross_edges_[it->second].bytes += c.bytes;
    }
    double x = 0;
    height_ = 0;
    for (DataflowSegment& p : segments_) {
        p.x = x;
        p.top = segments_.size() > 1 ? kTitle : 0;
        x += p.drawing.width + kSegmentGap;
        height_ = std::max(height_, p.top + p.drawing.height);
    }
    width_ = segments_.empty() ? 0 : x - kSegmentGap;
}

bool DataflowScene::expand(std::size_t segment, std::uint32_t module) {
    if (segment >= segments_.size()) return false;
    DataflowSegment& p = segments_[segment];
    if (module == 0 || module >= p.layout->tree().size() || p.layout->expanded(module)) return false;
    p.layout->expand(module);
    redraw(segment);
    place();
    return true;
}

std::size_t DataflowScene::expand_all(std::size_t segment, std::span<const std::uint32_t> modules) {
    if (segment >= segments_.size()) return 0;
    DataflowLayout& layout = *segments_[segment].layout;
    std::size_t expanded = 0;
    for (const std::uint32_t m : modules) {
        if (m == 0 || m >= layout.tree().size() || layout.expanded(m)) continue;
        layout.expand(m);
        ++expanded;
    }
    if (expanded) {
        redraw(segment);
        place();
    }
    return expanded;
}

bool DataflowScene::collapse(std::size_t segment, std::uint32_t module) {
    if (segment >= segments_.size()) return false;
    DataflowSegment& p = segments_[segment];
    if (module == 0 || module >= p.layout->tree().size() || !p.layout->expanded(module)) return false;
    p.layout->collapse(module);
    redraw(segment);
    place();
    return true;
}

bool DataflowScene::toggle(std::size_t segment, std::uint32_t module) {
    if (segment >= segments_.size() || module >= segments_[segment].layout->tree().size()) return false;
    return segments_[segment].layout->expanded(module) ? collapse(segment, module) : expand(segment, module);
}

} // namespace fxmem
