// Synthetic FX-like graphs for benchmarks and tests: a forward graph (primals, get_attr weights,
// call_function chains with fan-in from recent nodes, long-range skips, views, multi-output nodes
// with getitems, in-place nodes, some CPU storages, an output of activations and saved tensors;
// weights are mostly used layer by layer, near the body's progress, as in a real model)
// and optionally the matching backward graph and a pair. Deterministic per seed on every platform
// (own RNG, no std distributions).
//
// Node budget: `nodes` is the file's total. With pair = true the forward graph gets 2/5 of it and
// the backward 3/5 (AOT backward graphs are usually larger than their forward); with pair = false
// the single forward graph gets all of it. Each graph lands within a few nodes of its share.
#pragma once
#include "fxmem/model.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace fxmem::synth {

struct Options {
    std::size_t nodes = 10000; // total over the file's graphs (at least 32 are generated)
    std::uint64_t seed = 1;
    bool pair = true;            // also generate the backward graph and the pair
    double cpu_fraction = 0.05;  // share of fresh storages on "cpu" (the rest on "cuda:0")
    double save_fraction = 0.12; // share of forward activations saved for the backward (4x that
                                 // for layer norms' mean and rstd)
    bool stack_traces = true;    // a short stack_trace on half of the call_function nodes
};

// Graph names used by generate().
inline constexpr const char* kForwardName = "forward";
inline constexpr const char* kBackwardName = "backward";

GraphFile generate(const Options& options);

// The graph of generate(options) as format-v1 JSON text (fast appends, no JSON DOM).
std::string generate_json(const Options& options);

// Any GraphFile as format-v1 JSON text, with the same fast writer.
std::string write_json(const GraphFile& file);

} // namespace fxmem::synth
