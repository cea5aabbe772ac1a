#include "timeline/stackedbands.h"

#include "util/text.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace StackedBands {

namespace {

using fxmem::StorageRole;

QString roleName(StorageRole role) {
    return role == StorageRole::Unknown ? QObject::tr("unknown") : toQString(fxmem::to_string(role));
}

// Qualitative colours for module bands (Tableau 10 without its grey, kept for "other").
const QColor kModuleColours[] = {QColor(0x4E, 0x79, 0xA7), QColor(0xF2, 0x8E, 0x2B), QColor(0xE1, 0x57, 0x59),
                                 QColor(0x76, 0xB7, 0xB2), QColor(0x59, 0xA1, 0x4F), QColor(0xED, 0xC9, 0x48),
                                 QColor(0xB0, 0x7A, 0xA1), QColor(0xFF, 0x9D, 0xA7), QColor(0x9C, 0x75, 0x5F)};
const QColor kOtherColour(0xBA, 0xB0, 0xAC);
// The whole step's activations saved by one graph run for its backward, while other runs execute.
const QColor kSavedColour(0x8C, 0x5A, 0x00);

// The root module as the live table and `fxmem-cli breakdown` name it.
QString moduleName(std::string_view key) { return key.empty() ? QObject::tr("(root)") : toQString(key); }

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

fxmem::StackedProfile profileOf(const fxmem::LiveSetIndex& live, const fxmem::Attribution& attribution,
                                fxmem::GroupBy by, std::uint32_t depth, std::size_t top, bool keepEmpty) {
    // `top` modules of their own, then the folded rest (core's rule); "other" only when it would
    // hold more than one module.
    return fxmem::stacked_profile(live, attribution, by, depth, top + 1, keepEmpty);
}

std::vector<Band> colour(const fxmem::StackedProfile& profile, fxmem::GroupBy by) {
    const std::size_t n = profile.bands.size();
    std::vector<Band> out;
    out.reserve(n);
    for (std::size_t b = 0; b < n; ++b) {
        const fxmem::StackedProfile::Band& band = profile.bands[b];
        std::vector<std::int64_t> values(profile.steps);
        for (std::size_t i = 0; i < profile.steps; ++i) values[i] = profile.bytes[i * n + b];
        if (by == fxmem::GroupBy::Role) {
            const auto role = static_cast<StorageRole>(band.id);
            out.push_back({roleName(role), roleColour(role), std::move(values)});
        } else if (band.id == fxmem::kOtherBand) {
            out.push_back({QObject::tr("other (%n modules)", nullptr, static_cast<int>(band.groups)), kOtherColour,
                           std::move(values)});
        } else {
            out.push_back({moduleName(band.key), kModuleColours[b % std::size(kModuleColours)], std::move(values)});
        }
    }
    return out;
}

std::vector<Band> byRole(const fxmem::LiveSetIndex& live, const fxmem::Attribution& attribution, bool keepEmpty) {
    return colour(profileOf(live, attribution, fxmem::GroupBy::Role, 0, 0, keepEmpty), fxmem::GroupBy::Role);
}

std::vector<Band> byModule(const fxmem::LiveSetIndex& live, const fxmem::Attribution& attribution, std::uint32_t depth,
                           std::size_t top) {
    return colour(profileOf(live, attribution, fxmem::GroupBy::Module, depth, top), fxmem::GroupBy::Module);
}

std::vector<Band> compute(const fxmem::LiveSetIndex& live, const fxmem::Attribution& attribution, fxmem::GroupBy by,
                          std::uint32_t depth, std::size_t top, bool keepEmpty) {
    return colour(profileOf(live, attribution, by, depth, top, keepEmpty), by);
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
    std::erase_if(out, [](const Band& b) {
        return std::all_of(b.values.begin(), b.values.end(), [](std::int64_t v) { return v == 0; });
    });
    return out;
}

std::vector<BaselinePart> baselineParts(const fxmem::GraphFile& file, const std::vector<fxmem::StorageId>& storages,
                                        const fxmem::StorageMask& counted, const fxmem::Attribution& backward,
                                        const fxmem::StackedProfile& backwardProfile,
                                        const std::vector<Band>& backwardBands, fxmem::GroupBy by,
                                        std::uint32_t depth) {
    std::vector<BaselinePart> out;
    for (fxmem::StorageId s : storages) {
        if (!counted[s.index()]) continue;
        // The band its group is drawn in on the backward's side (a folded module: its range or
        // "other"); its own name when the backward has no band for it.
        const std::uint32_t group = by == fxmem::GroupBy::Role
                                        ? static_cast<std::uint32_t>(backward.role(s))
                                        : backward.tree().ancestor_at_depth(backward.owner(s), depth);
        const std::uint32_t band =
            group < backwardProfile.band_of.size() ? backwardProfile.band_of[group] : fxmem::StackedProfile::npos;
        QString name;
        if (band != fxmem::StackedProfile::npos && band < backwardBands.size())
            name = backwardBands[band].name;
        else if (by == fxmem::GroupBy::Role)
            name = roleName(backward.role(s));
        else
            name = moduleName(backward.tree()[group].name);
        out.push_back({name, file.nbytes(s)});
    }
    return out;
}

QString savedBandName() { return QObject::tr("saved for backward"); }

namespace {

// The whole step: each run's own bands, then what it carries as constant parts, matched by name
// over the whole axis. By role, carried parameters, optimizer state, gradients and the loss join
// their role's band; saved activations waiting for their backward get their own band, drawn
// right above the activations. By module, carried storages join their owner's band (as a pair's
// baseline does).
std::vector<Band> forWholeStep(const Scene& scene, fxmem::GroupBy by, std::uint32_t depth, std::size_t top) {
    const std::size_t total = scene.profile.size();
    std::vector<Band> out;
    std::map<QString, std::size_t> at;
    const auto slot = [&](const QString& name, const QColor& colour) -> Band& {
        auto [it, fresh] = at.emplace(name, out.size());
        if (fresh) out.push_back({name, colour, std::vector<std::int64_t>(total, 0)});
        return out[it->second];
    };
    // A graph run several times is grouped once.
    std::map<const GraphAnalysis*, std::pair<fxmem::StackedProfile, std::vector<Band>>> done;
    for (std::size_t k = 0; k < scene.segments.size(); ++k) {
        const Segment& s = scene.segments[k];
        auto it = done.find(s.analysis.get());
        if (it == done.end()) {
            fxmem::StackedProfile p = profileOf(s.analysis->live(), *s.attribution, by, depth, top, true);
            std::vector<Band> b = colour(p, by);
            it = done.emplace(s.analysis.get(), std::make_pair(std::move(p), std::move(b))).first;
        }
        // A region run for blocks.0 and again for blocks.1 names its modules relative to the
        // block: its bands are qualified by the run's prefix, so the two runs stay apart.
        std::vector<Band> qualified;
        if (by == fxmem::GroupBy::Module && !s.modulePrefix.isEmpty()) {
            qualified = it->second.second;
            for (Band& b : qualified)
                if (b.name == moduleName({}))
                    b.name = s.modulePrefix;
                else if (!b.name.startsWith(QStringLiteral("other (")))
                    b.name = s.modulePrefix % QLatin1Char('.') % b.name;
        }
        const std::vector<Band>& own = qualified.empty() ? it->second.second : qualified;
        const auto offset = static_cast<std::size_t>(s.offset);
        const std::size_t n = s.analysis->profile().size();
        for (const Band& b : own) {
            Band& o = slot(b.name, b.colour);
            for (std::size_t i = 0; i < b.values.size() && offset + i < total; ++i) o.values[offset + i] += b.values[i];
        }
        std::vector<fxmem::StorageId> rest;
        std::int64_t saved = 0;
        for (const fxmem::CarriedStorage& c : scene.timeline->carried(k)) {
            if (by == fxmem::GroupBy::Role && c.kind == fxmem::CarryKind::Saved)
                saved += c.bytes;
            else
                rest.push_back(c.storage);
        }
        if (saved > 0) {
            Band& o = slot(savedBandName(), kSavedColour);
            for (std::size_t i = 0; i < n && offset + i < total; ++i) o.values[offset + i] += saved;
        }
        for (const BaselinePart& p : baselineParts(*scene.file, rest, s.analysis->counted(), *s.attribution,
                                                   it->second.first, own, by, depth)) {
            const auto same = std::find_if(own.begin(), own.end(), [&](const Band& b) { return b.name == p.band; });
            Band& o = slot(p.band, same != own.end() ? same->colour : kOtherColour);
            for (std::size_t i = 0; i < n && offset + i < total; ++i) o.values[offset + i] += p.bytes;
        }
    }
    std::erase_if(out, [](const Band& b) {
        return std::all_of(b.values.begin(), b.values.end(), [](std::int64_t v) { return v == 0; });
    });
    // By role, the saved band sits on the activations (bands are drawn bottom to top).
    if (by == fxmem::GroupBy::Role) {
        const auto saved =
            std::find_if(out.begin(), out.end(), [](const Band& b) { return b.name == savedBandName(); });
        const auto act = std::find_if(out.begin(), out.end(),
                                      [](const Band& b) { return b.name == roleName(StorageRole::Activation); });
        if (saved != out.end() && act != out.end() && saved > act) std::rotate(act + 1, saved, saved + 1);
    }
    return out;
}

} // namespace

std::vector<Band> forScene(const Scene& scene, const fxmem::RoleAssignment& roles, fxmem::GroupBy by,
                           std::uint32_t depth, std::size_t top) {
    if (scene.empty()) return {};
    if (scene.wholeStep()) return forWholeStep(scene, by, depth, top);
    const auto profileFor = [&](const Segment& s, std::unique_ptr<fxmem::Attribution>& attribution) {
        attribution = std::make_unique<fxmem::Attribution>(*scene.file, s.analysis->graph_index(), roles);
        // Roles: all nine on both sides, so the joined bands keep the documented order.
        return profileOf(s.analysis->live(), *attribution, by, depth, top, scene.joined());
    };
    std::unique_ptr<fxmem::Attribution> first, second;
    std::vector<Band> bands = colour(profileFor(scene.segments.front(), first), by);
    if (!scene.joined()) return bands;
    const Segment& backward = scene.segments[1];
    const fxmem::StackedProfile later = profileFor(backward, second);
    const std::vector<Band> laterBands = colour(later, by);
    return join(bands, laterBands,
                baselineParts(*scene.file, backward.baselineStorages, backward.analysis->counted(), *second, later,
                              laterBands, by, depth));
}

} // namespace StackedBands
