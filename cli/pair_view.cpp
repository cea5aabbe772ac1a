// breakdown/live --pair FWD,BWD (or "FWD + BWD", the app's joined name) [--schedule SCHED]: the
// joined view the app shows: the forward's profile, then the backward's scored in its pair (its
// primal and tangent inputs never freed) with the forward outputs it keeps alive (the baseline)
// live on top. Step K is an index into that joined timeline; the default is its first peak.
#include "commands.h"
#include "table.h"
#include "view_arg.h"
#include "view_rows.h"

#include "fxmem/attribution.h"
#include "fxmem/error.h"
#include "fxmem/io.h"
#include "fxmem/liveset.h"
#include "fxmem/timeline.h"
#include "fxmem/units.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <memory>
#include <optional>
#include <ostream>

namespace fxmem::cli {

int run_pair_view(const Args& args, std::ostream& out) {
    if (!args.has("--schedule") && !args.has("--schedule-name"))
        refuse_in_mode(args, "--pair", {"--graph"},
                       "the pair names its two graphs; --graph only picks the graph of a --schedule there");
    const auto shared = std::make_shared<const GraphFile>(load_bound(args));
    const GraphFile& file = *shared;
    const std::size_t k = pair_option(file, *args.value("--pair"));
    const StorageMask counted = devices_counted(file, args);
    const std::optional<Schedule> schedule = schedule_option(file, args);
    const GraphId graphs[2] = {file.pairs[k].forward, file.pairs[k].backward};
    if (schedule && schedule->graph != graphs[0] && schedule->graph != graphs[1])
        throw Error(file.source + ": --schedule is for graph '" + file.graph(schedule->graph).name +
                    "', which is not in pair " + std::to_string(k));
    // The joined timeline the app shows (fxmem::Timeline): the same segments, baseline and live sets.
    const Timeline timeline = Timeline::pair(shared, k, device_filter(args), {}, schedule ? &*schedule : nullptr);
    const std::vector<std::int64_t>& joined = timeline.profile();
    std::size_t step = timeline.peak_step();
    if (const auto text = args.value("--step")) {
        step = parse_index("--step", *text);
        if (step >= joined.size())
            throw Error(file.source + ": pair " + std::to_string(k) + ": --step " + std::to_string(step) +
                        " is beyond the joined timeline (steps 0 to " + std::to_string(joined.size() - 1) + ")");
    }
    const TimelineLive at = timeline.live_at(static_cast<std::int64_t>(step));
    const TimelineSegment& part = timeline.segments()[at.where->segment];
    const Graph& part_graph = file.graph(part.graph);
    const Graph& forward_graph = file.graph(graphs[0]);
    const std::size_t local = at.where->step;
    const std::vector<LiveStorage>& live = at.live;
    const std::int64_t total = joined[step];
    const std::string head =
        "pair " + std::to_string(k) + " ('" + elide(forward_graph.name) + " + " + elide(file.graph(graphs[1]).name) +
        "', joined), step " + std::to_string(step) + " = '" + elide(part_graph.name) + "' step " +
        std::to_string(local) +
        (part.baseline ? ", with the forward's baseline of " + format_bytes(part.baseline) : std::string());
    // What both views' JSON starts with: where in the joined timeline.
    const auto json_head = [&] {
        nlohmann::ordered_json j;
        j["pair"] = k;
        j["graph"] = part_graph.name;
        j["step"] = step;
        j["graph_step"] = local;
        j["total"] = total;
        return j;
    };
    if (args.command == "breakdown") {
        const auto [by, depth] = breakdown_grouping(args);
        const RoleAssignment roles = resolve_roles(file);
        const Attribution attribution(file, part.graph, roles);
        // Without --depth: each storage's own module, the finest grouping.
        const std::vector<Attribution::Group> groups =
            attribution.breakdown(live, by, depth.value_or(attribution.tree().max_depth()));
        std::size_t storages = 0;
        for (const Attribution::Group& g : groups) storages += g.storages;
        if (args.has("--json")) {
            nlohmann::ordered_json j = json_head();
            j["baseline"] = part.baseline;
            j["by"] = to_string(by);
            j["groups"] = groups_json(groups);
            out << j.dump() << '\n';
            return 0;
        }
        if (const std::string note = cpu_only_note(file, counted); !note.empty()) out << note << '\n';
        out << head << ": " << format_bytes(total) << " (" << total << " bytes) in " << storages << " storages, by "
            << to_string(by) << '\n';
        std::vector<std::vector<std::string>> rows = {{"size", "storages", by == GroupBy::Role ? "role" : "module"}};
        for (const Attribution::Group& g : groups) rows.push_back(group_cells(g, by));
        write_table(out, rows, {true, true, false});
        return 0;
    }
    // As the app's live table: a baseline storage is the forward's (its allocator and module there).
    const RoleAssignment roles = resolve_roles(file);
    const Attribution own(file, part.graph, roles);
    const Attribution forward(file, graphs[0], roles);
    const std::size_t baseline_begin = at.baseline_begin;
    const auto allocator = [&](std::size_t i) {
        const Graph& g = i < baseline_begin ? part_graph : forward_graph;
        return live[i].allocator.valid() ? g.node(live[i].allocator).name : std::string();
    };
    const auto module = [&](std::size_t i) {
        const Attribution& a = i < baseline_begin ? own : forward;
        return std::string(a.tree()[a.owner(live[i].storage)].name);
    };
    if (args.has("--json")) {
        nlohmann::ordered_json j = json_head();
        nlohmann::ordered_json rows = nlohmann::ordered_json::array();
        for (std::size_t i = 0; i < live.size(); ++i)
            rows.push_back({{"id", file.storages[live[i].storage.index()].file_id},
                            {"nbytes", live[i].nbytes},
                            {"baseline", i >= baseline_begin},
                            {"allocator", allocator(i)},
                            {"module", module(i)}});
        j["storages"] = std::move(rows);
        out << j.dump() << '\n';
        return 0;
    }
    if (const std::string note = cpu_only_note(file, counted); !note.empty()) out << note << '\n';
    out << head << ": " << format_bytes(total) << " (" << total << " bytes) in " << live.size() << " storages\n";
    std::vector<std::vector<std::string>> rows = {{"size", "id", "role", "allocator", "module", "label"}};
    for (std::size_t i = 0; i < live.size(); ++i) {
        const std::string m = module(i);
        rows.push_back({format_bytes(live[i].nbytes), std::to_string(file.storages[live[i].storage.index()].file_id),
                        std::string(to_string(roles.role[live[i].storage.index()])),
                        allocator(i) + (i >= baseline_begin ? " (forward)" : ""), m.empty() ? "(root)" : m,
                        std::string(file.label(live[i].storage))});
    }
    write_table(out, rows, {true, true, false, false, false, false});
    return 0;
}

} // namespace fxmem::cli
