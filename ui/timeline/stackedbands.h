// The data of the stacked timeline (TimelinePlot::setStackedBands): core's bands
// (fxmem::stacked_profile, which groups and folds them) of the live-set index of one order,
// named and coloured here. Pure functions, no widget: the caller runs them off the GUI thread
// (O(P * groups + storages) via LiveSetIndex::profile_by).
//
// Role colours are fixed (docs/architecture.md lists them): parameter blue #0072B2, buffer sky
// #56B4E9, input green #009E73, activation orange #E69F00, output purple #CC79A7, tangent yellow
// #F0E442, gradient vermillion #D55E00, temporary grey #999999, unknown dark grey #555555
// (Okabe-Ito, readable by colour-blind users). Bands run bottom to top in that order:
// long-lived parameters at the bottom, temporaries on top. Bands that are zero at every step are
// left out. Module bands: the `top` modules with the largest maximum, biggest at the bottom, then
// the folded rest: ranges of repeated layers ("blocks.8–31") and "other (n modules)" (grey) on
// top; the root module (storages no module owns) is "(root)", as in the live table and
// `fxmem-cli breakdown`.
#pragma once
#include "loading/scene.h"
#include "timeline/timelineplot.h"

#include <fxmem/attribution.h>
#include <fxmem/liveset.h>
#include <fxmem/model.h>

#include <QColor>

#include <cstdint>
#include <vector>

namespace StackedBands {

using Band = TimelinePlot::Band;

QColor roleColour(fxmem::StorageRole role);

// Core's bands of one order (`top` modules of their own), and those bands named and coloured.
fxmem::StackedProfile profileOf(const fxmem::LiveSetIndex& live, const fxmem::Attribution& attribution,
                                fxmem::GroupBy by, std::uint32_t depth, std::size_t top = 8, bool keepEmpty = false);
std::vector<Band> colour(const fxmem::StackedProfile& profile, fxmem::GroupBy by);

// Bands of one order: `live` is that order's index (the graph's own or an edited order's).
// keepEmpty: list all nine roles, zero ones included (so two halves of a pair join in order).
std::vector<Band> byRole(const fxmem::LiveSetIndex& live, const fxmem::Attribution& attribution,
                         bool keepEmpty = false);
std::vector<Band> byModule(const fxmem::LiveSetIndex& live, const fxmem::Attribution& attribution, std::uint32_t depth,
                           std::size_t top = 8);
std::vector<Band> compute(const fxmem::LiveSetIndex& live, const fxmem::Attribution& attribution, fxmem::GroupBy by,
                          std::uint32_t depth, std::size_t top = 8, bool keepEmpty = false);

// A joined forward/backward view: the forward's bands, then the backward's raised by its
// baseline (the forward outputs it keeps alive, `baseline` with their group's name), matched by
// name; a band missing on one side is zero there; bands zero over the whole view are left out.
// The result adds up to the joined profile.
struct BaselinePart {
    QString band;
    std::int64_t bytes = 0;
};
std::vector<Band> join(const std::vector<Band>& forward, const std::vector<Band>& backward,
                       const std::vector<BaselinePart>& baseline);
// The baseline parts of a pair's backward, grouped as `compute` groups them: each counted
// baseline storage in the band of its role or owner module in the backward's bands
// (`backwardBands` = colour(backwardProfile)).
std::vector<BaselinePart> baselineParts(const fxmem::GraphFile& file, const std::vector<fxmem::StorageId>& storages,
                                        const fxmem::StorageMask& counted, const fxmem::Attribution& backward,
                                        const fxmem::StackedProfile& backwardProfile,
                                        const std::vector<Band>& backwardBands, fxmem::GroupBy by, std::uint32_t depth);

// The band of the whole step's saved activations (by role): "saved for backward".
QString savedBandName();

// Bands for what the views show: one graph, a joined pair (forward, then backward with its
// baseline), or the whole step (each run's bands plus what it carries; by role, activations saved
// for a later backward have their own band "saved for backward", dark orange #8C5A00, above the
// activations), over the scene's global profile. `roles` = fxmem::resolve_roles(*scene.file), built
// once per file. Run it off the GUI thread for large graphs (O(N + S + P * groups)).
std::vector<Band> forScene(const Scene& scene, const fxmem::RoleAssignment& roles, fxmem::GroupBy by,
                           std::uint32_t depth, std::size_t top = 8);

} // namespace StackedBands
