// breakdown/live --pair FWD,BWD (or "FWD + BWD", the app's joined name) [--schedule SCHED]: the
// joined view the app shows: the forward's profile, then the backward's scored in its pair (its
// primal and tangent inputs never freed) with the forward outputs it keeps alive (the baseline)
// live on top. Step K is an index into that joined timeline; the default is its first peak.
#include "commands.h"
#include "table.h"
#include "view_rows.h"

#include "fxmem/attribution.h"
#include "fxmem/error.h"
#include "fxmem/io.h"
#include "fxmem/liveset.h"
#include "fxmem/units.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <memory>
#include <optional>
#include <ostream>

namespace fxmem::cli {

namespace {

std::size_t find_pair(const GraphFile& file, const std::string& text) {
    std::string fwd, bwd;
    if (const auto comma = text.find(','); comma != std::string::npos) {
        fwd = text.substr(0, comma);
        bwd = text.substr(comma + 1);
    } else if (const auto plus = text.find(" + "); plus != std::string::npos) {
        fwd = text.substr(0, plus);
        bwd = text.substr(plus + 3);
    } else {
        throw UsageError("--pair must be FWD,BWD or 'FWD + BWD' (two graph names), got '" + text + "'");
    }
    for (std::size_t k = 0; k < file.pairs.size(); ++k)
        if (file.graphs[file.pairs[k].forward].name == fwd && file.graphs[file.pairs[k].backward].name == bwd) return k;
    throw Error(file.source + ": no pair '" + fwd + "' -> '" + bwd + "' (the file has " +
                std::to_string(file.pairs.size()) + (file.pairs.size() == 1 ? " pair)" : " pairs)"));
}

struct Part {
    const Graph* graph = nullptr;
    std::size_t graph_index = 0;
    AliasInfo alias;
    NodeMask releasable;
    std::unique_ptr<LiveSetIndex> index;
    std::vector<StorageId> baseline; // counted forward outputs kept alive (the backward only)
    std::int64_t baseline_bytes = 0;
    std::size_t offset = 0;
    std::vector<std::int64_t> profile;
};

} // namespace

int run_pair_view(const Args& args, std::ostream& out) {
    if (!args.has("--schedule") && !args.has("--schedule-name"))
        refuse_in_mode(args, "--pair", {"--graph"},
                       "the pair names its two graphs; --graph only picks the graph of a --schedule there");
    const GraphFile file = load_bound(args);
    const std::size_t k = find_pair(file, *args.value("--pair"));
    const StorageMask counted = devices_counted(file, args);
    const std::optional<Schedule> schedule = schedule_option(file, args);
    Part parts[2];
    const std::uint32_t graphs[2] = {file.pairs[k].forward, file.pairs[k].backward};
    const FwdBwdInteractions inter = get_fwd_bwd_interactions(file, file.graphs[graphs[0]], file.graphs[graphs[1]]);
    if (schedule && schedule->graph != static_cast<int>(graphs[0]) && schedule->graph != static_cast<int>(graphs[1]))
        throw Error(file.source + ": --schedule is for graph '" +
                    file.graphs[static_cast<std::size_t>(schedule->graph)].name + "', which is not in pair " +
                    std::to_string(k));
    std::vector<std::int64_t> joined;
    for (int i = 0; i < 2; ++i) {
        Part& p = parts[i];
        p.graph_index = graphs[i];
        p.graph = &file.graphs[graphs[i]];
        p.alias = build_alias_info(file, *p.graph);
        p.releasable = i == 0 ? default_releasable(*p.graph) : backward_releasable(*p.graph, inter);
        const bool reordered = schedule && schedule->graph == static_cast<int>(graphs[i]);
        p.index = std::make_unique<LiveSetIndex>(file, *p.graph, p.alias, p.releasable, counted,
                                                 reordered ? std::span<const NodeId>(schedule->order)
                                                           : std::span<const NodeId>());
        if (i == 1)
            for (StorageId s : inter.baseline_storages)
                if (counted[s.index()]) {
                    p.baseline.push_back(s);
                    p.baseline_bytes += file.nbytes(s);
                }
        p.profile = p.index->profile();
        p.offset = joined.size();
        for (std::int64_t v : p.profile) joined.push_back(v + p.baseline_bytes);
    }
    std::size_t step = static_cast<std::size_t>(std::max_element(joined.begin(), joined.end()) - joined.begin());
    if (const auto text = args.value("--step")) {
        step = parse_index("--step", *text);
        if (step >= joined.size())
            throw Error(file.source + ": pair " + std::to_string(k) + ": --step " + std::to_string(step) +
                        " is beyond the joined timeline (steps 0 to " + std::to_string(joined.size() - 1) + ")");
    }
    const Part& part = step >= parts[1].offset ? parts[1] : parts[0];
    const std::size_t local = step - part.offset;
    std::vector<LiveStorage> live = part.index->live_at(local);
    const AliasInfo& fwd_alias = parts[0].alias;
    for (StorageId s : part.baseline) {
        LiveStorage b;
        b.storage = s;
        b.nbytes = file.nbytes(s);
        b.allocator = fwd_alias.allocator[s.index()];
        b.last_user = fwd_alias.last_user[s.index()];
        b.reason = LiveReason::GraphOutput;
        live.push_back(b);
    }
    const std::int64_t total = joined[step];
    const std::string head =
        "pair " + std::to_string(k) + " ('" + elide(parts[0].graph->name) + " + " + elide(parts[1].graph->name) +
        "', joined), step " + std::to_string(step) + " = '" + elide(part.graph->name) + "' step " +
        std::to_string(local) +
        (part.baseline_bytes ? ", with the forward's baseline of " + format_bytes(part.baseline_bytes) : std::string());
    // What both views' JSON starts with: where in the joined timeline.
    const auto json_head = [&] {
        nlohmann::ordered_json j;
        j["pair"] = k;
        j["graph"] = part.graph->name;
        j["step"] = step;
        j["graph_step"] = local;
        j["total"] = total;
        return j;
    };
    if (args.command == "breakdown") {
        const auto [by, depth] = breakdown_grouping(args);
        const RoleAssignment roles = resolve_roles(file);
        const Attribution attribution(file, part.graph_index, roles);
        // Without --depth: each storage's own module, the finest grouping.
        const std::vector<Attribution::Group> groups =
            attribution.breakdown(live, by, depth.value_or(attribution.tree().max_depth()));
        std::size_t storages = 0;
        for (const Attribution::Group& g : groups) storages += g.storages;
        if (args.has("--json")) {
            nlohmann::ordered_json j = json_head();
            j["baseline"] = part.baseline_bytes;
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
    const Attribution own(file, part.graph_index, roles);
    const Attribution forward(file, parts[0].graph_index, roles);
    const std::size_t baseline_begin = live.size() - part.baseline.size();
    const auto allocator = [&](std::size_t i) {
        const Graph& g = i < baseline_begin ? *part.graph : *parts[0].graph;
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
