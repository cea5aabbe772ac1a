#include "deep_modules.h"

#include "fxmem/attribution.h"
#include "fxmem/io.h"
#include "work_counters.h"

#include <algorithm>
#include <ctime>
#include <string>

namespace fxmem::bench {

namespace {

double thread_cpu_ms() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
}

std::string deep_file(std::size_t depth) {
    std::string module = "m";
    module.reserve(2 * depth);
    for (std::size_t i = 1; i < depth; ++i) module += ".m";
    return R"({"format": "fxmem", "version": 1, "storages": [{"id": 0, "device": "cuda:0", "nbytes": 64}],
 "graphs": [{"name": "g", "kind": "forward", "nodes": [
  {"name": "y", "op": "call_function", "target": "aten.empty.memory_format", "inputs": [],
   "val": {"storage": 0, "dtype": "float32", "shape": [16], "stride": [1], "offset": 0}, "module": ")" +
           module + R"("},
  {"name": "output", "op": "output", "target": "output", "inputs": ["y"], "val": null}]}]})";
}

} // namespace

std::vector<DeepModuleFigure> measure_deep_modules(std::size_t base_depth) {
    std::vector<DeepModuleFigure> out;
    for (const std::size_t factor : {1, 2, 4}) {
        DeepModuleFigure fig;
        fig.depth = base_depth * factor;
        const std::string json = deep_file(fig.depth);
        fig.json_bytes = json.size();
        fig.ms = 1e300;
        for (int run = 0; run < 3; ++run) {
            const double t0 = thread_cpu_ms();
            const GraphFile file = load_buffer(json, "deep.json");
            const Attribution a(file, GraphId(0), resolve_roles(file));
            fig.ms = std::min(fig.ms, thread_cpu_ms() - t0);
            fig.lookup_bytes = fxmem::detail::WorkCounters::lookup_bytes(a.tree());
        }
        out.push_back(fig);
    }
    return out;
}

} // namespace fxmem::bench
