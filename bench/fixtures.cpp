#include "fixtures.h"

#include "rng.h"
#include "synth.h"

#include "fxmem/error.h"
#include "fxmem/io.h"

#include <iostream>

namespace fxmem::bench {

std::vector<NodeId> random_topological_order(const Graph& graph, std::uint64_t seed) {
    const std::size_t n = graph.size();
    if (n == 0 || graph.nodes.back().op != OpKind::Output)
        throw Error("graph '" + graph.name + "' does not end with an output node");
    const NodeId output(static_cast<std::int32_t>(n - 1));
    std::vector<std::uint32_t> pending(n);
    std::vector<NodeId> ready, order;
    order.reserve(n);
    for (std::size_t i = 0; i + 1 < n; ++i) {
        const NodeId id(static_cast<std::int32_t>(i));
        pending[i] = static_cast<std::uint32_t>(graph.inputs(id).size());
        if (pending[i] == 0) ready.push_back(id);
    }
    synth::Rng rng(seed);
    while (!ready.empty()) {
        std::swap(ready[rng.below(ready.size())], ready.back());
        const NodeId next = ready.back();
        ready.pop_back();
        order.push_back(next);
        for (NodeId user : graph.users(next))
            if (--pending[user.index()] == 0 && user != output) ready.push_back(user);
    }
    order.push_back(output);
    return order;
}

Fixture& fixture(std::size_t nodes) {
    static std::unique_ptr<Fixture> current;
    if (current && current->nodes == nodes) return *current;
    current.reset(); // free the previous size first: the 1M fixture is large
    std::cerr << "fxmem-bench: preparing " << nodes << " nodes..." << std::endl;
    auto f = std::make_unique<Fixture>();
    f->nodes = nodes;

    synth::Options pair;
    pair.nodes = nodes;
    pair.seed = 1;
    f->pair_json = synth::generate_json(pair);
    f->pair = load_buffer(f->pair_json, "synth-pair-" + std::to_string(nodes) + ".json");

    synth::Options single = pair;
    single.pair = false;
    f->single = synth::generate(single);
    f->graph = &f->single.graphs[0];
    f->alias = build_alias_info(f->single, *f->graph);
    f->releasable = default_releasable(*f->graph);
    f->counted = default_counted(f->single);
    f->random_order = random_topological_order(*f->graph, 2);
    current = std::move(f);
    return *current;
}

} // namespace fxmem::bench
