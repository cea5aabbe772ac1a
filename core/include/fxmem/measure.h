// Which number a view counts (docs/format.md, "Measures"):
//   Estimator  PyTorch's FX memory estimator on the graphs (memory_estimator.py, ported exactly):
//              every node's output is an allocation.
//   Allocated  the program Inductor generates from each graph (its graph's PROGRAM level): the
//              buffers its scheduler materializes after fusion, reused as its wrapper reuses them.
//   Reserved   the allocated program replayed through a simulation of PyTorch's CUDA caching
//              allocator: the segments it reserves from the device.
//
// Plain values: any thread.
#pragma once
#include <optional>
#include <string_view>

namespace fxmem {

enum class Measure : unsigned char { Estimator, Allocated, Reserved };

constexpr std::string_view to_string(Measure m) {
    switch (m) {
    case Measure::Estimator: return "estimator";
    case Measure::Allocated: return "allocated";
    case Measure::Reserved: return "reserved";
    }
    return "estimator";
}

// "estimator", "allocated" or "reserved"; nullopt for anything else.
constexpr std::optional<Measure> parse_measure(std::string_view text) {
    for (Measure m : {Measure::Estimator, Measure::Allocated, Measure::Reserved})
        if (text == to_string(m)) return m;
    return std::nullopt;
}

} // namespace fxmem
