// Every fxmem-cli command x every option it accepts x every mode it runs in (graph, --pair,
// --whole-step, --schedule; remat's --plan): the option either changes the output (stdout and
// the file it writes), or the command refuses it with exit 2 naming the option and the mode.
// Nothing is silently ignored. One test per cell (CliOptionTable/Cell.*), run on the real binary
// over the bundled examples and tests/data/good; CliOptionTable.CoversEveryCommandAndOption
// checks that the table lists every command of `fxmem-cli --help` and every option of its usage.
#include "cli_run.h"

#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace {

using fxmem_test::CliRun;
using fxmem_test::contains;

enum class Expect {
    Changes, // both runs succeed (exit `status`) and the output differs; with `detail`, the second holds it
    Refused, // the second run exits 2 and its message names the option and the mode
    Fails,   // the second run exits `status` and its message holds `detail` (an option that checks)
};

struct Cell {
    const char* command;
    const char* mode; // "graph", "pair", "whole-step", "schedule", "plan", "ranks"
    const char* option;
    std::vector<std::string> base;  // after the command: files and the mode's own options
    std::vector<std::string> first; // added for the first run (usually nothing)
    std::vector<std::string> second;
    Expect expect = Expect::Changes;
    const char* detail = "";
    int status = 0;
};

// Placeholders: {good} tests/data/good, {ex} resources/examples, {tmp} this process's scratch
// directory, holding sched.json (pair.json with a schedule "order" for each of its graphs),
// fwd_order.json (a SCHED file reordering fwd), plan.json (a plan of joint.json) and out.json
// (what a command writes, compared with its output).
const std::vector<Cell>& cells() {
    using V = std::vector<std::string>;
    const std::string P = "{good}/pair.json", S = "{tmp}/sched.json", W = "{ex}/gpt_adam.fxmem.json",
                      M = "{good}/modules.json", J = "{good}/joint.json", K = "{ex}/gpt_break.fxmem.json",
                      out = "{tmp}/out.json";
    const std::string fwd_order = "{tmp}/fwd_order.json", plan = "{tmp}/plan.json", D_old = "{good}/diff_old.json",
                      D_new = "{good}/diff_new.json", DS_old = "{good}/diff_step_old.json",
                      DS_new = "{good}/diff_step_new.json";
    const V ws = {W, "--whole-step"};
    // A file with symbolic sizes (its step: fwd then bwd), a --set that changes every number.
    const std::string Y = "{good}/symbolic.json";
    // A pair with its compiled programs (the allocated and reserved measures).
    const std::string G = "{good}/program_pair.json";
    const V set = {"--set", "s0=4"};
    const V yws = {Y, "--whole-step"};
    const V fit = {Y, "--memory", "40000", "--vary", "s0"};
    // Ranks 0 and 1 of pair.json's sharded step, one file each (tests/core/test_cli_peak_ranks.cpp).
    const V rk = {"{good}/ranks/pair.rank{rank}.json", "--ranks"};
    // One cell a line.
    // clang-format off
    static const std::vector<Cell> table = {
        // info
        {"info", "graph", "--json", {P}, {}, {"--json"}},
        {"info", "graph", "--devices", {P}, {}, {"--devices", "all"}},
        // profile
        {"profile", "graph", "--graph", {P}, {"--graph", "fwd"}, {"--graph", "bwd"}},
        {"profile", "graph", "--json", {P, "--graph", "fwd"}, {}, {"--json"}},
        {"profile", "graph", "--csv", {P, "--graph", "fwd"}, {}, {"--csv"}},
        {"profile", "graph", "--devices", {P, "--graph", "fwd"}, {}, {"--devices", "all"}},
        {"profile", "whole-step", "--graph", ws, {}, {"--graph", "region0.forward"}, Expect::Refused},
        {"profile", "whole-step", "--json", ws, {}, {"--json"}},
        {"profile", "whole-step", "--csv", ws, {}, {"--csv"}},
        {"profile", "whole-step", "--devices", ws, {}, {"--devices", "all"}},
        {"profile", "graph", "--set", {Y, "--graph", "fwd"}, {}, set},
        {"profile", "graph", "--set", {P, "--graph", "fwd"}, {}, set, Expect::Fails, "--set: no symbol 's0' (the file has no symbols", 1},
        {"profile", "whole-step", "--set", yws, {}, set},
        // peak
        {"peak", "pair", "--pair", {K}, {"--pair", "0"}, {"--pair", "1"}},
        {"peak", "pair", "--json", {P}, {}, {"--json"}},
        {"peak", "pair", "--measure", {G}, {}, {"--measure", "allocated"}},
        {"peak", "pair", "--measure", {G}, {}, {"--measure", "bytes"}, Expect::Fails, "--measure must be", 2},
        {"peak", "pair", "--memory", {G, "--measure", "allocated"}, {"--memory", "1MB"}, {"--memory", "20kB"}},
        {"peak", "pair", "--memory", {G}, {}, {"--memory", "1MB"}},
        {"peak", "pair", "--memory", {G}, {}, {"--memory", "0"}, Expect::Fails, "--memory needs a positive size", 2},
        {"peak", "pair", "--alloc-conf", {G, "--measure", "reserved", "--memory", "5MB"}, {}, {"--alloc-conf", "per_process_memory_fraction:0.5"}},
        {"peak", "pair", "--alloc-conf", {G, "--measure", "reserved"}, {}, {"--alloc-conf", "bogus:1"}, Expect::Fails, "Unrecognized key 'bogus'", 1},
        {"peak", "pair", "--devices", {P}, {}, {"--devices", "all"}},
        {"peak", "whole-step", "--pair", ws, {}, {"--pair", "0"}, Expect::Refused},
        {"peak", "whole-step", "--json", ws, {}, {"--json"}},
        {"peak", "whole-step", "--devices", ws, {}, {"--devices", "all"}},
        {"peak", "pair", "--set", {Y}, {}, set},
        {"peak", "pair", "--set", {Y}, {}, {"--set", "s0=65"}, Expect::Fails, "= 65 is outside its range [1, 64]", 1},
        {"peak", "pair", "--set", {Y}, {}, {"--set", "s0"}, Expect::Fails, "--set needs SYM=VALUE", 2},
        {"peak", "whole-step", "--set", yws, {}, set},
        {"peak", "pair", "--ranks", {P}, {}, {"--ranks"}, Expect::Fails, "--ranks needs FILE with {rank} in it", 2},
        {"peak", "ranks", "--json", rk, {}, {"--json"}},
        {"peak", "ranks", "--memory", rk, {}, {"--memory", "2000"}, Expect::Changes, "rank 1 does not fit"},
        {"peak", "ranks", "--devices", rk, {}, {"--devices", "all"}},
        {"peak", "ranks", "--pair", rk, {}, {"--pair", "1"}, Expect::Fails, "pair.rank0.json: no pair 1", 1},
        {"peak", "ranks", "--whole-step", rk, {}, {"--whole-step"}, Expect::Fails, "no step: --whole-step needs", 1},
        {"peak", "ranks", "--set", rk, {}, set, Expect::Fails, "--set: no symbol 's0'", 1},
        {"peak", "ranks", "--measure", rk, {}, {"--measure", "allocated"}, Expect::Refused},
        {"peak", "ranks", "--alloc-conf", rk, {}, {"--alloc-conf", "max_split_size_mb:20"}, Expect::Refused},
        // score
        {"score", "schedule", "--schedule", {P}, {"--schedule", fwd_order}, {"--schedule", "{tmp}/bwd_order.json"}},
        {"score", "schedule", "--schedule-name", {S, "--graph", "fwd"}, {"--schedule", fwd_order}, {"--schedule-name", "original"}},
        {"score", "schedule", "--graph", {S, "--schedule-name", "order"}, {"--graph", "fwd"}, {"--graph", "bwd"}},
        {"score", "schedule", "--graph", {P, "--schedule", fwd_order}, {}, {"--graph", "bwd"}, Expect::Fails, "\"graph\" is 'fwd' but graph 'bwd' was asked for", 1},
        {"score", "schedule", "--json", {S, "--schedule-name", "order", "--graph", "bwd"}, {}, {"--json"}},
        {"score", "schedule", "--devices", {P, "--schedule", fwd_order}, {}, {"--devices", "all"}},
        {"score", "schedule", "--standalone", {S, "--schedule-name", "order", "--graph", "bwd"}, {}, {"--standalone"}},
        {"score", "schedule", "--set", {Y, "--schedule", fwd_order}, {}, set},
        // schedules
        {"schedules", "graph", "--json", {S}, {}, {"--json"}},
        {"schedules", "graph", "--devices", {S}, {}, {"--devices", "all"}},
        {"schedules", "graph", "--standalone", {S}, {}, {"--standalone"}},
        // optimize
        {"optimize", "graph", "--graph", {P}, {"--graph", "fwd"}, {"--graph", "bwd"}},
        {"optimize", "graph", "--time-limit", {"{ex}/gpt.fxmem.json", "--graph", "forward"}, {"--time-limit", "1"}, {"--time-limit", "0"}, Expect::Changes, "not computed (the time limit was reached first)"},
        {"optimize", "graph", "-o", {"{good}/optimize.json"}, {}, {"-o", out}},
        {"optimize", "graph", "--json", {"{good}/optimize.json"}, {}, {"--json"}},
        {"optimize", "graph", "--devices", {"{good}/optimize.json"}, {}, {"--devices", "all"}},
        {"optimize", "graph", "--standalone", {P, "--graph", "bwd"}, {}, {"--standalone"}},
        // budgets
        {"budgets", "graph", "--json", {"{good}/joint_sweep.json"}, {}, {"--json"}},
        {"budgets", "graph", "--devices", {"{good}/joint_sweep.json"}, {}, {"--devices", "all"}, Expect::Fails, "budgets: --devices all is not supported", 2},
        // remat: a search, or --plan
        {"remat", "graph", "--graph", {K}, {"--graph", "region0.joint"}, {"--graph", "region1.joint"}},
        {"remat", "graph", "--max-extra-flops", {K, "--graph", "region0.joint"}, {}, {"--max-extra-flops", "0"}},
        {"remat", "graph", "--max-extra-percent", {K, "--graph", "region0.joint"}, {}, {"--max-extra-percent", "0"}},
        {"remat", "graph", "--target-peak", {J}, {}, {"--target-peak", "1"}},
        {"remat", "graph", "--time-limit", {K, "--graph", "region0.joint"}, {}, {"--time-limit", "0"}},
        {"remat", "graph", "-o", {J}, {}, {"-o", out}},
        {"remat", "graph", "--json", {J}, {}, {"--json"}},
        {"remat", "graph", "--devices", {J}, {}, {"--devices", "all"}, Expect::Fails, "remat: --devices all is not supported", 2},
        {"remat", "graph", "--set", {J}, {}, set, Expect::Fails, "--set: no symbol 's0' (the file has no symbols", 1},
        {"remat", "plan", "--plan", {J}, {}, {"--plan", plan}},
        {"remat", "plan", "--set", {J, "--plan", plan}, {}, set, Expect::Fails, "--set: no symbol 's0'", 1},
        {"remat", "plan", "--graph", {J, "--plan", plan}, {}, {"--graph", "budget=1.0.forward"}, Expect::Fails, "budget=1.0.forward", 1},
        {"remat", "plan", "--max-extra-flops", {J, "--plan", plan}, {}, {"--max-extra-flops", "5"}, Expect::Refused},
        {"remat", "plan", "--max-extra-percent", {J, "--plan", plan}, {}, {"--max-extra-percent", "5"}, Expect::Refused},
        {"remat", "plan", "--target-peak", {J, "--plan", plan}, {}, {"--target-peak", "5"}, Expect::Refused},
        {"remat", "plan", "--time-limit", {J, "--plan", plan}, {}, {"--time-limit", "5"}, Expect::Refused},
        {"remat", "plan", "-o", {J, "--plan", plan}, {}, {"-o", out}},
        {"remat", "plan", "--json", {J, "--plan", plan}, {}, {"--json"}},
        // live
        {"live", "graph", "--graph", {P}, {"--graph", "fwd"}, {"--graph", "bwd"}},
        {"live", "graph", "--step", {P, "--graph", "fwd"}, {}, {"--step", "3"}},
        {"live", "graph", "--json", {P, "--graph", "fwd"}, {}, {"--json"}},
        {"live", "graph", "--devices", {P, "--graph", "fwd"}, {}, {"--devices", "all"}},
        {"live", "graph", "--set", {Y, "--graph", "fwd"}, {}, set},
        {"live", "pair", "--set", {Y, "--pair", "fwd,bwd"}, {}, set},
        {"live", "whole-step", "--set", yws, {}, set},
        {"live", "schedule", "--set", {Y, "--schedule", fwd_order}, {}, set},
        {"live", "pair", "--graph", {P, "--pair", "fwd,bwd"}, {}, {"--graph", "fwd"}, Expect::Refused},
        {"live", "pair", "--graph", {S, "--pair", "fwd,bwd", "--step", "1", "--schedule-name", "order"}, {"--graph", "bwd"}, {"--graph", "fwd"}},
        {"live", "pair", "--step", {P, "--pair", "fwd,bwd"}, {}, {"--step", "3"}},
        {"live", "pair", "--schedule", {P, "--pair", "fwd,bwd", "--step", "1"}, {}, {"--schedule", fwd_order}},
        {"live", "pair", "--schedule-name", {S, "--pair", "fwd,bwd", "--step", "1", "--graph", "fwd"}, {"--schedule-name", "original"}, {"--schedule-name", "order"}},
        {"live", "pair", "--json", {P, "--pair", "fwd,bwd"}, {}, {"--json"}},
        {"live", "pair", "--devices", {P, "--pair", "fwd,bwd"}, {}, {"--devices", "all"}},
        {"live", "whole-step", "--graph", ws, {}, {"--graph", "region0.forward"}, Expect::Refused},
        {"live", "whole-step", "--pair", ws, {}, {"--pair", "region0.forward,region0.backward"}, Expect::Refused},
        {"live", "whole-step", "--schedule", ws, {}, {"--schedule", fwd_order}, Expect::Refused},
        {"live", "whole-step", "--schedule-name", ws, {}, {"--schedule-name", "order"}, Expect::Refused},
        {"live", "whole-step", "--step", ws, {}, {"--step", "5"}},
        {"live", "whole-step", "--json", ws, {}, {"--json"}},
        {"live", "whole-step", "--devices", ws, {}, {"--devices", "all"}},
        {"live", "schedule", "--schedule", {P, "--step", "1"}, {"--graph", "fwd"}, {"--schedule", fwd_order}},
        {"live", "schedule", "--schedule-name", {S, "--step", "1", "--graph", "fwd"}, {"--schedule-name", "original"}, {"--schedule-name", "order"}},
        {"live", "schedule", "--graph", {S, "--schedule-name", "order"}, {"--graph", "fwd"}, {"--graph", "bwd"}},
        {"live", "schedule", "--step", {P, "--schedule", fwd_order}, {}, {"--step", "1"}},
        {"live", "schedule", "--json", {P, "--schedule", fwd_order}, {}, {"--json"}},
        {"live", "schedule", "--devices", {P, "--schedule", fwd_order}, {}, {"--devices", "all"}},
        // breakdown
        {"breakdown", "graph", "--graph", {P}, {"--graph", "fwd"}, {"--graph", "bwd"}},
        {"breakdown", "graph", "--step", {P, "--graph", "fwd"}, {}, {"--step", "3"}},
        {"breakdown", "graph", "--by", {M, "--graph", "fwd"}, {}, {"--by", "module"}},
        {"breakdown", "graph", "--depth", {M, "--graph", "fwd", "--by", "module"}, {}, {"--depth", "1"}},
        {"breakdown", "graph", "--json", {P, "--graph", "fwd"}, {}, {"--json"}},
        {"breakdown", "graph", "--devices", {P, "--graph", "fwd"}, {}, {"--devices", "all"}},
        {"breakdown", "graph", "--set", {Y, "--graph", "fwd"}, {}, set},
        {"breakdown", "pair", "--set", {Y, "--pair", "fwd,bwd"}, {}, set},
        {"breakdown", "whole-step", "--set", yws, {}, set},
        {"breakdown", "schedule", "--set", {Y, "--schedule", fwd_order}, {}, set},
        {"breakdown", "pair", "--graph", {P, "--pair", "fwd,bwd"}, {}, {"--graph", "fwd"}, Expect::Refused},
        {"breakdown", "pair", "--step", {P, "--pair", "fwd,bwd"}, {}, {"--step", "3"}},
        {"breakdown", "pair", "--by", {M, "--pair", "fwd,bwd"}, {}, {"--by", "module"}},
        {"breakdown", "pair", "--depth", {M, "--pair", "fwd,bwd", "--by", "module"}, {}, {"--depth", "1"}},
        {"breakdown", "pair", "--schedule", {P, "--pair", "fwd,bwd", "--step", "1"}, {}, {"--schedule", fwd_order}},
        {"breakdown", "pair", "--schedule-name", {S, "--pair", "fwd,bwd", "--step", "1", "--graph", "fwd"}, {"--schedule-name", "original"}, {"--schedule-name", "order"}},
        {"breakdown", "pair", "--json", {P, "--pair", "fwd,bwd"}, {}, {"--json"}},
        {"breakdown", "pair", "--devices", {P, "--pair", "fwd,bwd"}, {}, {"--devices", "all"}},
        {"breakdown", "whole-step", "--graph", ws, {}, {"--graph", "region0.forward"}, Expect::Refused},
        {"breakdown", "whole-step", "--pair", ws, {}, {"--pair", "region0.forward,region0.backward"}, Expect::Refused},
        {"breakdown", "whole-step", "--schedule", ws, {}, {"--schedule", fwd_order}, Expect::Refused},
        {"breakdown", "whole-step", "--schedule-name", ws, {}, {"--schedule-name", "order"}, Expect::Refused},
        {"breakdown", "whole-step", "--step", ws, {}, {"--step", "5"}},
        {"breakdown", "whole-step", "--by", ws, {}, {"--by", "module"}, Expect::Changes, "module (the graph's and carried)"},
        {"breakdown", "whole-step", "--depth", {W, "--whole-step", "--by", "module"}, {}, {"--depth", "1"}},
        {"breakdown", "whole-step", "--json", ws, {}, {"--json"}},
        {"breakdown", "whole-step", "--devices", ws, {}, {"--devices", "all"}},
        {"breakdown", "schedule", "--schedule", {P, "--step", "1"}, {"--graph", "fwd"}, {"--schedule", fwd_order}},
        {"breakdown", "schedule", "--schedule-name", {S, "--step", "1", "--graph", "fwd"}, {"--schedule-name", "original"}, {"--schedule-name", "order"}},
        {"breakdown", "schedule", "--graph", {S, "--schedule-name", "order"}, {"--graph", "fwd"}, {"--graph", "bwd"}},
        {"breakdown", "schedule", "--step", {P, "--schedule", fwd_order}, {}, {"--step", "1"}},
        {"breakdown", "schedule", "--by", {M, "--schedule", "{tmp}/modules_order.json"}, {}, {"--by", "module"}},
        {"breakdown", "schedule", "--depth", {M, "--schedule", "{tmp}/modules_order.json", "--by", "module"}, {}, {"--depth", "1"}},
        {"breakdown", "schedule", "--json", {P, "--schedule", fwd_order}, {}, {"--json"}},
        {"breakdown", "schedule", "--devices", {P, "--schedule", fwd_order}, {}, {"--devices", "all"}},
        // fit (symbolic.json: s0 in [1, 64], s1 from 2 up)
        {"fit", "pair", "--memory", {Y, "--vary", "s0"}, {"--memory", "100000"}, {"--memory", "20000"}},
        {"fit", "pair", "--memory", {Y, "--vary", "s0"}, {}, {"--memory", "lots"}, Expect::Fails, "--memory needs a positive size", 2},
        {"fit", "pair", "--vary", {Y, "--memory", "100000"}, {"--vary", "s0"}, {"--vary", "s1"}},
        {"fit", "pair", "--vary", {Y, "--memory", "100000"}, {}, {"--vary", "s7"}, Expect::Fails, "--vary: no symbol 's7'", 1},
        {"fit", "pair", "--set", fit, {}, {"--set", "s1=10"}},
        {"fit", "pair", "--set", fit, {}, {"--set", "s0=3"}, Expect::Fails, "the symbol --vary varies", 2},
        {"fit", "pair", "--pair", fit, {}, {"--pair", "1"}, Expect::Fails, "no pair 1", 1},
        {"fit", "pair", "--json", fit, {}, {"--json"}},
        {"fit", "pair", "--devices", {Y, "--memory", "2000", "--vary", "s0"}, {}, {"--devices", "all"}},
        {"fit", "pair", "--max-extra-percent", {Y, "--memory", "40000", "--vary", "s0", "--pair", "0"}, {}, {"--max-extra-percent", "10"}, Expect::Fails, "needs a joint graph", 1},
        {"fit", "pair", "--time-limit", fit, {}, {"--time-limit", "0.000000001"}},
        {"fit", "whole-step", "--whole-step", fit, {"--pair", "0"}, {"--whole-step"}},
        {"fit", "whole-step", "--pair", {Y, "--memory", "40000", "--vary", "s0", "--whole-step"}, {}, {"--pair", "0"}, Expect::Refused},
        {"fit", "whole-step", "--max-extra-percent", {Y, "--memory", "40000", "--vary", "s0", "--whole-step"}, {}, {"--max-extra-percent", "5"}},
        {"fit", "pair", "-o", fit, {}, {"-o", "{tmp}/fit_plan.json"}, Expect::Fails, "-o writes the recompute plan", 2},
        {"fit", "whole-step", "--set", {Y, "--memory", "40000", "--vary", "s0", "--whole-step"}, {}, {"--set", "s1=10"}},
        {"fit", "whole-step", "--json", {Y, "--memory", "40000", "--vary", "s0", "--whole-step"}, {}, {"--json"}},
        {"fit", "whole-step", "--devices", {Y, "--memory", "2100", "--vary", "s0", "--whole-step"}, {}, {"--devices", "all"}},
        {"fit", "whole-step", "--time-limit", {Y, "--memory", "40000", "--vary", "s0", "--whole-step"}, {}, {"--time-limit", "0.000000001"}},
        // diff (exit 3: the new peak is higher)
        {"diff", "pair", "--pair", {K, K}, {"--pair", "0"}, {"--pair", "1"}},
        {"diff", "pair", "--max-increase", {D_old, D_new}, {}, {"--max-increase", "5%"}, Expect::Changes, "", 3},
        {"diff", "pair", "--max-increase-bytes", {D_old, D_new}, {}, {"--max-increase-bytes", "100"}, Expect::Changes, "", 3},
        {"diff", "pair", "--depth", {D_old, D_new}, {}, {"--depth", "1"}, Expect::Changes, "", 3},
        {"diff", "pair", "--json", {D_old, D_new}, {}, {"--json"}, Expect::Changes, "", 3},
        {"diff", "pair", "--devices", {P, P}, {}, {"--devices", "all"}},
        {"diff", "whole-step", "--pair", {DS_old, DS_new, "--whole-step"}, {}, {"--pair", "0"}, Expect::Refused},
        {"diff", "whole-step", "--max-increase", {DS_old, DS_new, "--whole-step"}, {}, {"--max-increase", "5%"}, Expect::Changes, "", 3},
        {"diff", "whole-step", "--max-increase-bytes", {DS_old, DS_new, "--whole-step"}, {}, {"--max-increase-bytes", "100"}, Expect::Changes, "", 3},
        {"diff", "whole-step", "--depth", {DS_old, DS_new, "--whole-step"}, {}, {"--depth", "1"}, Expect::Changes, "", 3},
        {"diff", "whole-step", "--json", {DS_old, DS_new, "--whole-step"}, {}, {"--json"}, Expect::Changes, "", 3},
        {"diff", "whole-step", "--devices", {W, W, "--whole-step"}, {}, {"--devices", "all"}},
        // export (the trace it writes is compared)
        {"export", "graph", "--perfetto", {P, "--graph", "fwd"}, {"--perfetto", out}, {"--perfetto", "{tmp}/other.json"}},
        {"export", "graph", "--graph", {P, "--perfetto", out}, {"--graph", "fwd"}, {"--graph", "bwd"}},
        {"export", "graph", "--pair", {P, "--perfetto", out, "--graph", "fwd"}, {}, {"--pair", "0"}, Expect::Refused},
        {"export", "graph", "--devices", {P, "--perfetto", out, "--graph", "fwd"}, {}, {"--devices", "all"}},
        {"export", "pair", "--pair", {K, "--perfetto", out}, {"--pair", "0"}, {"--pair", "1"}},
        {"export", "pair", "--devices", {P, "--perfetto", out, "--pair", "0"}, {}, {"--devices", "all"}},
        {"export", "whole-step", "--whole-step", {W, "--perfetto", out}, {"--pair", "0"}, {"--whole-step"}},
        {"export", "whole-step", "--graph", {W, "--perfetto", out, "--whole-step"}, {}, {"--graph", "region0.forward"}, Expect::Refused},
        {"export", "whole-step", "--pair", {W, "--perfetto", out, "--whole-step"}, {}, {"--pair", "0"}, Expect::Refused},
        {"export", "whole-step", "--devices", {W, "--perfetto", out, "--whole-step"}, {}, {"--devices", "all"}},
        {"export", "graph", "--memory-viz", {P, "--graph", "fwd"}, {"--perfetto", out}, {"--memory-viz", out}},
        {"export", "graph", "--until-peak", {K, "--memory-viz", out, "--graph", "region0.forward"}, {}, {"--until-peak"}},
        {"export", "graph", "--until-peak", {P, "--perfetto", out, "--graph", "fwd"}, {}, {"--until-peak"}, Expect::Fails, "--until-peak goes with --memory-viz", 2},
        {"export", "graph", "--in-pair", {P, "--perfetto", out, "--graph", "bwd"}, {}, {"--in-pair"}},
        {"export", "graph", "--schedule", {P, "--perfetto", out, "--graph", "fwd"}, {}, {"--schedule", fwd_order}},
        {"export", "graph", "--schedule-name", {S, "--perfetto", out, "--graph", "fwd"}, {}, {"--schedule-name", "order"}},
        {"export", "pair", "--memory-viz", {P, "--pair", "0"}, {"--perfetto", out}, {"--memory-viz", out}},
        {"export", "pair", "--until-peak", {P, "--memory-viz", out, "--pair", "0"}, {}, {"--until-peak"}},
        {"export", "pair", "--in-pair", {P, "--perfetto", out, "--pair", "0"}, {}, {"--in-pair"}, Expect::Refused},
        {"export", "pair", "--schedule", {P, "--perfetto", out, "--pair", "0"}, {}, {"--schedule", fwd_order}},
        {"export", "pair", "--schedule-name", {S, "--perfetto", out, "--pair", "0"}, {"--schedule", fwd_order}, {"--schedule-name", "original"}},
        {"export", "whole-step", "--memory-viz", {W, "--whole-step"}, {"--perfetto", out}, {"--memory-viz", out}},
        {"export", "whole-step", "--until-peak", {W, "--memory-viz", out, "--whole-step"}, {}, {"--until-peak"}},
        {"export", "whole-step", "--in-pair", {W, "--perfetto", out, "--whole-step"}, {}, {"--in-pair"}, Expect::Refused},
        {"export", "whole-step", "--schedule", {W, "--perfetto", out, "--whole-step"}, {}, {"--schedule", fwd_order}, Expect::Refused},
        {"export", "whole-step", "--schedule-name", {W, "--perfetto", out, "--whole-step"}, {}, {"--schedule-name", "order"}, Expect::Refused},
        // layout (modules.json: layers > layers.N > layers.N.fc; single.json has CPU storages on its edges)
        {"layout", "graph", "--graph", {M, "--json"}, {"--graph", "fwd"}, {"--graph", "bwd"}},
        {"layout", "graph", "--depth", {M, "--graph", "fwd", "--json"}, {"--depth", "1"}, {"--depth", "2"}},
        {"layout", "graph", "--depth", {M, "--graph", "fwd"}, {}, {"--depth", "0"}, Expect::Fails, "--depth must be from 1", 2},
        {"layout", "graph", "--expand", {M, "--graph", "fwd", "--depth", "1", "--json"}, {}, {"--expand", "layers.0"}},
        {"layout", "graph", "--expand", {M, "--graph", "fwd"}, {}, {"--expand", "layers.7"}, Expect::Fails, "--expand: no module 'layers.7'", 1},
        {"layout", "graph", "--json", {M, "--graph", "fwd"}, {}, {"--json"}},
        {"layout", "graph", "--devices", {"{good}/single.json", "--json"}, {}, {"--devices", "all"}},
        {"layout", "pair", "--pair", {P, "--json"}, {"--graph", "fwd"}, {"--pair", "0"}},
        {"layout", "pair", "--pair", {P}, {}, {"--pair", "1"}, Expect::Fails, "no pair 1", 1},
        {"layout", "whole-step", "--whole-step", {W, "--json"}, {"--graph", "region0.forward"}, {"--whole-step"}},
    };
    // clang-format on
    return table;
}

// Beside the other tests' files in the process's scratch directory, in a folder of its own.
std::string table_dir() {
    const std::string dir = fxmem_test::scratch_dir() + "/option_table";
    std::filesystem::create_directories(dir);
    return dir;
}

std::string expand(std::string s) {
    static const std::string good = std::string(FXMEM_TEST_DATA) + "/good";
    static const std::string ex = std::string(FXMEM_TEST_DATA) + "/../../resources/examples";
    s = fxmem_test::replace_all(s, "{good}", good);
    s = fxmem_test::replace_all(s, "{ex}", ex);
    return fxmem_test::replace_all(s, "{tmp}", table_dir());
}

// The fixtures under {tmp}, written once per process.
void write_fixtures() {
    const std::string tmp = table_dir();
    if (std::filesystem::exists(tmp + "/plan.json")) return;
    std::string pair = fxmem_test::slurp(expand("{good}/pair.json"));
    const std::string fwd_order = R"(["primals_1", "primals_2", "cpu_const", "tmp", "t", "mm", "relu", "output"])";
    const std::string fwd_original = R"(["primals_1", "primals_2", "cpu_const", "t", "tmp", "mm", "relu", "output"])";
    const std::string bwd_order = R"(["primals_2", "mm", "tangents_1", "mul", "sum", "output"])";
    const auto last = pair.rfind('}');
    pair = pair.substr(0, last) + R"(, "schedules": [{"name": "order", "graph": "fwd", "order": )" + fwd_order +
           R"(}, {"name": "original", "graph": "fwd", "order": )" + fwd_original +
           R"(}, {"name": "order", "graph": "bwd", "order": )" + bwd_order + "}]}\n";
    fxmem_test::write(tmp + "/sched.json", pair);
    fxmem_test::write(tmp + "/fwd_order.json", R"({"graph": "fwd", "order": )" + fwd_order + "}");
    fxmem_test::write(tmp + "/bwd_order.json", R"({"graph": "bwd", "order": )" + bwd_order + "}");
    // modules.json's bwd with d before g1.
    fxmem_test::write(
        tmp + "/modules_order.json",
        R"({"graph": "bwd", "order": ["primals_2", "mm0_saved", "tangents_1", "d", "g1", "g0", "output"]})");
    const CliRun plan = fxmem_test::cli({"remat", expand("{good}/joint.json"), "-o", tmp + "/plan.json"});
    ASSERT_EQ(plan.status, 0) << plan.err;
}

struct Outcome {
    CliRun run;
    std::string shown; // stdout, then what it wrote to out.json or other.json
};

Outcome run_cell(const Cell& c, const std::vector<std::string>& extra) {
    std::vector<std::string> args = {c.command};
    for (const std::string& a : c.base) args.push_back(expand(a));
    for (const std::string& a : extra) args.push_back(expand(a));
    const std::string tmp = table_dir();
    for (const char* f : {"/out.json", "/other.json"}) std::filesystem::remove(tmp + f);
    Outcome o;
    o.run = fxmem_test::cli(args);
    o.shown = o.run.out;
    for (const char* f : {"/out.json", "/other.json"})
        if (std::filesystem::exists(tmp + f)) o.shown += "\n--- written:\n" + fxmem_test::slurp(tmp + f);
    return o;
}

class Cells : public ::testing::TestWithParam<std::size_t> {};

TEST_P(Cells, ChangesTheOutputOrIsRefused) {
    const Cell& c = cells()[GetParam()];
    write_fixtures();
    const Outcome second = run_cell(c, c.second);
    switch (c.expect) {
    case Expect::Refused:
        ASSERT_EQ(second.run.status, 2) << second.run.out << second.run.err;
        EXPECT_TRUE(contains(second.run.err, c.option)) << second.run.err;
        EXPECT_TRUE(contains(second.run.err, std::string("--") + c.mode)) << second.run.err;
        EXPECT_EQ(second.run.out, "");
        return;
    case Expect::Fails:
        EXPECT_EQ(second.run.status, c.status) << second.run.out << second.run.err;
        EXPECT_TRUE(contains(second.run.err, c.detail)) << second.run.err;
        return;
    case Expect::Changes: {
        const Outcome first = run_cell(c, c.first);
        ASSERT_EQ(first.run.status, c.status) << first.run.err;
        ASSERT_EQ(second.run.status, c.status) << second.run.err;
        EXPECT_NE(first.shown, second.shown) << "the option changed nothing:\n" << second.shown;
        EXPECT_TRUE(contains(second.shown, c.detail)) << second.shown;
        return;
    }
    }
}

std::string cell_name(const ::testing::TestParamInfo<std::size_t>& info) {
    const Cell& c = cells()[info.param];
    std::string name = std::string(c.command) + "_" + c.mode + "_" + c.option + "_" + std::to_string(info.param);
    for (char& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return name;
}

INSTANTIATE_TEST_SUITE_P(CliOptionTable, Cells, ::testing::Range<std::size_t>(0, cells().size()), cell_name);

} // namespace

// The table lists every command of the usage, and for each every option its usage names
// (--devices, which every command takes, included).
TEST(CliOptionTable, CoversEveryCommandAndOption) {
    std::map<std::string, std::set<std::string>> listed;
    for (const Cell& c : cells()) {
        listed[c.command].insert(c.option);
        listed[c.command].insert(std::string("--") + c.mode); // the mode's own option
    }
    const CliRun help = fxmem_test::cli({"--help"});
    ASSERT_EQ(help.status, 0);
    const std::regex command_line(R"(^  ([a-z]+) (FILE|OLD NEW))");
    std::set<std::string> commands;
    std::istringstream lines(help.out);
    for (std::string line; std::getline(lines, line);) {
        std::smatch m;
        if (std::regex_search(line, m, command_line)) commands.insert(m[1]);
    }
    ASSERT_GE(commands.size(), 12u) << help.out;
    for (const std::string& command : commands) {
        SCOPED_TRACE(command);
        ASSERT_TRUE(listed.count(command)) << "the table has no cell of '" << command << "'";
        const CliRun usage = fxmem_test::cli({command, "--help"});
        ASSERT_EQ(usage.status, 0);
        // The synopsis: from "usage:" to the first line of prose.
        std::string synopsis;
        std::istringstream u(usage.out);
        for (std::string line; std::getline(u, line);) {
            if (line.starts_with("usage:") ||
                (!synopsis.empty() && (line.empty() || line.find('[') != std::string::npos)))
                synopsis += line + "\n";
            else if (!synopsis.empty())
                break;
        }
        std::set<std::string> options = {"--devices"};
        const std::regex option(R"((--[a-z-]+|-o)\b)");
        for (auto it = std::sregex_iterator(synopsis.begin(), synopsis.end(), option); it != std::sregex_iterator();
             ++it)
            options.insert((*it)[1]);
        options.erase("--help");
        for (const std::string& o : options)
            EXPECT_TRUE(listed[command].count(o)) << "no cell for " << command << " " << o << "\n" << synopsis;
    }
}
