// profile FILE [--graph NAME] [--json|--csv]: PyTorch's build_memory_profile for one graph.
// Index 0 is the start; index 1+2k is after profile node k allocates, 2+2k after it frees.
#include "commands.h"
#include "table.h"

#include "fxmem/analysis.h"
#include "fxmem/io.h"
#include "fxmem/profile_csv.h"
#include "fxmem/profile_steps.h"
#include "fxmem/timeline.h"
#include "fxmem/units.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iomanip>
#include <ostream>

namespace fxmem::cli {

int run_profile(const Args& args, std::ostream& out) {
    if (args.has("--json") && args.has("--csv")) throw UsageError("profile: --json and --csv exclude each other");
    if (args.has("--whole-step")) return run_whole_step(args, out);
    const auto file = std::make_shared<const GraphFile>(load_bound(args));
    const Graph& graph = select_graph(*file, args);
    // The graph on its own (default releasability), as build_memory_profile reports it.
    const Timeline timeline = Timeline::graph(file, GraphId(static_cast<std::int32_t>(&graph - file->graphs.data())),
                                              device_filter(args), {}, PairContext::Standalone);
    const std::shared_ptr<const GraphAnalysis>& analysis = timeline.segments().front().analysis;
    const std::vector<std::int64_t>& profile = analysis->profile();
    const std::int64_t peak = analysis->peak();

    // The node and phase of profile index i.
    const auto node_of = [&](std::size_t i) -> const std::string& {
        static const std::string none;
        return i == 0 ? none : graph.node(analysis->live().node_at(i)).name;
    };
    const auto phase_of = [](std::size_t i) {
        switch (fxmem::phase_of(static_cast<std::int64_t>(i))) {
        case StepPhase::Start: return "start";
        case StepPhase::AfterAlloc: return "alloc";
        case StepPhase::AfterFree: return "free";
        }
        return "";
    };

    if (args.has("--json")) {
        nlohmann::ordered_json j;
        j["graph"] = graph.name;
        j["profile"] = profile;
        j["peak"] = peak;
        out << j.dump() << '\n';
    } else if (args.has("--csv")) {
        write_profile_csv(out, timeline);
    } else {
        if (const std::string note = cpu_only_note(*file, analysis->counted()); !note.empty()) out << note << '\n';
        const std::size_t peak_index = analysis->peak_step();
        const std::size_t running = profile.empty() ? 0 : running_position(static_cast<std::int64_t>(profile.size()));
        out << "graph '" << elide(graph.name) << "': " << running << " profiled nodes, peak " << format_bytes(peak)
            << " (" << peak << " bytes) at step " << peak_index;
        if (peak_index > 0) out << ", " << phase_of(peak_index) << " of '" << elide(node_of(peak_index)) << "'";
        out << '\n';
        std::size_t widest = 0;
        for (std::size_t i = 1; i < profile.size(); i += 2) widest = std::max(widest, display_width(node_of(i)));
        const std::size_t width = column_width("node", widest);
        out << std::setw(8) << "step"
            << "  ";
        put_cell(out, "node", width, false);
        out << "  " << std::left << std::setw(5) << "phase" << std::right << std::setw(12) << "memory" << '\n';
        for (std::size_t i = 0; i < profile.size(); ++i) {
            out << std::setw(8) << i << "  ";
            put_cell(out, node_of(i), width, false);
            out << "  " << std::left << std::setw(5) << phase_of(i) << std::right << std::setw(12)
                << format_bytes(profile[i]) << (i == peak_index ? "  <- peak" : "") << '\n';
        }
    }
    return 0;
}

} // namespace fxmem::cli
