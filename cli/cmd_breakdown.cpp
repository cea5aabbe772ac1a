// breakdown FILE [--graph NAME] [--step K] [--by role|module] [--depth D] [--json]: the bytes
// live at one profile step (default: the first peak) grouped by storage role or by module.
// The profile is the one `profile` and `live` print; the groups add up to it exactly.
#include "commands.h"

#include "fxmem/attribution.h"
#include "fxmem/error.h"
#include "fxmem/io.h"
#include "fxmem/liveset.h"
#include "fxmem/units.h"
#include "table.h"
#include "view_rows.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iomanip>
#include <optional>
#include <ostream>
#include <sstream>

namespace fxmem::cli {

namespace {

std::string share_text(std::int64_t part, std::int64_t whole) {
    if (whole <= 0) return "-";
    std::ostringstream o;
    o << std::fixed << std::setprecision(1) << 100.0 * static_cast<double>(part) / static_cast<double>(whole) << '%';
    return o.str();
}

} // namespace

BreakdownGrouping breakdown_grouping(const Args& args) {
    BreakdownGrouping g;
    if (const auto text = args.value("--by"); text && !parse_group_by(*text, g.by))
        throw UsageError("breakdown: --by must be 'role' or 'module', got '" + *text + "'");
    if (const auto text = args.value("--depth")) {
        if (g.by != GroupBy::Module) throw UsageError("breakdown: --depth applies to --by module only");
        const std::size_t d = parse_index("--depth", *text);
        if (d > 0xffffffffu) throw UsageError("breakdown: --depth must be at most 4294967295, got '" + *text + "'");
        g.depth = static_cast<std::uint32_t>(d);
    }
    return g;
}

int run_breakdown(const Args& args, std::ostream& out) {
    // Bad usage is told before any file is read, whichever view runs.
    const auto [by, depth] = breakdown_grouping(args);
    if (args.has("--whole-step")) return run_whole_step(args, out);
    if (args.has("--pair")) return run_pair_view(args, out);
    const GraphFile file = load_bound(args);
    // --schedule / --schedule-name: the live sets of that order of its graph
    const std::optional<Schedule> schedule = schedule_option(file, args);
    const Graph& graph = schedule ? file.graph(schedule->graph) : select_graph(file, args);
    const GraphId graph_index(static_cast<std::int32_t>(&graph - file.graphs.data()));
    const AliasInfo alias = build_alias_info(file, graph);
    const NodeMask releasable = default_releasable(graph);
    const StorageMask counted = devices_counted(file, args);
    const LiveSetIndex index(file, graph, alias, releasable, counted,
                             schedule ? std::span<const NodeId>(schedule->order) : std::span<const NodeId>());
    const std::vector<std::int64_t> profile = index.profile();

    const std::size_t step = chosen_step(file, graph, args, profile);
    const RoleAssignment roles = resolve_roles(file);
    const Attribution attribution(file, graph_index, roles);
    // Without --depth: each storage's own module, the finest grouping.
    const std::uint32_t module_depth = depth.value_or(attribution.tree().max_depth());
    const std::vector<Attribution::Group> groups = attribution.breakdown(index.live_at(step), by, module_depth);
    const std::int64_t total = profile[step];

    if (args.has("--json")) {
        nlohmann::ordered_json j;
        j["graph"] = graph.name;
        j["step"] = step;
        j["total"] = total;
        j["by"] = to_string(by);
        j["groups"] = groups_json(groups);
        out << j.dump() << '\n';
        return 0;
    }
    std::size_t storages = 0;
    for (const Attribution::Group& g : groups) storages += g.storages;
    const NodeId at = index.node_at(step);
    if (const std::string note = cpu_only_note(file, counted); !note.empty()) out << note << '\n';
    out << "graph '" << elide(graph.name) << "', step " << step;
    if (at.valid())
        out << ", " << (step % 2 == 1 ? "after the allocations of '" : "after the frees of '")
            << elide(graph.node(at).name) << "'";
    out << ": " << format_bytes(total) << " (" << total << " bytes) in " << storages << " storages, by "
        << to_string(by);
    if (by == GroupBy::Module && depth) out << " at depth " << *depth;
    out << " (roles "
        << (roles.source == RoleSource::File      ? "from the file"
            : roles.source == RoleSource::Derived ? "derived from the graphs"
                                                  : "from the file, the rest derived")
        << ")\n";
    std::vector<std::vector<std::string>> rows = {
        {"size", "share", "storages", by == GroupBy::Role ? "role" : "module"}};
    for (const Attribution::Group& g : groups)
        rows.push_back({format_bytes(g.bytes), share_text(g.bytes, total), std::to_string(g.storages),
                        by == GroupBy::Module && g.key.empty() ? "(root)" : g.key});
    write_table(out, rows, {true, true, true, false});
    return 0;
}

} // namespace fxmem::cli
