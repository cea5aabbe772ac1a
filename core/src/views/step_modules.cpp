#include "fxmem/step_modules.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>

namespace fxmem {

namespace {

// "blocks.5" + "attn" -> "blocks.5.attn"; either alone when the other is empty.
std::string step_modules_join(std::string_view prefix, std::string_view name) {
    if (prefix.empty()) return std::string(name);
    if (name.empty()) return std::string(prefix);
    std::string out;
    out.reserve(prefix.size() + 1 + name.size());
    out.append(prefix).append(1, '.').append(name);
    return out;
}

} // namespace

StepModules::StepModules(const GraphFile& file, const WholeStep& step, std::uint32_t segment,
                         std::span<const CarriedStorage> carried, const AttributionOf& attribution_of) {
    constexpr std::uint32_t kNone = ModuleTree::npos;
    const std::size_t n_storages = file.storages.size();
    const StepSegment& run = step.segments.at(segment);
    const std::string& run_prefix = file.step.at(run.entry).module_prefix;

    // The running graph's tree, qualified by its prefix. Each leaf is added by its full name (its
    // ancestors come with it, O(its length)); an inner module is its qualified descendant's
    // ancestor, found by walking both trees up together, so a chain 100,000 deep costs its
    // length once. A module whose depth does not add up (a hostile name with a leading dot) is
    // added by its own name.
    const Attribution& own = attribution_of(run.graph);
    const ModuleTree& t = own.tree();
    const std::uint32_t prefix_at = tree_.add(run_prefix);
    const std::uint32_t prefix_depth = tree_[prefix_at].depth;
    std::vector<std::uint32_t> own_module(t.size(), kNone);
    own_module[ModuleTree::kRoot] = prefix_at;
    for (std::uint32_t m = 1; m < t.size(); ++m) {
        if (!t[m].children.empty()) continue;
        std::uint32_t x = tree_.add(step_modules_join(run_prefix, t[m].name));
        for (std::uint32_t r = m; r != ModuleTree::kRoot && own_module[r] == kNone; r = t[r].parent) {
            if (tree_[x].depth != prefix_depth + t[r].depth) break;
            own_module[r] = x;
            x = tree_[x].parent;
        }
    }
    for (std::uint32_t m = 1; m < t.size(); ++m) {
        if (own_module[m] == kNone) own_module[m] = tree_.add(step_modules_join(run_prefix, t[m].name));
        tree_.set_type_if_unknown(own_module[m], t[m].type);
    }
    own_.assign(n_storages, ModuleTree::kRoot);
    for (std::size_t s = 0; s < n_storages; ++s)
        own_[s] = own_module[own.owner(StorageId(static_cast<std::int32_t>(s)))];

    // Carried storages: the run that made it, else the first run holding it.
    std::vector<std::uint32_t> holder(step.carried.size(), kNone);
    for (std::uint32_t s = 0; s < step.segments.size(); ++s)
        for (std::uint32_t k = step.held_begin[s]; k < step.held_begin[s + 1]; ++k)
            if (holder[step.held[k]] == kNone) holder[step.held[k]] = s;
    std::vector<std::uint32_t> item_of(n_storages, kNone);
    for (std::uint32_t i = 0; i < step.carried.size(); ++i) item_of[step.carried[i].storage.index()] = i;
    // (entry, owner in its graph's tree) -> tree module: each distinct module's name is joined once.
    std::unordered_map<std::uint64_t, std::uint32_t> filed;
    carried_.assign(n_storages, kNone);
    for (const CarriedStorage& c : carried) {
        std::uint32_t entry = c.source.value_or(kNone);
        if (entry == kNone) {
            const std::uint32_t item = item_of[c.storage.index()];
            const std::uint32_t h = item == kNone ? kNone : holder[item];
            entry = h == kNone ? kNone : step.segments[h].entry;
        }
        if (entry == kNone) {
            carried_[c.storage.index()] = ModuleTree::kRoot;
            continue;
        }
        const Attribution& a = entry == run.entry ? own : attribution_of(file.step.at(entry).graph);
        const std::uint32_t m = a.owner(c.storage);
        const std::uint64_t key = (static_cast<std::uint64_t>(entry) << 32) | m;
        auto [it, fresh] = filed.try_emplace(key, ModuleTree::kRoot);
        if (fresh) {
            it->second = tree_.add(step_modules_join(file.step[entry].module_prefix, a.tree()[m].name));
            tree_.set_type_if_unknown(it->second, a.tree()[m].type);
        }
        carried_[c.storage.index()] = it->second;
    }
}

std::uint32_t StepModules::owner(const LiveStorage& row, bool carried_row) const {
    const std::size_t s = row.storage.index();
    if (!carried_row) return own_[s];
    return carried_[s] == ModuleTree::npos ? ModuleTree::kRoot : carried_[s];
}

Attribution::ModuleTotals StepModules::totals(std::span<const LiveStorage> live, std::size_t baseline_begin) const {
    Attribution::ModuleTotals t;
    t.bytes.assign(tree_.size(), 0);
    t.storages.assign(tree_.size(), 0);
    for (std::size_t i = 0; i < live.size(); ++i)
        for (std::uint32_t m = owner(live[i], i >= baseline_begin); m != ModuleTree::npos; m = tree_[m].parent) {
            t.bytes[m] += live[i].nbytes;
            ++t.storages[m];
        }
    return t;
}

std::vector<Attribution::Group> StepModules::by_module(std::span<const LiveStorage> live, std::size_t baseline_begin,
                                                       std::optional<std::uint32_t> depth) const {
    std::vector<Attribution::Group> groups;
    std::vector<std::uint32_t> group_of(tree_.size(), ModuleTree::npos);
    for (std::size_t i = 0; i < live.size(); ++i) {
        std::uint32_t m = owner(live[i], i >= baseline_begin);
        if (depth) m = tree_.ancestor_at_depth(m, *depth);
        if (group_of[m] == ModuleTree::npos) {
            group_of[m] = static_cast<std::uint32_t>(groups.size());
            groups.push_back(Attribution::Group{std::string(tree_[m].name), m, 0, 0});
        }
        Attribution::Group& g = groups[group_of[m]];
        g.bytes += live[i].nbytes;
        ++g.storages;
    }
    std::sort(groups.begin(), groups.end(), [](const Attribution::Group& a, const Attribution::Group& b) {
        return a.bytes != b.bytes ? a.bytes > b.bytes : a.key < b.key;
    });
    return groups;
}

} // namespace fxmem
