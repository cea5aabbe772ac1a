// The graph view's grouping of one graph's nodes by module (fxmem::ModuleTree): per depth, the
// runs of consecutive steps whose nodes belong to one module (a layer's forward is one run; a
// backward may visit a module several times), and which modules are collapsed to one box.
// Layout-dependent parts are rebuilt by relayout() after a schedule edit. O(N * depth).
// The tree is the graph's one tree, the attribution's (Segment::attribution), shared, so that a
// module index means the same module in the graph view, the breakdown and the live table.
// Built and used on the GUI thread.
#pragma once
#include <fxmem/attribution.h>
#include <fxmem/layout.h>
#include <fxmem/model.h>

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

class ModuleGroups {
public:
    static constexpr std::uint32_t npos = fxmem::ModuleTree::npos;
    // Runs are kept for depths 1..kMaxDepth (deeper modules are grouped with their ancestor).
    static constexpr std::uint32_t kMaxDepth = 8;

    struct Run {
        std::uint32_t module = 0;            // tree index, at the run's depth
        std::int64_t stepLo = 0, stepHi = 0; // first and last step of its nodes
        std::int32_t laneLo = 0, laneHi = 0; // lanes its nodes use
        std::uint32_t nodes = 0;
        std::uint32_t ordinal = 0; // index among the runs of its depth (for alternating shades)
    };

    // `tree` is the graph's ModuleTree (shared with the attribution that owns it).
    ModuleGroups(std::shared_ptr<const fxmem::ModuleTree> tree, const fxmem::GraphLayout& layout);

    const fxmem::ModuleTree& tree() const { return *tree_; }
    std::uint32_t depths() const { return static_cast<std::uint32_t>(runs_.size()); } // 0: no modules
    // Runs at `depth` (1-based), in step order, disjoint.
    std::span<const Run> runs(std::uint32_t depth) const;
    // The runs at `depth` that overlap steps [x0, x1]. O(log R).
    std::span<const Run> runsIn(std::uint32_t depth, std::int64_t x0, std::int64_t x1) const;
    void relayout(const fxmem::GraphLayout& layout);

    // Collapsing. A collapsed module hides every node under it; only the outermost collapsed
    // module of a node is drawn (as one box per run).
    bool collapsed(std::uint32_t m) const { return collapsed_[m] != 0; }
    void setCollapsed(std::uint32_t m, bool on);
    // Collapses exactly the modules at `depth` (0: expands everything).
    void collapseDepth(std::uint32_t depth);
    // Expands m one level: m opens, its child modules are collapsed.
    void expandOneLevel(std::uint32_t m);
    // The outermost collapsed module containing m (m itself included), or npos.
    std::uint32_t collapsedRoot(std::uint32_t m) const { return collapsedRoot_[m]; }
    bool hidden(fxmem::NodeId n) const { return collapsedRoot_[tree_->node_module(n)] != npos; }
    bool anyCollapsed() const { return anyCollapsed_; }

private:
    std::shared_ptr<const fxmem::ModuleTree> tree_;
    std::vector<std::vector<Run>> runs_;  // [depth - 1]
    std::vector<std::uint8_t> collapsed_; // per tree index
    std::vector<std::uint32_t> collapsedRoot_;
    bool anyCollapsed_ = false;
    void updateRoots();
};
