// remat FILE [--graph NAME] [--max-extra-flops F | --max-extra-percent P | --target-peak BYTES]
//       [--time-limit S] [-o PLAN.json] [--plan PLAN.json] [--json]
// A recompute plan for the file's joint graph: the saved set with the lowest pair peak within the
// limit, its backward order, and the frontier of (peak, extra FLOPs) found; --plan scores a plan.
#include "cmd_remat.h"

#include "commands.h"
#include "fxmem/error.h"
#include "fxmem/io.h"
#include "fxmem/remat.h"
#include "fxmem/step_remat.h"
#include "fxmem/units.h"
#include "fxmem/whole_step.h"
#include "table.h"
#include "text.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <optional>
#include <ostream>

namespace fxmem::cli {

nlohmann::ordered_json budget_rows_json(const GraphFile& file, const std::vector<BudgetRow>& rows);
std::string budget_text(double budget);

namespace {

// The joint graph of the pair whose forward or backward run holds the whole-step peak, for a
// file with a step and more than one joint graph (graph breaks); nullopt otherwise.
struct StepJoint {
    GraphId joint;
    std::int64_t step_peak = 0;
    std::string at; // the step entry holding the peak
};
std::optional<StepJoint> step_peak_joint(const GraphFile& file, const Args& args) {
    if (file.step.empty()) return std::nullopt;
    std::size_t joints = 0;
    for (const Graph& g : file.graphs) joints += g.kind == GraphKind::Joint ? 1 : 0;
    if (joints < 2) return std::nullopt;
    const std::optional<StepPeakRegion> region = step_peak_region(file, whole_step(file, devices_counted(file, args)));
    if (!region) return std::nullopt; // the peak is in a graph without a joint (the optimizer's step)
    return StepJoint{region->joint, region->step_peak, step_entry_name(file, file.step[region->entry])};
}

// The joint graph to plan, and (when the whole step chose it) why.
struct JointChoice {
    GraphId joint;
    std::optional<StepJoint> step;
};

JointChoice select_joint(const GraphFile& file, const Args& args) {
    if (const auto name = args.value("--graph")) {
        const std::optional<GraphId> g = file.find_graph(*name);
        if (!g) throw Error(args.file + ": no graph named '" + *name + "'");
        if (file.graph(*g).kind != GraphKind::Joint)
            throw Error(args.file + ": graph '" + *name + "' is not a joint graph");
        return {*g, std::nullopt};
    }
    // A whole step with several regions: the joint whose region holds the step's peak.
    if (std::optional<StepJoint> at = step_peak_joint(file, args)) return {at->joint, std::move(at)};
    for (std::size_t i = 0; i < file.graphs.size(); ++i)
        if (file.graphs[i].kind == GraphKind::Joint) return {GraphId(static_cast<std::int32_t>(i)), std::nullopt};
    throw Error(args.file +
                ": no joint graph (capture with fxmem_export.backend(PATH, joint=True) or fxmem_export.sweep)");
}

// " (+12.5 %)", or "" where the whole is 0 and the share is undefined.
std::string change_suffix(std::int64_t part, std::int64_t whole) {
    if (whole <= 0) return "";
    char buf[40];
    std::snprintf(buf, sizeof buf, " (%+.1f %%)", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
    return buf;
}

} // namespace

int run_remat(const Args& args, std::ostream& out) {
    RematOptions options;
    int limits = 0;
    if (const auto v = args.value("--max-extra-flops"))
        options.max_extra_flops = parse_count("--max-extra-flops", *v), ++limits;
    if (const auto v = args.value("--max-extra-percent"))
        options.max_extra_percent = parse_number("--max-extra-percent", *v), ++limits;
    if (const auto v = args.value("--target-peak")) options.target_peak = parse_count("--target-peak", *v), ++limits;
    if (limits > 1)
        throw UsageError("remat: give at most one of --max-extra-flops, --max-extra-percent, --target-peak");
    if (const auto v = args.value("--time-limit")) options.time_limit_s = parse_number("--time-limit", *v);
    const auto plan_path = args.value("--plan");
    if (plan_path)
        for (const char* option : {"--max-extra-flops", "--max-extra-percent", "--target-peak", "--time-limit"})
            if (args.has(option))
                throw UsageError(std::string("remat: ") + option +
                                 " does not apply with --plan: --plan scores the given plan, without a search");
    if (device_filter(args) != DeviceFilter::NonCpu)
        throw UsageError("remat: --devices all is not supported: a plan is scored on non-CPU storages, as PyTorch's "
                         "partitioner counts them");
    check_output_option(args, "remat", "plan");
    const GraphFile file = load_bound(args);
    const JointChoice chosen = select_joint(file, args);
    const JointGraph joint = analyze_joint(file, chosen.joint);
    const Graph& g = joint.g();
    RematResult r;
    if (plan_path) {
        // Score the given plan as the search would have.
        const RematPlan plan = load_plan(*plan_path);
        const ResolvedPlan resolved = resolve_plan(joint, plan, *plan_path);
        const RematBaseline base = remat_baseline(joint);
        r.baseline = base.source;
        r.baseline_flops = base.flops;
        r.baseline_peak = score_partition(joint, simulate_partition(joint, base.saved)).peak;
        r.saved = resolved.partition.saved;
        r.partition = resolved.partition;
        r.backward_order = resolved.backward_order;
        r.peak = score_partition(joint, r.partition, r.backward_order);
        r.extra_flops = r.partition.flops - base.flops;
        r.frontier = {{r.peak.peak, r.extra_flops}};
        r.evaluations = 1;
    } else {
        r = search_remat(joint, options);
    }
    if (const auto path = args.value("-o")) save_plan(make_plan(joint, r), *path);
    const RematBaseline base_pair = remat_baseline(joint);
    std::string mismatch = base_pair.mismatch;
    // The pair's own peak (PyTorch's estimator on its graphs) against the simulated baseline's: an
    // edited joint (num_fwd_outputs, phases) partitions differently with the same FLOPs.
    if (mismatch.empty() && base_pair.pair) {
        const Pair& p = file.pairs[*base_pair.pair];
        const std::int64_t own =
            analyze_pair(file, file.graph(p.forward), file.graph(p.backward), default_counted(file)).peak.peak;
        if (own != r.baseline_peak)
            mismatch = "pair " + base_pair.source + " is not the partition of joint graph '" + g.name +
                       "' with its saved values (its peak is " + std::to_string(own) +
                       " bytes where that partition's is " + std::to_string(r.baseline_peak) +
                       "): the baseline is the simulated partition";
    }
    const std::vector<BudgetRow> rows = budget_rows(file);
    // Saved values the tagged min-cut would recompute instead (a hand-edited plan): PyTorch's
    // partition under the plan would differ from the one scored here.
    const std::vector<NodeId> unstable = unstable_saved(joint, r.partition);
    // Random ops it recomputes (a --plan, PyTorch's own pair below budget 1): a tag would make the
    // partitioner replay their RNG state instead, so apply_remat refuses the plan.
    const std::vector<NodeId> seeded = seeded_recomputed(joint, r.partition);

    const auto names = [&](const std::vector<NodeId>& v) {
        auto a = nlohmann::ordered_json::array();
        for (NodeId id : v) a.push_back(g.node(id).name);
        return a;
    };
    if (args.has("--json")) {
        nlohmann::ordered_json j;
        j["joint"] = g.name;
        j["baseline"] = {{"source", r.baseline}, {"peak", r.baseline_peak}, {"flops", r.baseline_flops}};
        if (!mismatch.empty()) j["baseline"]["mismatch"] = mismatch;
        j["peak"] = r.peak.peak;
        j["forward_peak"] = r.peak.forward_peak;
        j["backward_peak"] = r.peak.backward_peak;
        j["backward_baseline"] = r.peak.backward_baseline;
        j["extra_flops"] = r.extra_flops;
        j["saved"] = names(r.saved);
        j["recomputed"] = names(r.partition.recomputed);
        j["order"] = names(r.backward_order);
        auto& frontier = j["frontier"] = nlohmann::ordered_json::array();
        for (const FrontierPoint& p : r.frontier)
            frontier.push_back({{"peak", p.peak}, {"extra_flops", p.extra_flops}});
        if (!rows.empty()) j["pytorch"] = budget_rows_json(file, rows);
        j["met_limit"] = r.met_limit;
        j["reproducible"] = unstable.empty() && seeded.empty();
        j["evaluations"] = r.evaluations;
        out << j.dump() << '\n';
        return 0;
    }
    if (const std::string note = cpu_only_note(file, default_counted(file)); !note.empty()) out << note << '\n';
    out << "joint graph '" << elide(g.name) << "', " << g.size() << " nodes\n";
    if (chosen.step)
        out << "  its region holds the whole-step peak, " << bytes_text(chosen.step->step_peak) << " in "
            << escape_control(elide(chosen.step->at)) << "; --graph picks another joint graph\n";
    out << "baseline (" << elide(r.baseline) << "): " << bytes_text(r.baseline_peak) << ", " << r.baseline_flops
        << " FLOPs\n";
    if (!mismatch.empty()) out << "note: " << escape_control(mismatch) << '\n';
    out << (plan_path ? "plan " + escape_control(*plan_path) : std::string("plan")) << ": " << bytes_text(r.peak.peak)
        << change_suffix(r.peak.peak - r.baseline_peak, r.baseline_peak) << ", extra FLOPs " << r.extra_flops
        << change_suffix(r.extra_flops, r.baseline_flops) << (r.met_limit ? "" : "; no plan met the limit") << '\n';
    out << "  saved " << r.saved.size() << " values, recomputes " << r.partition.recomputed.size()
        << " nodes; forward peak " << format_bytes(r.peak.forward_peak) << ", backward peak "
        << format_bytes(r.peak.backward_peak) << '\n';
    if (const auto path = args.value("-o")) out << "written to " << escape_control(*path) << '\n';
    if (!seeded.empty())
        out << "note: the plan recomputes the random op '" << elide(g.node(seeded[0]).name) << "'"
            << (seeded.size() > 1 ? " and " + std::to_string(seeded.size() - 1) + " more" : std::string())
            << " (PyTorch's partitioner would replay its RNG state under apply_remat's tags: apply_remat refuses "
               "the plan)\n";
    if (!unstable.empty())
        out << "note: PyTorch's partitioner would recompute '" << elide(g.node(unstable[0]).name) << "'"
            << (unstable.size() > 1 ? " and " + std::to_string(unstable.size() - 1) + " more saved values"
                                    : std::string())
            << " instead of saving it (apply_remat cannot force it; docs/estimator.md, \"Reproducible plans\")\n";
    if (!plan_path) {
        std::vector<std::vector<std::string>> table = {{"frontier peak", "extra FLOPs"}};
        for (const FrontierPoint& p : r.frontier)
            table.push_back(
                {format_bytes(p.peak), std::to_string(p.extra_flops) + change_suffix(p.extra_flops, r.baseline_flops)});
        write_table(out, table, {true, true});
    }
    if (!rows.empty()) {
        std::vector<std::vector<std::string>> table = {{"PyTorch budget", "pair peak", "extra FLOPs"}};
        for (const BudgetRow& b : rows)
            table.push_back({budget_text(b.budget), format_bytes(b.peak.peak),
                             std::to_string(b.flops - r.baseline_flops) +
                                 change_suffix(b.flops - r.baseline_flops, r.baseline_flops)});
        write_table(out, table, {true, true, true});
    }
    return 0;
}

} // namespace fxmem::cli
