// fxmem-remat-bench [--layers N] [--time-limit S] [SWEEP.json ...]
// Recompute figures (docs/benchmarks.md): a synthetic joint graph of about 10k nodes searched
// within its time limit, and for each sweep file (fxmem_export.sweep) the frontier against
// PyTorch's budget points: every budget point must be dominated (a plan with no higher peak at no
// more extra FLOPs). Exit 1 when a figure fails, 2 on bad usage.
#include "fxmem/error.h"
#include "fxmem/io.h"
#include "fxmem/remat.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace fxmem;

namespace {

// A residual MLP stack as AOTAutograd's joint graph would hold it: per layer
// a = h @ W1, b = relu(a), c = b @ W2, h' = h + c; its backward reads h, b and the weights.
GraphFile synthetic_joint(int layers) {
    GraphFile f;
    f.source = "synthetic";
    std::int64_t next_id = 0;
    const auto st = [&](std::int64_t bytes) { return f.add_storage(next_id++, "cuda:0", bytes); };
    GraphBuilder g(f, "joint", GraphKind::Joint);
    std::vector<NodeId> w1(layers), w2(layers), hs(layers + 1), bs(layers);
    hs[0] = g.add("primals_0", OpKind::Placeholder, "primals_0", std::span<const NodeId>{},
                  std::vector<StorageId>{st(4096)});
    for (int l = 0; l < layers; ++l) {
        w1[l] = g.add("primals_w1_" + std::to_string(l), OpKind::Placeholder, "primals", std::span<const NodeId>{},
                      std::vector<StorageId>{st(1024)});
        w2[l] = g.add("primals_w2_" + std::to_string(l), OpKind::Placeholder, "primals", std::span<const NodeId>{},
                      std::vector<StorageId>{st(1024)});
    }
    const NodeId tangent = g.add("tangents_1", OpKind::Placeholder, "tangents_1", std::span<const NodeId>{},
                                 std::vector<StorageId>{st(4)});
    std::vector<std::pair<NodeId, std::int64_t>> flops;
    const auto op = [&](const std::string& name, const char* target, std::vector<NodeId> in, std::int64_t bytes,
                        std::int64_t fl) {
        const NodeId id = g.add(name, OpKind::CallFunction, target, in, std::vector<StorageId>{st(bytes)});
        flops.push_back({id, fl});
        return id;
    };
    for (int l = 0; l < layers; ++l) {
        const std::string s = std::to_string(l);
        const NodeId a = op("mm_a" + s, "aten.mm.default", {hs[l], w1[l]}, 16384, 4'000'000);
        bs[l] = op("relu_" + s, "aten.relu.default", {a}, 16384, 4096);
        const NodeId c = op("mm_c" + s, "aten.mm.default", {bs[l], w2[l]}, 4096, 4'000'000);
        hs[l + 1] = op("add_" + s, "aten.add.Tensor", {hs[l], c}, 4096, 1024);
    }
    const NodeId loss = op("loss", "aten.sum.default", {hs[layers]}, 4, 1024);
    NodeId gh = op("expand", "aten.expand.default", {tangent}, 4096, 0);
    std::vector<NodeId> grads;
    for (int l = layers; l-- > 0;) {
        const std::string s = std::to_string(l);
        const NodeId gw2 = op("gw2_" + s, "aten.mm.default", {bs[l], gh}, 1024, 4'000'000);
        const NodeId gb = op("gb_" + s, "aten.mm.default", {gh, w2[l]}, 16384, 4'000'000);
        const NodeId ga = op("ga_" + s, "aten.threshold_backward.default", {gb, bs[l]}, 16384, 4096);
        const NodeId gw1 = op("gw1_" + s, "aten.mm.default", {hs[l], ga}, 1024, 4'000'000);
        const NodeId gx = op("gx_" + s, "aten.mm.default", {ga, w1[l]}, 4096, 4'000'000);
        gh = op("gh_" + s, "aten.add.Tensor", {gh, gx}, 4096, 1024);
        grads.push_back(gw1);
        grads.push_back(gw2);
    }
    std::vector<NodeId> outs{loss, gh};
    outs.insert(outs.end(), grads.begin(), grads.end());
    g.add("output", OpKind::Output, "output", outs, std::span<const StorageId>{});
    Graph& joint = g.finish();
    joint.num_fwd_outputs = 1;
    joint.node_flops.assign(joint.size(), 0);
    for (const auto& [id, fl] : flops) joint.node_flops[id.index()] = fl;
    return f;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

} // namespace

int main(int argc, char** argv) {
    int layers = 830; // 10k nodes
    double limit = 30;
    std::vector<std::string> sweeps;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--layers") && i + 1 < argc)
            layers = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--time-limit") && i + 1 < argc)
            limit = std::atof(argv[++i]);
        else if (argv[i][0] == '-') {
            std::fprintf(stderr, "usage: fxmem-remat-bench [--layers N] [--time-limit S] [SWEEP.json ...]\n");
            return 2;
        } else
            sweeps.push_back(argv[i]);
    }
    int failed = 0;
    try {
        const GraphFile f = synthetic_joint(layers);
        const JointGraph j = analyze_joint(f, GraphId(0));
        RematOptions o;
        o.time_limit_s = limit;
        const auto t0 = std::chrono::steady_clock::now();
        const RematResult r = search_remat(j, o);
        const double s = seconds_since(t0);
        const bool in_time = s <= limit + 1.0;
        failed += !in_time || r.peak.peak > r.baseline_peak;
        std::printf("synthetic joint: %zu nodes, search %.2f s (limit %.0f s)%s, %zu partitions scored (%.1f ms each)\n"
                    "  peak %lld -> %lld bytes (%.1f %%), extra FLOPs %+.1f %%\n",
                    j.size(), s, limit, in_time ? "" : " OVER THE LIMIT", r.evaluations,
                    1e3 * s / std::max<std::size_t>(r.evaluations, 1), static_cast<long long>(r.baseline_peak),
                    static_cast<long long>(r.peak.peak),
                    100.0 * static_cast<double>(r.peak.peak - r.baseline_peak) / static_cast<double>(r.baseline_peak),
                    100.0 * static_cast<double>(r.extra_flops) / static_cast<double>(r.baseline_flops));
        for (const std::string& path : sweeps) {
            const GraphFile sf = load_file(path);
            const std::optional<GraphId> jg = sf.find_graph("joint");
            if (!jg) throw Error(path + ": no graph named 'joint' (write it with fxmem_export.sweep)");
            const JointGraph sj = analyze_joint(sf, *jg);
            RematOptions so;
            so.time_limit_s = limit;
            const auto t1 = std::chrono::steady_clock::now();
            const RematResult sr = search_remat(sj, so);
            const double ss = seconds_since(t1);
            std::printf("%s: %zu joint nodes, search %.2f s; best %lld bytes (%.3f MB) at %+.1f %% FLOPs; baseline "
                        "%lld bytes\n",
                        path.c_str(), sj.size(), ss, static_cast<long long>(sr.peak.peak), sr.peak.peak / 1e6,
                        100.0 * static_cast<double>(sr.extra_flops) / static_cast<double>(sr.baseline_flops),
                        static_cast<long long>(sr.baseline_peak));
            // Frontier dominance over every budget point.
            for (const BudgetRow& b : budget_rows(sf)) {
                const FrontierPoint* dom = nullptr;
                for (const FrontierPoint& p : sr.frontier)
                    if (p.peak <= b.peak.peak && p.extra_flops <= b.extra_flops && (!dom || p.peak < dom->peak))
                        dom = &p;
                failed += dom == nullptr;
                std::printf("  budget %.1f: %lld bytes at %+.1f %% -> %s", b.budget,
                            static_cast<long long>(b.peak.peak),
                            100.0 * static_cast<double>(b.extra_flops) / static_cast<double>(sr.baseline_flops),
                            dom ? "dominated by " : "NOT DOMINATED\n");
                if (dom)
                    std::printf("%lld bytes at %+.1f %%\n", static_cast<long long>(dom->peak),
                                100.0 * static_cast<double>(dom->extra_flops) / static_cast<double>(sr.baseline_flops));
            }
            // Within half of per-layer checkpointing's +26.8 % FLOPs.
            RematOptions half = so;
            half.max_extra_percent = 13.4;
            const RematResult hr = search_remat(sj, half);
            std::printf("  within +13.4 %% FLOPs: %lld bytes (%.3f MB) at %+.1f %%%s\n",
                        static_cast<long long>(hr.peak.peak), hr.peak.peak / 1e6,
                        100.0 * static_cast<double>(hr.extra_flops) / static_cast<double>(hr.baseline_flops),
                        hr.peak.peak <= 4'170'000 ? ", at or below per-layer checkpointing's 4.17 MB" : "");
            // The lowest frontier point at or below a peak, for the per-layer-checkpoint comparison.
            for (const FrontierPoint& p : sr.frontier)
                if (p.peak <= 4'170'000) {
                    std::printf(
                        "  first frontier point at or below 4.17 MB (llama's per-layer checkpoint, +26.8 %% FLOPs): "
                        "%lld bytes at %+.1f %% FLOPs\n",
                        static_cast<long long>(p.peak),
                        100.0 * static_cast<double>(p.extra_flops) / static_cast<double>(sr.baseline_flops));
                    break;
                }
        }
    } catch (const Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return failed ? 1 : 0;
}
