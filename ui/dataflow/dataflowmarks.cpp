#include "dataflow/dataflowmarks.h"

#include <algorithm>
#include <unordered_set>

DataflowMarks dataflowMarks(const Scene& scene, const DataflowLayouts& layouts, const LiveAtStep& live,
                            fxmem::NodeId executing) {
    DataflowMarks m;
    updateDataflowMarks(m, scene, layouts, live, executing);
    return m;
}

void updateDataflowMarks(DataflowMarks& m, const Scene& scene, const DataflowLayouts& layouts, const LiveAtStep& live,
                         fxmem::NodeId executing) {
    const int s = live.where.segment;
    if (s < 0 || static_cast<std::size_t>(s) >= layouts.size() ||
        static_cast<std::size_t>(s) >= scene.segments.size()) {
        m = {};
        return;
    }
    const Segment& seg = scene.segments[static_cast<std::size_t>(s)];
    const DataflowPiece& p = layouts.piece(static_cast<std::size_t>(s));
    const fxmem::Graph& g = seg.analysis->graph();
    if (m.segment == s && m.revision == layouts.revision() && m.liveNode.size() == g.size()) {
        for (std::uint32_t v : m.setNodes) m.liveNode[v] = 0;
        for (std::uint32_t b : m.setBoxes) m.liveBox[b] = 0;
        for (std::uint32_t e : m.setEdges) m.liveEdge[e] = 0;
        m.setNodes.clear();
        m.setBoxes.clear();
        m.setEdges.clear();
    } else {
        m = {};
        m.segment = s;
        m.revision = layouts.revision();
        m.liveNode.assign(g.size(), 0);
        m.liveBox.assign(p.drawing.boxes.size(), 0);
        m.liveEdge.assign(p.drawing.edges.size(), 0);
        for (std::uint32_t v = 0; v < g.size(); ++v)
            if (g.node(fxmem::NodeId(static_cast<std::int32_t>(v))).op == fxmem::OpKind::Placeholder)
                m.placeholders.push_back(v);
    }
    m.executing = executing;
    m.executingBox = executing.valid() ? p.nodeBox[executing.index()] : DataflowLayouts::kNone;
    const auto markNode = [&](std::uint32_t v) {
        if (!m.liveNode[v]) m.liveNode[v] = 1, m.setNodes.push_back(v);
    };

    const std::size_t own = std::min(live.baselineBegin, live.live.size());
    for (std::size_t i = 0; i < own; ++i)
        if (live.live[i].allocator.valid()) markNode(live.live[i].allocator.index());
    // What the segment carries was made by another graph: it enters this one through the
    // placeholders that hold it.
    if (own < live.live.size()) {
        std::unordered_set<std::uint32_t> carried;
        for (std::size_t i = own; i < live.live.size(); ++i) carried.insert(live.live[i].storage.index());
        for (std::uint32_t v : m.placeholders)
            for (fxmem::StorageId st : g.outputs(fxmem::NodeId(static_cast<std::int32_t>(v))))
                if (carried.count(st.index())) markNode(v);
    }
    // An edge is live when a node holding a live storage sends it from its box to the other box.
    // The live nodes grouped by their box (a collapsed module's box holds many); per box, the
    // boxes its live nodes' users are in are stamped, then its outgoing edges read the stamps:
    // O(live log live + live · users + the live boxes' edges), no hashing.
    std::vector<std::uint64_t>& byBox = m.byBox;
    byBox.clear();
    for (std::uint32_t v : m.setNodes)
        if (const std::uint32_t from = p.nodeBox[v]; from != DataflowLayouts::kNone)
            byBox.push_back(std::uint64_t{from} << 32 | v);
    std::sort(byBox.begin(), byBox.end());
    if (m.stamp.size() != p.drawing.boxes.size()) m.stamp.assign(p.drawing.boxes.size(), 0), m.stampNow = 0;
    for (std::size_t i = 0; i < byBox.size();) {
        const std::uint32_t from = static_cast<std::uint32_t>(byBox[i] >> 32);
        if (++m.stampNow == 0) std::fill(m.stamp.begin(), m.stamp.end(), 0), m.stampNow = 1; // wrapped
        m.liveBox[from] = 1;
        m.setBoxes.push_back(from);
        for (; i < byBox.size() && (byBox[i] >> 32) == from; ++i)
            for (fxmem::NodeId u : g.users(fxmem::NodeId(static_cast<std::int32_t>(byBox[i] & 0xffffffffu))))
                if (const std::uint32_t to = p.nodeBox[u.index()]; to != DataflowLayouts::kNone && to != from)
                    m.stamp[to] = m.stampNow;
        for (std::uint32_t k = p.edgesFromStart[from]; k < p.edgesFromStart[from + 1]; ++k) {
            const std::uint32_t e = p.edgesFrom[k];
            if (m.stamp[p.drawing.edges[e].to] == m.stampNow) m.liveEdge[e] = 1, m.setEdges.push_back(e);
        }
    }
    m.moduleLive.clear();
    if (seg.attribution) m.moduleLive = seg.attribution->module_totals(std::span(live.live.data(), own)).bytes;
}
