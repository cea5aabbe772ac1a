// ModuleTree: the module hierarchy of one graph from Graph::modules (a few hundred distinct
// names usually), interned once; nodes map to tree indices through their module index. A module
// is found by (parent index, last component), never by hashing its full dotted name, so a name
// of D levels costs its length, not D times it.
#include "fxmem/attribution.h"

#include <algorithm>

namespace fxmem {

ModuleTree::ModuleTree() : names_(std::make_shared<std::deque<std::string>>()) {
    modules_.push_back(Module{});
    component_.emplace_back();
}

std::size_t ModuleTree::ChildHash::operator()(const ChildKey& k) const {
    counted->fetch_add(sizeof k.parent + k.component.size(), std::memory_order_relaxed);
    const std::size_t h = std::hash<std::string_view>{}(k.component);
    return h ^ (std::size_t{k.parent} * 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
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
    const std::vector<std::uint32_t>& kids = modules_[parent].children;
    if (kids.size() <= kScanChildren) {
        std::uint64_t work = 1; // the lookup itself, even of a module without children
        std::uint32_t found = npos;
        for (const std::uint32_t c : kids) {
            work += 1 + std::min(component.size(), component_[c].size());
            if (component_[c] == component) {
                found = c;
                break;
            }
        }
        lookup_bytes_->fetch_add(work, std::memory_order_relaxed);
        return found;
    }
    lookup_bytes_->fetch_add(1, std::memory_order_relaxed);
    const auto it = child_.find(ChildKey{parent, component});
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

// intern, find and nearest walk the name's dotted components through child_.
std::uint32_t ModuleTree::intern(std::string_view full) {
    // New modules' names are prefixes of this one: views into its single copy, made when the
    // first missing module is met.
    std::string_view stored;
    std::uint32_t at = kRoot;
    walk_components(full, [&](std::size_t dot, std::string_view component) {
        if (const std::uint32_t c = child(at, component); c != npos) {
            at = c;
            return true;
        }
        if (stored.empty()) stored = names_->emplace_back(full);
        const auto m = static_cast<std::uint32_t>(modules_.size());
        Module module;
        module.name = stored.substr(0, dot);
        module.parent = at;
        module.depth = modules_[at].depth + 1;
        max_depth_ = std::max(max_depth_, module.depth);
        const auto offset = static_cast<std::size_t>(component.data() - full.data());
        component_.push_back(stored.substr(offset, component.size()));
        std::vector<std::uint32_t>& kids = modules_[at].children;
        kids.push_back(m);
        // Past kScanChildren children, all of them go into the map (once), later ones as they come.
        if (kids.size() == kScanChildren + 1)
            for (const std::uint32_t c : kids) child_.emplace(ChildKey{at, component_[c]}, c);
        else if (kids.size() > kScanChildren + 1)
            child_.emplace(ChildKey{at, component_.back()}, m);
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
    std::uint32_t at = kRoot;
    walk_components(name, [&](std::size_t, std::string_view component) {
        at = child(at, component);
        return at != npos;
    });
    // "a" and ".a" walk to the same module; only its own spelling names it.
    return at != npos && modules_[at].name == name ? at : npos;
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
