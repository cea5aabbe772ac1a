// optimize FILE [--graph NAME] [--time-limit S] [-o SCHED.json] [--json]: an order of one graph
// with a lower MemoryTracker peak, Inductor's three orders for comparison, and a bound no order
// can go below.
#include "commands.h"

#include "fxmem/error.h"
#include "fxmem/io.h"
#include "fxmem/optimize.h"
#include "fxmem/schedule.h"
#include "fxmem/units.h"
#include "table.h"
#include "text.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <ostream>

namespace fxmem::cli {

namespace {

// A baseline the time limit stopped before it finished is empty.
std::string baseline(std::optional<std::int64_t> v) {
    return v ? bytes_text(*v) : std::string("not computed (the time limit was reached first)");
}

} // namespace

int run_optimize(const Args& args, std::ostream& out) {
    OptimizeOptions options;
    if (const auto limit = args.value("--time-limit"))
        options.time_limit_s = parse_number("--time-limit", *limit, "seconds");
    check_output_option(args, "optimize", "schedule");
    const GraphFile file = load_file(args.file);
    const Graph& graph = select_graph(file, args);
    const AliasInfo alias = build_alias_info(file, graph);
    const StorageMask counted = devices_counted(file, args);
    const ScoreContext context = score_context(file, graph, args);
    const OptimizeResult r = optimize_schedule(file, graph, alias, context.releasable, counted, options);
    if (const auto path = args.value("-o")) save_schedule(graph, r.order, *path);

    if (args.has("--json")) {
        nlohmann::ordered_json j;
        j["graph"] = graph.name;
        j["original_peak"] = r.original_peak;
        j["baselines"] = {
            {"lpmf", r.lpmf_peak.value_or(-1)}, {"bfs", r.bfs_peak.value_or(-1)}, {"dfs", r.dfs_peak.value_or(-1)}};
        j["peak"] = r.peak;
        j["lower_bound"] = r.lower_bound;
        auto& order = j["order"] = nlohmann::ordered_json::array();
        for (NodeId n : r.order) order.push_back(graph.node(n).name);
        j["exact"] = r.exact;
        j["scored"] = context.in_pair ? "in_pair" : "standalone";
        j["baseline"] = context.baseline;
        out << j.dump() << '\n';
        return 0;
    }
    const char* from = r.method == "exact"    ? "the exact search"
                       : r.method == "search" ? "the local search"
                       : r.method == "lpmf"   ? "Inductor's lpmf order"
                       : r.method == "bfs"    ? "Inductor's bfs order"
                       : r.method == "dfs"    ? "Inductor's dfs order"
                                              : "the original order (nothing better was found)";
    if (const std::string note = cpu_only_note(file, counted); !note.empty()) out << note << '\n';
    out << "graph '" << elide(graph.name) << "', " << graph.size() << " nodes\n";
    if (const std::string line = score_context_line(file, graph, context); !line.empty()) out << line << '\n';
    out << "original order:     " << bytes_text(r.original_peak) << '\n';
    out << "Inductor lpmf:      " << baseline(r.lpmf_peak) << '\n';
    out << "Inductor bfs:       " << baseline(r.bfs_peak) << '\n';
    out << "Inductor dfs:       " << baseline(r.dfs_peak) << '\n';
    out << "best order:         " << bytes_text(r.peak) << ", from " << from << (r.exact ? "; it is optimal" : "")
        << '\n';
    if (const auto path = args.value("-o")) out << "written to " << escape_control(*path) << '\n';
    out << "no order can go below " << bytes_text(r.lower_bound) << '\n';
    return 0;
}

} // namespace fxmem::cli
