// schedules FILE [--json]: the named schedules stored in the file, each with its MemoryTracker
// peak and the peak of its graph's original order.
#include "commands.h"

#include "fxmem/io.h"
#include "fxmem/schedule.h"
#include "fxmem/units.h"
#include "table.h"
#include "text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <ostream>

namespace fxmem::cli {

int run_schedules(const Args& args, std::ostream& out) {
    const GraphFile file = load_file(args.file);
    const StorageMask counted = devices_counted(file, args);

    // Graph by graph (a stable sort of the schedules by graph), one alias scratch for the whole
    // file: memory O(file), and each graph costs its own size (a file may hold many graphs).
    std::vector<std::size_t> by_graph(file.schedules.size());
    for (std::size_t i = 0; i < by_graph.size(); ++i) by_graph[i] = i;
    std::stable_sort(by_graph.begin(), by_graph.end(),
                     [&](std::size_t a, std::size_t b) { return file.schedules[a].graph < file.schedules[b].graph; });
    std::vector<std::int64_t> peaks(file.schedules.size()), original_peaks(file.schedules.size());
    std::vector<std::uint8_t> in_pair(file.schedules.size(), 0); // how each schedule's graph is scored
    std::vector<std::int64_t> baselines(file.schedules.size(), 0);
    std::vector<std::string> context_lines; // one per graph scored in its pair
    AliasInfo alias;
    for (std::size_t k = 0; k < by_graph.size();) {
        const GraphId graph_index = file.schedules[by_graph[k]].graph;
        const Graph& g = file.graph(graph_index);
        build_alias_info(file, g, alias);
        const ScoreContext context = score_context(file, g, args);
        if (const std::string line = score_context_line(file, g, context); !line.empty()) context_lines.push_back(line);
        const NodeMask& releasable = context.releasable;
        const std::int64_t original = score_schedule(file, g, alias, original_order(g), releasable, counted).peak;
        for (; k < by_graph.size() && file.schedules[by_graph[k]].graph == graph_index; ++k) {
            const std::size_t i = by_graph[k];
            peaks[i] = score_schedule(file, g, alias, file.schedules[i].order, releasable, counted).peak;
            original_peaks[i] = original;
            in_pair[i] = context.in_pair ? 1 : 0;
            baselines[i] = context.baseline;
        }
    }

    if (args.has("--json")) {
        nlohmann::ordered_json j;
        j["schedules"] = nlohmann::ordered_json::array();
        for (std::size_t i = 0; i < file.schedules.size(); ++i) {
            const NamedSchedule& s = file.schedules[i];
            j["schedules"].push_back({{"name", s.name},
                                      {"graph", file.graph(s.graph).name},
                                      {"source", s.source},
                                      {"peak", peaks[i]},
                                      {"original_peak", original_peaks[i]},
                                      {"scored", in_pair[i] ? "in_pair" : "standalone"},
                                      {"baseline", baselines[i]}});
        }
        out << j.dump(2) << '\n';
        return 0;
    }
    if (const std::string note = cpu_only_note(file, counted); !note.empty()) out << note << '\n';
    out << escape_control(file.source) << ": " << file.schedules.size()
        << (file.schedules.size() == 1 ? " schedule" : " schedules") << '\n';
    if (file.schedules.empty()) return 0;
    for (const std::string& line : context_lines) out << escape_control(line) << '\n';
    std::vector<std::vector<std::string>> rows;
    rows.push_back({"name", "graph", "peak", "original", "change", "source"});
    for (std::size_t i = 0; i < file.schedules.size(); ++i) {
        const NamedSchedule& s = file.schedules[i];
        const std::int64_t original = original_peaks[i];
        const std::int64_t delta = peaks[i] - original; // both within [0, total bytes]
        rows.push_back({s.name, file.graph(s.graph).name, format_bytes(peaks[i]), format_bytes(original),
                        (delta > 0   ? "+"
                         : delta < 0 ? "-"
                                     : "") +
                            format_bytes(delta < 0 ? -delta : delta),
                        s.source});
    }
    write_table(out, rows, {false, false, true, true, true, false});
    return 0;
}

} // namespace fxmem::cli
