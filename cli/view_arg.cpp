// view_option: a command's view options read once into core's ViewSpec.
#include "view_arg.h"

#include "commands.h"
#include "table.h"

#include "fxmem/error.h"
#include "fxmem/units.h"

#include <algorithm>

namespace fxmem::cli {

std::size_t pair_option(const GraphFile& file, const std::string& text) {
    if (!text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        const std::size_t k = parse_index("--pair", text);
        (void)pair_at(file, k, "use --graph NAME for one graph");
        return k;
    }
    std::string fwd, bwd;
    if (const auto comma = text.find(','); comma != std::string::npos) {
        fwd = text.substr(0, comma);
        bwd = text.substr(comma + 1);
    } else if (const auto plus = text.find(" + "); plus != std::string::npos) {
        fwd = text.substr(0, plus);
        bwd = text.substr(plus + 3);
    } else {
        throw UsageError("--pair must be a pair's index K, or its graphs FWD,BWD or 'FWD + BWD', got '" + elide(text) +
                         "'");
    }
    for (std::size_t k = 0; k < file.pairs.size(); ++k)
        if (file.graph(file.pairs[k].forward).name == fwd && file.graph(file.pairs[k].backward).name == bwd) return k;
    throw Error(file.source + ": no pair '" + elide(fwd) + "' -> '" + elide(bwd) + "' (the file has " +
                std::to_string(file.pairs.size()) + (file.pairs.size() == 1 ? " pair)" : " pairs)"));
}

Measure measure_option(const Args& args) {
    const std::optional<std::string> text = args.value("--measure");
    if (!text) return Measure::Estimator;
    if (const std::optional<Measure> m = parse_measure(*text)) return *m;
    throw UsageError(args.command +
                     ": --measure must be 'estimator' (PyTorch's FX estimator), 'allocated' (the "
                     "compiled program's buffers) or 'reserved' (what the CUDA caching allocator holds), got '" +
                     elide(*text) + "'");
}

std::optional<std::int64_t> memory_option(const Args& args) {
    const std::optional<std::string> text = args.value("--memory");
    if (!text) return std::nullopt;
    if (const std::optional<std::int64_t> v = parse_byte_size(*text); v && *v > 0) return v;
    throw UsageError(args.command +
                     ": --memory needs a positive size in bytes, or with a unit (80GiB, 24GB, 512MiB), got '" +
                     elide(*text) + "'");
}

ViewSpec view_option(const GraphFile& file, const Args& args, ViewFallback fallback) {
    const int modes = int(args.has("--graph")) + int(args.has("--pair")) + int(args.has("--whole-step"));
    if (modes > 1) throw UsageError(args.command + ": give one of --graph, --pair and --whole-step");
    if (args.has("--whole-step") && (args.has("--schedule") || args.has("--schedule-name")))
        throw UsageError(args.command + ": " + (args.has("--schedule") ? "--schedule" : "--schedule-name") +
                         " does not apply to --whole-step (every graph of the step runs in its recorded order; a "
                         "schedule reorders one graph: use --graph, or its pair with --pair)");
    ViewSpec v;
    v.devices = device_filter(args);
    v.measure = measure_option(args);
    v.schedule = schedule_option(file, args);
    const bool file_view = fallback == ViewFallback::FileView && modes == 0 && !v.schedule;
    if (args.has("--whole-step") || (file_view && !file.step.empty())) {
        v.scope = ViewScope::WholeStep;
    } else if (args.has("--pair") || (file_view && !file.pairs.empty()) ||
               (fallback == ViewFallback::Pair && modes == 0)) {
        v.scope = ViewScope::Pair;
        v.pair = args.has("--pair") ? pair_option(file, *args.value("--pair")) : 0;
        if (!args.has("--pair")) (void)pair_at(file, 0, "use --graph NAME for one graph");
    } else {
        v.scope = ViewScope::Graph;
        v.graph = v.schedule && !args.has("--graph")
                      ? v.schedule->graph
                      : GraphId(static_cast<std::int32_t>(&select_graph(file, args) - file.graphs.data()));
        v.context = args.has("--in-pair") ? PairContext::AsInPair : PairContext::Standalone;
    }
    if (args.has("--in-pair") && v.scope != ViewScope::Graph)
        throw UsageError(args.command + ": --in-pair does not apply to " +
                         (v.scope == ViewScope::Pair ? "--pair" : "--whole-step") +
                         " (it scores one graph, --graph, as it runs in its pair)");
    check_view(file, v);
    return v;
}

} // namespace fxmem::cli
