// The graph view's module grouping across the scene: one ModuleGroups per graph (null when it
// names no modules), the highlighted module of each, the collapse depth, and the rows of bands
// and the depth of the layer stripes they give the view. The view asks it for the pad above the
// lanes; a click or a centring opens and closes modules through it.
#pragma once
#include "graphview/modulegroups.h"
#include "loading/scene.h"

#include <fxmem/layout.h>

#include <QString>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

class GraphModules {
public:
    // Groups every graph of scene (null: none), all expanded, nothing highlighted.
    void reset(const Scene* scene);
    // Segment 0 laid out in another order (the edited schedule): its runs are found again.
    void relayoutFirst(const fxmem::GraphLayout& layout);

    const ModuleGroups* of(int segment) const;
    ModuleGroups* of(int segment);
    bool empty() const { return groups_.empty(); }
    bool anyCollapsed() const;
    // Tree index of the highlighted module of segment s, or npos.
    std::uint32_t highlight(std::size_t s) const { return highlight_[s]; }
    const std::vector<std::uint32_t>& highlights() const { return highlight_; }
    std::uint32_t stripeDepth() const { return stripeDepth_; }
    std::uint32_t bandRows() const { return bandRows_; }
    int depth() const { return depth_; }

    // Collapses every module at depth in every graph (0 expands all); stripes follow it.
    void setDepth(int depth);
    void setHighlighted(int segment, std::uint32_t module);
    // By qualified name in every graph ("" clears); a graph run under a module prefix (the whole
    // step) only by a name under that prefix.
    void setHighlightedName(const QString& name);
    // Opens the collapsed modules that hide node, level by level.
    void reveal(NodeRef ref);
    // A click on a band toggles its module; on a collapsed box opens it one level.
    void click(int segment, std::uint32_t module, bool onBand);

    // The qualified name of a module of a segment's graph ("layers.3"; with the segment's module
    // prefix in the whole step, "blocks.1.attn"); null for the model itself
    // or an index out of its tree; none for a segment the scene lacks.
    static std::optional<QString> qualifiedName(const Scene* scene, int segment, std::uint32_t module);

    // Where the band rows start, and the pixels above the first lane (names of a joined pair,
    // module bands).
    static double bandTop(bool joined);
    double topPad(bool joined) const;

private:
    std::vector<std::unique_ptr<ModuleGroups>> groups_; // per segment; null without modules
    std::vector<std::uint32_t> highlight_;              // per segment: tree index or npos
    std::vector<QString> prefixes_;                     // per segment: its module prefix
    std::uint32_t stripeDepth_ = 0, bandRows_ = 0;
    int depth_ = 0;
};
