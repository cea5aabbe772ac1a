// Asynchronous collectives (Inductor's functional collectives): each start
// (`_c10d_functional.all_gather_into_tensor`, `reduce_scatter_tensor`, `all_reduce`, ...) and the
// `wait_tensor` that consumes its result. A prefetch is a start scheduled long before its wait;
// views draw the pair as an in-flight span. Pure function of the graph: no state, any thread.
#pragma once
#include "fxmem/model.h"
#include "fxmem/op_category.h"

#include <vector>

namespace fxmem {

struct CollectivePair {
    NodeId start, wait;
};

// Every wait whose input is a collective's output, directly or through view nodes such as
// `getitem` of a coalesced collective (at most two levels). `by_target` is
// target_categories(graph). O(N + E). Pairs in wait order.
std::vector<CollectivePair> find_collectives(const Graph& graph, const std::vector<OpCategory>& by_target);

} // namespace fxmem
