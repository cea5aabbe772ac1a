#include "cases.h"

#include "fixtures.h"
#include "rng.h"

#include "fxmem/attribution.h"
#include "fxmem/io.h"
#include "fxmem/schedule.h"

#include <exception>
#include <memory>
#include <string>

namespace fxmem::bench {

namespace {

// Google Benchmark does not catch: an Error from the code under test becomes a failed figure.
template <class Body>
void guarded(benchmark::State& state, Body&& body) {
    try {
        body();
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
    }
}

const Graph& pair_graph(const Fixture& f, bool forward) {
    const Pair& p = f.pair.pairs.at(0);
    return f.pair.graph(forward ? p.forward : p.backward);
}

void load(benchmark::State& state, std::size_t nodes) {
    guarded(state, [&] {
        Fixture& f = fixture(nodes);
        for (auto _ : state) {
            auto file = std::make_unique<GraphFile>(load_buffer(f.pair_json, "bench.json"));
            benchmark::DoNotOptimize(file->graphs.data());
            // Freeing the model is not the loader's cost.
            state.PauseTiming();
            file.reset();
            state.ResumeTiming();
        }
        state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                                static_cast<std::int64_t>(f.pair_json.size()));
        state.counters["json_bytes"] = static_cast<double>(f.pair_json.size());
    });
}

void alias(benchmark::State& state, std::size_t nodes) {
    guarded(state, [&] {
        Fixture& f = fixture(nodes);
        for (auto _ : state) {
            AliasInfo a = build_alias_info(f.single, *f.graph);
            benchmark::DoNotOptimize(a.fresh.data());
        }
    });
}

void profile(benchmark::State& state, std::size_t nodes) {
    guarded(state, [&] {
        Fixture& f = fixture(nodes);
        for (auto _ : state) {
            auto p = build_memory_profile(f.single, *f.graph, f.alias, f.releasable, f.counted);
            benchmark::DoNotOptimize(p.data());
        }
    });
}

void peak(benchmark::State& state, std::size_t nodes) {
    guarded(state, [&] {
        Fixture& f = fixture(nodes);
        const Graph& fwd = pair_graph(f, true);
        const Graph& bwd = pair_graph(f, false);
        for (auto _ : state) benchmark::DoNotOptimize(get_peak_memory(f.pair, fwd, bwd).peak);
    });
}

// What the app computes after opening a paired file: both graphs' alias info and profiles and
// the pair's peak, each once (analyze_pair).
void profile_peak(benchmark::State& state, std::size_t nodes) {
    guarded(state, [&] {
        Fixture& f = fixture(nodes);
        const Graph& fwd = pair_graph(f, true);
        const Graph& bwd = pair_graph(f, false);
        for (auto _ : state) {
            const PairAnalysis a = analyze_pair(f.pair, fwd, bwd, default_counted(f.pair));
            benchmark::DoNotOptimize(a.peak.peak);
        }
    });
}

void score(benchmark::State& state, std::size_t nodes) {
    guarded(state, [&] {
        Fixture& f = fixture(nodes);
        for (auto _ : state) {
            ScheduleScore s = score_schedule(f.single, *f.graph, f.alias, f.random_order, f.releasable, f.counted);
            benchmark::DoNotOptimize(s.peak);
        }
    });
}

void liveset_build(benchmark::State& state, std::size_t nodes) {
    guarded(state, [&] {
        Fixture& f = fixture(nodes);
        for (auto _ : state) {
            LiveSetIndex index(f.single, *f.graph, f.alias, f.releasable, f.counted);
            benchmark::DoNotOptimize(index.profile_size());
        }
    });
}

// The graph-order LiveSetIndex of the fixture, built on first use and kept.
const LiveSetIndex& graph_liveset(Fixture& f) {
    if (!f.liveset) f.liveset = std::make_unique<LiveSetIndex>(f.single, *f.graph, f.alias, f.releasable, f.counted);
    return *f.liveset;
}

// live_at at uniformly random profile indices; "live" is the mean number of storages returned.
void liveset_query(benchmark::State& state, std::size_t nodes) {
    guarded(state, [&] {
        Fixture& f = fixture(nodes);
        const LiveSetIndex& index = graph_liveset(f);
        synth::Rng rng(4);
        double live = 0;
        for (auto _ : state) {
            const auto storages = index.live_at(rng.below(index.profile_size()));
            live += static_cast<double>(storages.size());
        }
        state.counters["live"] = benchmark::Counter(live, benchmark::Counter::kAvgIterations);
    });
}

void incremental_build(benchmark::State& state, std::size_t nodes) {
    guarded(state, [&] {
        Fixture& f = fixture(nodes);
        const std::vector<NodeId> order = original_order(*f.graph);
        for (auto _ : state) {
            IncrementalSchedule s(f.single, *f.graph, f.alias, f.releasable, f.counted, order);
            benchmark::DoNotOptimize(s.peak());
        }
    });
}

// One edit as the app does it: the legal range of a random node, a move to a random place in
// it, and the new peak. The schedule keeps walking from move to move; "distance" is the mean
// number of positions moved.
void move_rescore(benchmark::State& state, std::size_t nodes) {
    guarded(state, [&] {
        Fixture& f = fixture(nodes);
        if (!f.incremental)
            f.incremental = std::make_unique<IncrementalSchedule>(f.single, *f.graph, f.alias, f.releasable, f.counted,
                                                                  original_order(*f.graph));
        IncrementalSchedule& s = *f.incremental;
        synth::Rng rng(5);
        double distance = 0;
        for (auto _ : state) {
            const std::size_t from = rng.below(s.size());
            const auto range = s.legal_range(from);
            const std::size_t to = range.lo + rng.below(range.hi - range.lo + 1);
            if (to != from) s.move(from, to);
            benchmark::DoNotOptimize(s.peak());
            distance += static_cast<double>(to > from ? to - from : from - to);
        }
        state.counters["distance"] = benchmark::Counter(distance, benchmark::Counter::kAvgIterations);
    });
}

// The synthetic graph has no modules: give it a 32-layer hierarchy (five leaf modules per layer,
// runs of 7 nodes each) and label its primals as those layers' parameters, once per fixture.
// The estimator ignores both, so the other figures are unchanged.
void ensure_modules(Fixture& f) {
    Graph& g = f.single.graphs[0];
    if (!g.modules.empty()) return;
    static constexpr const char* kLeaves[] = {"attn.qkv", "attn.proj", "mlp.fc1", "mlp.fc2", "norm"};
    for (int layer = 0; layer < 32; ++layer)
        for (const char* leaf : kLeaves)
            g.modules.push_back({"layers." + std::to_string(layer) + "." + leaf, "Linear"});
    const std::size_t n = g.size();
    for (std::size_t i = 0; i < n; ++i) {
        Node& node = g.nodes[i];
        const std::size_t layer = i * 32 / n, leaf = (i / 7) % 5;
        if (node.op != OpKind::Placeholder) node.module = static_cast<std::uint32_t>(layer * 5 + leaf);
        if (node.op == OpKind::Placeholder && node.name.starts_with("primals"))
            for (StorageId s : g.outputs(NodeId(static_cast<std::int32_t>(i))))
                f.single.set_role(s, StorageRole::Parameter, g.modules[layer * 5 + leaf].name + ".weight");
    }
}

// resolve_roles over the file and the graph's Attribution (module tree, owners): once per graph.
void attribution_build(benchmark::State& state, std::size_t nodes) {
    guarded(state, [&] {
        Fixture& f = fixture(nodes);
        ensure_modules(f);
        for (auto _ : state) {
            const Attribution a(f.single, GraphId(0), resolve_roles(f.single));
            benchmark::DoNotOptimize(a.tree().size());
        }
    });
}

// What the breakdown panel does per hovered step: live_at at a random step, then by role and by
// module at depth 2 (the layers).
void breakdown(benchmark::State& state, std::size_t nodes) {
    guarded(state, [&] {
        Fixture& f = fixture(nodes);
        ensure_modules(f);
        const LiveSetIndex& index = graph_liveset(f);
        const Attribution a(f.single, GraphId(0), resolve_roles(f.single));
        synth::Rng rng(6);
        for (auto _ : state) {
            const auto live = index.live_at(rng.below(index.profile_size()));
            benchmark::DoNotOptimize(a.by_role(live).size());
            benchmark::DoNotOptimize(a.by_module(live, 2).size());
        }
    });
}

// The stacked timeline by role: one profile per role over the whole order.
void profile_by(benchmark::State& state, std::size_t nodes) {
    guarded(state, [&] {
        Fixture& f = fixture(nodes);
        ensure_modules(f);
        const LiveSetIndex& index = graph_liveset(f);
        const Attribution a(f.single, GraphId(0), resolve_roles(f.single));
        const std::vector<std::uint32_t> groups = a.storage_groups(GroupBy::Role, 0);
        for (auto _ : state) benchmark::DoNotOptimize(index.profile_by(groups, kStorageRoleCount).data());
    });
}

} // namespace

const std::vector<Case>& cases() {
    static const std::vector<Case> all = {
        {"load_mb_per_s", "load_buffer of the pair's JSON text, MB/s (10^6 bytes)", 0, true, load},
        {"alias_ms", "build_alias_info, one graph", 1e-3, true, alias},
        {"profile_ms", "build_memory_profile, one graph", 1e-3, true, profile},
        {"peak_ms", "get_peak_memory, the pair", 1e-3, true, peak},
        {"profile_peak_ms", "analyze_pair: alias + profile of both graphs + peak", 1e-3, true, profile_peak},
        {"score_ms", "score_schedule of a random legal order, one graph", 1e-3, true, score},
        {"liveset_build_ms", "LiveSetIndex construction, one graph", 1e-3, true, liveset_build},
        {"liveset_query_us", "LiveSetIndex::live_at at a random step", 1, false, liveset_query},
        {"incremental_build_ms", "IncrementalSchedule construction, one graph", 1e-3, true, incremental_build},
        {"move_rescore_us", "legal_range + move + peak, random legal move", 1, false, move_rescore},
        {"attribution_build_ms", "resolve_roles + Attribution (module tree, owners), one graph", 1e-3, true,
         attribution_build},
        {"breakdown_us", "live_at + by_role + by_module(depth 2) at a random step", 1, false, breakdown},
        {"profile_by_ms", "LiveSetIndex::profile_by, 9 role groups, one graph", 1e-3, true, profile_by},
    };
    return all;
}

void register_cases(const std::vector<std::size_t>& sizes, double min_time_s) {
    for (std::size_t nodes : sizes) {
        for (const Case& c : cases()) {
            const std::string name = std::string(c.key) + "/" + std::to_string(nodes);
            auto* run = c.run;
            benchmark::RegisterBenchmark(name.c_str(), [run, nodes](benchmark::State& s) { run(s, nodes); })
                ->Unit(benchmark::kMicrosecond)
                ->MinTime(min_time_s);
        }
    }
}

} // namespace fxmem::bench
