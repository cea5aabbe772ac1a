#include "dataflow/dataflowmarks.h"

#include <algorithm>
#include <unordered_set>

DataflowMarks dataflowMarks(const Scene& scene, const DataflowLayouts& layouts, const LiveAtStep& live,
                            fxmem::NodeId executing) {
    DataflowMarks m;
    const int s = live.where.segment;
    if (s < 0 || static_cast<std::size_t>(s) >= layouts.size() || static_cast<std::size_t>(s) >= scene.segments.size())
        return m;
    m.segment = s;
    const Segment& seg = scene.segments[static_cast<std::size_t>(s)];
    const DataflowPiece& p = layouts.piece(static_cast<std::size_t>(s));
    const fxmem::Graph& g = seg.analysis->graph();
    m.liveNode.assign(g.size(), 0);
    m.liveBox.assign(p.drawing.boxes.size(), 0);
    m.liveEdge.assign(p.drawing.edges.size(), 0);
    m.executing = executing;
    if (executing.valid()) m.executingBox = p.nodeBox[executing.index()];

    const std::size_t own = std::min(live.baselineBegin, live.live.size());
    for (std::size_t i = 0; i < own; ++i)
        if (live.live[i].allocator.valid()) m.liveNode[live.live[i].allocator.index()] = 1;
    // What the segment carries was made by another graph: it enters this one through the
    // placeholders that hold it.
    if (own < live.live.size()) {
        std::unordered_set<std::uint32_t> carried;
        for (std::size_t i = own; i < live.live.size(); ++i) carried.insert(live.live[i].storage.index());
        for (std::uint32_t v = 0; v < g.size(); ++v) {
            if (g.node(fxmem::NodeId(static_cast<std::int32_t>(v))).op != fxmem::OpKind::Placeholder) continue;
            for (fxmem::StorageId st : g.outputs(fxmem::NodeId(static_cast<std::int32_t>(v))))
                if (carried.count(st.index())) m.liveNode[v] = 1;
        }
    }
    // An edge is live when a node holding a live storage sends it from its box to the other box.
    std::unordered_set<std::uint64_t> pairs;
    for (std::uint32_t v = 0; v < g.size(); ++v) {
        if (!m.liveNode[v]) continue;
        const std::uint32_t from = p.nodeBox[v];
        if (from == DataflowLayouts::kNone) continue;
        m.liveBox[from] = 1;
        for (fxmem::NodeId u : g.users(fxmem::NodeId(static_cast<std::int32_t>(v))))
            if (const std::uint32_t to = p.nodeBox[u.index()]; to != DataflowLayouts::kNone && to != from)
                pairs.insert(std::uint64_t{from} << 32 | to);
    }
    for (std::size_t e = 0; e < p.drawing.edges.size(); ++e) {
        const auto& edge = p.drawing.edges[e];
        m.liveEdge[e] = pairs.count(std::uint64_t{edge.from} << 32 | edge.to) ? 1 : 0;
    }
    if (seg.attribution) m.moduleLive = seg.attribution->module_totals(std::span(live.live.data(), own)).bytes;
    return m;
}
