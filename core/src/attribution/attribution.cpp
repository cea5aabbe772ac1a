// Attribution: each storage's role and owner module for one graph, computed once, then the live
// set of a step grouped by them. The owner rules are listed in fxmem/attribution.h.
#include "fxmem/attribution.h"

#include "fxmem/profile_steps.h"

#include <algorithm>
#include <array>

namespace fxmem {

namespace {

void sort_groups(std::vector<Attribution::Group>& groups) {
    std::sort(groups.begin(), groups.end(), [](const Attribution::Group& a, const Attribution::Group& b) {
        return a.bytes != b.bytes ? a.bytes > b.bytes : a.key < b.key;
    });
}

} // namespace

std::string_view to_string(GroupBy by) { return by == GroupBy::Role ? "role" : "module"; }

bool parse_group_by(std::string_view text, GroupBy& out) {
    if (text == "role")
        out = GroupBy::Role;
    else if (text == "module")
        out = GroupBy::Module;
    else
        return false;
    return true;
}

Attribution::Attribution(const GraphFile& file, GraphId graph_id, const RoleAssignment& roles)
    : tree_(file.graphs.at(graph_id.index())), role_(roles.role) {
    const Graph& graph = file.graph(graph_id);
    const std::size_t n_storages = file.storages.size();
    owner_.assign(n_storages, ModuleTree::kRoot);

    // The allocator of each storage in this graph: the first node holding it.
    std::vector<NodeId> allocator(n_storages);
    for (std::size_t i = 0; i < graph.size(); ++i) {
        const NodeId id(static_cast<std::int32_t>(i));
        for (StorageId s : graph.outputs(id))
            if (!allocator[s.index()].valid()) allocator[s.index()] = id;
    }
    // Producer modules of other graphs, looked up here by name once per (graph, module).
    std::vector<std::vector<std::uint32_t>> mapped(file.graphs.size());
    for (std::size_t s = 0; s < n_storages; ++s) {
        const StorageRole role = role_[s];
        const std::string_view label = file.label(StorageId(static_cast<std::int32_t>(s)));
        const NodeId a = allocator[s];
        if ((role == StorageRole::Parameter || role == StorageRole::Buffer || role == StorageRole::OptimizerState) &&
            !label.empty()) {
            // Optimizer state "<parameter> exp_avg" belongs where its parameter does.
            const std::string_view name =
                role == StorageRole::OptimizerState ? label.substr(0, label.find(' ')) : label;
            const std::size_t dot = name.rfind('.');
            // The module the label names, even when a parent's functional call is what uses it.
            owner_[s] = dot == std::string_view::npos ? ModuleTree::kRoot : tree_.add(name.substr(0, dot));
        } else if (a.valid() && has_profile_points(graph.node(a).op)) {
            owner_[s] = tree_.node_module(a);
        } else if (const std::uint32_t pg = roles.producer_graph[s];
                   a.valid() && pg != kNoGraph && pg != graph_id.index()) {
            const Graph& other = file.graphs[pg];
            const std::uint32_t info = other.node(roles.producer_node[s]).module;
            if (info == kNoModule) continue; // the root
            std::vector<std::uint32_t>& cache = mapped[pg];
            if (cache.empty()) cache.assign(other.modules.size(), ModuleTree::npos);
            if (cache[info] == ModuleTree::npos) cache[info] = tree_.nearest(other.modules[info].name);
            owner_[s] = cache[info];
        } else if (a.valid()) {
            owner_[s] = tree_.node_module(a);
        }
    }
}

std::vector<Attribution::Group> Attribution::by_role(std::span<const LiveStorage> live) const {
    std::array<std::int64_t, kStorageRoleCount> bytes{};
    std::array<std::uint32_t, kStorageRoleCount> count{};
    for (const LiveStorage& s : live) {
        const auto r = static_cast<std::size_t>(role_[s.storage.index()]);
        bytes[r] += s.nbytes;
        ++count[r];
    }
    std::vector<Group> out;
    for (std::uint32_t r = 0; r < kStorageRoleCount; ++r)
        if (count[r] != 0) out.push_back({std::string(group_key(GroupBy::Role, r)), r, bytes[r], count[r]});
    sort_groups(out);
    return out;
}

std::vector<Attribution::Group> Attribution::by_module(std::span<const LiveStorage> live, std::uint32_t depth) const {
    // (module, bytes) per live storage, sorted by module, then one group per run.
    std::vector<std::pair<std::uint32_t, std::int64_t>> keyed;
    keyed.reserve(live.size());
    for (const LiveStorage& s : live)
        keyed.emplace_back(tree_.ancestor_at_depth(owner_[s.storage.index()], depth), s.nbytes);
    std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<Group> out;
    for (std::size_t i = 0; i < keyed.size();) {
        Group g;
        g.id = keyed[i].first;
        for (; i < keyed.size() && keyed[i].first == g.id; ++i) {
            g.bytes += keyed[i].second;
            ++g.storages;
        }
        g.key = std::string(tree_[g.id].name);
        out.push_back(std::move(g));
    }
    sort_groups(out);
    return out;
}

Attribution::ModuleTotals Attribution::module_totals(std::span<const LiveStorage> live) const {
    ModuleTotals t;
    t.bytes.assign(tree_.size(), 0);
    t.storages.assign(tree_.size(), 0);
    for (const LiveStorage& s : live)
        for (std::uint32_t m = owner_[s.storage.index()]; m != ModuleTree::npos; m = tree_[m].parent) {
            t.bytes[m] += s.nbytes;
            ++t.storages[m];
        }
    return t;
}

std::vector<std::uint32_t> Attribution::storage_groups(GroupBy by, std::uint32_t depth) const {
    std::vector<std::uint32_t> out(owner_.size());
    for (std::size_t s = 0; s < out.size(); ++s)
        out[s] = by == GroupBy::Role ? static_cast<std::uint32_t>(role_[s]) : tree_.ancestor_at_depth(owner_[s], depth);
    return out;
}

std::string_view Attribution::group_key(GroupBy by, std::uint32_t id) const {
    return by == GroupBy::Role ? to_string(static_cast<StorageRole>(id)) : tree_[id].name;
}

namespace {

// Bottom to top: long-lived parameters first, temporaries on top, unknown last.
constexpr StorageRole kRoleOrder[] = {
    StorageRole::Parameter, StorageRole::UnshardedParameter, StorageRole::OptimizerState, StorageRole::Buffer,
    StorageRole::Input,     StorageRole::Activation,         StorageRole::Output,         StorageRole::Tangent,
    StorageRole::Gradient,  StorageRole::Temporary,          StorageRole::Unknown};

// N when module m is named <parent>.<N> with N decimal (a repeated layer), else -1.
std::int64_t layer_number(const ModuleTree& tree, std::uint32_t m) {
    const std::string_view name = tree[m].name;
    const std::size_t dot = name.rfind('.');
    const std::string_view last = dot == std::string_view::npos ? name : name.substr(dot + 1);
    if (last.empty() || last.size() > 9 || tree[m].parent == ModuleTree::npos) return -1;
    std::int64_t n = 0;
    for (char c : last) {
        if (c < '0' || c > '9') return -1;
        n = n * 10 + (c - '0');
    }
    return n;
}

} // namespace

StackedProfile stacked_profile(const LiveSetIndex& index, const Attribution& attribution, GroupBy by,
                               std::uint32_t depth, std::size_t max_bands, bool keep_empty) {
    const std::size_t groups = attribution.group_count(by);
    const std::vector<std::int64_t> rows = index.profile_by(attribution.storage_groups(by, depth), groups);
    StackedProfile out;
    out.steps = index.profile_size();
    // Each group's peak and whether it ever holds a storage (a band of zero-byte storages is empty).
    std::vector<std::int64_t> peak(groups, 0);
    std::vector<std::uint8_t> used(groups, 0);
    for (std::size_t i = 0; i < out.steps; ++i)
        for (std::size_t g = 0; g < groups; ++g) {
            const std::int64_t v = rows[i * groups + g];
            peak[g] = std::max(peak[g], v);
            used[g] |= v != 0 ? 1 : 0;
        }
    std::vector<std::uint32_t> kept;
    if (by == GroupBy::Role) {
        for (StorageRole r : kRoleOrder)
            if (keep_empty || used[static_cast<std::size_t>(r)]) kept.push_back(static_cast<std::uint32_t>(r));
    } else {
        for (std::uint32_t g = 0; g < groups; ++g)
            if (used[g]) kept.push_back(g);
        std::stable_sort(kept.begin(), kept.end(), [&](std::uint32_t a, std::uint32_t b) { return peak[a] > peak[b]; });
    }
    const std::size_t limit = std::max<std::size_t>(max_bands, 1);
    const bool fold = by == GroupBy::Module && kept.size() > limit;
    const std::size_t own = fold ? limit - 1 : kept.size();
    out.band_of.assign(groups, StackedProfile::npos);
    for (std::size_t b = 0; b < own; ++b) {
        out.band_of[kept[b]] = static_cast<std::uint32_t>(b);
        out.bands.push_back({std::string(attribution.group_key(by, kept[b])), kept[b], peak[kept[b]], 1});
    }
    if (fold) {
        // The folded repeated layers by parent and number; runs of consecutive numbers share a band.
        const ModuleTree& tree = attribution.tree();
        std::vector<std::pair<std::uint32_t, std::int64_t>> layers; // (group, number)
        std::vector<std::uint32_t> rest;
        for (std::size_t k = own; k < kept.size(); ++k) {
            const std::int64_t n = layer_number(tree, kept[k]);
            if (n >= 0)
                layers.emplace_back(kept[k], n);
            else
                rest.push_back(kept[k]);
        }
        std::sort(layers.begin(), layers.end(), [&](const auto& x, const auto& y) {
            const std::uint32_t px = tree[x.first].parent, py = tree[y.first].parent;
            return px != py ? px < py : x.second < y.second;
        });
        for (std::size_t i = 0; i < layers.size();) {
            std::size_t j = i + 1;
            while (j < layers.size() && tree[layers[j].first].parent == tree[layers[i].first].parent &&
                   layers[j].second == layers[j - 1].second + 1)
                ++j;
            const auto band = static_cast<std::uint32_t>(out.bands.size());
            for (std::size_t k = i; k < j; ++k) out.band_of[layers[k].first] = band;
            if (j - i == 1) {
                out.bands.push_back({std::string(tree[layers[i].first].name), layers[i].first, 0, 1});
            } else {
                const std::string_view first = tree[layers[i].first].name;
                out.bands.push_back({std::string(first) + "\xe2\x80\x93" + std::to_string(layers[j - 1].second),
                                     kLayerRangeBand, 0, static_cast<std::uint32_t>(j - i)});
            }
            i = j;
        }
        if (!rest.empty()) {
            for (std::uint32_t g : rest) out.band_of[g] = static_cast<std::uint32_t>(out.bands.size());
            out.bands.push_back({"other", kOtherBand, 0, static_cast<std::uint32_t>(rest.size())});
        }
    }
    const std::size_t n = out.bands.size();
    out.bytes.assign(out.steps * n, 0);
    for (std::size_t i = 0; i < out.steps; ++i)
        for (std::size_t g = 0; g < groups; ++g)
            if (used[g] && out.band_of[g] != StackedProfile::npos)
                out.bytes[i * n + out.band_of[g]] += rows[i * groups + g];
    for (std::size_t b = own; b < n; ++b)
        for (std::size_t i = 0; i < out.steps; ++i)
            out.bands[b].peak = std::max(out.bands[b].peak, out.bytes[i * n + b]);
    return out;
}

} // namespace fxmem
