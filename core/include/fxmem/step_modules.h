// The whole step's modules at one run: the one rule by which `breakdown --whole-step --by module`
// and the app's Breakdown tab file each live storage under a module of the model.
//   - the running graph's own storages: their owner in that graph's module tree (Attribution),
//     qualified by the run's module prefix ("blocks.5" + "attn" = "blocks.5.attn");
//   - a carried storage: the module that made it, in the run that made it (CarriedStorage::source;
//     a parameter or optimizer state: the first run whose graph holds it), qualified by that run's
//     prefix, so what a top-level run carries into blocks.5's run stays "head", not "blocks.5.head";
//     a carried storage no run holds is the model's root ("").
// The modules form one ModuleTree of qualified names: the running graph's (types kept) and those of
// the carried storages. Built once per run in O(S + the step's held items + modules + the names'
// lengths); grouping a live set is O(live * depth).
//
// Lifetime and threads: a value; the file, step and attributions are read during the constructor
// only. Const members from any thread.
#pragma once
#include "fxmem/attribution.h"
#include "fxmem/model.h"
#include "fxmem/whole_step.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

namespace fxmem {

class StepModules {
public:
    // The attribution of a graph (resolve_roles' roles), built or cached by the caller.
    using AttributionOf = std::function<const Attribution&(GraphId)>;
    // `carried`: Timeline::carried(segment), what the run carries.
    StepModules(const GraphFile& file, const WholeStep& step, std::uint32_t segment,
                std::span<const CarriedStorage> carried, const AttributionOf& attribution_of);

    // The modules storages are filed under, qualified; index 0 is the model's root ("").
    const ModuleTree& tree() const { return tree_; }
    // The tree module of row i of the run's live set (Timeline::live_at / liveAtStep: its own
    // storages in live[0, baseline_begin), then the carried ones).
    std::uint32_t owner(const LiveStorage& row, bool carried_row) const;
    // Inclusive totals per tree module (a module counts its descendants' storages).
    Attribution::ModuleTotals totals(std::span<const LiveStorage> live, std::size_t baseline_begin) const;
    // Groups of equal module names at `depth` from the model's root (none: each storage's own
    // module), sorted by bytes descending, then name; bytes add up to the live total.
    std::vector<Attribution::Group> by_module(std::span<const LiveStorage> live, std::size_t baseline_begin,
                                              std::optional<std::uint32_t> depth) const;

private:
    ModuleTree tree_;
    std::vector<std::uint32_t> own_;     // per StorageId: its owner as the running graph's storage
    std::vector<std::uint32_t> carried_; // per StorageId: its owner as a carried storage; npos if not carried
};

} // namespace fxmem
