// Whole steps for benchmarks and tests: many distinct regions (each its own forward/backward
// pair, run once, forwards first and backwards in reverse, as a model with a graph break per
// block) or one region called many times (a compiled block reused by every layer, each call
// under its own module prefix "blocks.<i>"), as format-v1 JSON text, and the whole-step peak the
// carry rules give (fxmem/whole_step.h).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace fxmem::synth {

// `regions` distinct regions run once each; or, when calls > 0, one region called `calls` times.
// Region r: its forward holds the parameter W (1000 B, label "blocks.<r>.w", or "w" under the
// call's prefix) and an input X (100 B), makes a = W @ X (saved, 10 B) and o = relu(a) (the
// output, 1 B); its backward holds a and a tangent T (1 B) and makes W's gradient G (1000 B,
// "grad of <label>") and X's (100 B).
std::string step_json(std::size_t regions, std::size_t calls = 0);

// The whole-step peak of step_json with `runs` = regions (or calls) runs.
std::int64_t step_peak(std::size_t runs);

} // namespace fxmem::synth
