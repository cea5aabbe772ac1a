// The measured figures. Each case is one Google Benchmark per size, named "<key>/<nodes>", timed
// in microseconds of the benchmark thread's CPU time per iteration (the machine is shared, so
// wall-clock time would measure the neighbours); `per` turns that into the reported unit.
#pragma once
#include <benchmark/benchmark.h>

#include <cstddef>
#include <string_view>
#include <vector>

namespace fxmem::bench {

struct Case {
    std::string_view key;  // the JSON key, e.g. "profile_peak_ms"
    std::string_view what; // one line for the table
    double per;            // reported value = microseconds * per
    bool linear;           // expected O(N): part of the growth check
    void (*run)(benchmark::State&, std::size_t nodes);
};

const std::vector<Case>& cases();

// Registers every case for every size, size-major (so each size's fixture is built once).
void register_cases(const std::vector<std::size_t>& sizes, double min_time_s);

} // namespace fxmem::bench
