// schedules FILE [--json]: the named schedules stored in the file, each with its MemoryTracker
// peak and the peak of its graph's original order.
#include "commands.h"

#include "fxmem/io.h"
#include "table.h"
#include "fxmem/schedule.h"
#include "fxmem/units.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <ostream>

namespace fxmem::cli {

int run_schedules(const Args& args, std::ostream& out) {
    const GraphFile file = load_file(args.file);
    const StorageMask counted = default_counted(file);

    // Per graph with schedules: alias info, releasability and the original order's peak, once.
    struct PerGraph {
        AliasInfo alias;
        NodeMask releasable;
        std::int64_t original_peak = 0;
    };
    std::vector<std::optional<PerGraph>> per_graph(file.graphs.size());
    std::vector<std::int64_t> peaks;
    for (const NamedSchedule& s : file.schedules) {
        const Graph& g = file.graphs[s.graph];
        std::optional<PerGraph>& pg = per_graph[s.graph];
        if (!pg) {
            pg.emplace();
            pg->alias = build_alias_info(file, g);
            pg->releasable = default_releasable(g);
            pg->original_peak = score_schedule(file, g, pg->alias, original_order(g), pg->releasable, counted).peak;
        }
        peaks.push_back(score_schedule(file, g, pg->alias, s.order, pg->releasable, counted).peak);
    }

    if (args.has("--json")) {
        nlohmann::ordered_json j;
        j["schedules"] = nlohmann::ordered_json::array();
        for (std::size_t i = 0; i < file.schedules.size(); ++i) {
            const NamedSchedule& s = file.schedules[i];
            j["schedules"].push_back({{"name", s.name},
                                      {"graph", file.graphs[s.graph].name},
                                      {"source", s.source},
                                      {"peak", peaks[i]},
                                      {"original_peak", per_graph[s.graph]->original_peak}});
        }
        out << j.dump(2) << '\n';
        return 0;
    }
    out << file.source << ": " << file.schedules.size() << (file.schedules.size() == 1 ? " schedule" : " schedules")
        << '\n';
    if (file.schedules.empty()) return 0;
    std::vector<std::vector<std::string>> rows;
    rows.push_back({"name", "graph", "peak", "original", "change", "source"});
    for (std::size_t i = 0; i < file.schedules.size(); ++i) {
        const NamedSchedule& s = file.schedules[i];
        const std::int64_t original = per_graph[s.graph]->original_peak;
        const std::int64_t delta = peaks[i] - original;  // both within [0, total bytes]
        rows.push_back({s.name, file.graphs[s.graph].name, format_bytes(peaks[i]), format_bytes(original),
                        (delta > 0 ? "+" : delta < 0 ? "-" : "") + format_bytes(delta < 0 ? -delta : delta),
                        s.source});
    }
    write_table(out, rows, {false, false, true, true, true, false});
    return 0;
}

} // namespace fxmem::cli
