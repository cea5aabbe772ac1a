// The timeline an export writes (fxmem-cli export): one graph, a pair joined as the app shows it,
// or the whole step, with the bytes by role at every step and the node of every step. Assembled
// from core's public functions only (GraphAnalysis, whole_step, Attribution), so that it can move
// to core with the pair view.
#pragma once
#include "args.h"

#include "fxmem/attribution.h"
#include "fxmem/model.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fxmem::cli {

struct ExportSection {
    std::string name;  // graph name, or the step entry's (step_entry_name)
    std::string phase; // "forward", "backward", "optimizer" (a graph after the last backward of the step), "other"
    std::uint32_t graph = 0;
    std::size_t begin = 0, length = 0; // timeline indices [begin, begin + length)
    std::vector<NodeId> step_node;     // per local index: the node (invalid at 0)
};

struct ExportTimeline {
    std::string scope; // "graph", "pair" or "whole_step"
    std::vector<ExportSection> sections;
    std::vector<std::int64_t> total;   // per timeline index
    std::vector<std::int64_t> by_role; // row-major [index * kStorageRoleCount + role]
    std::int64_t peak = 0;
    std::size_t peak_index = 0; // the first index at the peak
    std::int64_t role_at(std::size_t index, std::size_t role) const {
        return by_role[index * kStorageRoleCount + role];
    }
};

// --graph G, --pair K, --whole-step (at most one; bad usage otherwise); none: the whole step when
// the file has one, else pair 0 when it has pairs, else the only graph.
ExportTimeline export_timeline(std::shared_ptr<const GraphFile> file, const Args& args);

} // namespace fxmem::cli
