// The one definition of a backward graph's peak in every command (docs/estimator.md, "The
// backward's peak"): a graph that is the backward of a pair is scored in its pair, as
// get_peak_memory and the app's schedule editor score it: its primal and tangent inputs (the
// do-not-delete placeholders) are never freed, and the forward leaves the baseline alive on top.
// --standalone scores the graph alone (PyTorch's MemoryTracker with its default releasability).
#include "commands.h"

#include "fxmem/estimator.h"

namespace fxmem::cli {

ScoreContext score_context(const GraphFile& file, const Graph& graph, const Args& args) {
    ScoreContext c;
    c.releasable = default_releasable(graph);
    if (args.has("--standalone")) return c;
    for (std::size_t k = 0; k < file.pairs.size(); ++k) {
        const Pair& p = file.pairs[k];
        if (&file.graph(p.backward) != &graph) continue;
        const FwdBwdInteractions inter = get_fwd_bwd_interactions(file, file.graph(p.forward), graph);
        c.releasable = backward_releasable(graph, inter);
        c.in_pair = true;
        c.pair = k;
        c.baseline = inter.backward_baseline;
        return c;
    }
    return c;
}

std::string score_context_line(const GraphFile& file, const Graph& graph, const ScoreContext& c) {
    if (!c.in_pair) return {};
    return "backward of pair " + std::to_string(c.pair) + " ('" + file.graph(file.pairs[c.pair].forward).name +
           "' -> '" + graph.name +
           "'), scored in its pair as the app and get_peak_memory do: its primal and tangent inputs are "
           "never freed, and the forward leaves " +
           std::to_string(c.baseline) +
           " bytes alive on top (the baseline, not included in the peaks below); --standalone scores the graph alone "
           "(PyTorch's MemoryTracker defaults)";
}

} // namespace fxmem::cli
