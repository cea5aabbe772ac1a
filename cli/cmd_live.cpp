// live FILE [--graph NAME] [--step K] [--schedule SCHED.json] [--json]: the storages live at one
// profile step (default: the peak), each with its allocator, users and why it is still live.
// With --schedule the steps are those of that order, as MemoryTracker scores it.
#include "commands.h"
#include "table.h"

#include "fxmem/analysis.h"
#include "fxmem/error.h"
#include "fxmem/io.h"
#include "fxmem/liveset.h"
#include "fxmem/profile_steps.h"
#include "fxmem/schedule.h"
#include "fxmem/units.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iomanip>
#include <optional>
#include <ostream>

namespace fxmem::cli {

namespace {

const char* reason_key(LiveReason r) {
    switch (r) {
    case LiveReason::WaitingForUse: return "waiting_for_use";
    case LiveReason::GraphOutput: return "graph_output";
    case LiveReason::NotReleasable: return "not_releasable";
    case LiveReason::NeverUsed: return "never_used";
    }
    return "unknown";
}

std::string reason_text(const Graph& g, const LiveStorage& s) {
    switch (s.reason) {
    case LiveReason::WaitingForUse:
        return "waiting for " +
               (s.next_user.valid() ? "'" + elide(g.node(s.next_user).name) + "'" : std::string("its users")) +
               "; freed after '" + elide(g.node(s.last_user).name) + "' at step " +
               std::to_string(s.free_step.value_or(-1));
    case LiveReason::GraphOutput: return "graph output: kept to the end";
    case LiveReason::NotReleasable: return "never freed (a primal or do-not-delete input)";
    case LiveReason::NeverUsed: return "never used, so never freed";
    }
    return {};
}

} // namespace

int run_live(const Args& args, std::ostream& out) {
    if (args.has("--whole-step")) return run_whole_step(args, out);
    if (args.has("--pair")) return run_pair_view(args, out);
    const auto shared = std::make_shared<const GraphFile>(load_bound(args));
    const GraphFile& file = *shared;
    const std::optional<Schedule> schedule = schedule_option(file, args);
    const Graph& graph = schedule ? file.graph(schedule->graph) : select_graph(file, args);
    // The graph on its own (default releasability); a schedule gets its own index over the same analysis.
    const auto analysis =
        GraphAnalysis::compute(shared, GraphId(static_cast<std::int32_t>(&graph - file.graphs.data())),
                               device_filter(args), {}, PairContext::Standalone);
    std::optional<LiveSetIndex> reordered;
    if (schedule)
        reordered.emplace(file, graph, analysis->alias(), analysis->releasable(), analysis->counted(), schedule->order);
    const LiveSetIndex& index = reordered ? *reordered : analysis->live();

    const std::size_t step = chosen_step(file, graph, args, index.profile());
    const std::vector<LiveStorage> live = index.live_at(step);
    std::int64_t total = 0;
    for (const LiveStorage& s : live) total += s.nbytes;
    const NodeId at = index.node_at(step);
    const StepPhase step_phase = phase_of(static_cast<std::int64_t>(step));
    const char* phase = step_phase == StepPhase::Start        ? "start"
                        : step_phase == StepPhase::AfterAlloc ? "after_alloc"
                                                              : "after_free";
    const auto name_or_null = [&](NodeId n) {
        return n.valid() ? nlohmann::json(graph.node(n).name) : nlohmann::json();
    };

    if (args.has("--json")) {
        nlohmann::ordered_json j;
        j["graph"] = graph.name;
        j["step"] = step;
        j["node"] = name_or_null(at);
        j["phase"] = phase;
        j["total"] = total;
        nlohmann::ordered_json rows = nlohmann::ordered_json::array();
        for (const LiveStorage& s : live) {
            nlohmann::ordered_json r;
            r["id"] = file.storages[s.storage.index()].file_id;
            r["device"] = std::string(file.device(s.storage));
            r["nbytes"] = s.nbytes;
            r["allocator"] = graph.node(s.allocator).name;
            r["alloc_step"] = s.alloc_step;
            r["last_user"] = name_or_null(s.last_user);
            r["next_user"] = name_or_null(s.next_user);
            r["free_step"] = s.free_step.value_or(-1); // docs: -1 when never released
            r["reason"] = reason_key(s.reason);
            rows.push_back(std::move(r));
        }
        j["storages"] = std::move(rows);
        out << j.dump() << '\n';
        return 0;
    }
    if (const std::string note = cpu_only_note(file, analysis->counted()); !note.empty()) out << note << '\n';
    out << "graph '" << elide(graph.name) << "'"
        << (schedule ? " (schedule " + schedule_label(args) + ")" : std::string()) << ", step " << step;
    if (at.valid())
        out << ", " << (step_phase == StepPhase::AfterAlloc ? "after the allocations of '" : "after the frees of '")
            << elide(graph.node(at).name) << "'";
    out << ": " << format_bytes(total) << " (" << total << " bytes) in " << live.size() << " storages\n";
    std::size_t widest = 0;
    for (const LiveStorage& s : live) widest = std::max(widest, display_width(graph.node(s.allocator).name));
    const std::size_t width = column_width("allocator", widest);
    out << std::setw(12) << "size"
        << "  " << std::setw(6) << "id"
        << "  ";
    put_cell(out, "allocator", width, false);
    out << "  why live\n";
    for (const LiveStorage& s : live) {
        out << std::setw(12) << format_bytes(s.nbytes) << "  " << std::setw(6)
            << file.storages[s.storage.index()].file_id << "  ";
        put_cell(out, graph.node(s.allocator).name, width, false);
        out << "  " << reason_text(graph, s) << '\n';
    }
    return 0;
}

} // namespace fxmem::cli
