// DataflowLayout's public operations: construction, expand and collapse, the per-module figures
// (fxmem/dataflow_layout.h; the state is views/dataflow_impl.h).
#include "views/dataflow_impl.h"

namespace fxmem {

DataflowLayout::DataflowLayout(const GraphFile& file, GraphId graph, const ModuleTree& tree, DataflowOptions options)
    : impl_(std::make_unique<Impl>(file, graph.index(), tree, std::move(options))) {}
DataflowLayout::~DataflowLayout() = default;
DataflowLayout::DataflowLayout(DataflowLayout&&) noexcept = default;
DataflowLayout& DataflowLayout::operator=(DataflowLayout&&) noexcept = default;

void DataflowLayout::expand(std::uint32_t module) {
    Impl& d = *impl_;
    d.check(module);
    if (!d.has_nodes(module)) return; // nothing of this graph to draw inside
    std::vector<std::uint32_t> chain; // module up to, not including, the root
    for (std::uint32_t a = module; a != ModuleTree::kRoot; a = d.index.tree[a].parent) chain.push_back(a);
    for (const std::uint32_t a : chain) d.expanded[a] = 1;
    // The outermost module not laid out yet: its parent is, so it can be laid out and resized.
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        if (d.level_of[*it] >= 0) continue;
        d.lay_out_subtree(*it);
        d.resize(*it, d.open_size(*it));
        return;
    }
}

void DataflowLayout::collapse(std::uint32_t module) {
    Impl& d = *impl_;
    d.check(module);
    if (module == ModuleTree::kRoot) throw PreconditionError("dataflow layout: the root module cannot be collapsed");
    if (!d.expanded[module]) return;
    d.expanded[module] = 0;
    if (d.level_of[module] < 0) return;
    d.drop(module);
    d.resize(module, d.collapsed_size(module));
}

bool DataflowLayout::expanded(std::uint32_t module) const {
    impl_->check(module);
    return impl_->expanded[module] != 0;
}

bool DataflowLayout::laid_out(std::uint32_t module) const {
    impl_->check(module);
    return impl_->level_of[module] >= 0;
}

const ModuleTree& DataflowLayout::tree() const { return impl_->index.tree; }

std::uint32_t DataflowLayout::module_of(NodeId node) const {
    const auto& of = impl_->index.module_of;
    if (!node.valid() || static_cast<std::size_t>(node.index()) >= of.size())
        throw PreconditionError("dataflow layout: node " + std::to_string(node.index()) + " out of range (" +
                                std::to_string(of.size()) + " nodes)");
    return of[static_cast<std::size_t>(node.index())];
}

ModuleRepeat DataflowLayout::repeat(std::uint32_t module) const {
    impl_->check(module);
    return impl_->repeats[module];
}

std::int64_t DataflowLayout::allocated_bytes(std::uint32_t module) const {
    impl_->check(module);
    return impl_->allocated[module];
}

std::uint64_t DataflowLayout::crossings() const {
    std::uint64_t total = 0;
    for (const auto& l : impl_->levels)
        if (l) total += l->crossings;
    return total;
}

std::size_t DataflowLayout::laid_out_items() const {
    std::size_t total = 0;
    for (const auto& l : impl_->levels)
        if (l) total += l->kind.size();
    return total;
}

} // namespace fxmem
