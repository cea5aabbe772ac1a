// fxmem-cli export --perfetto: the Chrome-trace JSON loaded back and its counters checked against
// fxmem-cli's own numbers at every step (profile --whole-step, profile --graph, score in the pair),
// its slices nested phase > graph > node, and the peaks marked.
#include "cli_run.h"
#include "test_paths.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace {

using fxmem_test::cli;
using fxmem_test::CliRun;

struct Trace {
    nlohmann::json events;
    // Per counter name: its value at every step 0 .. steps-1 (a counter holds its last value).
    std::map<std::string, std::vector<std::int64_t>> counters;
    std::vector<nlohmann::json> slices(const std::string& cat) const {
        std::vector<nlohmann::json> out;
        for (const auto& e : events)
            if (e["ph"] == "X" && e["cat"] == cat) out.push_back(e);
        return out;
    }
};

Trace exported(const std::vector<std::string>& args, std::size_t steps) {
    const std::string out = fxmem_test::scratch_dir() + "/trace.json";
    std::vector<std::string> a = {"export"};
    a.insert(a.end(), args.begin(), args.end());
    a.insert(a.end(), {"--perfetto", out});
    const CliRun r = cli(a);
    EXPECT_EQ(r.status, 0) << r.err;
    Trace t;
    t.events = nlohmann::json::parse(fxmem_test::slurp(out))["traceEvents"];
    std::map<std::string, std::map<std::size_t, std::int64_t>> points;
    for (const auto& e : t.events)
        if (e["ph"] == "C") points[e["name"]][e["ts"].get<std::size_t>()] = e["args"]["bytes"].get<std::int64_t>();
    for (const auto& [name, at] : points) {
        std::vector<std::int64_t>& v = t.counters[name];
        v.assign(steps, 0);
        for (std::size_t i = 0; i < steps; ++i) {
            const auto it = at.upper_bound(i);
            v[i] = it == at.begin() ? 0 : std::prev(it)->second;
        }
    }
    return t;
}

// Every role counter adds up to the total at every step.
void expect_roles_add_up(const Trace& t) {
    const std::vector<std::int64_t>& total = t.counters.at("total");
    for (std::size_t i = 0; i < total.size(); ++i) {
        std::int64_t sum = 0;
        for (const auto& [name, v] : t.counters)
            if (name.starts_with("role: ")) sum += v[i];
        ASSERT_EQ(sum, total[i]) << "step " << i;
    }
}

// Each slice lies inside one of `outer`.
void expect_nested(const std::vector<nlohmann::json>& inner, const std::vector<nlohmann::json>& outer) {
    for (const auto& s : inner) {
        bool inside = false;
        for (const auto& o : outer)
            inside = inside || (s["ts"] >= o["ts"] && s["ts"].get<std::int64_t>() + s["dur"].get<std::int64_t>() <=
                                                          o["ts"].get<std::int64_t>() + o["dur"].get<std::int64_t>());
        EXPECT_TRUE(inside) << s.dump();
    }
}

} // namespace

TEST(CliExport, PerfettoWholeStepMatchesTheProfileAtEveryStep) {
    const std::string file = kExamples + "/gpt_break.fxmem.json";
    const nlohmann::json profile = cli({"profile", file, "--whole-step", "--json"}).json();
    const std::vector<std::int64_t> timeline = profile["timeline"];
    const Trace t = exported({file}, timeline.size()); // a file with a step: the whole step by default
    EXPECT_EQ(t.counters.at("total"), timeline);
    expect_roles_add_up(t);
    EXPECT_TRUE(t.counters.contains("role: optimizer_state"));
    // Graph slices are the profile's segments; phases forward then backward; nodes inside graphs.
    const auto graphs = t.slices("graph");
    ASSERT_EQ(graphs.size(), profile["segments"].size());
    for (std::size_t s = 0; s < graphs.size(); ++s) {
        EXPECT_EQ(graphs[s]["ts"], profile["segments"][s]["begin"]);
        EXPECT_EQ(graphs[s]["dur"], profile["segments"][s]["length"]);
    }
    const auto phases = t.slices("phase");
    ASSERT_EQ(phases.size(), 2u);
    EXPECT_EQ(phases[0]["name"], "forward");
    EXPECT_EQ(phases[1]["name"], "backward");
    expect_nested(graphs, phases);
    const auto nodes = t.slices("node");
    std::size_t expected_nodes = 0;
    for (const auto& s : profile["segments"]) expected_nodes += (s["length"].get<std::size_t>() - 1) / 2;
    EXPECT_EQ(nodes.size(), expected_nodes);
    expect_nested(nodes, graphs);
    // The peak instant at the whole step's peak.
    const nlohmann::json peak = cli({"peak", file, "--whole-step", "--json"}).json();
    bool marked = false;
    for (const auto& e : t.events)
        if (e["ph"] == "i" && e["name"] == "peak") {
            EXPECT_EQ(e["ts"], peak["peak_step"]);
            EXPECT_EQ(e["args"]["bytes"], peak["peak"]);
            marked = true;
        }
    EXPECT_TRUE(marked);
}

TEST(CliExport, PerfettoGraphMatchesProfile) {
    const std::string file = kGood + "/pair.json";
    for (const char* graph : {"fwd", "bwd"}) {
        const std::vector<std::int64_t> profile = cli({"profile", file, "--graph", graph, "--json"}).json()["profile"];
        const Trace t = exported({file, "--graph", graph}, profile.size());
        EXPECT_EQ(t.counters.at("total"), profile) << graph;
        expect_roles_add_up(t);
    }
}

TEST(CliExport, PerfettoPairIsTheJoinedView) {
    // llama's pair: the forward's profile, then the backward scored in its pair plus the baseline;
    // after each backward node frees, that is score's "current" (in pair) plus the baseline.
    const std::string file = kExamples + "/llama.fxmem.json";
    const nlohmann::json doc = nlohmann::json::parse(fxmem_test::slurp(file));
    std::vector<std::string> order;
    std::vector<bool> in_profile; // score's "current" has every node; the profile all but these
    for (const auto& g : doc["graphs"])
        if (g["name"] == "backward")
            for (const auto& n : g["nodes"]) {
                order.push_back(n["name"]);
                in_profile.push_back(n["op"] != "placeholder" && n["op"] != "get_attr" && n["op"] != "output");
            }
    const std::string sched = fxmem_test::scratch_dir() + "/order.json";
    fxmem_test::write(sched, nlohmann::json({{"graph", "backward"}, {"order", order}}).dump());
    const nlohmann::json score = cli({"score", file, "--schedule", sched, "--json"}).json();
    const std::vector<std::int64_t> forward = cli({"profile", file, "--graph", "forward", "--json"}).json()["profile"];
    std::vector<std::int64_t> current;
    for (std::size_t i = 0; i < order.size(); ++i)
        if (in_profile[i]) current.push_back(score["current"][i]);
    const std::int64_t baseline = score["baseline"];
    const std::size_t steps = forward.size() + 1 + 2 * current.size();
    const Trace t = exported({file, "--pair", "0"}, steps);
    const std::vector<std::int64_t>& total = t.counters.at("total");
    for (std::size_t i = 0; i < forward.size(); ++i) ASSERT_EQ(total[i], forward[i]) << i;
    for (std::size_t k = 0; k < current.size(); ++k)
        ASSERT_EQ(total[forward.size() + 2 + 2 * k], current[k] + baseline) << k;
    EXPECT_EQ(*std::max_element(total.begin(), total.end()), cli({"peak", file, "--json"}).json()["peak"]);
    expect_roles_add_up(t);
}

TEST(CliExport, Usage) {
    EXPECT_EQ(cli({"export", kGood + "/pair.json"}).status, 2);
    EXPECT_EQ(
        cli({"export", kGood + "/pair.json", "--perfetto", "/tmp/x.json", "--graph", "fwd", "--pair", "0"}).status, 2);
    EXPECT_EQ(cli({"export", kGood + "/pair.json", "--perfetto", "/nonexistent-dir/x.json"}).status, 1);
    EXPECT_EQ(cli({"export", kGood + "/pair.json", "--perfetto", "/tmp/x.json", "--whole-step"}).status, 1);
}
