// The loader's fast tokenizer against nlohmann's path: whatever loads gives the same GraphFile
// (compared through to_json), and whatever fails gives the same message, byte for byte.
#include "fxmem/error.h"
#include "fxmem/io.h"
#include "io/load_paths.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using namespace fxmem;
using namespace std::string_literals;
namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The loaded file as JSON, or "error: <message>".
std::string outcome(std::string_view text, bool nlohmann_only) {
    try {
        const GraphFile f = nlohmann_only ? load_buffer_nlohmann(text, "t.json", {}) : load_buffer(text, "t.json");
        return to_json(f);
    } catch (const Error& e) {
        return std::string("error: ") + e.what();
    }
}

// Whether the fast path alone loads the text (no decline, no Error).
bool fast_takes(std::string_view text) {
    try {
        return load_buffer_fast(text, "t.json", {}).has_value();
    } catch (const Error&) {
        return false;
    }
}

void expect_same(std::string_view text, const std::string& label) {
    EXPECT_EQ(outcome(text, false), outcome(text, true)) << label;
}

std::vector<fs::path> json_files(const fs::path& dir) {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".json") out.push_back(e.path());
    return out;
}

const fs::path kDataDir = fs::path(FXMEM_TEST_DATA);
const fs::path kExamplesDir = kDataDir / ".." / ".." / "resources" / "examples";

// A small valid file; `node_extra` goes into the second node's object.
std::string small_file(const std::string& node_extra, const std::string& top_extra = "") {
    return R"({"format": "fxmem", "version": 1,)" + top_extra + R"(
  "storages": [{"id": 0, "device": "cuda:0", "nbytes": 64}],
  "graphs": [{"name": "g", "kind": "inference", "nodes": [
    {"name": "x", "op": "placeholder", "target": "x", "inputs": [],
     "val": {"storage": 0, "dtype": "float32", "shape": [4, 4], "stride": [4, 1], "offset": 0}},
    {"name": "out", "op": "output", "target": "output", "inputs": ["x"], "val": null)" +
           node_extra + R"(}]}]})";
}

} // namespace

TEST(IoFast, ExamplesLoadTheSameBothWays) {
    const auto files = json_files(kExamplesDir);
    ASSERT_GE(files.size(), 5u);
    for (const auto& p : files) {
        const std::string text = read_text(p);
        const std::string fast = outcome(text, false);
        EXPECT_EQ(fast.rfind("error", 0), std::string::npos) << p << ": " << fast.substr(0, 200);
        EXPECT_EQ(fast, outcome(text, true)) << p;
        EXPECT_TRUE(fast_takes(text)) << p << ": the fast path declined it";
    }
}

TEST(IoFast, GoodAndBadCorpusGiveTheSameOutcomeBothWays) {
    std::size_t n = 0;
    for (const char* dir : {"good", "bad"})
        for (const auto& p : json_files(kDataDir / dir)) {
            expect_same(read_text(p), p.string());
            ++n;
        }
    EXPECT_GE(n, 80u);
}

TEST(IoFast, FastPathTakesGoodFilesAndDeclinesWhatItLeavesToNlohmann) {
    for (const auto& p : json_files(kDataDir / "good")) {
        const std::string text = read_text(p);
        if (outcome(text, true).rfind("error", 0) == 0) continue; // a schedule file, say
        EXPECT_TRUE(fast_takes(text)) << p;
    }
    EXPECT_TRUE(fast_takes(small_file(R"(, "stack_trace": "a\"b\\c\/\n\u00e9\u4e2d")")));
    EXPECT_TRUE(fast_takes(small_file(", \"stack_trace\": \"caf\xc3\xa9\"")));
    EXPECT_TRUE(fast_takes(small_file(R"(, "meta": {"f": 1.5, "g": -0.25e-3, "h": 1E+2})")));
    EXPECT_FALSE(fast_takes(small_file(R"(, "meta": {"f": 1e999})"))); // out of range: nlohmann's call
    EXPECT_FALSE(fast_takes(small_file(R"(, "meta": {"f": 1.})")));
    EXPECT_FALSE(fast_takes(small_file(R"(, "stack_trace": "\ud83d\ude00")")));
    EXPECT_FALSE(fast_takes(small_file("") + ","));
}

TEST(IoFast, TextTheFastPathHandlesOrDeclines) {
    const std::vector<std::string> cases = {
        small_file(""),
        small_file(R"(, "stack_trace": "a\"b\\c\/d\b\f\n\r\t\u00e9\u4e2d\u0000z")"),
        small_file(R"(, "stack_trace": "caf\u00e9 \ud83d\ude00 surrogate pair")"),
        small_file(", \"stack_trace\": \"UTF-8 as is: caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80\""),
        small_file(", \"stack_trace\": \"bad UTF-8: \xc0\xaf\""),
        small_file(", \"stack_trace\": \"truncated UTF-8: \xe4\xb8\""),
        small_file(", \"stack_trace\": \"raw control \x01 char\""),
        small_file(R"(, "meta": {"a": [1, -2, 3.5, 1e3, true, false, null, "s\n"], "b": {}, "c": []})"),
        small_file(
            R"(, "meta": {"big": 18446744073709551615, "bigger": 18446744073709551616, "neg": -9223372036854775808})"),
        small_file(R"(, "meta": {"negzero": -0, "lead": 01})"),
        small_file(R"(, "extra": [[[[]]]], "more": {"x": {"y": {"z": 1}}})"),
        small_file("", R"( "producer": {"torch": "2.13", "n": [1, 2]},)"),
        small_file("", R"( "producer": "plain",)"),
        small_file("", R"( "producer": 12,)"),
        small_file(R"(, "stack_trace": 1.5)"),
        small_file(R"(, "flops": 2.5)"),
        small_file(R"(, "flops": 12, "phase": "backward")"),
        small_file(R"(, "meta": {"f": 1.5e3, "g": -0.0, "h": 1e999, "i": 2E-2})"),
        small_file(R"(, "meta": {"f": 1.})"),
        small_file(R"(, "meta": {"f": 1.e5})"),
        small_file(R"(, "meta": {"f": .5})"),
        small_file(R"(, "stack_trace": "x",)"),
        small_file(R"(, "stack_trace" "x")"),
        small_file(R"(, "stack_trace": tru)"),
        small_file(R"(, "stack_trace": nul)"),
        small_file(R"(, "stack_trace": "\x")"),
        small_file(R"(, "stack_trace": "\u12")"),
        small_file(R"(, "inputs": ["x"])"),
        small_file(R"(, "meta": {"a": 1} )"),
        small_file("") + " trailing",
        small_file("") + "\n\t ",
        "\xEF\xBB\xBF" + small_file(""),
        small_file("").substr(0, 150),
        "{\"format\": \"fxmem\"\0, \"version\": 1}"s,
        "   ",
        "[]",
        "{}",
        "nul",
        "-",
        "12",
        "{\"format\": \"fxmem\", \"version\": 1, \"storages\": [], \"graphs\": [], \"pairs\": [{\"forward\": \"a\"}]}",
    };
    for (std::size_t i = 0; i < cases.size(); ++i) expect_same(cases[i], "case " + std::to_string(i));
}

// The tokenizer scans plain text 8 bytes at a time; put each kind of special byte at every
// offset of two such words (and inside node names, which the builder indexes) so that no
// alignment lets one slip through or cut a run short.
TEST(IoFast, SpecialBytesAtEveryOffsetOfTheWordScan) {
    const std::vector<std::string> specials = {
        "\\\"", "\\\\", "\\n",      "\\u00e9", "\xc3\xa9", "\xe4\xb8\xad", "\xf0\x9f\x98\x80",
        "\x01", "\x7f", "\xc0\xaf", "\xe4\xb8"};
    int taken = 0;
    for (const std::string& special : specials) {
        for (std::size_t at = 0; at < 17; ++at) {
            const std::string text = std::string(at, 'a') + special + std::string(17 - at, 'b');
            const std::string file = small_file(", \"stack_trace\": \"" + text + "\"");
            expect_same(file, "stack trace, offset " + std::to_string(at));
            taken += fast_takes(file);
        }
    }
    // Decoded or passed-through text is taken (escapes, valid UTF-8, DEL); raw control bytes and
    // malformed UTF-8 are declined: 8 of the 11 kinds at 17 offsets.
    EXPECT_EQ(taken, 8 * 17);
}

TEST(IoFast, NodeNamesWithEscapesResolveAsInputs) {
    // The name is decoded once where it is defined and once where it is used as an input.
    const std::string text = R"({"format": "fxmem", "version": 1,
        "storages": [{"id": 0, "device": "cuda:0", "nbytes": 8}],
        "graphs": [{"name": "g", "kind": "forward", "nodes": [
          {"name": "x\u0041y_long_enough_name", "op": "placeholder", "target": "x", "inputs": [],
           "val": {"storage": 0, "dtype": "float32", "shape": [2], "stride": [1], "offset": 0}},
          {"name": "output", "op": "output", "target": "output", "inputs": ["xAy_long_enough_name"], "val": null}]}]})";
    ASSERT_TRUE(fast_takes(text));
    const GraphFile f = load_buffer(text, "t.json");
    EXPECT_EQ(f.graphs[0].node(NodeId(0)).name, "xAy_long_enough_name");
    EXPECT_EQ(f.graphs[0].inputs(NodeId(1))[0], NodeId(0));
    expect_same(text, "escaped name");
}

TEST(IoFast, DeepNestingFailsTheSameBothWays) {
    const std::string deep = small_file(", \"meta\": {\"a\": " + std::string(200, '[') + std::string(200, ']') + "}");
    const std::string got = outcome(deep, false);
    EXPECT_NE(got.find("JSON nesting deeper than 128 levels"), std::string::npos) << got;
    EXPECT_EQ(got, outcome(deep, true));
}

TEST(IoFast, ProgressReachesOneAndCancelStops) {
    // About 3 MB of nodes, so that the reader reports progress on the way.
    std::string nodes;
    for (int i = 0; i < 30000; ++i)
        nodes +=
            R"({"name": "n)" + std::to_string(i) +
            R"(", "op": "call_function", "target": "aten.relu", "inputs": [], "val": null, "meta": {"pad": "....................................................."}},)";
    const std::string text =
        R"({"format": "fxmem", "version": 1, "storages": [], "graphs": [{"name": "g", "kind": "other", "nodes": [)" +
        nodes + R"({"name": "out", "op": "output", "target": "output", "inputs": [], "val": null}]}]})";
    std::vector<double> seen;
    const GraphFile f = load_buffer(text, "p.json", {{}, [&](double x) { seen.push_back(x); }});
    EXPECT_EQ(f.graphs.at(0).size(), 30001u);
    ASSERT_GE(seen.size(), 3u);
    EXPECT_EQ(seen.back(), 1.0);
    for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_LT(seen[i - 1], seen[i]);
    int calls = 0;
    EXPECT_THROW(load_buffer(text, "p.json",
                             {[&] {
                                  ++calls;
                                  return true;
                              },
                              {}}),
                 Cancelled);
    EXPECT_EQ(calls, 1);
}
