// Asynchronous collectives (Inductor's functional collectives): each start
// (`_c10d_functional.all_gather_into_tensor`, `reduce_scatter_tensor`, `all_reduce`, ...) and the
// `wait_tensor` that consumes its result. The graph view draws the pair as an in-flight span, so
// that a prefetch (a start scheduled long before its wait) shows at a glance.
#pragma once
#include <fxmem/model.h>
#include <fxmem/op_category.h>

#include <vector>

struct CollectivePair {
    fxmem::NodeId start, wait;
};

// Every wait whose input is a collective's output, directly or through view nodes such as
// `getitem` of a coalesced collective (at most two levels). O(N + E). Pairs in wait order.
std::vector<CollectivePair> findCollectives(const fxmem::Graph& graph, const std::vector<fxmem::OpCategory>& byTarget);
