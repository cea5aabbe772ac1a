// Schedules: an order of every node of one graph. SCHED files are
// {"graph": NAME, "order": [every node name exactly once]}.
//
// Lifetime and threads: Schedule and ScheduleScore are values; reading, writing and scoring
// read the file during the call only. Any thread.
#pragma once
#include "fxmem/estimator.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fxmem {

struct Schedule {
    GraphId graph; // index into GraphFile::graphs; every parser sets it
    std::vector<NodeId> order;
};

// Throws Error naming the place when the order misses, repeats or invents a node, puts a node
// before one of its inputs (naming both), or does not end with the output node.
void check_schedule(const Graph& graph, std::span<const NodeId> order);

// Parses and checks a SCHED document. `graph_name`, when not empty, must agree with the file's.
// Errors name `source` and the place (line and column for JSON syntax). The order is read as a
// stream: once "graph" is known each entry becomes a node id, and the first unknown or repeated
// node stops the read (memory: 4 bytes per entry, not the JSON). `entries_read`, when given,
// receives how many order entries were read, also when an error is thrown.
Schedule parse_schedule(const GraphFile& file, std::string_view json, std::string_view source,
                        std::string_view graph_name = {}, std::size_t* entries_read = nullptr);
Schedule load_schedule(const GraphFile& file, const std::string& path, std::string_view graph_name = {});
std::string schedule_to_json(const Graph& graph, std::span<const NodeId> order);
// Writes atomically: a temporary file beside `path`, then a rename. Throws Error on failure.
void save_schedule(const Graph& graph, std::span<const NodeId> order, const std::string& path);

struct ScheduleScore {
    std::int64_t peak = 0;             // MemoryTracker peak
    std::vector<std::int64_t> current; // memory after each node, in schedule order
};

ScheduleScore score_schedule(const GraphFile& file, const Graph& graph, const AliasInfo& alias,
                             std::span<const NodeId> order, const NodeMask& releasable, const StorageMask& counted);

std::vector<NodeId> original_order(const Graph& graph);

} // namespace fxmem
