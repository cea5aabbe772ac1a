// score FILE --schedule SCHED.json [--graph NAME] [--json]: MemoryTracker peak of another order.
#include "commands.h"
#include "table.h"

#include "fxmem/io.h"
#include "fxmem/schedule.h"
#include "fxmem/units.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iomanip>
#include <ostream>

namespace fxmem::cli {

int run_score(const Args& args, std::ostream& out) {
    if (!args.has("--schedule") && !args.has("--schedule-name"))
        throw UsageError("score: missing --schedule SCHED.json (or --schedule-name NAME)");
    const GraphFile file = load_bound(args);
    const Schedule schedule = *schedule_option(file, args);
    const Graph& graph = file.graph(schedule.graph);
    const AliasInfo alias = build_alias_info(file, graph);
    const ScoreContext context = score_context(file, graph, args);
    const NodeMask& releasable = context.releasable;
    const StorageMask counted = devices_counted(file, args);
    const ScheduleScore score = score_schedule(file, graph, alias, schedule.order, releasable, counted);

    if (args.has("--json")) {
        nlohmann::ordered_json j;
        j["peak"] = score.peak;
        j["current"] = score.current;
        j["scored"] = context.in_pair ? "in_pair" : "standalone";
        j["baseline"] = context.baseline;
        out << j.dump() << '\n';
        return 0;
    }
    const ScheduleScore original = score_schedule(file, graph, alias, original_order(graph), releasable, counted);
    if (const std::string note = cpu_only_note(file, counted); !note.empty()) out << note << '\n';
    if (const std::string line = score_context_line(file, graph, context); !line.empty()) out << line << '\n';
    out << "graph '" << elide(graph.name) << "', schedule " << schedule_label(args) << ": peak "
        << format_bytes(score.peak) << " (" << score.peak << " bytes); the original order peaks at "
        << format_bytes(original.peak) << " (" << original.peak << " bytes)\n";
    std::size_t widest = 0;
    for (const Node& n : graph.nodes) widest = std::max(widest, display_width(n.name));
    const std::size_t width = column_width("node", widest);
    out << std::setw(8) << "position"
        << "  ";
    put_cell(out, "node", width, false);
    out << std::setw(12) << "memory" << '\n';
    for (std::size_t i = 0; i < schedule.order.size(); ++i) {
        out << std::setw(8) << i << "  ";
        put_cell(out, graph.node(schedule.order[i]).name, width, false);
        out << std::setw(12) << format_bytes(score.current[i]) << '\n';
    }
    return 0;
}

} // namespace fxmem::cli
