// A view's memory profile as CSV, one writer for fxmem-cli (profile --csv) and the app (File ▸
// Export Profile as CSV). One row per global step of the timeline:
//   step,run,graph,graph_step,node,phase,bytes[,edited_bytes,edited_node]
// run: the step entry's name in the whole step ("region0.forward #2 (blocks.1)"), else the graph's;
// graph_step: the profile index within that graph; node: the node that runs there (empty at the
// start); phase: start, after_alloc or after_free; bytes: the timeline's (baseline included).
// With an edit of a single graph, its edited profile and the node the edited order runs at each
// step. Fields are quoted as RFC 4180 asks when they hold a comma, a quote or a line break.
//
// Pure functions of their arguments: any thread.
#pragma once
#include "fxmem/ids.h"
#include "fxmem/profile_steps.h"
#include "fxmem/timeline.h"

#include <cstdint>
#include <iosfwd>
#include <span>
#include <string_view>

namespace fxmem {

// "start", "after_alloc", "after_free": the one name of each phase in every output.
std::string_view to_string(StepPhase phase);

// An edited order of a timeline of one graph: its profile (MemoryTracker's curve) and the order.
struct ProfileEdit {
    std::span<const std::int64_t> bytes;
    std::span<const NodeId> order;
};

void write_profile_csv(std::ostream& out, const Timeline& timeline, const ProfileEdit* edit = nullptr);

} // namespace fxmem
