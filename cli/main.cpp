// fxmem-cli: the command-line face of fxmem_core. Exit 0 on success, 1 on invalid input (the
// message names the file, the place and what is wrong), 2 on bad usage.
#include "args.h"
#include "cmd_remat.h"
#include "commands.h"
#include "text.h"

#include "fxmem/error.h"

#include <cstdio>
#include <cstring>
#include <iostream>
#include <new>
#include <span>

namespace {

using namespace fxmem::cli;

constexpr const char* kUsage = R"(usage: fxmem-cli COMMAND FILE [options]

commands:
  info FILE [--json]
      graphs (name, kind, nodes, peak of the memory profile), storages, devices, total bytes
  profile FILE [--graph NAME] [--json | --csv] [--set SYM=V[,SYM=V]]
      memory profile of one graph (PyTorch's build_memory_profile): the start, then after each
      node's allocations and after its frees; --graph may be left out when the file has one graph
  peak FILE [--pair P | --whole-step] [--json] [--set SYM=V[,SYM=V]]
        [--measure estimator|allocated|reserved] [--memory M] [--alloc-conf CONF] [--ranks]
      peak of forward/backward pair P, default 0 (PyTorch's get_peak_memory), or of the whole
      step; --measure allocated counts the buffers of the program Inductor generates (the
      file's program level), reserved replays them through PyTorch's CUDA caching allocator
      (--alloc-conf takes a PYTORCH_CUDA_ALLOC_CONF string); --memory M says whether the view
      fits in M, in any measure (reserved: where the allocator would raise out-of-memory);
      --ranks: FILE is the pattern fxmem_export.capture_ranks wrote (model.rank{rank}.fxmem.json),
      and each captured rank's peak is listed (estimator), with the worst rank, the one --memory
      judges
  score FILE (--schedule SCHED | --schedule-name NAME) [--graph NAME] [--json]
        [--set SYM=V[,SYM=V]]
      MemoryTracker peak and memory after each node of another order of a graph;
      SCHED is a file {"graph": NAME, "order": [every node name once]} or, when no
      file exists at that path, the name of a schedule stored in FILE; --schedule-name
      NAME takes the stored schedule NAME even when a file of that name exists
  schedules FILE [--json]
      the schedules stored in FILE: MemoryTracker peak of each and of the original order
  live FILE [--graph NAME] [--step K] [--schedule SCHED | --schedule-name NAME]
        [--pair P | --whole-step] [--json] [--set SYM=V[,SYM=V]]
      the storages live at profile step K (default: the peak): size, allocator, users and
      why each is still live; with --schedule (as for score), the steps of that order; --pair
      and --whole-step as below
  breakdown FILE [--graph NAME] [--step K] [--by role|module] [--depth D]
        [--schedule SCHED | --schedule-name NAME] [--pair P | --whole-step] [--json]
        [--set SYM=V[,SYM=V]]
      the bytes live at profile step K (default: the first peak) by storage role (default) or by
      module; --depth D sums modules into their ancestors at depth D (1 = top level); --pair and
      --whole-step as below
  optimize FILE [--graph NAME] [--time-limit S] [-o SCHED.json] [--json]
      an order with a lower peak (exact on small graphs, else the best found within S seconds,
      default 10), Inductor's lpmf/bfs/dfs orders, and a bound no order can go below
  budgets FILE [--json]
      PyTorch's partitions at each activation memory budget (fxmem_export.sweep): pair peak,
      where, saved-activation bytes, extra FLOPs, Pareto-optimal rows
  remat FILE [--max-extra-flops F | --max-extra-percent P | --target-peak BYTES]
        [--time-limit S] [-o PLAN.json] [--plan PLAN.json] [--graph NAME] [--json]
        [--set SYM=V[,SYM=V]]
      a recompute plan for the joint graph: lowest pair peak within the limit (default 30 s of
      search), its backward order and the (peak, extra FLOPs) frontier; --plan scores a plan
  diff OLD NEW [--max-increase P% | --max-increase-bytes B] [--pair P | --whole-step]
        [--depth D] [--json]
      compares two captures' pair peaks (pair K, default 0) or whole-step peaks: the change by
      role and by module (--depth D sums modules at depth D), whether the peak moved, and the
      storages at one peak that the other lacks; exit 3 when the peak grew by more than the
      limit (default: by anything), with the verdict on the first line (docs/ci.md)
  fit FILE --memory M --vary SYM [--set SYM=V[,SYM=V]] [--pair P | --whole-step]
        [--max-extra-percent P [-o PLAN.json]] [--time-limit S] [--json]
      for a file with symbolic sizes: the largest value of symbol SYM such that every value from
      its range's minimum up to it fits in M (bytes, or 80GiB, 24GB, 512MiB), measured as peak
      measures it: the whole step when the file has one (the first line says which), else
      pair P (default 0); exact (docs/format.md); with --max-extra-percent P, also the largest
      with a recompute plan of at most P % extra FLOPs (the whole step: a plan for the region
      holding its peak, the step scored under it; -o PLAN.json writes the answer's plan);
      SYM (and --set's) is a symbol's name, its source, or the app's word: batch, sequence
      --time-limit S ends the search after S seconds with the answer so far (progress on stderr)
  export FILE (--perfetto OUT.json | --memory-viz OUT.pickle [--until-peak])
        [--graph NAME [--in-pair] | --pair P | --whole-step] [--schedule SCHED | --schedule-name NAME]
      the timeline as Chrome-trace JSON for Perfetto (counters of the total and of each role, a
      slice per node inside its graph and its forward/backward/optimizer phase, the peaks), or as
      a memory snapshot for PyTorch's memory_viz (an alloc/free entry per storage, 512-byte blocks,
      role as category, node/module/stack as frames; --until-peak: the trace ends at the peak);
      default: the graph of --schedule, else the whole step when FILE has one, else pair 0, else
      the only graph; --in-pair scores a pair's backward as in its pair (docs/exports.md)

  layout FILE [--graph NAME | --pair P | --whole-step] [--depth D] [--expand M[,M...]] [--json]
      a layered dataflow drawing of one graph by module, inputs at the top, y growing downward:
      boxes (nodes; modules at --depth D drawn collapsed, default the model's layers; --expand
      opens modules by name) with their size and place, edges with the bytes of the storages
      they carry and their polylines; with --json exactly what the app's Dataflow mode draws
      (docs/format.md); --pair P (forward, backward) and --whole-step (every run of the step)
      side by side, with edges from a node to a later graph's placeholder reading its value

  --pair P (every command that shows a pair)
      a forward/backward pair: its index K in the file (0 first), or its two graphs FWD,BWD
      ("FWD + BWD", the app's name, works too). breakdown and live show the app's joined view
      of it: the forward, then the backward
      scored in its pair with the forward's baseline live on top; --step K indexes the joined
      timeline, --schedule SCHED reorders one of the two graphs (breakdown takes --schedule too)
  --set SYM=V[,SYM=V] (peak, profile, score, live, breakdown, remat)
      for a file with symbolic sizes (info lists its symbols): every size at that binding of the
      symbols (by name, s17, or source) instead of the traced one; a value outside a symbol's
      range is refused
  --whole-step (peak, profile, breakdown, live)
      the file's step (every graph in the order it ran in one training iteration) on one
      timeline, with what each graph inherits: parameters once, optimizer state, saved
      activations until their backward, gradients until the optimizer (docs/estimator.md)

options:
  --devices nonCPU|all   which storages count: non-CPU ones (default, as PyTorch) or all
  --standalone  (score, schedules, optimize) score a pair's backward graph alone, with
                PyTorch's MemoryTracker defaults; by default it is scored in its pair (its
                primal and tangent inputs are never freed; the baseline is stated beside)
  -h, --help    show this help
  --version     show the version

Sizes are bytes in JSON and CSV, binary units (KiB, MiB, GiB) otherwise.
Exit status: 0 success, 1 invalid input (message on stderr), 2 bad usage, 3 (diff) a regression
over the limit, 70 an internal error (a bug in fxmem: please report it with the command).
)";

struct Command {
    const char* name;
    std::span<const OptionSpec> options;
    int (*run)(const Args&, std::ostream&);
    std::span<const std::string_view> files = {}; // the positional arguments' names; {} = FILE
};

constexpr OptionSpec kInfo[] = {{"--json", false}, {"--devices", true}};
constexpr OptionSpec kProfile[] = {{"--graph", true},       {"--json", false},   {"--csv", false},
                                   {"--whole-step", false}, {"--devices", true}, {"--set", true}};
constexpr OptionSpec kPeak[] = {{"--pair", true},    {"--json", false},  {"--whole-step", false},
                                {"--devices", true}, {"--set", true},    {"--measure", true},
                                {"--memory", true},  {"--ranks", false}, {"--alloc-conf", true}};
constexpr OptionSpec kScore[] = {{"--schedule", true}, {"--schedule-name", true}, {"--graph", true}, {"--json", false},
                                 {"--devices", true},  {"--standalone", false},   {"--set", true}};
constexpr OptionSpec kSchedules[] = {{"--json", false}, {"--devices", true}, {"--standalone", false}};
constexpr OptionSpec kLive[] = {{"--graph", true},         {"--step", true},  {"--schedule", true},
                                {"--schedule-name", true}, {"--json", false}, {"--whole-step", false},
                                {"--devices", true},       {"--pair", true},  {"--set", true}};
constexpr OptionSpec kBreakdown[] = {{"--graph", true},         {"--step", true},  {"--by", true},
                                     {"--depth", true},         {"--json", false}, {"--whole-step", false},
                                     {"--devices", true},       {"--pair", true},  {"--schedule", true},
                                     {"--schedule-name", true}, {"--set", true}};
constexpr OptionSpec kFit[] = {
    {"--memory", true},     {"--vary", true},  {"--set", true},     {"--whole-step", false},
    {"--pair", true},       {"--json", false}, {"--devices", true}, {"--max-extra-percent", true},
    {"--time-limit", true}, {"-o", true}};

constexpr OptionSpec kDiff[] = {{"--max-increase", true}, {"--max-increase-bytes", true},
                                {"--pair", true},         {"--whole-step", false},
                                {"--depth", true},        {"--json", false},
                                {"--devices", true}};
constexpr std::string_view kDiffFiles[] = {"OLD", "NEW"};
constexpr OptionSpec kLayout[] = {{"--graph", true},   {"--depth", true}, {"--expand", true},     {"--json", false},
                                  {"--devices", true}, {"--pair", true},  {"--whole-step", false}};
constexpr OptionSpec kExport[] = {{"--perfetto", true},    {"--memory-viz", true}, {"--until-peak", false},
                                  {"--graph", true},       {"--in-pair", false},   {"--pair", true},
                                  {"--whole-step", false}, {"--schedule", true},   {"--schedule-name", true},
                                  {"--devices", true}};

const Command kCommands[] = {
    {"info", kInfo, run_info},
    {"profile", kProfile, run_profile},
    {"peak", kPeak, run_peak},
    {"score", kScore, run_score},
    {"live", kLive, run_live},
    {"schedules", kSchedules, run_schedules},
    {"breakdown", kBreakdown, run_breakdown},
    {"optimize", kOptimizeOptions, run_optimize},
    {"budgets", kBudgetsOptions, run_budgets},
    {"remat", kRematOptions, run_remat},
    {"diff", kDiff, run_diff, kDiffFiles},
    {"export", kExport, run_export},
    {"fit", kFit, run_fit},
    {"layout", kLayout, run_layout},
};

bool is_help(std::string_view a) { return a == "-h" || a == "--help" || a == "help"; }

// The command being run, for the pointer to its help after a usage error.
std::string g_command;

int run(int argc, char** argv) {
    if (argc < 2) throw UsageError("missing COMMAND");
    const std::string_view first = argv[1];
    if (is_help(first)) {
        // "fxmem-cli help CMD" shows that command's help.
        if (argc > 2 && !command_help(kUsage, argv[2]).empty()) {
            std::cout << command_help(kUsage, argv[2]);
            return 0;
        }
        std::cout << kUsage;
        return 0;
    }
    if (first == "--version") {
        std::cout << "fxmem-cli " << FXMEM_VERSION << '\n';
        return 0;
    }
    const std::span<char* const> rest(argv + 2, static_cast<std::size_t>(argc - 2));
    for (const Command& c : kCommands) {
        if (first != c.name) continue;
        g_command = c.name;
        // "COMMAND --help" anywhere before "--" shows that command's help.
        for (const char* a : rest) {
            if (std::strcmp(a, "--") == 0) break;
            if (a[0] == '-' && is_help(a)) {
                const std::string help = command_help(kUsage, c.name);
                std::cout << (help.empty() ? std::string(kUsage) : help);
                return 0;
            }
        }
        const Args args = parse_args(c.name, rest, c.options, c.files);
        return c.run(args, std::cout);
    }
    throw UsageError("unknown command '" + std::string(first) + "'");
}

// A usage error: the problem in a line or two, and where the help is (not the whole usage).
void print_usage_error(const std::string& message) {
    std::string text = message;
    if (!g_command.empty() && !text.starts_with(g_command + ": ")) text = g_command + ": " + text;
    std::cerr << "fxmem-cli: " << escape_control(text, true) << '\n'
              << (g_command.empty() ? std::string("Run 'fxmem-cli --help' for the commands.")
                                    : "Run 'fxmem-cli " + g_command + " --help' for its usage.")
              << '\n';
}

} // namespace

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    int status = 0;
    try {
        status = run(argc, argv);
    } catch (const UsageError& e) {
        std::cout.flush();
        print_usage_error(e.what());
        return 2;
    } catch (const fxmem::Error& e) {
        std::cout.flush();
        std::cerr << escape_control(e.what(), true) << '\n';
        return 1;
    } catch (const std::bad_alloc&) {
        std::cerr << "fxmem-cli: out of memory\n";
        return 1;
    } catch (const fxmem::PreconditionError& e) {
        // A caller's mistake inside fxmem, never the user's input: said as such (EX_SOFTWARE).
        std::cout.flush();
        std::cerr << "fxmem-cli: internal error (a bug in fxmem; please report it with the command): "
                  << escape_control(e.what(), true) << '\n';
        return 70;
    }
    // A full disk or a closed pipe must not pass for success.
    std::cout.flush();
    if (!std::cout) {
        std::cerr << "fxmem-cli: cannot write the output: " << std::strerror(errno) << '\n';
        return 1;
    }
    return status;
}
