#include "graphview/graphmodules.h"

#include "graphview/visibleitems.h"
#include "util/text.h"

#include <algorithm>
#include <string>

namespace {
constexpr double kTopPad = 18; // room for the graph names of a joined pair
constexpr std::uint32_t kMaxBandRows = 4;
} // namespace

void GraphModules::reset(const Scene* scene) {
    groups_.clear();
    highlight_.clear();
    prefixes_.clear();
    stripeDepth_ = bandRows_ = 0;
    depth_ = 0;
    if (!scene) return;
    std::uint32_t depths = 0;
    for (const Segment& seg : scene->segments) {
        prefixes_.push_back(seg.modulePrefix);
        // The attribution's tree (aliased to it), so that module indices are shared with the
        // breakdown and the live table.
        auto groups = std::make_unique<ModuleGroups>(
            std::shared_ptr<const fxmem::ModuleTree>(seg.attribution, &seg.attribution->tree()), *seg.layout);
        if (groups->depths() == 0) groups.reset();
        if (groups) depths = std::max(depths, groups->depths());
        groups_.push_back(std::move(groups));
    }
    // Stripes at the depth of the model's repeated blocks (the layers), bands down to one level
    // below them.
    if (depths > 0) stripeDepth_ = std::min(scene->layerDepth(), depths);
    highlight_.assign(scene->segments.size(), ModuleGroups::npos);
    bandRows_ = std::min({depths, stripeDepth_ + 1, kMaxBandRows});
}

void GraphModules::relayoutFirst(const fxmem::GraphLayout& layout) {
    if (!groups_.empty() && groups_[0]) groups_[0]->relayout(layout);
}

const ModuleGroups* GraphModules::of(int segment) const {
    if (segment < 0 || static_cast<std::size_t>(segment) >= groups_.size()) return nullptr;
    return groups_[static_cast<std::size_t>(segment)].get();
}

ModuleGroups* GraphModules::of(int segment) {
    if (segment < 0 || static_cast<std::size_t>(segment) >= groups_.size()) return nullptr;
    return groups_[static_cast<std::size_t>(segment)].get();
}

bool GraphModules::anyCollapsed() const {
    bool any = false;
    for (const auto& g : groups_) any |= g && g->anyCollapsed();
    return any;
}

void GraphModules::setDepth(int depth) {
    depth_ = std::max(depth, 0);
    for (auto& g : groups_)
        if (g) g->collapseDepth(static_cast<std::uint32_t>(depth_));
    if (depth_ > 0) {
        stripeDepth_ = static_cast<std::uint32_t>(depth_);
        std::uint32_t depths = 0;
        for (auto& g : groups_)
            if (g) depths = std::max(depths, g->depths());
        stripeDepth_ = std::min(stripeDepth_, depths);
        bandRows_ = std::min({depths, stripeDepth_ + 1, kMaxBandRows});
    }
}

void GraphModules::setHighlighted(int segment, std::uint32_t module) {
    for (std::size_t s = 0; s < highlight_.size(); ++s)
        highlight_[s] = static_cast<int>(s) == segment && groups_[s] && module < groups_[s]->tree().size()
                            ? module
                            : ModuleGroups::npos;
}

void GraphModules::setHighlightedName(const QString& name) {
    for (std::size_t s = 0; s < highlight_.size(); ++s) {
        // A run under a module prefix (the whole step) answers only names under that prefix.
        const std::optional<std::string> relative =
            name.isEmpty() || !groups_[s] ? std::nullopt : relativeModule(prefixes_[s], name);
        highlight_[s] = relative ? groups_[s]->tree().find(*relative) : ModuleGroups::npos;
    }
}

void GraphModules::reveal(NodeRef ref) {
    if (ModuleGroups* g = of(ref.segment))
        while (g->hidden(ref.node)) g->expandOneLevel(g->collapsedRoot(g->tree().node_module(ref.node)));
}

void GraphModules::click(int segment, std::uint32_t module, bool onBand) {
    ModuleGroups& g = *groups_[static_cast<std::size_t>(segment)];
    if (onBand)
        g.setCollapsed(module, !g.collapsed(module));
    else
        g.expandOneLevel(module);
}

std::optional<QString> GraphModules::qualifiedName(const Scene* scene, int segment, std::uint32_t module) {
    if (!scene || segment < 0 || static_cast<std::size_t>(segment) >= scene->segments.size()) return std::nullopt;
    const fxmem::ModuleTree& tree = scene->segments[static_cast<std::size_t>(segment)].attribution->tree();
    if (module >= tree.size() || module == fxmem::ModuleTree::kRoot) return QString();
    return scene->moduleName(static_cast<std::size_t>(segment), tree[module].name);
}

double GraphModules::bandTop(bool joined) { return joined ? kTopPad : 3; }

double GraphModules::topPad(bool joined) const {
    if (bandRows_ == 0) return kTopPad;
    return bandTop(joined) + bandRows_ * PrepareInput::kBandRow + 4;
}
