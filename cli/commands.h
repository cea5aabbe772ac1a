// The fxmem-cli commands. Each returns the exit status; invalid input throws fxmem::Error (exit 1)
// and bad usage throws cli::UsageError (exit 2).
#pragma once
#include "args.h"

#include "fxmem/analysis.h"
#include "fxmem/attribution.h"
#include "fxmem/estimator.h"
#include "fxmem/model.h"
#include "fxmem/schedule.h"

#include <iosfwd>
#include <optional>

namespace fxmem::cli {

int run_info(const Args& args, std::ostream& out);
int run_profile(const Args& args, std::ostream& out);
int run_peak(const Args& args, std::ostream& out);
// peak --measure allocated|reserved (cli/cmd_peak_measure.cpp).
int run_measured_peak(const Args& args, std::ostream& out);
// peak FILE --ranks: every rank's capture named by FILE's {rank} pattern, and the worst rank (cli/cmd_peak_ranks.cpp).
int run_peak_ranks(const Args& args, std::ostream& out);
int run_score(const Args& args, std::ostream& out);
int run_live(const Args& args, std::ostream& out);
int run_schedules(const Args& args, std::ostream& out);
int run_breakdown(const Args& args, std::ostream& out);
// diff OLD NEW (cli/cmd_diff.cpp): exit 3 on a regression over the limit.
int run_diff(const Args& args, std::ostream& out);
// export FILE --perfetto OUT.json | --memory-viz OUT.pickle (cli/cmd_export.cpp; the timeline and
// its writers are core's, fxmem/export.h).
int run_export(const Args& args, std::ostream& out);
// breakdown's --by (default role) and --depth (module depth; only with --by module, at most
// 2^32-1): bad usage otherwise. One reading for the graph and the --pair views.
struct BreakdownGrouping {
    GroupBy by = GroupBy::Role;
    std::optional<std::uint32_t> depth;
};
BreakdownGrouping breakdown_grouping(const Args& args);
int run_optimize(const Args& args, std::ostream& out);
// How a graph is scored (cli/backward_context.cpp): the backward of a pair in its pair (the
// pair's do-not-delete inputs; the baseline stated beside), unless --standalone.
struct ScoreContext {
    NodeMask releasable;
    bool in_pair = false;
    std::size_t pair = 0;
    std::int64_t baseline = 0;
};
ScoreContext score_context(const GraphFile& file, const Graph& graph, const Args& args);
std::string score_context_line(const GraphFile& file, const Graph& graph, const ScoreContext& c); // "" outside a pair

// breakdown/live --pair FWD,BWD: the app's joined view (cli/pair_view.cpp).
int run_pair_view(const Args& args, std::ostream& out);
// --whole-step of peak, profile, breakdown and live (cli/cmd_step.cpp).
int run_whole_step(const Args& args, std::ostream& out);
// --devices nonCPU (default) | all: which storages count (UsageError on anything else).
StorageMask devices_counted(const GraphFile& file, const Args& args);
DeviceFilter device_filter(const Args& args);
// Pair K of the file: invalid input when the file has no pairs (`hint`: what to use instead) or
// fewer than K+1.
const Pair& pair_at(const GraphFile& file, std::size_t k, std::string_view hint);
// -o PATH checked before anything long runs (optimize, remat): its directory exists and is
// writable, it is not a FIFO, device or directory (resolve_write_target), and it is not the graph
// file itself by any path (the graph would be replaced). `what`: "schedule", "plan".
void check_output_option(const Args& args, std::string_view command, std::string_view what);
// The same for any output PATH given with `option` (export's --perfetto/--memory-viz); also refused
// when PATH is the --plan or --schedule file the command reads.
void check_output_path(const Args& args, const std::string& path, std::string_view command, std::string_view option,
                       std::string_view what);
// A first line for human-readable output when every storage is on the CPU and none counts; "" otherwise.
std::string cpu_only_note(const GraphFile& file, const StorageMask& counted);
inline constexpr OptionSpec kOptimizeOptions[] = {{"--graph", true}, {"--time-limit", true}, {"-o", true},
                                                  {"--json", false}, {"--devices", true},    {"--standalone", false}};

// --set SYM=V[,SYM=V] (cli/size_binding.cpp): FILE loaded and, with --set, its symbolic sizes
// bound there (a SYM is a symbol's name, or its source). An unknown symbol or a value outside its
// range is invalid input naming it (and the range); a malformed --set is bad usage.
GraphFile load_bound(const Args& args);
// `given`, when not null, receives per symbol whether --set gives it.
SizeBinding binding_option(const GraphFile& file, const Args& args, std::vector<std::uint8_t>* given = nullptr);
// The index of symbol `name` (its name or source), else Error naming `option` and the symbols.
std::size_t symbol_option(const GraphFile& file, std::string_view option, std::string_view name);
std::int64_t parse_int64(std::string_view option, std::string_view text); // UsageError when not an int64
int run_fit(const Args& args, std::ostream& out);
// layout FILE [--graph G] [--depth D] [--expand M,...] [--json] (cli/cmd_layout.cpp; the layout is
// core's, fxmem/dataflow_layout.h).
int run_layout(const Args& args, std::ostream& out);

// The graph a command works on: --graph NAME, or the only graph of the file. Unknown names and
// files without graphs are invalid input; a missing --graph in a file with several is bad usage.
const Graph& select_graph(const GraphFile& file, const Args& args);

// --schedule X (cli/schedule_arg.cpp): the SCHED file at path X when one exists there, else the
// schedule named X in the file (of --graph, when given). Unknown names are invalid input; a name
// that several graphs use, without --graph, is bad usage.
Schedule resolve_schedule(const GraphFile& file, const std::string& x, const Args& args);
// --schedule X (as above) or --schedule-name NAME (a stored schedule only, never a path); the
// two exclude each other (bad usage). nullopt when neither is given. A command that takes
// --schedule lists both options (kScheduleOptions) and calls this.
std::optional<Schedule> schedule_option(const GraphFile& file, const Args& args);
// How to name the chosen schedule in human-readable output: the path, or the quoted name.
std::string schedule_label(const Args& args);

// The profile step of --step K (invalid input naming the file and the graph when K is beyond
// `profile`), else the first step at the peak; `profile` is never empty.
std::size_t chosen_step(const GraphFile& file, const Graph& graph, const Args& args,
                        const std::vector<std::int64_t>& profile);

// Peak of the default memory profile of every graph (PyTorch's build_memory_profile, max over
// steps), in file order; O(file size), not graphs x storages.
std::vector<std::int64_t> profile_peaks(const GraphFile& file, const StorageMask& counted);

} // namespace fxmem::cli
