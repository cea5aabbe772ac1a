#include "graphview/modulegroups.h"

#include <algorithm>

ModuleGroups::ModuleGroups(std::shared_ptr<const fxmem::ModuleTree> tree, const fxmem::GraphLayout& layout)
    : tree_(std::move(tree)), collapsed_(tree_->size(), 0), collapsedRoot_(tree_->size(), npos) {
    relayout(layout);
}

void ModuleGroups::relayout(const fxmem::GraphLayout& layout) {
    // The depth of the nodes' modules: the attribution's tree also holds modules that only a
    // parameter's label names, which have no nodes to group.
    std::uint32_t deepest = 0;
    for (fxmem::NodeId n : layout.by_step()) deepest = std::max(deepest, (*tree_)[tree_->node_module(n)].depth);
    const std::uint32_t depths = std::min(deepest, kMaxDepth);
    runs_.assign(depths, {});
    for (std::uint32_t d = 1; d <= depths; ++d) {
        std::vector<Run>& out = runs_[d - 1];
        // Nodes of shallower modules (a residual add in "blocks" between "blocks.0" and
        // "blocks.1") neither join nor break a run.
        for (fxmem::NodeId n : layout.by_step()) {
            const std::uint32_t m = tree_->node_module(n);
            if ((*tree_)[m].depth < d) continue;
            const std::uint32_t a = tree_->ancestor_at_depth(m, d);
            const std::int64_t step = layout.step(n);
            const std::int32_t lane = layout.lane(n);
            if (out.empty() || out.back().module != a) {
                out.push_back({a, step, step, lane, lane, 1, static_cast<std::uint32_t>(out.size())});
                continue;
            }
            Run& r = out.back();
            r.stepHi = step;
            r.laneLo = std::min(r.laneLo, lane);
            r.laneHi = std::max(r.laneHi, lane);
            ++r.nodes;
        }
    }
}

std::span<const ModuleGroups::Run> ModuleGroups::runs(std::uint32_t depth) const {
    if (depth == 0 || depth > runs_.size()) return {};
    return runs_[depth - 1];
}

std::span<const ModuleGroups::Run> ModuleGroups::runsIn(std::uint32_t depth, std::int64_t x0, std::int64_t x1) const {
    const std::span<const Run> all = runs(depth);
    // Disjoint and in step order: both ends are sorted.
    const auto lo =
        std::lower_bound(all.begin(), all.end(), x0, [](const Run& r, std::int64_t x) { return r.stepHi < x; });
    const auto hi = std::upper_bound(lo, all.end(), x1, [](std::int64_t x, const Run& r) { return x < r.stepLo; });
    return {all.data() + (lo - all.begin()), static_cast<std::size_t>(hi - lo)};
}

void ModuleGroups::setCollapsed(std::uint32_t m, bool on) {
    if (m >= collapsed_.size() || m == fxmem::ModuleTree::kRoot) return;
    if (on) // its own collapsed descendants open when it opens again
        for (std::uint32_t k = 0; k < tree_->size(); ++k)
            if (k != m && tree_->contains(m, k)) collapsed_[k] = 0;
    collapsed_[m] = on ? 1 : 0;
    updateRoots();
}

void ModuleGroups::collapseDepth(std::uint32_t depth) {
    for (std::uint32_t k = 0; k < tree_->size(); ++k) collapsed_[k] = depth > 0 && (*tree_)[k].depth == depth;
    updateRoots();
}

void ModuleGroups::expandOneLevel(std::uint32_t m) {
    if (m >= collapsed_.size()) return;
    collapsed_[m] = 0;
    for (std::uint32_t c : (*tree_)[m].children) collapsed_[c] = 1;
    updateRoots();
}

void ModuleGroups::updateRoots() {
    // Parents come before children in the tree: one pass in index order.
    anyCollapsed_ = false;
    for (std::uint32_t k = 0; k < tree_->size(); ++k) {
        const std::uint32_t parent = (*tree_)[k].parent;
        const std::uint32_t above = parent == npos ? npos : collapsedRoot_[parent];
        collapsedRoot_[k] = above != npos ? above : (collapsed_[k] ? k : npos);
        anyCollapsed_ |= collapsed_[k] != 0;
    }
}
