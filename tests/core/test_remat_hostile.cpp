// fxmem-cli remat and budgets under the reliability round's hostile inputs (issue 28): plan paths
// that are not regular files, plans with duplicate keys, deep nesting or a NUL in a name, control
// characters in paths, -o checked before the search, limits given with --plan, --devices, the
// extra FLOPs of a sweep without a budget-1.0 pair, and a -0.0 budget. Each failed before its fix.
#include "cli_run.h"
#include "fxmem/io.h"
#include "fxmem/remat.h"
#include "test_paths.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <sys/stat.h>

namespace {

using fxmem_test::CliRun;
using fxmem_test::contains;

bool has_control(const std::string& s) {
    for (const char c : s)
        if ((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f) return true;
    return false;
}

// A valid plan for joint.json, written by remat -o.
std::string good_plan() {
    const std::string path = fxmem_test::scratch_dir() + "/good_plan.json";
    const CliRun r = fxmem_test::cli({"remat", kJoint, "-o", path});
    EXPECT_EQ(r.status, 0) << r.err;
    return fxmem_test::slurp(path);
}

std::string write_plan(const std::string& name, const std::string& text) {
    const std::string path = fxmem_test::scratch_dir() + "/" + name;
    fxmem_test::write(path, text);
    return path;
}

} // namespace

// A FIFO blocked the read (no writer) and /dev/zero read until memory ran out.
TEST(RematHostile, PlanPathsThatAreNotRegularFilesAreRefused) {
    const std::string fifo = fxmem_test::scratch_dir() + "/plan.fifo";
    std::remove(fifo.c_str());
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    CliRun r = fxmem_test::cli({"remat", kJoint, "--plan", fifo});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "plan.fifo: cannot read: it is a FIFO (named pipe), not a regular file")) << r.err;
    r = fxmem_test::cli({"remat", kJoint, "--plan", "/dev/zero"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "/dev/zero: cannot read: it is a character device, not a regular file")) << r.err;
    r = fxmem_test::cli({"remat", kJoint, "--plan", fxmem_test::scratch_dir()});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "it is a directory")) << r.err;
}

// nlohmann kept the last of two equal keys silently: the plan read was not the one written.
TEST(RematHostile, DuplicateKeysAreRefused) {
    const std::string plan = good_plan();
    const std::string dup =
        write_plan("dup.json", fxmem_test::replace_all(plan, "\"joint\":", "\"saved\": [], \"joint\":"));
    const CliRun r = fxmem_test::cli({"remat", kJoint, "--plan", dup});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "dup.json: duplicate key 'saved'")) << r.err;
    // Inside "nodes" too (one object per level: the same key in two objects is fine).
    nlohmann::json j = nlohmann::json::parse(plan);
    ASSERT_TRUE(j.contains("nodes") && !j["nodes"].empty());
    const std::string first = j["nodes"].begin().key();
    const std::string entry = nlohmann::json(first).dump() + ": " + j["nodes"].begin().value().dump();
    const std::string twice = fxmem_test::replace_all(plan, entry, entry + ", " + entry);
    ASSERT_NE(twice, plan);
    const CliRun r2 = fxmem_test::cli({"remat", kJoint, "--plan", write_plan("dup_nodes.json", twice)});
    EXPECT_EQ(r2.status, 1);
    EXPECT_TRUE(contains(r2.err, "duplicate key '" + first + "'")) << r2.err;
}

TEST(RematHostile, DeepNestingIsRefusedWithoutRecursion) {
    const std::string deep = write_plan("deep.json", std::string(200000, '[') + std::string(200000, ']'));
    const CliRun r = fxmem_test::cli({"remat", kJoint, "--plan", deep});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "deep.json: nested more than 16 levels deep: not a remat plan")) << r.err;
}

// The message was cut at the NUL (what() read as a C string).
TEST(RematHostile, NulInTheJointNameDoesNotCutTheMessage) {
    nlohmann::json j = nlohmann::json::parse(good_plan());
    j["joint"] = std::string("jo\0int", 6);
    const CliRun r = fxmem_test::cli({"remat", kJoint, "--plan", write_plan("nul.json", j.dump())});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "the plan is for joint graph 'jo\\x00int', not 'joint' of ")) << r.err;
}

TEST(RematHostile, VersionAndPeakMustBeIntegers) {
    for (const auto& [key, value, says] : std::vector<std::tuple<std::string, nlohmann::json, std::string>>{
             {"version", 1.0, "unsupported plan version"},
             {"version", true, "unsupported plan version"},
             {"peak", 1.5, "'peak' must be an integer"},
             {"extra_flops", "7", "'extra_flops' must be an integer"}}) {
        nlohmann::json j = nlohmann::json::parse(good_plan());
        j[key] = value;
        const CliRun r = fxmem_test::cli({"remat", kJoint, "--plan", write_plan("typed.json", j.dump())});
        EXPECT_EQ(r.status, 1) << key << " " << value.dump();
        EXPECT_TRUE(contains(r.err, says)) << r.err;
    }
}

// "plan P:" and "written to P" printed raw ESC/BEL from the paths.
TEST(RematHostile, PathsInTheReportAreEscaped) {
    const std::string plan = write_plan("in\x1b]0;X\x07.json", good_plan());
    const std::string out = fxmem_test::scratch_dir() + "/out\x1b[2J.json";
    const CliRun r = fxmem_test::cli({"remat", kJoint, "--plan", plan, "-o", out});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_FALSE(has_control(r.out)) << r.out;
    EXPECT_TRUE(contains(r.out, "in\\x1b]0;X\\x07.json: ")) << r.out;
    EXPECT_TRUE(contains(r.out, "written to " + fxmem_test::scratch_dir() + "/out\\x1b[2J.json\n")) << r.out;
}

// -o was checked after the search: a long search ended in "cannot write". Now a bad -o is
// refused before the graph file is even read (an unreadable graph file says nothing).
TEST(RematHostile, OutputPathIsCheckedBeforeTheSearch) {
    const CliRun r =
        fxmem_test::cli({"remat", std::string(FXMEM_TEST_DATA) + "/bad/empty.json", "-o", "/nonexistent/dir/p.json"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(
        contains(r.err, "cannot write '/nonexistent/dir/p.json': the directory '/nonexistent/dir' does not exist"))
        << r.err;
}

TEST(RematHostile, LimitsWithPlanAreRefusedByName) {
    const std::string plan = write_plan("p.json", good_plan());
    for (const char* option : {"--max-extra-flops", "--max-extra-percent", "--target-peak", "--time-limit"}) {
        const CliRun r = fxmem_test::cli({"remat", kJoint, "--plan", plan, option, "5"});
        EXPECT_EQ(r.status, 2);
        EXPECT_TRUE(contains(r.err, std::string("remat: ") + option + " does not apply with --plan")) << r.err;
        EXPECT_EQ(r.out, "");
    }
}

TEST(RematHostile, DevicesIsTakenAndAllIsRefused) {
    const CliRun all = fxmem_test::cli({"remat", kJoint, "--devices", "all"});
    EXPECT_EQ(all.status, 2);
    EXPECT_TRUE(contains(all.err, "remat: --devices all is not supported")) << all.err;
    const CliRun plain = fxmem_test::cli({"remat", kJoint, "--json"});
    const CliRun noncpu = fxmem_test::cli({"remat", kJoint, "--json", "--devices", "nonCPU"});
    ASSERT_EQ(noncpu.status, 0) << noncpu.err;
    EXPECT_EQ(noncpu.json()["peak"], plain.json()["peak"]);
}

// A CPU capture: remat printed "plan: 0 B" with no word of why; its percentages were "()".
TEST(RematHostile, CpuCaptureSaysWhyAndPrintsNoEmptyPercent) {
    const std::string path = fxmem_test::scratch_dir() + "/cpu_joint.json";
    fxmem_test::write(path, fxmem_test::replace_all(fxmem_test::slurp(kJoint), "cuda:0", "cpu"));
    const CliRun r = fxmem_test::cli({"remat", path});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.out.starts_with("note: every storage of ")) << r.out;
    EXPECT_TRUE(contains(r.out, "plan: 0 B (0 bytes), extra FLOPs 0 (+0.0 %)")) << r.out;
    EXPECT_FALSE(contains(r.out, "()")) << r.out;
}

// The continuation of a synopsis stays in it: remat --help had a blank line inside its usage.
TEST(RematHostile, HelpSynopsisHasNoBlankLine) {
    const CliRun r = fxmem_test::cli({"remat", "--help"});
    ASSERT_EQ(r.status, 0);
    EXPECT_TRUE(r.out.starts_with("usage: fxmem-cli remat FILE [--max-extra-flops F | --max-extra-percent P | "
                                  "--target-peak BYTES]\n      [--time-limit S]"))
        << r.out;
}

// Each pair's FLOPs summed from the file (an independent reading of the same JSON).
std::map<std::string, std::int64_t> pair_flops_by_budget(const std::string& text) {
    const nlohmann::json j = nlohmann::json::parse(text);
    std::map<std::string, std::int64_t> by_graph;
    for (const auto& g : j["graphs"]) {
        std::int64_t sum = 0;
        for (const auto& n : g["nodes"])
            if (n.contains("flops") && n["flops"].is_number_integer()) sum += n["flops"].get<std::int64_t>();
        by_graph[g["name"]] = sum;
    }
    std::map<std::string, std::int64_t> out;
    for (const auto& p : j["pairs"]) out[p["budget"].dump()] = by_graph[p["forward"]] + by_graph[p["backward"]];
    return out;
}

// Without a budget-1.0 pair every row said 0 extra FLOPs: they are now against the highest budget.
TEST(RematHostile, BudgetsWithoutBudgetOneAreAgainstTheHighest) {
    const std::string sweep = fxmem_test::slurp(kGood + "/joint_sweep.json");
    // Relabel the 1.0 pair as 0.75: the sweep's highest budget is then 0.75.
    const std::string relabeled = fxmem_test::replace_all(sweep, "\"joint\": \"joint\", \"budget\": 1.0}",
                                                          "\"joint\": \"joint\", \"budget\": 0.75}");
    ASSERT_NE(relabeled, sweep);
    const std::map<std::string, std::int64_t> flops = pair_flops_by_budget(relabeled);
    ASSERT_EQ(flops.size(), 2u);
    ASSERT_NE(flops.at("0.5"), flops.at("0.75")) << "the fixture's pairs must differ in FLOPs";
    const std::string path = write_plan("sweep_no_one.json", relabeled);
    const CliRun r = fxmem_test::cli({"budgets", path, "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json doc = r.json(); // kept: a range-for over r.json()["rows"] reads a destroyed temporary
    for (const auto& row : doc["rows"]) {
        const std::string budget = row["budget"].dump();
        EXPECT_EQ(row["extra_flops"], flops.at(budget) - flops.at("0.75")) << budget;
        EXPECT_EQ(row["extra_flops_against"], 0.75);
    }
    const CliRun text = fxmem_test::cli({"budgets", path});
    EXPECT_TRUE(contains(text.out, "extra FLOPs are against budget 0.75, the highest in the sweep")) << text.out;
}

// -0.0 was read and printed as "-0.0".
TEST(RematHostile, NegativeZeroBudgetReadsAsZero) {
    const std::string sweep = fxmem_test::slurp(kGood + "/joint_sweep.json");
    const std::string path =
        write_plan("sweep_neg_zero.json", fxmem_test::replace_all(sweep, "\"budget\": 0.5}", "\"budget\": -0.0}"));
    const CliRun r = fxmem_test::cli({"budgets", path});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_FALSE(contains(r.out, "-0.0")) << r.out;
    EXPECT_TRUE(contains(r.out, "\n     0.0   1.07 KiB")) << r.out;
}

// Every bundled pair that partitions a joint graph has the FLOPs of the joint's partition with the
// pair's saved values: what lets remat take a pair as its baseline (and say when one does not).
TEST(RematHostile, BundledPairsHaveTheirJointPartitionsFlops) {
    int checked = 0;
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string(FXMEM_TEST_DATA) + "/../../resources/examples")) {
        if (entry.path().extension() != ".json") continue;
        const fxmem::GraphFile file = fxmem::load_file(entry.path().string());
        for (const fxmem::Pair& p : file.pairs) {
            if (!p.joint) continue;
            const fxmem::JointGraph j = fxmem::analyze_joint(file, *p.joint);
            const fxmem::Partition sim = fxmem::simulate_partition(j, fxmem::saved_of_pair(j, p));
            EXPECT_EQ(sim.flops, fxmem::pair_flops(file, p))
                << entry.path().filename() << " " << file.graph(p.forward).name;
            ++checked;
        }
    }
    EXPECT_GE(checked, 8);
}

// A pair that is not its joint's partition (here: its forward's mm counts 3,000 FLOPs more than
// the joint's mm) was taken as the baseline silently, and every plan showed the difference as a
// FLOPs change. Now the baseline is the simulated partition, and remat says why.
TEST(RematHostile, PairNotMatchingItsJointIsSaid) {
    const std::string joint = fxmem_test::slurp(kJoint);
    const std::string from = "\"inputs\": [\"primals_2\", \"primals_1\"], \"val\": {\"storage\": 3, \"dtype\": "
                             "\"float32\", \"shape\": [64], \"stride\": [1], \"offset\": 0}, \"flops\": 1000}";
    const std::size_t fwd_mm = joint.find(from); // the joint's mm has a "phase" before its flops
    ASSERT_NE(fwd_mm, std::string::npos);
    ASSERT_GT(fwd_mm, joint.find("\"name\": \"budget=1.0.forward\""));
    std::string edited = joint;
    edited.replace(fwd_mm, from.size(), fxmem_test::replace_all(from, "1000}", "4000}"));
    const std::string path = write_plan("mismatch.json", edited);
    const CliRun good = fxmem_test::cli({"remat", kJoint, "--json"});
    const CliRun r = fxmem_test::cli({"remat", path, "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.json()["baseline"]["flops"], good.json()["baseline"]["flops"]);
    EXPECT_EQ(r.json()["extra_flops"], good.json()["extra_flops"]);
    EXPECT_FALSE(good.json()["baseline"].contains("mismatch"));
    const CliRun text = fxmem_test::cli({"remat", path});
    EXPECT_TRUE(contains(text.out, "note: pair budget=1.0.forward / budget=1.0.backward is not the partition of joint "
                                   "graph 'joint' with its saved values ("))
        << text.out;
}

// The app opens a file with a step on its whole step; `peak` prints the pair's and now says so.
TEST(RematHostile, PeakSaysItIsThePairsWhenTheFileHasAStep) {
    const std::string examples = std::string(FXMEM_TEST_DATA) + "/../../resources/examples/";
    const CliRun step = fxmem_test::cli({"peak", examples + "gpt_break.fxmem.json"});
    ASSERT_EQ(step.status, 0) << step.err;
    EXPECT_TRUE(contains(step.out, "this is the pair's peak; the whole step (4 graph runs, what the app opens on) has "
                                   "its own: fxmem-cli peak --whole-step\n"))
        << step.out;
    const CliRun plain = fxmem_test::cli({"peak", examples + "gpt.fxmem.json"});
    EXPECT_FALSE(contains(plain.out, "whole step")) << plain.out;
}

// The same FLOPs but another partition (the joint edited to no forward outputs): the pair's own
// peak (1,096 B by PyTorch's estimator, `peak`) differs from the simulated baseline's, and is said.
TEST(RematHostile, PairWithTheSameFlopsButAnotherPeakIsSaid) {
    const std::string edited =
        fxmem_test::replace_all(fxmem_test::slurp(kJoint), "\"num_fwd_outputs\": 1", "\"num_fwd_outputs\": 0");
    const std::string path = write_plan("no_fwd_outputs.json", edited);
    const CliRun peak = fxmem_test::cli({"peak", path, "--json"});
    ASSERT_EQ(peak.status, 0) << peak.err;
    const CliRun r = fxmem_test::cli({"remat", path, "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    ASSERT_NE(r.json()["baseline"]["peak"], peak.json()["peak"]);
    const std::string says = r.json()["baseline"]["mismatch"];
    EXPECT_TRUE(contains(says, "(its peak is " + peak.json()["peak"].dump() + " bytes where that partition's is " +
                                   r.json()["baseline"]["peak"].dump() + ")"))
        << says;
}

// memory_viz frames repeat per allocation: four 100k-byte module prefixes made gpt_break's
// snapshot 322 MB (allocations x prefix length). Frame texts are capped, so the snapshot grows
// by a bounded amount per event, not by the prefix's length.
TEST(RematHostile, LongModulePrefixesDoNotBlowUpTheSnapshot) {
    const std::string examples = std::string(FXMEM_TEST_DATA) + "/../../resources/examples/";
    nlohmann::json j = nlohmann::json::parse(fxmem_test::slurp(examples + "gpt_break.fxmem.json"));
    ASSERT_EQ(j["step"].size(), 4u);
    const std::string dir = fxmem_test::scratch_dir();
    const auto snapshot_size = [&](const std::string& prefix) {
        for (auto& e : j["step"]) e["module_prefix"] = prefix;
        fxmem_test::write(dir + "/prefixed.json", j.dump());
        const CliRun r = fxmem_test::cli(
            {"export", dir + "/prefixed.json", "--whole-step", "--memory-viz", dir + "/prefixed.pickle"});
        EXPECT_EQ(r.status, 0) << r.err;
        return std::filesystem::file_size(dir + "/prefixed.pickle");
    };
    const std::uintmax_t short_prefix = snapshot_size("blocks"), long_prefix = snapshot_size(std::string(100000, 'p'));
    // At most ~1 KB more per allocation event's frames and context, however long the prefix.
    EXPECT_LT(long_prefix, 3 * short_prefix) << short_prefix << " -> " << long_prefix;
}
