// Defects issue 39's adversarial round found in fxmem-cli (each failed before its fix): a path
// that is not UTF-8 aborted info/diff --json and export --perfetto (nlohmann's type_error 316);
// diff, fit, export and layout printed no all-CPU note, and `diff old.json cpu.json` passed;
// export --memory-viz aborted when the sizes rounded to 512-byte blocks passed 2^63; --memory 0.9B
// was 0 bytes and --expand "" nothing; layout escaped each full module name before cutting it.
#include "cli_run.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace {

using fxmem_test::CliRun;
using fxmem_test::contains;

const std::string kOld = kData + "/good/diff_old.json";
const std::string kSymbolic = kData + "/good/symbolic.json";

std::string copy_as(const std::string& from, const std::string& name, const std::string& cuda_to = "cuda:0") {
    const std::string path = fxmem_test::scratch_dir() + "/" + name;
    fxmem_test::write(path, fxmem_test::replace_all(fxmem_test::slurp(from), "\"cuda:0\"", "\"" + cuda_to + "\""));
    return path;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

} // namespace

// The path went into the JSON as its bytes, which nlohmann refuses to write: exit 134.
TEST(HostileRound4, APathThatIsNotUtf8IsEscapedInJson) {
    const std::string odd = copy_as(kOld, "caf\xe9.json");
    CliRun r = fxmem_test::cli({"info", odd, "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.json()["file"].get<std::string>().ends_with("/caf\\xe9.json")) << r.out;

    r = fxmem_test::cli({"diff", kOld, odd, "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.json()["new"]["file"].get<std::string>().ends_with("/caf\\xe9.json")) << r.out;
    EXPECT_EQ(r.json()["delta"], 0);

    const std::string trace = fxmem_test::scratch_dir() + "/trace.json";
    r = fxmem_test::cli({"export", odd, "--pair", "0", "--perfetto", trace});
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(fxmem_test::slurp(trace));
    bool named = false;
    for (const auto& e : j["traceEvents"])
        if (e["name"] == "process_name") named = e["args"]["name"].get<std::string>().ends_with("/caf\\xe9.json");
    EXPECT_TRUE(named);
}

// docs/format.md: the first line of every human-readable output says that nothing counts.
TEST(HostileRound4, TheAllCpuNoteOpensEveryHumanReadableOutput) {
    const std::string cpu = copy_as(kOld, "cpu.json", "cpu");
    const std::string note = "note: every storage of " + cpu + " is on the CPU";
    CliRun r = fxmem_test::cli({"export", cpu, "--pair", "0", "--perfetto", fxmem_test::scratch_dir() + "/t.json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(first_line(r.out).starts_with(note)) << r.out;
    r = fxmem_test::cli({"layout", cpu, "--pair", "0"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(first_line(r.out).starts_with(note)) << r.out;
    const std::string cpu_symbolic = copy_as(kSymbolic, "cpu_symbolic.json", "cpu");
    r = fxmem_test::cli({"fit", cpu_symbolic, "--memory", "1000", "--vary", "s0", "--set", "s1=10"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(first_line(r.out).starts_with("note: every storage of " + cpu_symbolic + " is on the CPU")) << r.out;
    // Both on the CPU: compared (0 B each), the notes first.
    r = fxmem_test::cli({"diff", cpu, cpu});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(first_line(r.out).starts_with(note)) << r.out;
    // One on the CPU: "ok: the pair peak shrank ... to 0 B" passed any CI limit.
    for (const auto& [a, b] : {std::pair(kOld, cpu), std::pair(cpu, kOld)}) {
        r = fxmem_test::cli({"diff", a, b, "--max-increase", "5%"});
        EXPECT_EQ(r.status, 1) << r.out;
        EXPECT_TRUE(contains(r.err, cpu + ": every storage is on the CPU, which fxmem does not count")) << r.err;
        EXPECT_TRUE(contains(r.err, "the peaks cannot be compared")) << r.err;
        EXPECT_EQ(fxmem_test::cli({"diff", a, b, "--json"}).status, 1);
    }
}

// Two storages of 2^62 - 511 bytes sum below 2^63; rounded to 512-byte blocks they pass it:
// PickleWriter aborted ("more items than announced").
TEST(HostileRound4, MemoryVizRefusesSizesWhoseBlocksPassInt64) {
    const std::string path = fxmem_test::scratch_dir() + "/huge.json";
    fxmem_test::write(path, R"({"format": "fxmem", "version": 1,
"storages": [{"id": 0, "device": "cuda:0", "nbytes": 4611686018427387393},
             {"id": 1, "device": "cuda:0", "nbytes": 4611686018427387393}],
"graphs": [{"name": "g", "kind": "inference", "nodes": [
  {"name": "x", "op": "placeholder", "target": "x", "inputs": [], "val": {"storage": 0, "dtype": "torch.uint8", "shape": [4611686018427387393], "stride": [1], "offset": 0}},
  {"name": "y", "op": "placeholder", "target": "y", "inputs": [], "val": {"storage": 1, "dtype": "torch.uint8", "shape": [4611686018427387393], "stride": [1], "offset": 0}},
  {"name": "output", "op": "output", "target": "output", "inputs": ["x", "y"], "val": null}]}]})");
    const std::string out = fxmem_test::scratch_dir() + "/huge.pickle";
    CliRun r = fxmem_test::cli({"export", path, "--memory-viz", out});
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    EXPECT_TRUE(contains(r.err, path + ": memory_viz counts each size rounded up to 512-byte blocks")) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out));
    r = fxmem_test::cli({"export", path, "--perfetto", fxmem_test::scratch_dir() + "/huge_trace.json"});
    EXPECT_EQ(r.status, 0) << r.err; // the exact sizes fit
}

TEST(HostileRound4, EmptyNamesAndFractionsOfAByteAreBadUsage) {
    const std::string modules = kData + "/good/modules.json";
    for (const char* list : {"", ",", "a,,b", "a,"}) {
        const CliRun r = fxmem_test::cli({"layout", modules, "--graph", "fwd", "--expand", list});
        EXPECT_EQ(r.status, 2) << list << ": " << r.out;
        EXPECT_TRUE(contains(r.err, "--expand needs module names separated by commas")) << r.err;
    }
    for (const char* memory : {"0.9B", "0.5", "0.0001kB"}) {
        const CliRun r = fxmem_test::cli({"fit", kSymbolic, "--memory", memory, "--vary", "s0"});
        EXPECT_EQ(r.status, 2) << memory << ": " << r.out;
        EXPECT_TRUE(contains(r.err, "fit: --memory needs a positive size in bytes")) << r.err;
    }
}

// A node 20,000 modules deep: each module's name was escaped whole (20,000 names averaging 40 KB)
// before being cut to 60 characters. The cut names: head, "…", tail, escaped as before.
TEST(HostileRound4, LayoutCutsDeepModuleNamesBeforeEscapingThem) {
    constexpr int kDepth = 20000;
    std::string module = "m\xe2\x80\xae"; // a U+202E in the outermost name: escaped in every cut
    for (int d = 1; d < kDepth; ++d) module += ".m";
    const std::string path = fxmem_test::scratch_dir() + "/deep.json";
    fxmem_test::write(
        path, R"({"format": "fxmem", "version": 1,
"storages": [{"id": 0, "device": "cuda:0", "nbytes": 64}, {"id": 1, "device": "cuda:0", "nbytes": 64}],
"graphs": [{"name": "g", "kind": "inference", "nodes": [
  {"name": "x", "op": "placeholder", "target": "x", "inputs": [], "val": {"storage": 0, "dtype": "torch.float32", "shape": [16], "stride": [1], "offset": 0}},
  {"name": "y", "op": "call_function", "target": "aten.relu.default", "inputs": ["x"], "module": ")" +
                  module +
                  R"(", "val": {"storage": 1, "dtype": "torch.float32", "shape": [16], "stride": [1], "offset": 0}},
  {"name": "output", "op": "output", "target": "output", "inputs": ["y"], "val": null}]}]})");
    const CliRun r = fxmem_test::cli({"layout", path, "--depth", std::to_string(kDepth)});
    ASSERT_EQ(r.status, 0) << r.err;
    // The deepest module's name escaped (40,005 characters), then cut: its first 29, "…", its last 30.
    std::string escaped = "m\\u202e";
    for (int d = 1; d < kDepth; ++d) escaped += ".m";
    const std::string cut = escaped.substr(0, 29) + "\xe2\x80\xa6" + escaped.substr(escaped.size() - 30);
    EXPECT_EQ(cut, "m\\u202e.m.m.m.m.m.m.m.m.m.m.m\xe2\x80\xa6.m.m.m.m.m.m.m.m.m.m.m.m.m.m.m");
    EXPECT_TRUE(contains(r.out, "\n  " + cut + "  64 B\n")) << r.out.substr(0, 2000);
    EXPECT_FALSE(contains(r.out, "\xe2\x80\xae")); // no raw U+202E anywhere
}
