// The whole training step: every graph of the file's "step" in run order, on one timeline, with
// what lives outside each graph while it runs (docs/estimator.md, "The whole step").
//
// Carry rules, applied to the counted storages (the device filter):
//   - parameters and buffers are counted once each, through the whole step: a parameter is the
//     pair (entry's module prefix, label) of a parameter/buffer storage a step graph holds as a
//     placeholder, or a parameter/buffer storage no graph holds (written by the exporter for a
//     parameter only the optimizer knows);
//   - optimizer state (role optimizer_state) lives through the whole step;
//   - the activations a forward call saves for its backward (the backward's placeholders that are
//     forward outputs, parameters and buffers excepted) live from the end of that forward call to
//     the start of its backward call (the entry of the paired backward with the same call), or to
//     the end of the step when that backward never runs;
//   - a forward's other outputs are handed to the next graph, which holds them as its inputs (they
//     are not counted between the two); the outputs of the last forward before the first backward
//     (the loss) are held to the end of the step;
//   - a backward's parameter gradients (role gradient, label "grad of <parameter>") accumulate
//     from the end of that backward to the end of the step (the optimizer consumes them), each
//     parameter once; its other gradients are handed to the next backward as its tangents.
// Inside a graph the numbers are PyTorch's: a forward's or an unpaired graph's
// build_memory_profile, a paired backward's profile with get_peak_memory's do-not-delete rule.
//
// Lifetime and threads: a WholeStep is a value (storage ids and indices into the file, no
// references); whole_step reads the file during the call only. Any thread.
#pragma once
#include "fxmem/estimator.h"
#include "fxmem/model.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fxmem {

// What lives outside one step entry's graph while it runs, by kind.
struct StepCarry {
    std::int64_t parameters = 0; // parameters and buffers the graph does not hold
    std::int64_t optimizer_state = 0;
    std::int64_t saved = 0;     // activations saved by other forward calls, backward pending
    std::int64_t gradients = 0; // parameter gradients of earlier backward calls
    std::int64_t outputs = 0;   // the last forward's outputs (the loss), during the backwards
    std::int64_t total() const { return parameters + optimizer_state + saved + gradients + outputs; }
};

// Why a storage outside an entry's graph is alive while it runs (the carry rules above).
enum class CarryKind : std::uint8_t {
    Parameter,      // a parameter or buffer (one storage per parameter key)
    OptimizerState, // optimizer state (one storage per state label)
    Saved,          // saved by forward entry `source` for its backward
    Gradient,       // a parameter's gradient, made by backward entry `source`
    Output,         // an output of forward entry `source` (the loss), held to the end of the step
};
std::string_view to_string(CarryKind kind);

// One carried storage and the segments that carry it: [first, last), less the segments whose graph
// holds it as an input (WholeStep::held). Its bytes are counted bytes (0 when the device filter
// leaves it out); the bytes of the items an entry carries add up to its StepCarry, kind by kind.
struct CarriedStorage {
    StorageId storage;
    CarryKind kind = CarryKind::Parameter;
    std::optional<std::uint32_t> source; // the step entry that made it (none for parameters and state)
    std::uint32_t first = 0, last = 0;   // segments
    std::int64_t bytes = 0;
};

struct StepSegment {
    std::uint32_t entry = 0; // index into GraphFile::step
    GraphId graph;           // index into GraphFile::graphs
    std::size_t begin = 0;   // first timeline index of this entry
    std::size_t length = 0;  // its graph's profile length (1 + 2K)
    StepCarry carry;
    std::int64_t peak = 0; // the entry's own peak, carry included
};

struct WholeStep {
    std::vector<std::int64_t> timeline; // per entry: carry + its graph's profile, concatenated
    std::vector<StepSegment> segments;  // one per step entry, in step order
    std::int64_t peak = 0;
    std::size_t peak_index = 0;     // into timeline
    std::uint32_t peak_segment = 0; // into segments
    std::int64_t parameters = 0;    // every parameter and buffer, once
    std::int64_t optimizer_state = 0;
    std::vector<std::uint32_t> missing_backward; // step entries (forwards) whose backward never runs
    // What is carried, each storage once with its span (O(S) in all), and per segment the items its
    // graph holds itself (CSR: held[held_begin[s], held_begin[s + 1]) are indices into carried).
    std::vector<CarriedStorage> carried;
    std::vector<std::uint32_t> held_begin, held;
};

// Throws Error when the file has no step. O(S + N + E of each graph the step runs, once however
// often it runs + the parameters each entry holds + the carried items): linear in the file, with
// no per-graph or per-entry cost in the file's storages or the step's parameters.
WholeStep whole_step(const GraphFile& file, const StorageMask& counted);

// The releasability a graph is scored with inside the step: a paired backward's (get_peak_memory's
// do-not-delete inputs), else PyTorch's default. For a LiveSetIndex of a segment's graph.
NodeMask step_releasable(const GraphFile& file, GraphId graph);

// "region0.forward" or "region0.forward #2 (blocks.1)": an entry as users read it (call 1-based).
std::string step_entry_name(const GraphFile& file, const StepEntry& entry);

// The profile index of a step timeline index within its segment's graph, and that segment.
struct StepPoint {
    std::uint32_t segment = 0;
    std::size_t index = 0; // into the graph's profile (0 = start, 1 + 2k / 2 + 2k = node k)
};
StepPoint step_point(const WholeStep& step, std::size_t timeline_index);

// The storages segment `segment` carries, in the order of WholeStep::carried (parameters, then
// optimizer state, then the rest in step order). Items of 0 bytes (not counted) are left out.
// O(carried items).
std::vector<CarriedStorage> carried_at(const WholeStep& step, std::uint32_t segment);

} // namespace fxmem
