// check_schedule's rules without its wording of the place: the reader checks a file's named
// schedules with them and names the place itself ("schedules[2]: schedule 's' of graph 'g'").
#pragma once
#include "fxmem/model.h"

#include <optional>
#include <span>
#include <string>

namespace fxmem::detail {

// What is wrong with `order` as a schedule of `graph` ("repeats node 'n' (positions 1 and 4)"),
// or nothing when it is a legal schedule.
std::optional<std::string> schedule_problem(const Graph& graph, std::span<const NodeId> order);

} // namespace fxmem::detail
