// The fxmem-cli commands. Each returns the exit status; invalid input throws fxmem::Error (exit 1)
// and bad usage throws cli::UsageError (exit 2).
#pragma once
#include "args.h"

#include "fxmem/model.h"

#include <iosfwd>

namespace fxmem::cli {

int run_info(const Args& args, std::ostream& out);
int run_profile(const Args& args, std::ostream& out);
int run_peak(const Args& args, std::ostream& out);
int run_score(const Args& args, std::ostream& out);
int run_live(const Args& args, std::ostream& out);
int run_breakdown(const Args& args, std::ostream& out);

// The graph a command works on: --graph NAME, or the only graph of the file. Unknown names and
// files without graphs are invalid input; a missing --graph in a file with several is bad usage.
const Graph& select_graph(const GraphFile& file, const Args& args);

// Peak of the default memory profile of a graph (PyTorch's build_memory_profile, max over steps).
std::int64_t profile_peak(const GraphFile& file, const Graph& graph);

} // namespace fxmem::cli
