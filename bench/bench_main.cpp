// fxmem-bench [--json] [--sizes 10000,100000,1000000] [--min-time SECONDS] [--optimize-limit SECONDS]
//             [--optimize-max-nodes N] [--deep-depth D] [--benchmark_* flags]
// Runs the cases of cases.cpp through Google Benchmark with a collecting reporter (progress on
// stderr), then prints a table, or with --json one JSON object on stdout. Exit 2 on bad usage,
// 1 when a figure failed.
#include "cases.h"
#include "deep_modules.h"
#include "optimize_figures.h"

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

using fxmem::bench::Case;
using fxmem::bench::cases;

// figure key -> nodes -> value
using Figures = std::map<std::string, std::map<std::size_t, double>>;

class CollectingReporter : public benchmark::BenchmarkReporter {
public:
    Figures figures;
    std::vector<std::string> errors;

    bool ReportContext(const Context&) override { return true; }

    void ReportRuns(const std::vector<Run>& runs) override {
        for (const Run& run : runs) {
            if (run.run_type != Run::RT_Iteration) continue;
            const std::string name = run.run_name.function_name;
            const auto slash = name.find('/');
            const std::string key = name.substr(0, slash);
            std::size_t nodes = 0;
            std::from_chars(name.data() + slash + 1, name.data() + name.size(), nodes);
            if (run.error_occurred) {
                errors.push_back(name + ": " + run.error_message);
                std::cerr << "  " << name << ": FAILED: " << run.error_message << std::endl;
                continue;
            }
            const double us = run.GetAdjustedCPUTime() / benchmark::GetTimeUnitMultiplier(run.time_unit) * 1e6;
            std::cerr << "  " << name << ": " << us * 1e-3 << " ms/iter (" << run.iterations << " iterations)"
                      << std::endl;
            // With --benchmark_repetitions=K the fastest repetition counts: on a shared machine the
            // slower ones measure the neighbours.
            auto [best, fresh] = best_us_.try_emplace(name, us);
            if (!fresh && us >= best->second) continue;
            best->second = us;
            const Case* c = find(key);
            if (key == "load_mb_per_s") {
                figures["load_mb_per_s"][nodes] = run.counters.at("bytes_per_second").value / 1e6;
                figures["load_ms"][nodes] = us * 1e-3;
                figures["json_mb"][nodes] = run.counters.at("json_bytes").value / 1e6;
            } else if (c) {
                figures[key][nodes] = us * c->per;
            }
            for (const auto& [counter, figure] :
                 {std::pair{"live", "liveset_mean_live"}, std::pair{"distance", "move_mean_distance"}}) {
                auto it = run.counters.find(counter);
                if (it != run.counters.end()) figures[figure][nodes] = it->second.value;
            }
        }
    }

private:
    std::map<std::string, double> best_us_; // per benchmark name
    static const Case* find(const std::string& key) {
        for (const Case& c : cases())
            if (c.key == key) return &c;
        return nullptr;
    }
};

int usage(const std::string& why) {
    std::cerr << "fxmem-bench: " << why << "\n"
              << "usage: fxmem-bench [--json] [--sizes N,N,...] [--min-time SECONDS] [--optimize-limit SECONDS]\n"
                 "                   [--optimize-max-nodes N] [--deep-depth D] [--benchmark_* flags]\n";
    return 2;
}

std::optional<std::vector<std::size_t>> parse_sizes(std::string_view text) {
    std::vector<std::size_t> sizes;
    while (!text.empty()) {
        const auto comma = text.find(',');
        const std::string_view part = text.substr(0, comma);
        std::size_t n = 0;
        const auto r = std::from_chars(part.data(), part.data() + part.size(), n);
        if (r.ec != std::errc() || r.ptr != part.data() + part.size() || n < 32) return std::nullopt;
        sizes.push_back(n);
        text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    }
    if (sizes.empty()) return std::nullopt;
    return sizes;
}

// log10 of the time ratio between consecutive sizes, per decade of nodes: 1.0 is linear.
nlohmann::ordered_json growth(const Figures& figures, const std::vector<std::size_t>& sizes) {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const Case& c : cases()) {
        if (!c.linear) continue;
        const std::string key = c.key == "load_mb_per_s" ? "load_ms" : std::string(c.key);
        auto it = figures.find(key);
        if (it == figures.end()) continue;
        nlohmann::ordered_json per = nlohmann::ordered_json::object();
        for (std::size_t i = 0; i + 1 < sizes.size(); ++i) {
            const auto a = it->second.find(sizes[i]), b = it->second.find(sizes[i + 1]);
            if (a == it->second.end() || b == it->second.end() || a->second <= 0) continue;
            const double e = std::log10(b->second / a->second) /
                             std::log10(static_cast<double>(sizes[i + 1]) / static_cast<double>(sizes[i]));
            per[std::to_string(sizes[i]) + "-" + std::to_string(sizes[i + 1])] = std::round(e * 100) / 100;
        }
        if (!per.empty()) out[key] = per;
    }
    return out;
}

// The project's targets, for the sizes that were measured.
nlohmann::ordered_json targets(const Figures& figures, const nlohmann::ordered_json& growth_exponents) {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    if (auto it = figures.find("load_mb_per_s"); it != figures.end() && !it->second.empty()) {
        double worst = 1e300;
        for (const auto& [n, v] : it->second) worst = std::min(worst, v);
        out["load_at_least_100_mb_per_s"] = worst >= 100;
    }
    if (auto it = figures.find("profile_peak_ms"); it != figures.end())
        if (auto v = it->second.find(1000000); v != it->second.end())
            out["profile_peak_1m_under_300_ms"] = v->second < 300;
    if (auto it = figures.find("move_rescore_us"); it != figures.end())
        if (auto v = it->second.find(100000); v != it->second.end())
            out["move_rescore_100k_under_16_ms"] = v->second < 16000;
    if (auto it = figures.find("breakdown_us"); it != figures.end())
        if (auto v = it->second.find(100000); v != it->second.end())
            out["breakdown_100k_under_2_ms"] = v->second < 2000;
    // Judged on the largest step only: the smaller steps cross the cache sizes (a 10k-node graph's
    // arrays fit in L2/L3), which is not the algorithm's growth. Exponent 1.2 = 15.8x per 10x.
    bool linear = true, any = false;
    for (const auto& [key, per] : growth_exponents.items()) {
        if (per.empty()) continue;
        any = true;
        linear = linear && per.back().get<double>() <= 1.2;
    }
    if (any) out["near_linear_growth"] = linear;
    return out;
}

// Every figure in print order: the cases' keys, with the derived figures after their case.
std::vector<std::pair<std::string, std::string>> rows() {
    std::vector<std::pair<std::string, std::string>> out;
    for (const Case& c : cases()) {
        out.emplace_back(c.key, c.what);
        if (c.key == "load_mb_per_s") {
            out.emplace_back("load_ms", "load_buffer, the pair's JSON text");
            out.emplace_back("json_mb", "size of that text, MB");
        }
        if (c.key == "liveset_query_us") out.emplace_back("liveset_mean_live", "storages returned per query");
        if (c.key == "move_rescore_us") out.emplace_back("move_mean_distance", "positions moved per move");
    }
    out.emplace_back("optimize_s", "optimize_schedule, one graph, wall-clock s (time limit --optimize-limit)");
    out.emplace_back("optimize_gain_pct", "its peak below the original order's, %");
    out.emplace_back("optimize_vs_baselines_pct", "its peak below the best of Inductor's lpmf/bfs/dfs, %");
    out.emplace_back("optimize_above_bound_pct", "its peak above the lower bound, % (0: proven optimal)");
    return out;
}

std::string cell(double v) {
    char buf[32];
    if (v >= 100)
        std::snprintf(buf, sizeof buf, "%.0f", v);
    else if (v >= 10)
        std::snprintf(buf, sizeof buf, "%.1f", v);
    else
        std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

void print_table(const Figures& figures, const std::vector<std::size_t>& sizes,
                 const nlohmann::ordered_json& growth_exponents, const nlohmann::ordered_json& target_checks) {
    std::printf("%-24s", "figure");
    for (std::size_t n : sizes) std::printf("%14zu", n);
    std::printf("   what\n");
    for (const auto& [key, what] : rows()) {
        auto it = figures.find(key);
        std::printf("%-24s", key.c_str());
        for (std::size_t n : sizes) {
            const bool has = it != figures.end() && it->second.count(n);
            std::printf("%14s", has ? cell(it->second.at(n)).c_str() : "-");
        }
        std::printf("   %s\n", what.c_str());
    }
    if (!growth_exponents.empty()) {
        std::printf("\ngrowth exponent per size step (1.00 = linear):\n");
        for (const auto& [key, per] : growth_exponents.items()) {
            std::printf("  %-22s", key.c_str());
            for (const auto& [range, e] : per.items()) std::printf("  %s: %.2f", range.c_str(), e.get<double>());
            std::printf("\n");
        }
    }
    if (!target_checks.empty()) {
        std::printf("\ntargets:\n");
        for (const auto& [key, ok] : target_checks.items())
            std::printf("  %-36s %s\n", key.c_str(), ok.get<bool>() ? "met" : "MISSED");
    }
}

} // namespace

int main(int argc, char** argv) {
    bool json = false;
    std::vector<std::size_t> sizes = {10000, 100000, 1000000};
    double min_time = 0.3;
    double optimize_limit = 10;
    std::size_t optimize_max_nodes = 100000;
    std::size_t deep_depth = 50000;
    std::vector<char*> passthrough = {argv[0]};
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--json") {
            json = true;
        } else if (arg == "--sizes") {
            if (i + 1 >= argc) return usage("--sizes needs a list such as 10000,100000");
            auto parsed = parse_sizes(argv[++i]);
            if (!parsed) return usage("--sizes needs a comma-separated list of node counts >= 32");
            sizes = *parsed;
        } else if (arg == "--min-time") {
            if (i + 1 >= argc) return usage("--min-time needs seconds");
            const std::string_view v = argv[++i];
            const auto r = std::from_chars(v.data(), v.data() + v.size(), min_time);
            if (r.ec != std::errc() || r.ptr != v.data() + v.size() || !(min_time > 0))
                return usage("--min-time needs a positive number of seconds");
        } else if (arg == "--optimize-limit" || arg == "--optimize-max-nodes") {
            if (i + 1 >= argc) return usage(std::string(arg) + " needs a value");
            const std::string_view v = argv[++i];
            const bool limit = arg == "--optimize-limit";
            const auto r = limit ? std::from_chars(v.data(), v.data() + v.size(), optimize_limit)
                                 : std::from_chars(v.data(), v.data() + v.size(), optimize_max_nodes);
            if (r.ec != std::errc() || r.ptr != v.data() + v.size() || (limit && !(optimize_limit >= 0)))
                return usage(std::string(arg) +
                             (limit ? " needs seconds (0 skips the optimizer)" : " needs a node count"));
        } else if (arg == "--deep-depth") {
            const std::string_view v = i + 1 < argc ? std::string_view(argv[++i]) : std::string_view();
            const auto r = std::from_chars(v.data(), v.data() + v.size(), deep_depth);
            if (v.empty() || r.ec != std::errc() || r.ptr != v.data() + v.size())
                return usage("--deep-depth needs a number of levels (0 skips the deep module names)");
        } else if (arg.starts_with("--benchmark_")) {
            passthrough.push_back(argv[i]);
        } else if (arg == "-h" || arg == "--help") {
            usage("measures load, profile, peak, score, live-set and incremental-move times on synthetic graphs");
            return 0;
        } else {
            return usage("unknown argument '" + std::string(arg) + "'");
        }
    }
    int bench_argc = static_cast<int>(passthrough.size());
    benchmark::Initialize(&bench_argc, passthrough.data());
    if (bench_argc > 1) return usage(std::string("unknown benchmark flag '") + passthrough[1] + "'");

    fxmem::bench::register_cases(sizes, min_time);
    CollectingReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();

    std::vector<fxmem::bench::OptimizerFigure> optimizer;
    if (optimize_limit > 0) {
        try {
            optimizer = fxmem::bench::measure_optimizer(sizes, optimize_limit, optimize_max_nodes);
        } catch (const std::exception& e) {
            reporter.errors.push_back(std::string("optimize: ") + e.what());
        }
    }
    for (const auto& o : optimizer) {
        const auto pct = [](std::int64_t from, std::int64_t to) {
            return from > 0 ? 100.0 * static_cast<double>(from - to) / static_cast<double>(from) : 0.0;
        };
        reporter.figures["optimize_s"][o.nodes] = o.seconds;
        reporter.figures["optimize_gain_pct"][o.nodes] = pct(o.original, o.peak);
        reporter.figures["optimize_vs_baselines_pct"][o.nodes] = pct(std::min({o.lpmf, o.bfs, o.dfs}), o.peak);
        reporter.figures["optimize_above_bound_pct"][o.nodes] =
            o.lower_bound > 0 ? 100.0 * static_cast<double>(o.peak - o.lower_bound) / static_cast<double>(o.lower_bound)
                              : 0.0;
    }
    std::vector<fxmem::bench::DeepModuleFigure> deep;
    if (deep_depth > 0) {
        std::cerr << "  deep module names, " << deep_depth << ", " << 2 * deep_depth << " and " << 4 * deep_depth
                  << " levels..." << std::endl;
        try {
            deep = fxmem::bench::measure_deep_modules(deep_depth);
        } catch (const std::exception& e) {
            reporter.errors.push_back(std::string("deep modules: ") + e.what());
        }
    }
    const auto growth_exponents = growth(reporter.figures, sizes);
    const auto target_checks = targets(reporter.figures, growth_exponents);
    if (json) {
        nlohmann::ordered_json out;
        out["sizes"] = sizes;
        out["cpus"] = std::thread::hardware_concurrency();
        for (const auto& [key, what] : rows()) {
            auto it = reporter.figures.find(key);
            if (it == reporter.figures.end()) continue;
            nlohmann::ordered_json values = nlohmann::ordered_json::object();
            for (const auto& [n, v] : it->second) values[std::to_string(n)] = v;
            out[key] = values;
        }
        nlohmann::ordered_json opt = nlohmann::ordered_json::array();
        for (const auto& o : optimizer)
            opt.push_back({{"nodes", o.nodes},
                           {"seconds", o.seconds},
                           {"original_peak", o.original},
                           {"baselines", {{"lpmf", o.lpmf}, {"bfs", o.bfs}, {"dfs", o.dfs}}},
                           {"peak", o.peak},
                           {"lower_bound", o.lower_bound},
                           {"exact", o.exact},
                           {"method", o.method}});
        out["optimizer"] = opt;
        nlohmann::ordered_json deep_json = nlohmann::ordered_json::array();
        for (const auto& d : deep)
            deep_json.push_back({{"depth", d.depth},
                                 {"json_bytes", d.json_bytes},
                                 {"ms", d.ms},
                                 {"lookup_bytes", d.lookup_bytes},
                                 {"ms_vs_1x", deep.front().ms > 0 ? d.ms / deep.front().ms : 0.0}});
        out["deep_modules"] = deep_json;
        out["growth_exponent"] = growth_exponents;
        out["targets"] = target_checks;
        out["errors"] = reporter.errors;
        std::cout << out.dump(2) << std::endl;
    } else {
        print_table(reporter.figures, sizes, growth_exponents, target_checks);
        if (!optimizer.empty()) std::printf("\noptimizer (bytes; time limit %g s):\n", optimize_limit);
        for (const auto& o : optimizer)
            std::printf("  %zu nodes: %.2f s; original %lld, lpmf %lld, bfs %lld, dfs %lld -> %lld (%s%s); "
                        "no order can go below %lld\n",
                        o.nodes, o.seconds, static_cast<long long>(o.original), static_cast<long long>(o.lpmf),
                        static_cast<long long>(o.bfs), static_cast<long long>(o.dfs), static_cast<long long>(o.peak),
                        o.method.c_str(), o.exact ? ", optimal" : "", static_cast<long long>(o.lower_bound));
        if (!deep.empty())
            std::printf("\ndeep module names (load_buffer + resolve_roles + Attribution of one node whose module has D "
                        "levels):\n");
        for (const auto& d : deep)
            std::printf("  %gx depth %zu (%zu bytes): %.2f ms (%.2fx), %llu lookups + name bytes hashed or compared by "
                        "the module tree\n",
                        static_cast<double>(d.depth) / static_cast<double>(deep.front().depth), d.depth, d.json_bytes,
                        d.ms, deep.front().ms > 0 ? d.ms / deep.front().ms : 0.0,
                        static_cast<unsigned long long>(d.lookup_bytes));
        for (const std::string& e : reporter.errors) std::printf("FAILED %s\n", e.c_str());
    }
    return reporter.errors.empty() ? 0 : 1;
}
