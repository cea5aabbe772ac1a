#include "optimize_figures.h"

#include "fixtures.h"

#include "fxmem/optimize.h"

#include <chrono>
#include <iostream>

namespace fxmem::bench {

std::vector<OptimizerFigure> measure_optimizer(const std::vector<std::size_t>& sizes, double time_limit_s,
                                               std::size_t max_nodes) {
    std::vector<OptimizerFigure> out;
    for (std::size_t nodes : sizes) {
        if (nodes > max_nodes) continue;
        const Fixture& f = fixture(nodes);
        OptimizeOptions options;
        options.time_limit_s = time_limit_s;
        std::cerr << "  optimize/" << nodes << " (time limit " << time_limit_s << " s)..." << std::endl;
        const auto start = std::chrono::steady_clock::now();
        const OptimizeResult r = optimize_schedule(f.single, *f.graph, f.alias, f.releasable, f.counted, options);
        OptimizerFigure fig;
        fig.nodes = nodes;
        fig.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        fig.original = r.original_peak;
        fig.lpmf = r.lpmf_peak.value_or(-1); // -1 in the printed table: not computed
        fig.bfs = r.bfs_peak.value_or(-1);   // -1 in the printed table: not computed
        fig.dfs = r.dfs_peak.value_or(-1);   // -1 in the printed table: not computed
        fig.peak = r.peak;
        fig.lower_bound = r.lower_bound;
        fig.exact = r.exact;
        fig.method = r.method;
        out.push_back(fig);
    }
    return out;
}

} // namespace fxmem::bench
