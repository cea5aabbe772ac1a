// The Recompute view's data, Qt-free: PyTorch's budget pairs as scored by core (budget_rows),
// fxmem's frontier and plan (search_remat), and the simulated pair of a plan ready for a scene.
#pragma once
#include <fxmem/remat.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

struct RecomputePoint {
    enum class Kind { Budget, Frontier, Plan, Edit }; // Edit: a live-table Recompute/Save
    Kind kind = Kind::Budget;
    double budget = -1; // Budget: activation_memory_budget
    int pair = -1;      // Budget: index into the file's pairs
    std::int64_t peak = 0;
    std::int64_t extraFlops = 0;  // over the budget-1.0 pair
    std::int64_t savedBytes = -1; // -1: not known (a frontier point keeps only peak and FLOPs)
    bool lowest = false;          // the lowest peak of all points (the first such)
    int made = -1;                // Edit: which pair the view made (RecomputePanel's)
    std::string label;            // Edit: what was done
};

struct RecomputePoints {
    int joint = -1;                                      // the file's first joint graph, -1 none
    std::shared_ptr<const fxmem::JointGraph> jointGraph; // analyze_joint of it; null when none or unusable
    std::string jointError;                              // why it is unusable
    std::int64_t baseFlops = 0;         // FLOPs of the budget-1.0 pair (100 % of the x axis); 0: unknown
    std::vector<RecomputePoint> points; // the budget rows in file order, then the frontier, then the plan
    // Extra FLOPs in percent of baseFlops (0 when that is unknown).
    double percent(std::int64_t extra) const {
        return baseFlops > 0 ? 100.0 * static_cast<double>(extra) / static_cast<double>(baseFlops) : 0.0;
    }
    bool empty() const { return points.empty() && joint < 0; }
    void markLowest();
};

// A budget as Python writes it ("1.0", "0.6", "0.05"), as the sweep names its pairs.
std::string budgetText(double budget);

// The file's budget points and joint graph (Throws fxmem::Error when a pair cannot be scored).
RecomputePoints budgetPoints(const fxmem::GraphFile& file);

// A plan search's outcome, kept with the file its joint points into.
struct RecomputePlan {
    std::shared_ptr<const fxmem::GraphFile> file;
    std::shared_ptr<const fxmem::JointGraph> joint;
    fxmem::RematResult result;
    double maxExtraPercent = -1; // the FLOPs limit it was searched under (-1: none)
    std::int64_t savedBytes = 0;
    std::shared_ptr<const fxmem::GraphFile> pairFile; // the plan's pair (simulatedPairFile)
    std::shared_ptr<const fxmem::RematPlan> planFile; // make_plan of it: what Save Plan writes
};
// Runs search_remat on the file's joint graph (options' cancel and progress are passed through).
std::shared_ptr<const RecomputePlan> searchPlan(std::shared_ptr<const fxmem::GraphFile> file, int joint,
                                                const fxmem::RematOptions& options);
// `points` without an earlier frontier and plan, then the plan's frontier and the plan (edits stay).
void addPlan(RecomputePoints& points, const RecomputePlan& plan);

// Counted bytes of the saved values' storages, each storage once (as budget_rows counts them).
std::int64_t savedBytes(const fxmem::JointGraph& joint, std::span<const fxmem::NodeId> saved);
// The partition as a file of two graphs ("<name>.forward", "<name>.backward") and one pair, with
// stack traces, modules and FLOPs: what a scene shows.
std::shared_ptr<const fxmem::GraphFile> simulatedPairFile(const fxmem::JointGraph& joint,
                                                          const fxmem::Partition& partition,
                                                          std::span<const fxmem::NodeId> backwardOrder,
                                                          const std::string& name);
