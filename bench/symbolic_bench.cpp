// fxmem-symbolic-bench [--nodes 100000] [--reps 20]
// Re-scoring at another size (docs/benchmarks.md, "Symbolic sizes"): a synthetic pair
// (fxmem_synth) given a batch symbol s0 (hint 8): every non-CPU storage's size becomes
// (nbytes*s0//8) and every tensor's first dimension (d0*s0//8), each parsed as the reader parses
// them; then, per binding, bind_sizes (rewrites the ints) and the pair peak (analyze_pair), the
// re-score the app's Sizes bar and every fit probe run; and one fit. Prints the median of the
// repetitions; asserts nothing timed. Exit 1 when a figure fails (at the hint the peak is not the
// file's, or the peak does not grow with the batch), 2 on bad usage.
#include "fxmem/error.h"
#include "fxmem/estimator.h"
#include "fxmem/fit.h"
#include "fxmem/symbolic.h"
#include "synth.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using namespace fxmem;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

std::uint32_t expr(SymbolicSizes& sy, const std::string& text) {
    std::vector<ExprInstr> code;
    if (parse_expr(text, sy.symbols, code)) throw Error("bench: cannot parse " + text);
    return sy.add_expr(code, text);
}

// s0 = the batch, traced at 8; the sizes scale with it.
void make_symbolic(GraphFile& f) {
    SymbolicSizes& sy = f.symbolic;
    sy.symbols.push_back({"s0", 8, "L['x'].size()[0]", 1, std::nullopt});
    sy.bound = {8};
    for (std::size_t s = 0; s < f.storages.size(); ++s) {
        const StorageId id(static_cast<std::int32_t>(s));
        if (f.is_cpu(id) || f.nbytes(id) == 0) continue;
        sy.storage_sizes.push_back({id, expr(sy, "(" + std::to_string(f.nbytes(id)) + "*s0//8)")});
    }
    for (std::uint32_t g = 0; g < f.graphs.size(); ++g) {
        const Graph& graph = f.graphs[g];
        for (std::uint32_t t = 0; t < graph.tensors.size(); ++t) {
            const Tensor& tensor = graph.tensors[t];
            if (tensor.rank == 0) continue;
            const auto shape = graph.shape(tensor);
            // The batch dimension; the rest (constant) is not listed, as the reader leaves it.
            sy.tensor_entries.push_back(
                {GraphId(static_cast<std::int32_t>(g)), t, 0, expr(sy, "(" + std::to_string(shape[0]) + "*s0//8)")});
        }
    }
}

std::int64_t pair_peak(const GraphFile& f) {
    const Graph& fwd = f.graph(f.pairs[0].forward);
    const Graph& bwd = f.graph(f.pairs[0].backward);
    return analyze_pair(f, fwd, bwd, default_counted(f)).peak.peak;
}

} // namespace

int main(int argc, char** argv) {
    std::size_t nodes = 100000, reps = 20;
    for (int i = 1; i < argc; ++i) {
        const bool has_value = i + 1 < argc;
        if (std::strcmp(argv[i], "--nodes") == 0 && has_value) {
            nodes = std::stoul(argv[++i]);
        } else if (std::strcmp(argv[i], "--reps") == 0 && has_value) {
            reps = std::max<std::size_t>(1, std::stoul(argv[++i]));
        } else {
            std::fprintf(stderr, "usage: fxmem-symbolic-bench [--nodes N] [--reps R]\n");
            return 2;
        }
    }
    try {
        synth::Options options;
        options.nodes = nodes;
        GraphFile f = synth::generate(options);
        const std::int64_t traced = pair_peak(f);
        auto t = Clock::now();
        make_symbolic(f);
        const double build = ms_since(t);
        std::printf("synthetic pair: %zu nodes, %zu storages; %zu symbolic storages, %zu symbolic tensor entries "
                    "(built in %.1f ms)\n",
                    f.graphs[0].size() + f.graphs[1].size(), f.storages.size(), f.symbolic.storage_sizes.size(),
                    f.symbolic.tensor_entries.size(), build);
        std::vector<double> bind_ms, peak_ms, total_ms;
        std::int64_t last = 0;
        bool ok = true;
        for (std::size_t r = 0; r < reps; ++r) {
            const std::int64_t batch = r % 2 == 0 ? 8 : 64 + static_cast<std::int64_t>(r);
            t = Clock::now();
            bind_sizes(f, SizeBinding{{batch}});
            const double bind = ms_since(t);
            const auto t2 = Clock::now();
            const std::int64_t peak = pair_peak(f);
            peak_ms.push_back(ms_since(t2));
            bind_ms.push_back(bind);
            total_ms.push_back(ms_since(t));
            if (batch == 8 && peak != traced) ok = false;
            if (batch != 8 && peak <= traced) ok = false;
            last = peak;
        }
        std::printf("one re-score (median of %zu): bind_sizes %.2f ms + pair peak %.2f ms = %.2f ms; pair peak at the "
                    "hint %lld B, at s0=%zu %lld B\n",
                    reps, median(bind_ms), median(peak_ms), median(total_ms), static_cast<long long>(traced),
                    static_cast<std::size_t>(64 + reps - 1 - (reps % 2 == 0 ? 0 : 1)), static_cast<long long>(last));
        FitQuery q;
        q.binding = SizeBinding{{8}};
        q.limit = traced * 10;
        t = Clock::now();
        const FitResult r = fit_symbol(f, q, [](const GraphFile& g) { return pair_peak(g); });
        std::printf("fit s0 in %lld B (10x the traced peak): %lld, %zu evaluations, %.1f ms%s\n",
                    static_cast<long long>(q.limit), static_cast<long long>(r.max_value.value_or(-1)), r.probes,
                    ms_since(t), r.monotone ? " (monotone search)" : " (scan)");
        if (!ok) std::fprintf(stderr, "a figure failed: the peak at the hint changed, or did not grow with s0\n");
        return ok ? 0 : 1;
    } catch (const Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
