// ModuleTree: the module hierarchy of one graph from Graph::modules (a few hundred distinct
// names at most), interned once; nodes map to tree indices through their module index.
#include "fxmem/attribution.h"

#include <algorithm>

namespace fxmem {

ModuleTree::ModuleTree() : names_(std::make_shared<std::deque<std::string>>()) {
    modules_.push_back(Module{});
    by_name_.emplace("", kRoot);
}

ModuleTree::ModuleTree(const Graph& graph) : ModuleTree() {
    std::vector<std::uint32_t> of_info(graph.modules.size());
    for (std::size_t i = 0; i < graph.modules.size(); ++i) {
        const ModuleInfo& info = graph.modules[i];
        const std::uint32_t m = intern(info.name);
        // The same name may come with and without its type: keep the first type given.
        if (modules_[m].type.empty()) modules_[m].type = info.type;
        of_info[i] = m;
    }
    node_module_.resize(graph.size());
    for (std::size_t n = 0; n < graph.size(); ++n) {
        const std::uint32_t info = graph.nodes[n].module;
        node_module_[n] = info == kNoModule ? kRoot : of_info[info];
    }
}

std::uint32_t ModuleTree::child(std::uint32_t parent, std::string_view component) const {
    std::string key = std::to_string(parent);
    key += ':';
    key += component;
    const auto it = child_.find(key);
    return it == child_.end() ? npos : it->second;
}

namespace {

// Calls step(prefix_end, component) for each dotted component of `name`, left to right, until it
// returns false, so a name costs O(its length) whatever its number of dots (a file may be
// hostile). Empty components count except a leading one (a leading dot's empty prefix is the
// root itself); a trailing dot makes a last, empty component.
template <class Step>
void walk_components(std::string_view name, Step step) {
    for (std::size_t from = 0; from < name.size() || (from == name.size() && from > 0 && name.back() == '.');) {
        const std::size_t dot = std::min(name.find('.', from), name.size());
        const std::string_view component = name.substr(from, dot - from);
        from = dot + 1;
        if (dot == 0) continue;
        if (!step(dot, component)) return;
    }
}

} // namespace

// intern and nearest walk the name's dotted prefixes through child_.
std::uint32_t ModuleTree::intern(std::string_view full) {
    if (const std::uint32_t m = find(full); m != npos) return m;
    // New modules' names are prefixes of this one: views into its single copy.
    const std::string_view name = names_->emplace_back(full);
    std::uint32_t at = kRoot;
    walk_components(name, [&](std::size_t dot, std::string_view component) {
        if (const std::uint32_t c = child(at, component); c != npos) {
            at = c;
            return true;
        }
        const auto m = static_cast<std::uint32_t>(modules_.size());
        Module module;
        module.name = name.substr(0, dot);
        module.parent = at;
        module.depth = modules_[at].depth + 1;
        max_depth_ = std::max(max_depth_, module.depth);
        child_.emplace(std::to_string(at) + ':' + std::string(component), m);
        by_name_.emplace(module.name, m);
        modules_[at].children.push_back(m);
        modules_.push_back(std::move(module));
        at = m;
        return true;
    });
    return at;
}

std::uint32_t ModuleTree::ancestor_at_depth(std::uint32_t m, std::uint32_t depth) const {
    while (modules_[m].depth > depth) m = modules_[m].parent;
    return m;
}

std::uint32_t ModuleTree::layer_depth(std::size_t min_modules) const {
    const ModuleTree* self = this;
    return fxmem::layer_depth(std::span<const ModuleTree* const>(&self, 1), min_modules);
}

std::uint32_t layer_depth(std::span<const ModuleTree* const> trees, std::size_t min_modules) {
    std::uint32_t deepest = 0, best = 0;
    std::vector<std::size_t> count;
    for (const ModuleTree* tree : trees) {
        deepest = std::max(deepest, tree->max_depth());
        count.assign(tree->max_depth() + 1, 0);
        for (const ModuleTree::Module& m : tree->modules()) ++count[m.depth];
        for (std::uint32_t d = 1; d < count.size(); ++d)
            if (count[d] >= min_modules) {
                best = best == 0 ? d : std::min(best, d);
                break;
            }
    }
    return best == 0 ? deepest : best;
}

std::uint32_t ModuleTree::find(std::string_view name) const {
    const auto it = by_name_.find(name);
    return it == by_name_.end() ? npos : it->second;
}

std::uint32_t ModuleTree::nearest(std::string_view name) const {
    std::uint32_t at = kRoot;
    walk_components(name, [&](std::size_t, std::string_view component) {
        const std::uint32_t c = child(at, component);
        if (c != npos) at = c;
        return c != npos;
    });
    return at;
}

} // namespace fxmem
