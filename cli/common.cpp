#include "commands.h"

#include "fxmem/error.h"
#include "fxmem/estimator.h"
#include "fxmem/io.h"
#include "table.h"
#include "text.h"

#include <algorithm>

namespace fxmem::cli {

namespace {

std::string graph_list(const GraphFile& file) {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < file.graphs.size() && i < 10; ++i)
        names.push_back("'" + elide(file.graphs[i].name) + "'");
    return capped_list(names, file.graphs.size());
}

} // namespace

const Graph& select_graph(const GraphFile& file, const Args& args) {
    if (const auto name = args.value("--graph")) {
        const std::optional<GraphId> index = file.find_graph(*name);
        if (!index)
            throw Error(file.source + ": no graph '" + elide(*name) + "' (the file has " +
                        (file.graphs.empty() ? std::string("no graphs") : graph_list(file)) + ")");
        return file.graph(*index);
    }
    if (file.graphs.empty()) throw Error(file.source + ": the file has no graphs");
    if (file.graphs.size() > 1)
        throw UsageError(args.command + ": " + file.source + " has " + std::to_string(file.graphs.size()) +
                         " graphs; choose one with --graph NAME (" + graph_list(file) + ")");
    return file.graphs.front();
}

std::size_t chosen_step(const GraphFile& file, const Graph& graph, const Args& args,
                        const std::vector<std::int64_t>& profile) {
    if (const auto text = args.value("--step")) {
        const std::size_t step = parse_index("--step", *text);
        if (step >= profile.size())
            throw Error(file.source + ": graph '" + graph.name + "': --step " + std::to_string(step) +
                        " is beyond its profile (steps 0 to " + std::to_string(profile.size() - 1) + ")");
        return step;
    }
    return static_cast<std::size_t>(std::max_element(profile.begin(), profile.end()) - profile.begin());
}

std::vector<std::int64_t> profile_peaks(const GraphFile& file, const StorageMask& counted) {
    // One alias scratch for the whole file: each graph costs its own size.
    AliasInfo alias;
    std::vector<std::int64_t> peaks;
    peaks.reserve(file.graphs.size());
    for (const Graph& graph : file.graphs) {
        build_alias_info(file, graph, alias);
        const auto profile = build_memory_profile(file, graph, alias, default_releasable(graph), counted);
        peaks.push_back(profile.empty() ? 0 : *std::max_element(profile.begin(), profile.end()));
    }
    return peaks;
}

void check_output_path(const Args& args, const std::string& path, std::string_view command, std::string_view option,
                       std::string_view what) {
    const std::string target = resolve_write_target(path);
    const auto same = [&](const std::string& input) { return same_file(input, target); };
    // The inputs a command reads besides FILE: `remat --plan P -o P` replaced the user's plan, and
    // `export --perfetto FILE` the graph file itself.
    std::string input;
    if (same(args.file))
        input = "the graph file";
    else if (const auto plan = args.value("--plan"); plan && same(*plan))
        input = "the --plan file";
    else if (const auto sched = args.value("--schedule"); sched && same(*sched))
        input = "the --schedule file";
    if (!input.empty())
        throw UsageError(std::string(command) + ": " + std::string(option) + " " + escape_control(elide(path)) +
                         " is " + input + " itself; write the " + std::string(what) + " elsewhere");
}

void check_output_option(const Args& args, std::string_view command, std::string_view what) {
    if (const auto path = args.value("-o")) check_output_path(args, *path, command, "-o", what);
}

const Pair& pair_at(const GraphFile& file, std::size_t k, std::string_view hint) {
    if (file.pairs.empty())
        throw Error(file.source +
                    ": the file has no forward/backward pairs ('pairs' is absent or empty), so there "
                    "is no pair peak; " +
                    std::string(hint));
    if (k >= file.pairs.size())
        throw Error(file.source + ": no pair " + std::to_string(k) + " (the file has " +
                    std::to_string(file.pairs.size()) + (file.pairs.size() == 1 ? " pair)" : " pairs)"));
    return file.pairs[k];
}

} // namespace fxmem::cli
