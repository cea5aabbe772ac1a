// The rows that `breakdown` and `live` print, one definition for a graph, a pair and the whole
// step: groups of a breakdown, what the whole step carries into a graph, and live storages.
#pragma once
#include "fxmem/attribution.h"
#include "fxmem/liveset.h"
#include "fxmem/model.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace fxmem::cli {

using CarryRows = std::vector<std::pair<std::string, std::int64_t>>;

// [{"key", "bytes", "storages"}] in the breakdown's order.
nlohmann::ordered_json groups_json(const std::vector<Attribution::Group>& groups);
// size, storages, key (the root module reads "(root)").
std::vector<std::string> group_cells(const Attribution::Group& group, GroupBy by);
// [{"key", "bytes"}] and its table (size, what is carried).
nlohmann::ordered_json carry_json(const CarryRows& carry);
void write_carry_table(std::ostream& out, const CarryRows& carry);
// A table of live storages: size, file id (under `id_header`), role, label.
void write_live_table(std::ostream& out, const GraphFile& file, const std::vector<LiveStorage>& live,
                      const std::string& id_header);

} // namespace fxmem::cli
