// check_schedule, parse_schedule and schedule_to_json.
#include "fxmem/error.h"
#include "fxmem/schedule.h"
#include "test_estimator_fixtures.h"

#include <gtest/gtest.h>

#include <cstdio>

using namespace fxmem;
using namespace fxmem::testing;

namespace {

std::string check_message(const Graph& g, const std::vector<NodeId>& order) {
    try {
        check_schedule(g, order);
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

std::string parse_message(const GraphFile& f, std::string_view json, std::string_view graph = {}) {
    try {
        parse_schedule(f, json, "s.json", graph);
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

} // namespace

TEST(Schedule, CheckAcceptsLegalOrders) {
    G1 t;
    EXPECT_NO_THROW(check_schedule(*t.graph, original_order(*t.graph)));
    EXPECT_NO_THROW(check_schedule(*t.graph, t.order({"w", "x", "primals_1", "a", "e", "v", "b", "c", "d", "output"})));
}

TEST(Schedule, CheckMessages) {
    G1 t;
    const Graph& g = *t.graph;
    EXPECT_EQ(check_message(g, t.order({"primals_1", "x", "v", "a", "w", "b", "c", "d", "e", "output"})),
              "schedule for graph 'g1': node 'v' (position 2) comes before its input 'a' (position 3)");
    EXPECT_EQ(check_message(g, t.order({"primals_1", "x", "a", "v", "w", "b", "c", "d", "output"})),
              "schedule for graph 'g1': misses node 'e'");
    EXPECT_EQ(check_message(g, t.order({"primals_1", "x", "a", "v", "w", "b", "c", "d", "a", "e", "output"})),
              "schedule for graph 'g1': repeats node 'a' (positions 2 and 8)");
    EXPECT_EQ(check_message(g, t.order({"primals_1", "x", "a", "v", "w", "b", "c", "d", "output", "e"})),
              "schedule for graph 'g1': must end with the output node 'output', not 'e'");
    auto bad = original_order(g);
    bad[4] = NodeId(42);
    EXPECT_EQ(check_message(g, bad), "schedule for graph 'g1': position 4 names unknown node id 42");
}

TEST(Schedule, ParseAndRoundTrip) {
    G1 t;
    const auto order = t.order({"x", "primals_1", "a", "e", "v", "w", "b", "c", "d", "output"});
    const std::string json = schedule_to_json(*t.graph, order);
    const Schedule s = parse_schedule(t.file, json, "mem");
    EXPECT_EQ(s.graph, GraphId(0));
    EXPECT_EQ(s.order, order);
    // Extra fields are ignored; the graph may be required by name.
    const Schedule s2 = parse_schedule(
        t.file, R"({"note": 1, "graph": "g1", "order": ["primals_1","x","a","v","w","b","c","d","e","output"]})", "mem",
        "g1");
    EXPECT_EQ(s2.order, original_order(*t.graph));
}

TEST(Schedule, ParseErrorsNameFileAndPlace) {
    G1 t;
    EXPECT_EQ(parse_message(t.file, "{\n  \"graph\": \"g1\",\n  \"order\": [\"x\" \"a\"]\n}"),
              // The column is that of the last character read: the end of the unexpected "a".
              "s.json:3:19: JSON syntax error: syntax error while parsing array - unexpected string literal; "
              "expected ']'");
    EXPECT_EQ(parse_message(t.file, "[1]"), "s.json: the schedule must be a JSON object with \"graph\" and \"order\"");
    EXPECT_EQ(parse_message(t.file, R"({"graph": 3, "order": []})"),
              "s.json: \"graph\" must be a string naming a graph of the file");
    EXPECT_EQ(parse_message(t.file, R"({"graph": "zz", "order": []})"),
              "s.json: \"graph\": unknown graph 'zz' (the file has 'g1')");
    EXPECT_EQ(parse_message(t.file, R"({"graph": "g1", "order": []})", "other"),
              "s.json: \"graph\" is 'g1' but graph 'other' was asked for");
    EXPECT_EQ(parse_message(t.file, R"({"graph": "g1", "order": {}})"),
              "s.json: schedule for graph 'g1': \"order\" must be an array of node names");
    EXPECT_EQ(parse_message(t.file, R"({"graph": "g1", "order": ["x", 5]})"),
              "s.json: schedule for graph 'g1': \"order\"[1] must be a node name (a string), not number");
    EXPECT_EQ(parse_message(t.file, R"({"graph": "g1", "order": ["x", "z"]})"),
              "s.json: schedule for graph 'g1': \"order\"[1] names unknown node 'z'");
    EXPECT_EQ(parse_message(t.file, R"({"graph": "g1", "order": ["x", "x"]})"),
              "s.json: schedule for graph 'g1': repeats node 'x' (positions 0 and 1)");
    EXPECT_EQ(parse_message(t.file, R"({"graph": "g1", "order": ["x"]})"),
              "s.json: schedule for graph 'g1': misses node 'primals_1'");
}

// A 5M-entry order that repeats a node used 15x the file's size before failing: the whole JSON
// array was built first. It is read as a stream now and stops at the first repeat: counted in
// entries read (the rest of this document, never read, is not even valid JSON).
TEST(Schedule, ReadingStopsAtTheFirstRepeat) {
    G1 t;
    std::string json = R"({"graph": "g1", "order": ["x", "primals_1", "x")";
    for (int i = 0; i < 200000; ++i) json += R"(, "a")";
    json += ", garbage";
    std::size_t read = 0;
    try {
        parse_schedule(t.file, json, "s.json", {}, &read);
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), "s.json: schedule for graph 'g1': repeats node 'x' (positions 0 and 2)");
    }
    EXPECT_EQ(read, 3u);
    // "order" before "graph": the names are kept (one buffer) and resolved at the end.
    EXPECT_EQ(parse_message(t.file, R"({"order": ["x", "x"], "graph": "g1"})"),
              "s.json: schedule for graph 'g1': repeats node 'x' (positions 0 and 1)");
    const auto order = t.order({"x", "primals_1", "a", "e", "v", "w", "b", "c", "d", "output"});
    std::string names;
    for (NodeId n : order) names += std::string(names.empty() ? "" : ", ") + "\"" + t.graph->node(n).name + "\"";
    EXPECT_EQ(parse_schedule(t.file, R"({"order": [)" + names + R"(], "graph": "g1"})", "s.json").order, order);
}

TEST(Schedule, LoadMissingFile) {
    G1 t;
    try {
        load_schedule(t.file, "/nonexistent/dir/s.json");
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/s.json: cannot open"), std::string::npos) << e.what();
    }
}

TEST(Schedule, SaveAndLoadRoundTrip) {
    G1 t;
    const auto order = t.order({"w", "x", "primals_1", "a", "e", "v", "b", "c", "d", "output"});
    const std::string path = ::testing::TempDir() + "fxmem_schedule_roundtrip.json";
    save_schedule(*t.graph, order, path);
    const Schedule s = load_schedule(t.file, path, "g1");
    EXPECT_EQ(s.graph, GraphId(0));
    EXPECT_EQ(s.order, order);
    std::remove(path.c_str());
    EXPECT_THROW(save_schedule(*t.graph, order, "/nonexistent/dir/s.json"), Error);
}
