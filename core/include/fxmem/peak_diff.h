// Two captures' peaks compared (fxmem-cli diff): where each peak is, what is live there, and the
// difference attributed by role and by module so that the rows add up to it byte for byte.
//
// A peak's storages are every counted storage live at the peak's step: for a pair, the joined
// view of `breakdown --pair` (the forward, then the backward scored in its pair with the forward
// outputs it keeps alive on top); for the whole step, the running graph's live set plus what it
// carries (fxmem/whole_step.h). Their bytes add up to the peak.
//
// Each storage is described by names that survive a new capture, so that two files can be
// matched without shared ids:
//   module: parameters, buffers and optimizer state by their label ("layers.0.mlp.w1.weight" ->
//           "layers.0.mlp.w1"; "<parameter> exp_avg" -> the parameter's module), anything else by
//           its owner module in the graph that computes it (Attribution); qualified by the step
//           entry's module prefix in the whole step;
//   op:     the target of the first node that computes it in the file ("aten.mm.default"), or
//           "placeholder" when only placeholders hold it, or "<role>" when no graph holds it;
//   shape:  "float32[2, 64, 176]" from that node's (or placeholder's) tensor; "<N> bytes" when no
//           graph holds it.
//
// Lifetime and threads: PeakPlace and PeakDiff are values holding no references to the files;
// any thread.
#pragma once
#include "fxmem/analysis.h"
#include "fxmem/model.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fxmem {

enum class PeakScope : std::uint8_t { Pair, WholeStep };

struct PeakStorage {
    StorageId storage;
    std::int64_t bytes = 0;
    StorageRole role = StorageRole::Unknown; // resolved (resolve_roles), never Unknown
    std::string module;                      // qualified; "" = the root
    std::string op;
    std::string shape;
    std::string label; // the file's label, "" when none
};

struct PeakPlace {
    PeakScope scope = PeakScope::Pair;
    std::size_t pair = 0;  // the pair compared (PeakScope::Pair)
    std::int64_t peak = 0; // get_peak_memory's peak, or the whole step's
    std::size_t step = 0;  // first index at the peak: joined pair timeline, or whole-step timeline
    std::string graph;     // the graph's name (pair), or its step entry's (step_entry_name)
    GraphKind kind = GraphKind::Other;
    std::size_t graph_step = 0;    // the profile index inside that graph
    std::string node;              // the node of graph_step; "" at index 0 (the start)
    std::vector<PeakStorage> live; // largest first, then by storage id; bytes add up to peak
};

// Throws Error naming the file when it has no pair `pair` (scope Pair) or no step (WholeStep).
PeakPlace peak_place(std::shared_ptr<const GraphFile> file, PeakScope scope, std::size_t pair = 0,
                     DeviceFilter filter = DeviceFilter::NonCpu);

// A row of an attribution: a role or module name and its bytes at each side's peak.
struct DiffRow {
    std::string key;
    std::int64_t old_bytes = 0, new_bytes = 0;
    std::int64_t delta() const { return new_bytes - old_bytes; }
};

struct PeakDiff {
    PeakPlace old_side, new_side;
    std::int64_t delta = 0; // new_side.peak - old_side.peak
    bool moved = false;     // the peak is in another graph (or step entry) or at another node
    // Every key of either side, largest |delta| first, then by key; the deltas add up to `delta`.
    std::vector<DiffRow> by_role, by_module;
    // Storages at one side's peak that the other side's peak lacks, matched by (module, op, shape)
    // as multisets (3 on one side and 5 on the other leave 2 unmatched); indices into live.
    std::vector<std::size_t> only_old, only_new;
};

// `module_depth` > 0 sums modules into their ancestors at that depth ("layers.0.mlp" at depth 2
// is "layers.0"); 0 keeps each storage's own module.
PeakDiff diff_peaks(PeakPlace old_side, PeakPlace new_side, std::uint32_t module_depth = 0);

} // namespace fxmem
