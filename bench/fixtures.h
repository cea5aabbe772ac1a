// What the benchmarks of one size work on, built once per size outside the timed loops.
//   pair:   a forward/backward pair of `nodes` nodes in all (2/5 forward), as JSON text and loaded
//           from it: the load and the profile+peak figures (what the app does after opening).
//   single: one forward graph of `nodes` nodes: every per-graph figure (alias, profile, score,
//           live set, incremental moves), so "at 1M nodes" means a graph of 1M nodes.
#pragma once
#include "fxmem/estimator.h"
#include "fxmem/incremental.h"
#include "fxmem/liveset.h"
#include "fxmem/model.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fxmem::bench {

struct Fixture {
    std::size_t nodes = 0;
    std::string pair_json;
    GraphFile pair; // load_buffer(pair_json)
    GraphFile single;
    const Graph* graph = nullptr; // single.graphs[0]
    AliasInfo alias;
    NodeMask releasable;
    StorageMask counted;
    std::vector<NodeId> random_order; // a random legal order of *graph

    // Built on first use by the query and move benchmarks.
    std::unique_ptr<LiveSetIndex> liveset;
    std::unique_ptr<IncrementalSchedule> incremental; // starts from the original order
};

// The fixture of `nodes`, built on first use; building another size frees the previous one.
Fixture& fixture(std::size_t nodes);

// A uniformly random pick among ready nodes at each step (Kahn), the output node last.
std::vector<NodeId> random_topological_order(const Graph& graph, std::uint64_t seed);

} // namespace fxmem::bench
