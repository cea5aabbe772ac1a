// The profile's step numbering, defined once for the estimator, the layout, the app and the CLI.
// build_memory_profile has 1 + 2K entries for the K nodes that run (all but placeholder, get_attr
// and output): index 0 is the start, 1 + 2k is after the k-th running node allocates, 2 + 2k
// after it frees.
//
// Pure constexpr functions: any thread.
#pragma once
#include "fxmem/model.h"

#include <cstddef>
#include <cstdint>

namespace fxmem {

// Whether a node of this kind has points in the profile (runs, allocates and frees).
constexpr bool has_profile_points(OpKind op) {
    return op != OpKind::Placeholder && op != OpKind::GetAttr && op != OpKind::Output;
}

constexpr std::int64_t alloc_step(std::size_t k) { return 1 + 2 * static_cast<std::int64_t>(k); }
constexpr std::int64_t free_step(std::size_t k) { return 2 + 2 * static_cast<std::int64_t>(k); }
constexpr std::int64_t profile_size(std::size_t running) { return 1 + 2 * static_cast<std::int64_t>(running); }
// The running node's position k of a step >= 1.
constexpr std::size_t running_position(std::int64_t step) { return static_cast<std::size_t>((step - 1) / 2); }

enum class StepPhase { Start, AfterAlloc, AfterFree };
constexpr StepPhase phase_of(std::int64_t step) {
    return step <= 0 ? StepPhase::Start : step % 2 == 1 ? StepPhase::AfterAlloc : StepPhase::AfterFree;
}

} // namespace fxmem
