// The optimizer's figures: optimize_schedule on the single synthetic graph of each size, timed by
// the wall clock (its time limit is a wall-clock limit), with the peaks it compares.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace fxmem::bench {

struct OptimizerFigure {
    std::size_t nodes = 0;
    double seconds = 0; // wall clock of the whole optimize_schedule call
    std::int64_t original = 0, lpmf = 0, bfs = 0, dfs = 0, peak = 0, lower_bound = 0;
    bool exact = false;
    std::string method;
};

// One figure per size; sizes above `max_nodes` are skipped.
std::vector<OptimizerFigure> measure_optimizer(const std::vector<std::size_t>& sizes, double time_limit_s,
                                               std::size_t max_nodes);

} // namespace fxmem::bench
