#include "fxmem/layout.h"

#include "fxmem/error.h"
#include "fxmem/profile_steps.h"

#include <algorithm>

namespace fxmem {

GraphLayout::GraphLayout(const Graph& graph, std::span<const NodeId> order, const CancelCheck& cancelled) {
    throw_if_cancelled(cancelled);
    const std::size_t n = graph.size();
    step_.assign(n, 0);
    wire_end_.assign(n, 0);
    lane_.assign(n, 0);

    // x: the profile index of each node's allocation point, as build_memory_profile lays it out.
    std::int64_t k = 0;
    const bool custom = order.size() == n;
    for (std::size_t p = 0; p < n; ++p) {
        const std::size_t i = custom ? order[p].index() : p;
        if (has_profile_points(graph.nodes[i].op)) step_[i] = alloc_step(k++);
    }
    steps_ = profile_size(k);
    for (std::size_t i = 0; i < n; ++i)
        if (graph.nodes[i].op == OpKind::Output) step_[i] = steps_ - 1;
    for (std::size_t i = 0; i < n; ++i) {
        std::int64_t end = step_[i];
        for (NodeId u : graph.users(NodeId(static_cast<std::int32_t>(i)))) end = std::max(end, step_[u.index()]);
        wire_end_[i] = end;
    }

    // Counting sorts by step and by wire end: stable, so graph order holds within a step.
    const auto buckets = static_cast<std::size_t>(steps_);
    std::vector<std::uint32_t> start(buckets + 1, 0), end_start(buckets + 1, 0);
    for (std::size_t i = 0; i < n; ++i) {
        ++start[static_cast<std::size_t>(step_[i]) + 1];
        ++end_start[static_cast<std::size_t>(wire_end_[i]) + 1];
    }
    for (std::size_t b = 0; b < buckets; ++b) start[b + 1] += start[b], end_start[b + 1] += end_start[b];
    by_step_.resize(n);
    std::vector<NodeId> ending(n);
    {
        std::vector<std::uint32_t> fill(start.begin(), start.end() - 1), efill(end_start.begin(), end_start.end() - 1);
        for (std::size_t i = 0; i < n; ++i) {
            const NodeId id(static_cast<std::int32_t>(i));
            by_step_[fill[static_cast<std::size_t>(step_[i])]++] = id;
            ending[efill[static_cast<std::size_t>(wire_end_[i])]++] = id;
        }
    }

    throw_if_cancelled(cancelled);
    // Greedy lanes in x order. A node takes over the lane of an input whose wire ends here (the
    // chain goes straight on), else a freed lane, else a new one. Wires are released after the
    // nodes of their last step are placed, so closed intervals never share a lane.
    std::vector<std::uint8_t> inherited(n, 0);
    std::vector<std::int32_t> free_lanes;
    for (std::size_t x = 0; x < buckets; ++x) {
        for (std::uint32_t p = start[x]; p < start[x + 1]; ++p) {
            const NodeId v = by_step_[p];
            std::int32_t lane = -1;
            for (NodeId u : graph.inputs(v)) {
                const std::size_t ui = u.index();
                if (wire_end_[ui] == static_cast<std::int64_t>(x) && step_[ui] < static_cast<std::int64_t>(x) &&
                    !inherited[ui]) {
                    inherited[ui] = 1;
                    lane = lane_[ui];
                    break;
                }
            }
            if (lane < 0) {
                if (free_lanes.empty()) {
                    lane = lanes_++;
                } else {
                    lane = free_lanes.back();
                    free_lanes.pop_back();
                }
            }
            lane_[v.index()] = lane;
        }
        for (std::uint32_t p = end_start[x]; p < end_start[x + 1]; ++p)
            if (!inherited[ending[p].index()]) free_lanes.push_back(lane_[ending[p].index()]);
    }

    throw_if_cancelled(cancelled);
    // Max of wire_end over by_step_ in an implicit binary tree, for stabbing queries.
    while (leaves_ < n) leaves_ *= 2;
    max_end_.assign(2 * leaves_, -1);
    for (std::size_t i = 0; i < n; ++i) max_end_[leaves_ + i] = wire_end_[by_step_[i].index()];
    for (std::size_t i = leaves_ - 1; i >= 1; --i) max_end_[i] = std::max(max_end_[2 * i], max_end_[2 * i + 1]);
}

GraphLayout GraphLayout::with_steps(const Graph& graph, std::span<const NodeId> nodes,
                                    std::span<const std::int64_t> steps) const {
    if (steps.size() != nodes.size()) throw Error("with_steps: one step for each moved node");
    GraphLayout out(*this);
    if (nodes.empty()) return out;
    // The by_step_ slice the moved nodes occupy: their steps are unique, and they only trade them.
    std::int64_t lo = step_[nodes[0].index()], hi = lo;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        out.step_[nodes[i].index()] = steps[i];
        lo = std::min(lo, step_[nodes[i].index()]);
        hi = std::max(hi, step_[nodes[i].index()]);
    }
    std::vector<std::int64_t> was, now(steps.begin(), steps.end());
    for (NodeId n : nodes) was.push_back(step_[n.index()]);
    std::sort(was.begin(), was.end());
    std::sort(now.begin(), now.end());
    const std::span<const NodeId> slice = nodes_in(lo, hi);
    if (was != now || slice.size() != nodes.size())
        throw Error("with_steps: the moved nodes must trade their steps among themselves");
    const auto first = static_cast<std::size_t>(slice.data() - by_step_.data());
    std::vector<NodeId> sorted(nodes.begin(), nodes.end());
    std::sort(sorted.begin(), sorted.end(),
              [&out](NodeId a, NodeId b) { return out.step_[a.index()] < out.step_[b.index()]; });
    std::copy(sorted.begin(), sorted.end(), out.by_step_.begin() + static_cast<std::ptrdiff_t>(first));

    // Wire ends of the moved nodes and of their inputs (a moved user may end an input's wire).
    const auto where = [&out](NodeId n) { // n's index in by_step_
        const std::span<const NodeId> at = out.nodes_in(out.step_[n.index()], out.step_[n.index()]);
        return static_cast<std::size_t>(at.data() - out.by_step_.data()) +
               static_cast<std::size_t>(std::find(at.begin(), at.end(), n) - at.begin());
    };
    const auto refresh = [&](NodeId n) {
        std::int64_t end = out.step_[n.index()];
        for (NodeId u : graph.users(n)) end = std::max(end, out.step_[u.index()]);
        if (end == out.wire_end_[n.index()]) return;
        out.wire_end_[n.index()] = end;
        std::size_t leaf = out.leaves_ + where(n);
        out.max_end_[leaf] = end;
        for (leaf /= 2; leaf >= 1; leaf /= 2)
            out.max_end_[leaf] = std::max(out.max_end_[2 * leaf], out.max_end_[2 * leaf + 1]);
    };
    for (NodeId n : nodes) {
        refresh(n);
        for (NodeId u : graph.inputs(n)) refresh(u);
    }
    // The slice's leaves hold other nodes now, whether or not their wire ends changed.
    for (std::size_t i = first; i < first + sorted.size(); ++i) {
        std::size_t leaf = out.leaves_ + i;
        out.max_end_[leaf] = out.wire_end_[out.by_step_[i].index()];
        for (leaf /= 2; leaf >= 1; leaf /= 2)
            out.max_end_[leaf] = std::max(out.max_end_[2 * leaf], out.max_end_[2 * leaf + 1]);
    }
    return out;
}

std::span<const NodeId> GraphLayout::nodes_in(std::int64_t x0, std::int64_t x1) const {
    auto lo = std::lower_bound(by_step_.begin(), by_step_.end(), x0,
                               [this](NodeId n, std::int64_t x) { return step_[n.index()] < x; });
    auto hi =
        std::upper_bound(lo, by_step_.end(), x1, [this](std::int64_t x, NodeId n) { return x < step_[n.index()]; });
    return {by_step_.data() + (lo - by_step_.begin()), static_cast<std::size_t>(hi - lo)};
}

void GraphLayout::wires_crossing(std::int64_t x0, std::int64_t x1, std::vector<NodeId>& out) const {
    if (by_step_.empty() || x1 < x0) return;
    // Every node placed at or before x1 whose wire reaches x0.
    const auto limit =
        static_cast<std::size_t>(std::upper_bound(by_step_.begin(), by_step_.end(), x1,
                                                  [this](std::int64_t x, NodeId n) { return x < step_[n.index()]; }) -
                                 by_step_.begin());
    collect(1, 0, leaves_, limit, x0, out);
}

void GraphLayout::collect(std::size_t node, std::size_t lo, std::size_t hi, std::size_t limit, std::int64_t x0,
                          std::vector<NodeId>& out) const {
    if (lo >= limit || max_end_[node] < x0) return;
    if (hi - lo == 1) {
        out.push_back(by_step_[lo]);
        return;
    }
    const std::size_t mid = (lo + hi) / 2;
    collect(2 * node, lo, mid, limit, x0, out);
    collect(2 * node + 1, mid, hi, limit, x0, out);
}

} // namespace fxmem
