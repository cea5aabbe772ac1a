// Deep dotted module names: load_buffer + resolve_roles + Attribution of a one-node graph whose
// module has D, 2D and 4D levels (a hostile file). The work must grow linearly with D.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace fxmem::bench {

struct DeepModuleFigure {
    std::size_t depth = 0;
    std::size_t json_bytes = 0;
    double ms = 0;                  // CPU time of the thread, best of a few runs
    std::uint64_t lookup_bytes = 0; // detail::WorkCounters::lookup_bytes: the counted work
};

// Depths base, 2 base, 4 base.
std::vector<DeepModuleFigure> measure_deep_modules(std::size_t base_depth);

} // namespace fxmem::bench
