// fxmem's timeline for other viewers (docs/exports.md): one graph, a forward/backward pair joined
// as the app shows it, or the whole step, with the bytes by role at every step and each storage's
// stay on it; written as Chrome-trace JSON (Perfetto) or as a memory snapshot pickle that
// PyTorch's memory_viz opens. fxmem-cli export and the app's File > Export call the same functions.
// The timeline keeps no reference to the file; the writers read the file it was built from.
//
// Threads: build and write on any thread; the writers read the file only during the call.
#pragma once
#include "fxmem/analysis.h"
#include "fxmem/attribution.h"
#include "fxmem/cancel.h"
#include "fxmem/model.h"
#include "fxmem/schedule.h"
#include "fxmem/view_spec.h"

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fxmem {

struct ExportSection {
    std::string name;  // graph name, or the step entry's (step_entry_name)
    std::string phase; // "forward", "backward", "optimizer" (a graph after the last backward of the step), "other"
    GraphId graph;
    std::string module_prefix;         // the step entry's module prefix ("" outside the whole step)
    std::size_t begin = 0, length = 0; // timeline indices [begin, begin + length)
    std::vector<NodeId> step_node;     // per local index: the node (invalid at 0)
};

// One storage's stay on the timeline: live on indices [begin, end), end == the timeline's length
// when it is still live at the end. A storage that lives on across a graph boundary (a saved
// activation, a parameter, the pair's baseline) is one stay; a storage the timeline counts twice
// at once (two runs of one region) is two. At every index the stays live there add up to `total`.
struct ExportStay {
    StorageId storage;
    std::size_t begin = 0, end = 0;
    std::uint32_t section = 0; // where it begins
    NodeId allocator;          // the node of that section's graph that allocates it; invalid for a
                               // storage the section carries from outside (whole step)
};

struct ExportTimeline {
    ViewScope scope = ViewScope::WholeStep;
    std::size_t pair = 0; // Pair
    std::vector<ExportSection> sections;
    std::vector<std::int64_t> total;   // per timeline index
    std::vector<std::int64_t> by_role; // row-major [index * kStorageRoleCount + role]
    std::int64_t peak = 0;
    std::size_t peak_index = 0;         // the first index at the peak
    std::vector<std::uint32_t> role_of; // per StorageId: its resolved StorageRole
    std::vector<ExportStay> stays;      // by begin, then section order
    std::int64_t role_at(std::size_t index, std::size_t role) const {
        return by_role[index * kStorageRoleCount + role];
    }
};

// The timeline of a view. Throws Error (naming file.source) for a pair or graph the file lacks, a
// whole step in a file without one, and a schedule of a graph outside the view; Cancelled when
// `cancelled` answers true (polled between graphs).
ExportTimeline export_timeline(std::shared_ptr<const GraphFile> file, const ViewSpec& view,
                               const CancelCheck& cancelled = {});

// Chrome-trace JSON, one event per line (docs/exports.md, "Perfetto"); returns the event count.
std::size_t write_perfetto(std::ostream& out, const GraphFile& file, const ExportTimeline& timeline);

// A snapshot as torch.cuda.memory._snapshot() returns it, pickled (protocol 2) for memory_viz
// (docs/exports.md, "memory_viz"): device_traces with an alloc, free_requested and free_completed
// entry per stay, sizes rounded as the CUDA caching allocator rounds them, addresses from a
// best-fit layout over one segment per device; segments as the allocator would report them at the
// end of the trace. `until_peak`: the trace stops at the timeline's peak, whose blocks the
// segments then hold.
struct MemoryVizOptions {
    bool until_peak = false;
};
struct MemoryVizSummary {
    std::size_t entries = 0; // trace entries, all devices
    std::size_t stays = 0;   // allocations in the trace (stays of 0 bytes are left out)
    std::int64_t peak = 0;   // the largest sum of rounded block sizes live at once, any device
    std::size_t peak_index = 0;
    std::int64_t reserved = 0;        // the segments' total size
    std::vector<std::string> devices; // memory_viz device number -> the file's device name
};
MemoryVizSummary write_memory_viz(std::ostream& out, const GraphFile& file, const ExportTimeline& timeline,
                                  const MemoryVizOptions& options = {});
// The CUDA caching allocator's block size for a request: at least 512 bytes, a multiple of 512.
// Throws Error when that passes 2^63-1 (write_memory_viz refuses a file whose rounded sizes do).
std::int64_t cuda_block_size(std::int64_t nbytes);

// The two written atomically (write_file_atomically: a temporary file, then a rename). Throw Error
// naming `path`.
std::size_t save_perfetto(const std::string& path, const GraphFile& file, const ExportTimeline& timeline);
MemoryVizSummary save_memory_viz(const std::string& path, const GraphFile& file, const ExportTimeline& timeline,
                                 const MemoryVizOptions& options = {});

} // namespace fxmem
