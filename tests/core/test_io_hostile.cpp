// Hostile files (issue 11, items 10-13 and 15): each must give a clear fxmem::Error naming the
// file and the place, never a wrong number, a hang or a crash.
#include "fxmem/error.h"
#include "fxmem/estimator.h"
#include "fxmem/io.h"
#include "fxmem/schedule.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

using namespace fxmem;

namespace {

const std::string kHostile = std::string(FXMEM_TEST_DATA) + "/hostile";

// The Error's message, or "" when `f` throws nothing.
template <class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

} // namespace

// Item 10: storage 1 (5e18 bytes) is a forward output no backward placeholder holds (the
// baseline) and the backward allocates it again: baseline + backward peak = 5e18 + (5e18 + 16) > 2^63-1.
TEST(IoHostile, PairBackwardPeakOverflowIsAnError) {
    const std::string path = kHostile + "/pair_overflow.json";
    const GraphFile file = load_file(path);
    const std::string msg = error_of([&] { get_peak_memory(file, file.graphs[0], file.graphs[1]); });
    EXPECT_EQ(msg.rfind(path + ": graph 'bwd' (backward of 'fwd'): ", 0), 0u) << msg;
    EXPECT_NE(msg.find("the backward baseline (5000000000000000000 bytes) plus the backward's peak "
                       "(5000000000000000016 bytes) is more than 2^63-1 bytes"),
              std::string::npos)
        << msg;
    EXPECT_FALSE(error_of([&] { analyze_pair(file, file.graphs[0], file.graphs[1], default_counted(file)); }).empty());
}

TEST(IoHostile, PairBackwardPeakAtTheLimitIsExact) {
    const GraphFile file = load_file(kHostile + "/pair_overflow.json");
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    EXPECT_EQ(pair_backward_peak(file, file.graphs[0], file.graphs[1], kMax - 5, 5), kMax);
    EXPECT_FALSE(error_of([&] { pair_backward_peak(file, file.graphs[0], file.graphs[1], kMax - 5, 6); }).empty());
}

// Item 11 for schedules (graph files: tests/data/bad/nul_*.json). nlohmann takes a NUL byte for
// the end of the input, so these parsed before.
TEST(IoHostile, ScheduleWithBytesAfterTheDocumentIsAnError) {
    const GraphFile file = load_file(std::string(FXMEM_TEST_DATA) + "/good/single.json");
    const std::string order = R"({"graph": "g", "order": ["x", "split", "getitem_1", "add", "unused", "add_", "getitem", "cpu_copy", "output"]})";
    EXPECT_NO_THROW(parse_schedule(file, order + "\n \t\n", "s.json"));
    EXPECT_EQ(error_of([&] { parse_schedule(file, order + "\n" + std::string(1, '\0') + "garbage", "s.json"); }),
              "s.json:2:1: JSON syntax error: unexpected NUL byte after the JSON document (nothing but whitespace "
              "may follow it)");
    EXPECT_EQ(error_of([&] { parse_schedule(file, order + std::string(1, '\0'), "s.json"); }).rfind("s.json:1:", 0), 0u);
    EXPECT_EQ(error_of([&] { parse_schedule(file, std::string(R"({"graph": "g", )") + '\0' + "}", "s.json"); }),
              "s.json:1:16: JSON syntax error: unexpected NUL byte");
    EXPECT_NE(error_of([&] { parse_schedule(file, order + " x", "s.json"); }).find("s.json:1:"), std::string::npos);
}

// Item 12: a known key twice is an error, as in graph files (it was: the last one wins).
TEST(IoHostile, ScheduleWithDuplicateKeysIsAnError) {
    const GraphFile file = load_file(std::string(FXMEM_TEST_DATA) + "/good/single.json");
    const std::string order = R"(["x", "split", "getitem_1", "add", "unused", "add_", "getitem", "cpu_copy", "output"])";
    EXPECT_EQ(error_of([&] { parse_schedule(file, "{\"graph\": \"g\",\n \"graph\": \"g\", \"order\": " + order + "}", "s.json"); }),
              "s.json:2:8: top level: duplicate key 'graph'");
    EXPECT_EQ(error_of([&] {
                  parse_schedule(file, "{\"graph\": \"g\", \"order\": [], \"order\": " + order + "}", "s.json");
              }),
              "s.json:1:35: top level: duplicate key 'order'");
    // Unknown keys are ignored, repeated or not, as in graph files; so are keys of nested objects.
    EXPECT_NO_THROW(parse_schedule(
        file, R"({"note": 1, "note": 2, "x": {"graph": 1, "graph": 2}, "graph": "g", "order": )" + order + "}", "s.json"));
}
