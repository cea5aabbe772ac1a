// --whole-step for peak, profile, breakdown and live: the file's step on one timeline
// (fxmem/whole_step.h), and --devices for every command.
#include "commands.h"
#include "table.h"
#include "text.h"
#include "view_arg.h"
#include "view_rows.h"

#include "fxmem/attribution.h"
#include "fxmem/error.h"
#include "fxmem/io.h"
#include "fxmem/liveset.h"
#include "fxmem/profile_csv.h"
#include "fxmem/step_modules.h"
#include "fxmem/timeline.h"
#include "fxmem/units.h"
#include "fxmem/whole_step.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <memory>
#include <optional>
#include <ostream>

namespace fxmem::cli {

DeviceFilter device_filter(const Args& args) {
    const auto text = args.value("--devices");
    if (!text || *text == "nonCPU") return DeviceFilter::NonCpu;
    if (*text == "all") return DeviceFilter::All;
    throw UsageError(args.command + ": --devices must be 'nonCPU' (the default, as PyTorch counts) or 'all', got '" +
                     *text + "'");
}

StorageMask devices_counted(const GraphFile& file, const Args& args) {
    return fxmem::counted_for(file, device_filter(args));
}

std::string cpu_only_note(const GraphFile& file, const StorageMask& counted) {
    bool any = false;
    for (std::size_t s = 0; s < file.storages.size(); ++s) {
        const StorageId id(static_cast<std::int32_t>(s));
        if (file.nbytes(id) == 0) continue;
        if (!file.is_cpu(id)) return {};
        any = true;
        if (counted[s]) return {}; // --devices all: they count
    }
    if (!any) return {};
    return "note: every storage of " + escape_control(file.source) +
           " is on the CPU and fxmem counts only non-CPU storages (as PyTorch does), so the result is 0 B; "
           "--devices all counts them, or trace on the meta device (docs/exporter.md)";
}

namespace {

// The chosen global step of the whole step (default: its peak), checked against its length.
std::size_t chosen_step(const GraphFile& file, const Timeline& timeline, const Args& args) {
    std::size_t step = timeline.peak_step();
    if (const auto text = args.value("--step")) {
        step = parse_index("--step", *text);
        if (step >= timeline.profile().size())
            throw Error(file.source + ": --step " + std::to_string(step) + " is beyond the whole step (steps 0 to " +
                        std::to_string(timeline.profile().size() - 1) + ")");
    }
    return step;
}

std::string where(const GraphFile& file, const TimelineSegment& seg, std::size_t step, std::size_t local) {
    return "step " + std::to_string(step) + " (entry " + std::to_string(*seg.entry) + ", " +
           elide(step_entry_name(file, file.step[*seg.entry])) + ", its step " + std::to_string(local) + ")";
}

// Why a carried storage is alive, as the app's live table says it ("saved for region0.forward").
std::string carried_why(const GraphFile& file, const CarriedStorage& c) {
    std::string why(to_string(c.kind));
    if (c.kind == CarryKind::Saved || c.kind == CarryKind::Gradient || c.kind == CarryKind::Output)
        why += (c.kind == CarryKind::Gradient ? " from " : " of ") + step_entry_name(file, file.step[c.source.value()]);
    return why;
}

nlohmann::ordered_json carried_json(const GraphFile& file, const std::vector<CarriedStorage>& carried) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const CarriedStorage& c : carried)
        rows.push_back({{"storage", file.storages[c.storage.index()].file_id},
                        {"bytes", c.bytes},
                        {"role", std::string(to_string(file.role(c.storage)))},
                        {"label", std::string(file.label(c.storage))},
                        {"kind", std::string(to_string(c.kind))},
                        {"why", carried_why(file, c)}});
    return rows;
}

void write_carried_table(std::ostream& out, const GraphFile& file, const std::vector<CarriedStorage>& carried) {
    std::vector<std::vector<std::string>> rows = {{"size", "storage", "carried as", "label"}};
    for (const CarriedStorage& c : carried)
        rows.push_back({format_bytes(c.bytes), std::to_string(file.storages[c.storage.index()].file_id),
                        carried_why(file, c), std::string(file.label(c.storage))});
    write_table(out, rows, {true, true, false, false});
}

void carry_rows(const StepCarry& c, std::vector<std::pair<std::string, std::int64_t>>& out) {
    out.push_back({"parameters and buffers (outside the graph)", c.parameters});
    out.push_back({"optimizer state", c.optimizer_state});
    out.push_back({"saved activations (other calls, backward pending)", c.saved});
    out.push_back({"parameter gradients (earlier backwards)", c.gradients});
    out.push_back({"forward outputs held (the loss)", c.outputs});
}

} // namespace

int run_whole_step(const Args& args, std::ostream& out) {
    refuse_in_mode(args, "--whole-step", {"--graph", "--pair", "--schedule", "--schedule-name"},
                   "the whole step runs every graph of the file's step, each in its recorded order");
    const auto shared = std::make_shared<const GraphFile>(load_bound(args));
    const GraphFile& file = *shared;
    const StorageMask counted = devices_counted(file, args);
    // peak and profile need the step's numbers alone; breakdown and live list storages, on the
    // timeline the app shows (every graph analysed, the carried storages after each run's own).
    std::optional<WholeStep> numbers;
    std::optional<Timeline> timeline;
    // profile --csv names each step's node, which the timeline knows.
    if (args.command == "peak" || (args.command == "profile" && !args.has("--csv")))
        numbers.emplace(whole_step(file, counted));
    else
        timeline.emplace(Timeline::whole_step(shared, device_filter(args)));
    const WholeStep& ws = numbers ? *numbers : *timeline->step();
    const bool json = args.has("--json");
    const std::string note = cpu_only_note(file, counted);
    if (!json && !note.empty()) out << note << '\n';

    if (args.command == "peak") {
        const StepSegment& at = ws.segments[ws.peak_segment];
        if (json) {
            nlohmann::ordered_json j;
            j["peak"] = ws.peak;
            j["peak_step"] = ws.peak_index;
            j["peak_entry"] = at.entry;
            j["parameters"] = ws.parameters;
            j["optimizer_state"] = ws.optimizer_state;
            nlohmann::ordered_json entries = nlohmann::ordered_json::array();
            for (const StepSegment& s : ws.segments)
                entries.push_back({{"graph", file.graph(s.graph).name},
                                   {"call", file.step[s.entry].call},
                                   {"module_prefix", file.step[s.entry].module_prefix},
                                   {"begin", s.begin},
                                   {"carry", s.carry.total()},
                                   {"peak", s.peak}});
            j["entries"] = std::move(entries);
            nlohmann::ordered_json missing = nlohmann::ordered_json::array();
            for (std::uint32_t e : ws.missing_backward) missing.push_back(step_entry_name(file, file.step[e]));
            j["missing_backward"] = std::move(missing);
            if (const std::optional<std::int64_t> memory = memory_option(args)) {
                j["memory"] = *memory;
                j["fits"] = ws.peak <= *memory;
            }
            out << j.dump() << '\n';
            return 0;
        }
        out << "whole step of " << file.step.size() << " graph runs: peak " << format_bytes(ws.peak) << " (" << ws.peak
            << " bytes) at step " << ws.peak_index << ", in " << elide(step_entry_name(file, file.step[at.entry]))
            << '\n';
        out << "parameters and buffers: " << format_bytes(ws.parameters)
            << ", optimizer state: " << format_bytes(ws.optimizer_state) << '\n';
        std::vector<std::vector<std::string>> rows = {{"#", "graph", "carried in", "peak"}};
        for (const StepSegment& s : ws.segments)
            rows.push_back({std::to_string(s.entry), step_entry_name(file, file.step[s.entry]),
                            format_bytes(s.carry.total()), format_bytes(s.peak)});
        write_table(out, rows, {true, false, true, true});
        for (std::uint32_t e : ws.missing_backward)
            out << "warning: the backward of " << elide(step_entry_name(file, file.step[e]))
                << " never runs: its saved activations are counted to the end of the step\n";
        if (const std::optional<std::int64_t> memory = memory_option(args))
            out << memory_verdict(ws.peak, *memory) << '\n';
        return 0;
    }
    if (args.command == "profile") {
        if (json) {
            nlohmann::ordered_json j;
            j["peak"] = ws.peak;
            j["timeline"] = ws.timeline;
            nlohmann::ordered_json segs = nlohmann::ordered_json::array();
            for (const StepSegment& s : ws.segments)
                segs.push_back({{"graph", file.graph(s.graph).name},
                                {"call", file.step[s.entry].call},
                                {"begin", s.begin},
                                {"length", s.length}});
            j["segments"] = std::move(segs);
            out << j.dump() << '\n';
            return 0;
        }
        if (args.has("--csv")) {
            write_profile_csv(out, *timeline);
            return 0;
        }
        for (const StepSegment& s : ws.segments) {
            out << "== " << elide(step_entry_name(file, file.step[s.entry])) << " (steps " << s.begin << " to "
                << s.begin + s.length - 1 << ", carried in " << format_bytes(s.carry.total()) << ")\n";
            for (std::size_t i = 0; i < s.length; ++i)
                out << "  " << s.begin + i << "  " << format_bytes(ws.timeline[s.begin + i]) << '\n';
        }
        out << "peak: " << format_bytes(ws.peak) << " (" << ws.peak << " bytes) at step " << ws.peak_index << '\n';
        return 0;
    }

    // breakdown and live: the carry, then the graph's own live set.
    const std::size_t step = chosen_step(file, *timeline, args);
    const TimelineLive at = timeline->live_at(static_cast<std::int64_t>(step));
    const TimelineSegment& seg = timeline->segments()[at.where->segment];
    const std::size_t local = at.where->step;
    const std::uint32_t entry = *seg.entry;
    const Graph& graph = file.graph(seg.graph);
    const std::vector<LiveStorage> live(at.live.begin(),
                                        at.live.begin() + static_cast<std::ptrdiff_t>(at.baseline_begin));
    const std::int64_t total = timeline->profile()[step];
    std::vector<std::pair<std::string, std::int64_t>> carry;
    carry_rows(ws.segments[at.where->segment].carry, carry);
    const std::vector<CarriedStorage> carried = timeline->carried(at.where->segment);

    if (args.command == "breakdown") {
        const auto [by, depth] = breakdown_grouping(args);
        const RoleAssignment roles = resolve_roles(file);
        const Attribution attribution(file, seg.graph, roles);
        // The graph's own storages and what it carries: the groups cover both.
        const std::string& prefix = file.step[entry].module_prefix;
        std::vector<Attribution::Group> groups;
        if (by == GroupBy::Role) {
            groups = attribution.by_role(at.live);
        } else { // core's rule, the app's Breakdown tab's: a carried storage under the run that made it
            std::vector<std::optional<Attribution>> of_graph(file.graphs.size());
            const StepModules modules(file, ws, static_cast<std::uint32_t>(at.where->segment), carried,
                                      [&](GraphId g) -> const Attribution& {
                                          if (g == seg.graph) return attribution;
                                          if (!of_graph[g.index()]) of_graph[g.index()].emplace(file, g, roles);
                                          return *of_graph[g.index()];
                                      });
            groups = modules.by_module(at.live, at.baseline_begin, depth);
        }
        if (json) {
            nlohmann::ordered_json j;
            j["step"] = step;
            j["entry"] = entry;
            j["graph"] = graph.name;
            j["graph_step"] = local;
            j["module_prefix"] = prefix;
            j["total"] = total;
            j["carry"] = carry_json(carry);
            j["by"] = to_string(by);
            j["groups"] = groups_json(groups);
            j["carried"] = carried_json(file, carried);
            out << j.dump() << '\n';
            return 0;
        }
        out << "whole step, " << where(file, seg, step, local) << ": " << format_bytes(total) << " (" << total
            << " bytes), by " << to_string(by);
        if (by == GroupBy::Module && depth) out << " at depth " << *depth;
        out << '\n';
        write_carry_table(out, carry);
        std::vector<std::vector<std::string>> grows = {
            {"size", "storages",
             by == GroupBy::Role ? "role (the graph's and carried)" : "module (the graph's and carried)"}};
        for (const Attribution::Group& g : groups) grows.push_back(group_cells(g, by));
        write_table(out, grows, {true, true, false});
        return 0;
    }
    // live
    if (json) {
        nlohmann::ordered_json j;
        j["step"] = step;
        j["graph"] = graph.name;
        j["graph_step"] = local;
        j["total"] = total;
        j["carry"] = carry_json(carry);
        nlohmann::ordered_json rows = nlohmann::ordered_json::array();
        for (const LiveStorage& l : live)
            rows.push_back({{"storage", file.storages[l.storage.index()].file_id},
                            {"bytes", l.nbytes},
                            {"role", std::string(to_string(file.role(l.storage)))},
                            {"label", std::string(file.label(l.storage))}});
        j["storages"] = std::move(rows);
        j["carried"] = carried_json(file, carried);
        out << j.dump() << '\n';
        return 0;
    }
    out << "whole step, " << where(file, seg, step, local) << ": " << format_bytes(total) << " (" << total
        << " bytes), " << live.size() << " storages of the graph live, " << carried.size() << " carried\n";
    write_carry_table(out, carry);
    write_live_table(out, file, live, "storage");
    if (!carried.empty()) {
        out << "carried into the graph:\n";
        write_carried_table(out, file, carried);
    }
    return 0;
}

} // namespace fxmem::cli
