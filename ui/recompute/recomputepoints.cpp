#include "recompute/recomputepoints.h"

#include <fxmem/error.h>
#include <fxmem/estimator.h>

#include <algorithm>
#include <cstdio>

using namespace fxmem;

void RecomputePoints::markLowest() {
    RecomputePoint* best = nullptr;
    for (RecomputePoint& p : points) {
        p.lowest = false;
        if (!best || p.peak < best->peak) best = &p;
    }
    if (best) best->lowest = true;
}

std::string budgetText(double budget) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.15g", budget);
    std::string s = buf;
    if (s.find_first_of(".en") == std::string::npos) s += ".0";
    return s;
}

RecomputePoints budgetPoints(const GraphFile& file) {
    RecomputePoints out;
    for (std::size_t g = 0; g < file.graphs.size() && out.joint < 0; ++g)
        if (file.graphs[g].kind == GraphKind::Joint) out.joint = static_cast<int>(g);
    if (out.joint >= 0) {
        try {
            out.jointGraph = std::make_shared<const JointGraph>(analyze_joint(file, GraphId(out.joint)));
        } catch (const Error& e) {
            out.jointError = e.what();
        }
    }
    for (const BudgetRow& row : budget_rows(file)) {
        RecomputePoint p;
        p.budget = row.budget;
        p.pair = static_cast<int>(row.pair);
        p.peak = row.peak.peak;
        p.extraFlops = row.extra_flops;
        p.savedBytes = row.saved_bytes;
        out.points.push_back(p);
        if (out.baseFlops == 0) out.baseFlops = row.base_flops; // the budget-1.0 pair's, else the highest budget's
    }
    out.markLowest();
    return out;
}

std::int64_t savedBytes(const JointGraph& joint, std::span<const NodeId> saved) {
    const GraphFile& file = *joint.file;
    const StorageMask counted = default_counted(file);
    std::vector<std::uint8_t> seen(file.storages.size(), 0);
    std::int64_t sum = 0;
    for (NodeId n : saved)
        for (StorageId s : joint.g().outputs(n))
            if (!seen[s.index()] && counted[s.index()]) {
                seen[s.index()] = 1;
                sum += file.nbytes(s);
            }
    return sum;
}

std::shared_ptr<const GraphFile> simulatedPairFile(const JointGraph& joint, const Partition& partition,
                                                   std::span<const NodeId> backwardOrder, const std::string& name) {
    SimulatedPair pair =
        materialize_partition(joint, partition, name + ".forward", name + ".backward", backwardOrder, true);
    auto file = std::make_shared<GraphFile>(std::move(pair.file));
    file->source = joint.file->source + " (" + name + ")";
    file->add_pair(name + ".forward", name + ".backward");
    return file;
}

std::shared_ptr<const RecomputePlan> searchPlan(std::shared_ptr<const GraphFile> file, int joint,
                                                const RematOptions& options) {
    auto plan = std::make_shared<RecomputePlan>();
    plan->file = std::move(file);
    plan->joint = std::make_shared<const JointGraph>(analyze_joint(*plan->file, GraphId(joint)));
    plan->result = search_remat(*plan->joint, options);
    plan->maxExtraPercent = options.max_extra_percent.value_or(-1);
    plan->savedBytes = savedBytes(*plan->joint, plan->result.saved);
    plan->pairFile = simulatedPairFile(*plan->joint, plan->result.partition, plan->result.backward_order, "plan");
    plan->planFile = std::make_shared<const RematPlan>(make_plan(*plan->joint, plan->result));
    return plan;
}

void addPlan(RecomputePoints& points, const RecomputePlan& plan) {
    std::erase_if(points.points, [](const RecomputePoint& p) {
        return p.kind == RecomputePoint::Kind::Frontier || p.kind == RecomputePoint::Kind::Plan;
    });
    if (points.baseFlops == 0) points.baseFlops = plan.result.baseline_flops;
    for (const FrontierPoint& f : plan.result.frontier) {
        RecomputePoint p;
        p.kind = RecomputePoint::Kind::Frontier;
        p.peak = f.peak;
        p.extraFlops = f.extra_flops;
        points.points.push_back(p);
    }
    RecomputePoint p;
    p.kind = RecomputePoint::Kind::Plan;
    p.peak = plan.result.peak.peak;
    p.extraFlops = plan.result.extra_flops;
    p.savedBytes = plan.savedBytes;
    points.points.push_back(p);
    points.markLowest();
}
