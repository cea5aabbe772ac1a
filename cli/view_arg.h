// The view a command shows, read from its options once (core's fxmem/view_spec.h): --graph,
// --pair, --whole-step, --in-pair, --schedule/--schedule-name, --devices, --measure. --pair means the same in
// every command.
#pragma once
#include "args.h"

#include "fxmem/model.h"
#include "fxmem/view_spec.h"

#include <cstdint>
#include <optional>
#include <string>

namespace fxmem::cli {

// --pair P: pair K by its index, or by its two graphs, "FWD,BWD" or "FWD + BWD" (the app's name).
// Invalid input naming the file for a pair it lacks; bad usage for text of neither form.
std::size_t pair_option(const GraphFile& file, const std::string& text);

// --measure estimator|allocated|reserved (bad usage otherwise); estimator when absent.
Measure measure_option(const Args& args);
// --memory M: bytes, or with a unit (80GiB, 24GB, 512MiB); nullopt when absent, bad usage when not a size.
std::optional<std::int64_t> memory_option(const Args& args);

// When none of --graph, --pair and --whole-step is given:
//   Pair      pair 0 (peak, diff, fit);
//   Graph     the graph of a --schedule, else the only graph (profile, live, breakdown, score);
//   FileView  the graph of a --schedule, else the file's default view (fxmem/view_spec.h: its whole
//             step, else pair 0, else its only graph): export, layout.
enum class ViewFallback { Pair, Graph, FileView };

// At most one of --graph, --pair and --whole-step (bad usage otherwise, as is --in-pair outside a
// graph view, or a schedule with --whole-step); then check_view (invalid input naming the file).
ViewSpec view_option(const GraphFile& file, const Args& args, ViewFallback fallback);

} // namespace fxmem::cli
