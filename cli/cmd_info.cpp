// info FILE [--json]: the graphs (name, kind, nodes, profile peak), storages, devices and sizes.
#include "commands.h"

#include "fxmem/attribution.h"
#include "fxmem/capture_info.h"
#include "fxmem/display_text.h"
#include "fxmem/io.h"
#include "fxmem/units.h"
#include "fxmem/whole_step.h"
#include "table.h"
#include "text.h"

#include <nlohmann/json.hpp>

#include <iomanip>
#include <ostream>

namespace fxmem::cli {

int run_info(const Args& args, std::ostream& out) {
    const GraphFile file = load_file(args.file);

    // Per device: storage count and bytes, in the file's device order.
    std::vector<std::size_t> device_storages(file.devices.size(), 0);
    std::vector<std::int64_t> device_bytes(file.devices.size(), 0);
    for (const Storage& s : file.storages) {
        ++device_storages[s.device];
        device_bytes[s.device] += s.nbytes; // cannot overflow: the total fits (checked on load)
    }
    // What the file says beyond the format's required fields (docs/format.md).
    std::size_t with_role = 0, with_label = 0, nodes = 0, with_module = 0;
    for (const Storage& s : file.storages) {
        with_role += s.role != StorageRole::Unknown ? 1 : 0;
        with_label += s.label != 0 ? 1 : 0;
    }
    for (const Graph& g : file.graphs) {
        nodes += g.size();
        for (const Node& n : g.nodes) with_module += n.module != kNoModule ? 1 : 0;
    }
    const RoleSource role_source = resolve_roles(file).source; // what breakdown --by role uses
    const StorageMask counted = devices_counted(file, args);
    const std::vector<std::int64_t> peaks = profile_peaks(file, counted);
    const std::string note = cpu_only_note(file, counted);
    const CaptureInfo capture = capture_info(file);

    if (args.has("--json")) {
        nlohmann::ordered_json j;
        j["file"] = utf8_or_escaped(file.source); // a path need not be UTF-8; JSON must be
        j["storages"] = file.storages.size();
        j["total_bytes"] = file.total_bytes();
        if (!capture.target.empty()) j["target"] = capture.target;
        if (!capture.sdpa.empty()) j["sdpa"] = capture.sdpa;
        if (!capture.autocast.empty()) j["autocast"] = capture.autocast;
        j["devices"] = nlohmann::ordered_json::array();
        for (std::size_t d = 0; d < file.devices.size(); ++d)
            j["devices"].push_back(
                {{"device", file.devices[d]}, {"storages", device_storages[d]}, {"bytes", device_bytes[d]}});
        j["graphs"] = nlohmann::ordered_json::array();
        for (std::size_t i = 0; i < file.graphs.size(); ++i) {
            const Graph& g = file.graphs[i];
            j["graphs"].push_back(
                {{"name", g.name}, {"kind", to_string(g.kind)}, {"nodes", g.size()}, {"peak", peaks[i]}});
        }
        j["pairs"] = nlohmann::ordered_json::array();
        for (const Pair& p : file.pairs)
            j["pairs"].push_back({{"forward", file.graph(p.forward).name}, {"backward", file.graph(p.backward).name}});
        j["storages_with_role"] = with_role;
        j["roles"] = to_string(role_source);
        j["storages_with_label"] = with_label;
        j["nodes_with_module"] = with_module;
        j["all_cpu"] = !note.empty();
        j["step"] = nlohmann::ordered_json::array();
        for (const StepEntry& e : file.step)
            j["step"].push_back(
                {{"graph", file.graph(e.graph).name}, {"call", e.call}, {"module_prefix", e.module_prefix}});
        j["symbols"] = nlohmann::ordered_json::array();
        for (const Symbol& s : file.symbolic.symbols)
            j["symbols"].push_back({{"name", s.name},
                                    {"hint", s.hint},
                                    {"source", s.source},
                                    {"min", s.min},
                                    {"max", s.max ? nlohmann::ordered_json(*s.max) : nlohmann::ordered_json(nullptr)}});
        j["schedules"] = nlohmann::ordered_json::array();
        for (const NamedSchedule& s : file.schedules)
            j["schedules"].push_back({{"name", s.name}, {"graph", file.graph(s.graph).name}, {"source", s.source}});
        out << j.dump(2) << '\n';
        return 0;
    }

    if (!note.empty()) out << note << '\n';
    out << escape_control(file.source) << '\n';
    if (!capture.target.empty())
        out << "captured for: " << escape_control(capture.summary())
            << (capture.target == "cuda" ? " (attention and autocast as a CUDA GPU runs them)" : "") << '\n';
    out << "storages: " << file.storages.size() << ", " << format_bytes(file.total_bytes()) << " in total ("
        << file.total_bytes() << " bytes)\n";
    out << "roles: " << with_role << " of " << file.storages.size() << " storages carry a role, " << with_label
        << " a label; modules: " << with_module << " of " << nodes << " nodes carry one\n";
    out << "roles used: "
        << (role_source == RoleSource::File      ? "from the file"
            : role_source == RoleSource::Derived ? "derived from the graphs' structure"
                                                 : "from the file where given, the rest derived")
        << '\n';
    out << "devices:\n";
    for (std::size_t d = 0; d < file.devices.size(); ++d)
        out << "  " << elide(file.devices[d]) << ": " << device_storages[d]
            << (device_storages[d] == 1 ? " storage, " : " storages, ") << format_bytes(device_bytes[d]) << '\n';
    out << "graphs:\n";
    std::vector<std::vector<std::string>> graph_rows{{"name", "kind", "nodes", "peak"}};
    for (std::size_t i = 0; i < file.graphs.size(); ++i) {
        const Graph& g = file.graphs[i];
        graph_rows.push_back(
            {g.name, std::string(to_string(g.kind)), std::to_string(g.size()), format_bytes(peaks[i])});
    }
    write_table(out, graph_rows, {false, false, true, true});
    if (!file.pairs.empty()) {
        out << "pairs:\n";
        for (std::size_t i = 0; i < file.pairs.size(); ++i)
            out << "  " << i << ": " << elide(file.graph(file.pairs[i].forward).name) << " -> "
                << elide(file.graph(file.pairs[i].backward).name) << '\n';
    }
    if (!file.step.empty()) {
        out << "step (" << file.step.size() << " graph runs, in order):\n";
        for (std::size_t i = 0; i < file.step.size(); ++i)
            out << "  " << i << ": " << elide(step_entry_name(file, file.step[i])) << '\n';
    }
    if (!file.symbolic.empty()) {
        out << "symbols (sizes are at the hints; --set SYM=V evaluates them elsewhere):\n";
        std::vector<std::vector<std::string>> rows{{"name", "hint", "range", "source"}};
        for (const Symbol& s : file.symbolic.symbols)
            rows.push_back({s.name, std::to_string(s.hint), s.range_text(), s.source});
        write_table(out, rows, {false, true, false, false});
    }
    if (!file.schedules.empty()) {
        out << "schedules:\n";
        std::vector<std::vector<std::string>> rows{{"name", "graph", "source"}};
        for (const NamedSchedule& s : file.schedules) rows.push_back({s.name, file.graph(s.graph).name, s.source});
        write_table(out, rows, {false, false, false});
    }
    return 0;
}

} // namespace fxmem::cli
