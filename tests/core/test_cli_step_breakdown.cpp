// fxmem-cli breakdown --whole-step --by module: the running graph's live set under its module
// tree and each carried storage under the module of the run that made it, names qualified by
// the run's module prefix; by role, the app's Breakdown tab. On the bundled whole-step examples
// (worked out storage by storage) and by hand.
#include "cli_run.h"

#include "fxmem/analysis.h"
#include "fxmem/attribution.h"
#include "fxmem/io.h"
#include "fxmem/whole_step.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <tuple>

namespace {

using fxmem_test::CliRun;
using fxmem_test::contains;

const std::filesystem::path kExamplesDir =
    std::filesystem::path(FXMEM_TEST_DATA) / ".." / ".." / "resources" / "examples";

nlohmann::json groups_json(const std::vector<fxmem::Attribution::Group>& groups) {
    nlohmann::json a = nlohmann::json::array();
    for (const fxmem::Attribution::Group& g : groups)
        a.push_back({{"key", g.key}, {"bytes", g.bytes}, {"storages", g.storages}});
    return a;
}

// What the app's Breakdown tab groups by role at whole-step index `k` (ui/analysis/liveatstep.cpp
// and ui/panels/breakdownpanel.cpp): the segment's GraphAnalysis live set, then its carried
// storages, under the segment graph's Attribution. By module, each storage is named instead by
// the graph that made it: the running graph for its own, the run that made a carried one, the
// first run holding a carried parameter (`maker` per live storage, its segment).
struct AppStep {
    std::vector<fxmem::LiveStorage> live;
    std::vector<std::uint32_t> maker; // per live storage: the segment whose graph names its module
    std::shared_ptr<const fxmem::Attribution> attribution;
};

AppStep app_step(const std::shared_ptr<const fxmem::GraphFile>& file, const fxmem::WholeStep& ws, std::size_t k,
                 const fxmem::RoleAssignment& roles) {
    const fxmem::StepPoint at = fxmem::step_point(ws, k);
    const fxmem::StepSegment& seg = ws.segments[at.segment];
    const auto analysis = fxmem::GraphAnalysis::compute(file, seg.graph);
    AppStep out;
    out.live = analysis->live().live_at(at.index);
    out.maker.assign(out.live.size(), at.segment);
    for (const fxmem::CarriedStorage& c : fxmem::carried_at(ws, at.segment)) {
        fxmem::LiveStorage l;
        l.storage = c.storage;
        l.nbytes = c.bytes;
        out.live.push_back(l);
        std::uint32_t maker = c.source.value_or(0xffffffffu); // segment i runs entry i
        for (std::uint32_t s = 0; maker == 0xffffffffu && s < ws.segments.size(); ++s)
            for (std::uint32_t h = ws.held_begin[s]; h < ws.held_begin[s + 1]; ++h)
                if (ws.carried[ws.held[h]].storage == c.storage) maker = s;
        out.maker.push_back(maker);
    }
    out.attribution = std::make_shared<const fxmem::Attribution>(*file, seg.graph, roles);
    return out;
}

// The groups by module at `depth` (none: the finest), worked out storage by storage: the module of
// the graph that made it (the examples have no module prefixes), cut to `depth` components.
nlohmann::json module_groups_by_hand(const fxmem::GraphFile& file, const fxmem::WholeStep& ws, const AppStep& app,
                                     const fxmem::RoleAssignment& roles, std::optional<std::uint32_t> depth) {
    std::map<std::string, std::pair<std::int64_t, std::uint32_t>> by_key;
    std::map<std::int32_t, fxmem::Attribution> attributions;
    for (std::size_t i = 0; i < app.live.size(); ++i) {
        std::string module;
        if (app.maker[i] != 0xffffffffu) {
            const fxmem::GraphId g = ws.segments[app.maker[i]].graph;
            auto it = attributions.find(g.value);
            if (it == attributions.end()) it = attributions.try_emplace(g.value, file, g, roles).first;
            module = std::string(it->second.tree()[it->second.owner(app.live[i].storage)].name);
        }
        if (depth) { // its first `depth` dotted components
            std::string cut;
            std::size_t from = 0;
            for (std::uint32_t d = 0; d < *depth && from <= module.size() && !module.empty(); ++d) {
                const std::size_t dot = std::min(module.find('.', from), module.size());
                cut += (d ? "." : "") + module.substr(from, dot - from);
                from = dot + 1;
            }
            module = cut;
        }
        auto& [bytes, storages] = by_key[module];
        bytes += app.live[i].nbytes;
        ++storages;
    }
    std::vector<std::tuple<std::int64_t, std::string, std::uint32_t>> rows;
    for (const auto& [key, v] : by_key) rows.emplace_back(-v.first, key, v.second);
    std::sort(rows.begin(), rows.end());
    nlohmann::json a = nlohmann::json::array();
    for (const auto& [bytes, key, storages] : rows)
        a.push_back({{"key", key}, {"bytes", -bytes}, {"storages", storages}});
    return a;
}

} // namespace

// gpt_break's region1 (norm, head) carries storages into region0's backward: they were filed under
// the running graph's tree, so at its root ("(root)" in the app; blocks.5.head with a prefix).
TEST(CliStepBreakdown, ByModuleNamesEachStorageByTheGraphThatMadeIt) {
    for (const char* name : {"gpt_break.fxmem.json", "gpt_adam.fxmem.json"}) {
        const std::string path = (kExamplesDir / name).string();
        const auto file = std::make_shared<const fxmem::GraphFile>(fxmem::load_file(path));
        ASSERT_TRUE(std::all_of(file->step.begin(), file->step.end(),
                                [](const fxmem::StepEntry& e) { return e.module_prefix.empty(); }));
        const fxmem::WholeStep ws = fxmem::whole_step(*file, fxmem::default_counted(*file));
        const fxmem::RoleAssignment roles = fxmem::resolve_roles(*file);
        // The peak, and the middle of every run.
        std::vector<std::size_t> steps = {ws.peak_index};
        for (const fxmem::StepSegment& s : ws.segments) steps.push_back(s.begin + s.length / 2);
        for (const std::size_t k : steps) {
            SCOPED_TRACE(std::string(name) + " step " + std::to_string(k));
            const AppStep app = app_step(file, ws, k, roles);
            const fxmem::Attribution& a = *app.attribution;
            for (const std::optional<std::uint32_t> depth :
                 {std::optional<std::uint32_t>(), std::optional<std::uint32_t>(0), std::optional<std::uint32_t>(1),
                  std::optional<std::uint32_t>(2), std::optional<std::uint32_t>(99)}) {
                std::vector<std::string> args = {"breakdown",       path,   "--whole-step", "--step",
                                                 std::to_string(k), "--by", "module",       "--json"};
                if (depth) args.insert(args.end(), {"--depth", std::to_string(*depth)});
                const CliRun r = fxmem_test::cli(args);
                ASSERT_EQ(r.status, 0) << r.err;
                const nlohmann::json j = r.json();
                EXPECT_EQ(j["by"], "module");
                EXPECT_EQ(j["step"], k);
                EXPECT_EQ(j["total"], ws.timeline[k]);
                EXPECT_EQ(j["groups"], module_groups_by_hand(*file, ws, app, roles, depth))
                    << "--depth " << (depth ? std::to_string(*depth) : "none");
            }
            // By role it is the tab's role table, as before.
            const CliRun r =
                fxmem_test::cli({"breakdown", path, "--whole-step", "--step", std::to_string(k), "--json"});
            ASSERT_EQ(r.status, 0) << r.err;
            EXPECT_EQ(r.json()["by"], "role");
            EXPECT_EQ(r.json()["groups"], groups_json(a.by_role(app.live)));
        }
    }
}

// One region run under model.blocks.0: f0 makes a (20 B) and b (30 B) in its module "lin" from the
// parameter lin.weight (100 B) and an input (10 B). At whole-step index 3 (after b) f0 holds
// all four and carries nothing: lin.weight, a and b in model.blocks.0.lin, the input at the run's
// root, model.blocks.0. --depth counts from the model's root.
TEST(CliStepBreakdown, ByModuleNamesModulesFromTheModelsRoot) {
    const auto t = [](int s) {
        return R"({"storage": )" + std::to_string(s) +
               R"(, "dtype": "float32", "shape": [1], "stride": [1], "offset": 0})";
    };
    const auto node = [](const std::string& name, const std::string& op, const std::string& inputs,
                         const std::string& val, const std::string& module) {
        return R"({"name": ")" + name + R"(", "op": ")" + op + R"(", "target": ")" + name + R"(", "inputs": [)" +
               inputs + R"(], "val": )" + val + (module.empty() ? "" : R"(, "module": ")" + module + "\"") + "}";
    };
    const std::string text =
        R"({"format": "fxmem", "version": 1, "storages": [
{"id": 0, "device": "cuda:0", "nbytes": 100, "role": "parameter", "label": "lin.weight"},
{"id": 1, "device": "cuda:0", "nbytes": 10, "role": "input"},
{"id": 2, "device": "cuda:0", "nbytes": 20, "role": "activation"},
{"id": 3, "device": "cuda:0", "nbytes": 30, "role": "output"},
{"id": 4, "device": "cuda:0", "nbytes": 30, "role": "tangent"},
{"id": 5, "device": "cuda:0", "nbytes": 100, "role": "gradient", "label": "grad of lin.weight"}],
"graphs": [{"name": "f0", "kind": "forward", "nodes": [)" +
        node("primals_1", "placeholder", "", t(0), "") + "," + node("primals_2", "placeholder", "", t(1), "") + "," +
        node("a", "call_function", R"("primals_1", "primals_2")", t(2), "lin") + "," +
        node("b", "call_function", R"("a")", t(3), "lin") + "," + node("output", "output", R"("b", "a")", "null", "") +
        R"(]}, {"name": "b0", "kind": "backward", "nodes": [)" + node("a_saved", "placeholder", "", t(2), "") + "," +
        node("tangents_1", "placeholder", "", t(4), "") + "," +
        node("gw", "call_function", R"("a_saved", "tangents_1")", t(5), "lin") + "," +
        node("output", "output", R"("gw")", "null", "") + R"(]}], "pairs": [{"forward": "f0", "backward": "b0"}],
"step": [{"graph": "f0", "call": 0, "module_prefix": "model.blocks.0"},
         {"graph": "b0", "call": 0, "module_prefix": "model.blocks.0"}]})";
    const std::string path = fxmem_test::scratch_dir() + "/one_run.json";
    fxmem_test::write(path, text);
    const auto groups = [&](std::vector<std::string> extra) {
        std::vector<std::string> args = {"breakdown", path, "--whole-step", "--step", "3", "--by", "module", "--json"};
        args.insert(args.end(), extra.begin(), extra.end());
        const CliRun r = fxmem_test::cli(args);
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.json()["total"], 160);
        EXPECT_EQ(r.json()["module_prefix"], "model.blocks.0");
        return r.json()["groups"];
    };
    const nlohmann::json finest = nlohmann::json::parse(R"([{"key": "model.blocks.0.lin", "bytes": 150, "storages": 3},
        {"key": "model.blocks.0", "bytes": 10, "storages": 1}])");
    EXPECT_EQ(groups({}), finest);
    EXPECT_EQ(groups({"--depth", "4"}), finest);
    EXPECT_EQ(groups({"--depth", "99"}), finest);
    EXPECT_EQ(groups({"--depth", "3"}),
              nlohmann::json::parse(R"([{"key": "model.blocks.0", "bytes": 160, "storages": 4}])"));
    EXPECT_EQ(groups({"--depth", "2"}),
              nlohmann::json::parse(R"([{"key": "model.blocks", "bytes": 160, "storages": 4}])"));
    EXPECT_EQ(groups({"--depth", "1"}), nlohmann::json::parse(R"([{"key": "model", "bytes": 160, "storages": 4}])"));
    EXPECT_EQ(groups({"--depth", "0"}), nlohmann::json::parse(R"([{"key": "", "bytes": 160, "storages": 4}])"));
    const CliRun r =
        fxmem_test::cli({"breakdown", path, "--whole-step", "--step", "3", "--by", "module", "--depth", "2"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "160 B (160 bytes), by module at depth 2\n")) << r.out;
    EXPECT_TRUE(contains(r.out, "module (the graph's and carried)")) << r.out;
    EXPECT_TRUE(contains(r.out, "160 B         4  model.blocks\n")) << r.out;
}
