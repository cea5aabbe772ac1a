// fxmem-cli on hostile names and paths: control characters escaped in human-readable output
// (JSON untouched), error messages of bounded size, schedule names that look like paths, -o
// checked before the optimizer runs and never replacing a FIFO, and --depth past 2^32.
#include "cli_run.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <sys/stat.h>

using namespace fxmem_test;

namespace {

// annotated.json with node "a" renamed to `name` (a JSON string body) everywhere, its graph
// renamed to "g<name>", and its schedule "wide" renamed to `schedule`.
std::string renamed(const std::string& name, const std::string& schedule = "wide") {
    std::string text = slurp(kAnnotated);
    text = replace_all(text, "\"a\"", "\"" + name + "\"");
    text = replace_all(text, "\"name\": \"wide\"", "\"name\": \"" + schedule + "\"");
    return text;
}

bool has_control(const std::string& s) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if ((c < 0x20 && c != '\n') || c == 0x7f) return true;
        if (c == 0xE2 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
            static_cast<unsigned char>(s[i + 2]) == 0xAE)
            return true; // U+202E
    }
    return false;
}

} // namespace

// A node named "\x1b]0;pwned\x07 line\nbreak \u202e" retitled the terminal and broke table rows.
TEST(CliReliability, ControlCharactersAreEscapedInHumanOutput) {
    const std::string dir = scratch_dir();
    const std::string path = dir + "/control.json";
    write(path, renamed(R"(\u001b]0;pwned\u0007 line\nbreak \u202e)", R"(s\u001bched)"));
    const std::string shown = R"(\x1b]0;pwned\x07 line\nbreak \u202e)";
    for (const std::vector<std::string>& args : {std::vector<std::string>{"info", path},
                                                 {"schedules", path},
                                                 {"profile", path},
                                                 {"live", path, "--step", "1"},
                                                 {"score", path, "--schedule-name",
                                                  "s\x1b"
                                                  "ched"},
                                                 {"breakdown", path},
                                                 {"optimize", path}}) {
        const CliRun r = cli(args);
        ASSERT_EQ(r.status, 0) << args[0] << ": " << r.err;
        EXPECT_FALSE(has_control(r.out)) << args[0] << ":\n" << r.out;
        if (args[0] == "profile" || args[0] == "live" || args[0] == "score") {
            EXPECT_TRUE(contains(r.out, shown)) << args[0] << ":\n" << r.out;
        }
    }
    EXPECT_TRUE(contains(cli({"schedules", path}).out, R"(s\x1bched)"));
    // JSON keeps the name itself (escaped by JSON's own rules).
    const CliRun json = cli({"score", path, "--schedule-name",
                             "s\x1b"
                             "ched",
                             "--json"});
    ASSERT_EQ(json.status, 0) << json.err;
    const CliRun live = cli({"live", path, "--step", "1", "--json"});
    EXPECT_EQ(live.json()["node"], "\x1b]0;pwned\x07 line\nbreak \u202e");
    // Error messages too: an unknown --graph named with ESC.
    const CliRun bad = cli({"profile", path, "--graph", "x\x1b[2J"});
    EXPECT_EQ(bad.status, 1);
    EXPECT_TRUE(contains(bad.err, R"(no graph 'x\x1b[2J')")) << bad.err;
    EXPECT_FALSE(has_control(bad.err)) << bad.err;
}

// score --schedule nosuch listed every stored schedule, whole: 200k of them made 4.5 MB.
TEST(CliReliability, UnknownScheduleErrorIsBounded) {
    const std::string dir = scratch_dir();
    const std::string path = dir + "/many.json";
    std::string schedules;
    const std::string order = R"(["primals_1", "inp", "a", "a2", "b", "b2", "c", "output"])";
    for (int i = 0; i < 5000; ++i)
        schedules += (i ? ",\n" : "") + std::string(R"({"name": ")") +
                     (i == 0 ? std::string(80000, 'n') : "s" + std::to_string(i)) + R"(", "graph": "g", "order": )" +
                     order + "}";
    std::string text = slurp(kAnnotated);
    const std::size_t from = text.find("\"schedules\": [");
    const std::size_t to = text.find("],", from);
    text.replace(from, to - from + 2, "\"schedules\": [" + schedules + "],");
    write(path, text);
    const CliRun r = cli({"score", path, "--schedule", "nosuch"});
    EXPECT_EQ(r.status, 1);
    EXPECT_LT(r.err.size(), 1500u) << r.err.size();
    EXPECT_TRUE(contains(r.err, "and 4990 more)")) << r.err;
    EXPECT_TRUE(contains(r.err, "nnn\u2026nnn")) << r.err; // the 80 KB name elided as in tables
}

// Stored schedules named "." and like a file path: a path still wins, the error says the file
// also holds a schedule of that name, and --schedule-name picks it.
TEST(CliReliability, ScheduleNamesThatLookLikePaths) {
    const std::string dir = scratch_dir();
    const std::string dot = dir + "/dot.json";
    write(dot, renamed("a", "."));
    const CliRun as_path = cli({"score", dot, "--schedule", "."});
    EXPECT_EQ(as_path.status, 1);
    EXPECT_TRUE(contains(as_path.err, ".: cannot read: it is a directory, not a regular file\n(" + dot +
                                          " also holds a schedule named '.'; --schedule reads a path first: use "
                                          "--schedule-name '.' for the stored one)"))
        << as_path.err;
    const CliRun by_name = cli({"score", dot, "--schedule-name", ".", "--json"});
    ASSERT_EQ(by_name.status, 0) << by_name.err;
    EXPECT_EQ(by_name.json()["peak"], 1500);
    const CliRun live = cli({"live", dot, "--schedule-name", ".", "--json"});
    ASSERT_EQ(live.status, 0) << live.err;
    EXPECT_EQ(live.json()["total"], 1500);

    const std::string other = dir + "/not_a_schedule.json";
    write(other, R"({"graph": "g", "order": ["inp")");
    const std::string pathlike = dir + "/pathlike.json";
    write(pathlike, renamed("a", other));
    const CliRun syntax = cli({"score", pathlike, "--schedule", other});
    EXPECT_EQ(syntax.status, 1);
    EXPECT_TRUE(contains(syntax.err, "JSON syntax error")) << syntax.err;
    EXPECT_TRUE(contains(syntax.err, "use --schedule-name '" + other + "' for the stored one")) << syntax.err;
    EXPECT_EQ(cli({"score", pathlike, "--schedule-name", other, "--json"}).json()["peak"], 1500);

    const CliRun both = cli({"score", dot, "--schedule", "x", "--schedule-name", "."});
    EXPECT_EQ(both.status, 2);
    EXPECT_TRUE(contains(both.err, "score: --schedule and --schedule-name exclude each other")) << both.err;
    const CliRun unknown = cli({"score", dot, "--schedule-name", "wide"});
    EXPECT_EQ(unknown.status, 1);
    EXPECT_EQ(
        unknown.err.rfind(dot + " has no schedule 'wide' (its schedules: '.' (graph 'g'), 'original' (graph 'g'))", 0),
        0u)
        << unknown.err;
}

TEST(CliReliability, BreakdownDepthPast32BitsIsBadUsage) {
    const CliRun r = cli({"breakdown", kAnnotated, "--by", "module", "--depth", "4294967296"});
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(contains(r.err, "breakdown: --depth must be at most 4294967295, got '4294967296'")) << r.err;
    EXPECT_EQ(cli({"breakdown", kAnnotated, "--by", "module", "--depth", "4294967295"}).status, 0);
}

// The joined pair view and the whole step read --by/--depth as breakdown does (they clamped
// --depth past 2^32 and took --depth without --by module) and escape graph names in their headers.
TEST(CliReliability, PairAndWholeStepViewsFollowTheSameRules) {
    const std::string dir = scratch_dir();
    const std::string path = dir + "/pair_step.json";
    std::string text = slurp(kGood + "/pair.json");
    text = replace_all(text, "\"fwd\"", R"("f\u001b]0;x\u0007wd")");
    text = replace_all(text, "\"bwd\"", R"("b\nwd")");
    const std::size_t end = text.rfind('}');
    text.replace(end, 1, R"(, "step": [{"graph": "f\u001b]0;x\u0007wd", "call": 0}, {"graph": "b\nwd", "call": 0}]})");
    write(path, text);
    const std::string pair = "f\x1b]0;x\x07wd,b\nwd";
    for (const std::vector<std::string>& args : {std::vector<std::string>{"breakdown", path, "--pair", pair},
                                                 {"live", path, "--pair", pair},
                                                 {"peak", path, "--whole-step"},
                                                 {"profile", path, "--whole-step"},
                                                 {"breakdown", path, "--whole-step"},
                                                 {"live", path, "--whole-step"}}) {
        const CliRun r = cli(args);
        ASSERT_EQ(r.status, 0) << args[0] << " " << args[2] << ": " << r.err;
        EXPECT_FALSE(has_control(r.out)) << args[0] << " " << args[2] << ":\n" << r.out;
        EXPECT_TRUE(contains(r.out, R"(f\x1b]0;x\x07wd)") || contains(r.out, R"(b\nwd)"))
            << args[0] << " " << args[2] << ":\n"
            << r.out;
    }
    const CliRun big = cli({"breakdown", path, "--pair", pair, "--by", "module", "--depth", "4294967296"});
    EXPECT_EQ(big.status, 2);
    EXPECT_TRUE(contains(big.err, "breakdown: --depth must be at most 4294967295, got '4294967296'")) << big.err;
    const CliRun role = cli({"breakdown", path, "--pair", pair, "--depth", "1"});
    EXPECT_EQ(role.status, 2);
    EXPECT_TRUE(contains(role.err, "breakdown: --depth applies to --by module only")) << role.err;
    EXPECT_EQ(cli({"breakdown", path, "--whole-step", "--depth", "1"}).status, 2);
    EXPECT_EQ(cli({"breakdown", path, "--pair", pair, "--by", "module", "--depth", "1"}).status, 0);
}

// -o is checked before the graph is even read: a missing directory, a FIFO (left in place) and a
// directory are refused by name. The input here does not exist, so an error about -o proves
// the order (before, the input's error came first, and -o was checked only after optimizing).
TEST(CliReliability, OptimizeChecksTheOutputFirst) {
    const std::string dir = scratch_dir();
    const std::string missing_input = dir + "/no_such_graph.json";
    const CliRun nodir = cli({"optimize", missing_input, "-o", dir + "/nodir/x.json"});
    EXPECT_EQ(nodir.status, 1);
    EXPECT_EQ(nodir.err, "cannot write '" + dir + "/nodir/x.json': the directory '" + dir + "/nodir' does not exist\n");

    const std::string fifo = dir + "/out_fifo";
    std::filesystem::remove(fifo);
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const CliRun to_fifo = cli({"optimize", kAnnotated, "-o", fifo});
    EXPECT_EQ(to_fifo.status, 1);
    EXPECT_EQ(to_fifo.err, "cannot write '" + fifo + "': it is a FIFO (named pipe), not a regular file\n");
    struct stat st {};
    ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode));
    EXPECT_EQ(cli({"optimize", kAnnotated, "-o", dir}).status, 1);

    // Through a symlink: the link's target gets the schedule.
    const std::string target = dir + "/target.json", link = dir + "/link.json";
    std::filesystem::remove(link);
    write(target, "old");
    ASSERT_EQ(::chmod(target.c_str(), 0600), 0);
    std::filesystem::create_symlink(target, link);
    const CliRun ok = cli({"optimize", kAnnotated, "-o", link});
    ASSERT_EQ(ok.status, 0) << ok.err;
    EXPECT_TRUE(std::filesystem::is_symlink(link));
    EXPECT_EQ(nlohmann::json::parse(slurp(target))["graph"], "g");
    ASSERT_EQ(::stat(target.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0600u);
    // A link to the graph file itself is the graph file.
    const std::string copy = dir + "/graph_copy.json", to_graph = dir + "/to_graph.json";
    write(copy, slurp(kAnnotated));
    std::filesystem::remove(to_graph);
    std::filesystem::create_symlink(copy, to_graph);
    EXPECT_EQ(cli({"optimize", copy, "-o", to_graph}).status, 2);
    EXPECT_EQ(slurp(copy), slurp(kAnnotated));
}
