// export_view: fxmem-cli export's options as the view core exports.
#include "export_view.h"

#include "commands.h"

namespace fxmem::cli {

ExportView export_view(const GraphFile& file, const Args& args) {
    const int modes = int(args.has("--graph")) + int(args.has("--pair")) + int(args.has("--whole-step"));
    if (modes > 1) throw UsageError(args.command + ": give one of --graph, --pair and --whole-step");
    ExportView v;
    v.devices = device_filter(args);
    if (args.has("--whole-step") && (args.has("--schedule") || args.has("--schedule-name")))
        throw UsageError(args.command + ": " + (args.has("--schedule") ? "--schedule" : "--schedule-name") +
                         " does not apply to --whole-step (every graph of the step runs in its recorded order; a "
                         "schedule reorders one graph: export it with --graph, or its pair with --pair)");
    v.schedule = schedule_option(file, args);
    if (args.has("--whole-step") || (modes == 0 && !v.schedule && !file.step.empty())) {
        v.scope = ExportScope::WholeStep;
    } else if (args.has("--pair") || (modes == 0 && !v.schedule && !file.pairs.empty())) {
        v.scope = ExportScope::Pair;
        v.pair = args.has("--pair") ? parse_index("--pair", *args.value("--pair")) : 0;
    } else {
        v.scope = ExportScope::Graph;
        v.graph = v.schedule && !args.has("--graph")
                      ? v.schedule->graph
                      : GraphId(static_cast<std::int32_t>(&select_graph(file, args) - file.graphs.data()));
        v.context = args.has("--in-pair") ? PairContext::AsInPair : PairContext::Standalone;
    }
    if (args.has("--in-pair") && v.scope != ExportScope::Graph)
        throw UsageError(args.command + ": --in-pair does not apply to " +
                         (v.scope == ExportScope::Pair ? "--pair" : "--whole-step") +
                         " (it scores one graph, --graph, as it runs in its pair)");
    return v;
}

} // namespace fxmem::cli
