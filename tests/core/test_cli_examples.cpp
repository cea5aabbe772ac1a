// fxmem-cli on the exporter's bundled examples (resources/examples/*.fxmem.json): each carries a
// "reference" block with PyTorch's own numbers, computed by torch on the graphs that were exported.
// The CLI must reproduce them to the byte: the loader, the estimator and the CLI together.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

const fs::path kExamplesDir = fs::path(FXMEM_TEST_DATA) / ".." / ".." / "resources" / "examples";

std::string quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// Runs the CLI and parses its stdout; fails the test on a non-zero exit.
nlohmann::json cli_json(const std::vector<std::string>& args) {
    std::string cmd = quote(FXMEM_CLI_PATH);
    for (const std::string& a : args) cmd += " " + quote(a);
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
    if (!pipe) {
        ADD_FAILURE() << "cannot run " << cmd;
        return {};
    }
    std::string out;
    char buf[1 << 14];
    while (const std::size_t n = fread(buf, 1, sizeof buf, pipe.get())) out.append(buf, n);
    const int status = pclose(pipe.release());
    EXPECT_EQ(status, 0) << cmd;
    return nlohmann::json::parse(out, nullptr, false);
}

} // namespace

TEST(CliExamples, ReproducePyTorchReferenceNumbers) {
    if (!fs::is_directory(kExamplesDir)) GTEST_SKIP() << "no " << kExamplesDir;
    int checked = 0;
    for (const auto& entry : fs::directory_iterator(kExamplesDir)) {
        const std::string path = entry.path().string();
        if (!path.ends_with(".fxmem.json")) continue;
        SCOPED_TRACE(path);
        std::ifstream in(path);
        const auto doc = nlohmann::json::parse(in);
        if (!doc.contains("reference")) continue;
        const auto& ref = doc["reference"];
        const std::string dir = ::testing::TempDir();
        for (const auto& [graph, numbers] : ref["graphs"].items()) {
            SCOPED_TRACE(graph);
            // build_memory_profile(graph, _is_releasable)
            const auto profile = cli_json({"profile", path, "--graph", graph, "--json"});
            EXPECT_EQ(profile["profile"], numbers["profile"]);
            // MemoryTracker scheduling every node in graph order.
            nlohmann::json sched = {{"graph", graph}, {"order", nlohmann::json::array()}};
            for (const auto& g : doc["graphs"])
                if (g["name"] == graph)
                    for (const auto& n : g["nodes"]) sched["order"].push_back(n["name"]);
            const std::string sched_path = dir + "/fxmem_example_order_" + std::to_string(::getpid()) + ".json";
            std::ofstream(sched_path) << sched.dump();
            // PyTorch's MemoryTracker with its defaults: the graph alone (a pair's backward is
            // scored in its pair unless --standalone).
            const auto score = cli_json({"score", path, "--schedule", sched_path, "--standalone", "--json"});
            EXPECT_EQ(score["peak"], numbers["tracker_peak"]);
            EXPECT_EQ(score["current"], numbers["tracker_current"]);
            ++checked;
        }
        // Named schedules (the exporter's overlap=True): MemoryTracker on the stored order, by name.
        for (const auto& named : ref.value("schedules", nlohmann::json::array())) {
            SCOPED_TRACE(named["name"].get<std::string>() + " of " + named["graph"].get<std::string>());
            const auto score = cli_json({"score", path, "--schedule", named["name"].get<std::string>(), "--graph",
                                         named["graph"].get<std::string>(), "--standalone", "--json"});
            EXPECT_EQ(score["peak"], named["tracker_peak"]);
            EXPECT_EQ(score["current"], named["tracker_current"]);
            ++checked;
        }
        const auto& pairs = ref.contains("pairs") ? ref["pairs"] : nlohmann::json::array();
        for (std::size_t i = 0; i < pairs.size(); ++i) {
            // get_peak_memory as intended (PyTorch's own raises TypeError, see docs/format.md).
            const auto peak = cli_json({"peak", path, "--pair", std::to_string(i), "--json"});
            for (const char* key : {"forward_peak", "backward_baseline", "backward_peak", "peak"})
                EXPECT_EQ(peak[key], pairs[i]["intended"][key]) << key;
            ++checked;
        }
    }
    EXPECT_GT(checked, 0);
}
