#include "timeline/stackedbands.h"

#include "util/text.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace StackedBands {

namespace {

using fxmem::StorageRole;

// Bottom to top.
constexpr StorageRole kRoleOrder[] = {StorageRole::Parameter, StorageRole::UnshardedParameter, StorageRole::OptimizerState,
                                      StorageRole::Buffer,   StorageRole::Input,
                                      StorageRole::Activation, StorageRole::Output,  StorageRole::Tangent,
                                      StorageRole::Gradient,  StorageRole::Temporary, StorageRole::Unknown};

QString roleName(StorageRole role) {
    return role == StorageRole::Unknown ? QObject::tr("unknown") : toQString(fxmem::to_string(role));
}

// Qualitative colours for module bands (Tableau 10 without its grey, kept for "other").
const QColor kModuleColours[] = {QColor(0x4E, 0x79, 0xA7), QColor(0xF2, 0x8E, 0x2B), QColor(0xE1, 0x57, 0x59),
                                 QColor(0x76, 0xB7, 0xB2), QColor(0x59, 0xA1, 0x4F), QColor(0xED, 0xC9, 0x48),
                                 QColor(0xB0, 0x7A, 0xA1), QColor(0xFF, 0x9D, 0xA7), QColor(0x9C, 0x75, 0x5F)};
const QColor kOtherColour(0xBA, 0xB0, 0xAC);

// The root module as the live table and `fxmem-cli breakdown` name it.
QString moduleName(std::string_view key) { return key.empty() ? QObject::tr("(root)") : toQString(key); }

// Column g of a row-major P x groups table.
std::vector<std::int64_t> column(const std::vector<std::int64_t>& table, std::size_t groups, std::size_t g) {
    const std::size_t rows = groups == 0 ? 0 : table.size() / groups;
    std::vector<std::int64_t> out(rows);
    for (std::size_t i = 0; i < rows; ++i) out[i] = table[i * groups + g];
    return out;
}

} // namespace

QColor roleColour(StorageRole role) {
    switch (role) {
    case StorageRole::Parameter: return QColor(0x00, 0x72, 0xB2);
    case StorageRole::Buffer: return QColor(0x56, 0xB4, 0xE9);
    case StorageRole::Input: return QColor(0x00, 0x9E, 0x73);
    case StorageRole::Activation: return QColor(0xE6, 0x9F, 0x00);
    case StorageRole::Output: return QColor(0xCC, 0x79, 0xA7);
    case StorageRole::Tangent: return QColor(0xF0, 0xE4, 0x42);
    case StorageRole::Gradient: return QColor(0xD5, 0x5E, 0x00);
    case StorageRole::Temporary: return QColor(0x99, 0x99, 0x99);
    case StorageRole::OptimizerState: return QColor(0x6A, 0x3D, 0x9A);
    case StorageRole::UnshardedParameter: return QColor(0x4C, 0x9E, 0xD9);
    case StorageRole::Unknown: break;
    }
    return QColor(0x55, 0x55, 0x55);
}

std::vector<Band> byRole(const fxmem::LiveSetIndex& live, const fxmem::Attribution& attribution, bool keepEmpty) {
    const std::vector<std::uint32_t> groups = attribution.storage_groups(fxmem::GroupBy::Role, 0);
    const std::size_t count = attribution.group_count(fxmem::GroupBy::Role);
    const std::vector<std::int64_t> table = live.profile_by(groups, count);
    std::vector<Band> out;
    for (StorageRole role : kRoleOrder) {
        std::vector<std::int64_t> values = column(table, count, static_cast<std::size_t>(role));
        if (!keepEmpty && std::all_of(values.begin(), values.end(), [](std::int64_t v) { return v == 0; })) continue;
        out.push_back({roleName(role), roleColour(role), std::move(values)});
    }
    return out;
}

std::vector<Band> byModule(const fxmem::LiveSetIndex& live, const fxmem::Attribution& attribution, std::uint32_t depth,
                           std::size_t top) {
    const std::vector<std::uint32_t> groups = attribution.storage_groups(fxmem::GroupBy::Module, depth);
    const std::size_t count = attribution.group_count(fxmem::GroupBy::Module);
    const std::vector<std::int64_t> table = live.profile_by(groups, count);
    const std::size_t rows = count == 0 ? 0 : table.size() / count;
    // Rank the groups by their largest value over the whole profile.
    std::vector<std::int64_t> best(count, 0);
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t g = 0; g < count; ++g) best[g] = std::max(best[g], table[i * count + g]);
    std::vector<std::size_t> ranked;
    for (std::size_t g = 0; g < count; ++g)
        if (best[g] > 0) ranked.push_back(g);
    std::stable_sort(ranked.begin(), ranked.end(), [&](std::size_t a, std::size_t b) { return best[a] > best[b]; });
    // "other" only when it would hold more than one module.
    const std::size_t shown = ranked.size() <= top + 1 ? ranked.size() : top;
    std::vector<Band> out;
    for (std::size_t r = 0; r < shown; ++r) {
        const auto g = static_cast<std::uint32_t>(ranked[r]);
        out.push_back({moduleName(attribution.group_key(fxmem::GroupBy::Module, g)),
                       kModuleColours[r % std::size(kModuleColours)], column(table, count, g)});
    }
    if (shown < ranked.size()) {
        std::vector<std::int64_t> other(rows, 0);
        for (std::size_t r = shown; r < ranked.size(); ++r)
            for (std::size_t i = 0; i < rows; ++i) other[i] += table[i * count + ranked[r]];
        out.push_back({QObject::tr("other (%n modules)", nullptr, static_cast<int>(ranked.size() - shown)), kOtherColour,
                       std::move(other)});
    }
    return out;
}

std::vector<Band> compute(const fxmem::LiveSetIndex& live, const fxmem::Attribution& attribution, fxmem::GroupBy by,
                          std::uint32_t depth, std::size_t top, bool keepEmpty) {
    return by == fxmem::GroupBy::Role ? byRole(live, attribution, keepEmpty) : byModule(live, attribution, depth, top);
}

std::vector<Band> join(const std::vector<Band>& forward, const std::vector<Band>& backward,
                       const std::vector<BaselinePart>& baseline) {
    const std::size_t nf = forward.empty() ? 0 : forward.front().values.size();
    const std::size_t nb = backward.empty() ? 0 : backward.front().values.size();
    // Names in first-seen order (forward bottom to top, then new backward ones, then baseline).
    std::vector<Band> out;
    std::map<QString, std::size_t> at;
    const auto slot = [&](const QString& name, const QColor& colour) -> Band& {
        auto [it, fresh] = at.emplace(name, out.size());
        if (fresh) out.push_back({name, colour, std::vector<std::int64_t>(nf + nb, 0)});
        return out[it->second];
    };
    for (const Band& b : forward) std::copy(b.values.begin(), b.values.end(), slot(b.name, b.colour).values.begin());
    for (const Band& b : backward) {
        Band& o = slot(b.name, b.colour);
        for (std::size_t i = 0; i < b.values.size(); ++i) o.values[nf + i] += b.values[i];
    }
    for (const BaselinePart& p : baseline) {
        Band& o = slot(p.band, kOtherColour);
        for (std::size_t i = 0; i < nb; ++i) o.values[nf + i] += p.bytes;
    }
    std::erase_if(out, [](const Band& b) { return std::all_of(b.values.begin(), b.values.end(), [](std::int64_t v) { return v == 0; }); });
    return out;
}

std::vector<BaselinePart> baselineParts(const fxmem::GraphFile& file, const std::vector<fxmem::StorageId>& storages,
                                        const fxmem::StorageMask& counted, const fxmem::Attribution& backward,
                                        const std::vector<Band>& backwardBands, fxmem::GroupBy by, std::uint32_t depth) {
    std::vector<BaselinePart> out;
    for (fxmem::StorageId s : storages) {
        if (!counted[s.index()]) continue;
        QString name;
        if (by == fxmem::GroupBy::Role) {
            name = roleName(backward.role(s));
        } else {
            const std::uint32_t m = backward.tree().ancestor_at_depth(backward.owner(s), depth);
            name = moduleName(backward.tree()[m].name);
            // A module not among the backward's bands is counted in its "other" band.
            const bool shown = std::any_of(backwardBands.begin(), backwardBands.end(), [&](const Band& b) { return b.name == name; });
            if (!shown) {
                const auto other = std::find_if(backwardBands.begin(), backwardBands.end(),
                                                [](const Band& b) { return b.colour == kOtherColour; });
                if (other != backwardBands.end()) name = other->name;
            }
        }
        out.push_back({name, file.nbytes(s)});
    }
    return out;
}

std::vector<Band> forScene(const Scene& scene, const fxmem::RoleAssignment& roles, fxmem::GroupBy by,
                           std::uint32_t depth, std::size_t top) {
    if (scene.empty()) return {};
    const auto bandsOf = [&](const Segment& s, std::unique_ptr<fxmem::Attribution>& attribution) {
        attribution = std::make_unique<fxmem::Attribution>(*scene.file, static_cast<std::size_t>(s.analysis->graphIndex()), roles);
        // Roles: all nine on both sides, so the joined bands keep the documented order.
        return compute(s.analysis->live(), *attribution, by, depth, top, scene.joined());
    };
    std::unique_ptr<fxmem::Attribution> first, second;
    std::vector<Band> bands = bandsOf(scene.segments.front(), first);
    if (!scene.joined()) return bands;
    const Segment& backward = scene.segments[1];
    const std::vector<Band> later = bandsOf(backward, second);
    return join(bands, later,
                baselineParts(*scene.file, backward.baselineStorages, backward.analysis->counted(), *second, later, by, depth));
}

} // namespace StackedBands
