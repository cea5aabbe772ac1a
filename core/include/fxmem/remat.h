// Recompute (activation checkpointing) on a joint graph: simulate the forward/backward pair that
// PyTorch's partitioner extracts for a given set of saved values, score it with the estimator
// (analyze_pair), and search the saved set for a lower pair peak under a FLOP budget.
//
// The simulation follows torch/_functorch/partitioners.py (torch 2.13): _extract_fwd_bwd_modules
// (forward = what the primals compute for the forward outputs and the saved values; backward =
// what the saved values and tangents compute for the gradients, dead code removed, saved values
// the backward does not use dropped), then reordering_to_mimic_autograd_engine on the backward and
// raise_getitems on both. docs/estimator.md ("Recompute") has the mapping line by line.
#pragma once
#include "fxmem/cancel.h"
#include "fxmem/estimator.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fxmem {

// What the partitioner needs to know about a joint graph, computed once (O(N + E)).
struct JointGraph {
    const GraphFile* file = nullptr;
    GraphId graph;                                // index into file->graphs
    NodeId output;                                // the joint's output node (its last node)
    std::vector<NodeId> primals, tangents;        // placeholders, in graph order (_is_primal, _is_tangent)
    std::vector<NodeId> fwd_outputs, bwd_outputs; // the output node's inputs split at num_fwd_outputs
    std::vector<std::uint8_t> computable;         // per node: computable from the primals alone (may be saved)
    std::vector<std::uint8_t> forward;            // per node: phase forward (a required forward node)
    std::vector<std::uint8_t>
        mutating; // per node: an in-place aten op (kept by dead-code removal; forward ones stay there)
    std::vector<std::uint8_t> getitem, copy; // operator.getitem; aten.copy_.default
    std::vector<std::uint8_t> view;          // the partitioner's view ops (get_default_op_list().view_ops)
    std::vector<std::uint8_t>
        free_to_save; // a primal holding a parameter or buffer storage: a static-lifetime
                      // input, which the partitioner saves at weight 0 (treat_parameters_as_free_to_save)
    std::vector<std::uint8_t> symbolic; // the node's val is a single non-tensor ({"other": ...}): a SymInt and the like
    std::vector<std::uint8_t> multi;    // the node's val is a list (a multi-output op): the partitioner cannot save
                                        // it ("non-tensor output"), only its getitems
    std::vector<std::uint8_t>
        seeded; // a random op (the exporter's meta "nondeterministic_seeded"): a plan cannot make the
                // partitioner recompute one without replaying its RNG state, so plans save them
    std::vector<std::int64_t> flops; // per node, 0 where the file gives none
    // Symbolic sizes (empty without them): per symbol, the node that binds it (the first
    // placeholder whose val is the bare symbol: find_symbol_binding_fx_nodes), invalid when none;
    // per node, the symbols its tensors' sizes, strides and offsets name (CSR over node ids).
    std::vector<NodeId> symbol_binding;
    std::vector<std::uint32_t> node_symbols_begin, node_symbols;

    const Graph& g() const { return file->graph(graph); }
    std::size_t size() const { return computable.size(); }
};

// Throws Error naming the file, graph and node when the graph is not a usable joint graph (no
// num_fwd_outputs, a forward output that needs a tangent, a file phase that contradicts the
// structure: a node marked forward that needs a tangent, or one the forward outputs need marked
// backward).
JointGraph analyze_joint(const GraphFile& file, GraphId graph);

// One simulated partition, in joint-graph node ids.
struct Partition {
    std::vector<NodeId> saved;      // saved values the backward uses, in the order of the backward's placeholders
    std::vector<NodeId> forward;    // the forward graph's nodes in order (placeholders first), without the output node
    std::vector<NodeId> backward;   // the backward's nodes after its placeholders, in order, without the output node
    std::vector<NodeId> recomputed; // forward-phase nodes the backward computes again, in joint order
    std::int64_t flops = 0;         // forward + backward
};

// Extracts the pair PyTorch would for `saved` (joint node ids, any order, repeats ignored). Throws
// Error naming the file and the node when a saved node cannot be computed in the forward (it
// needs a tangent, or it is the output node) or when the backward cannot compute a node it needs
// from the saved values and tangents (naming the node and the value it lacks).
Partition simulate_partition(const JointGraph& joint, std::span<const NodeId> saved);

// The pair as two graphs of a new GraphFile that holds the joint's storages (same StorageIds).
// `backward_order`, when not empty, replaces the order of the backward's non-placeholder nodes
// (a permutation of partition.backward; checked by the caller). `full` copies stack traces, meta
// and modules too (for files and views); without it only what the estimator reads.
struct SimulatedPair {
    GraphFile file;
    const Graph& forward() const { return file.graphs[0]; }
    const Graph& backward() const { return file.graphs[1]; }
};
// `storages`, when given, is storage_template(joint): copied instead of adding the storages one
// by one (the search materializes thousands of partitions).
SimulatedPair materialize_partition(const JointGraph& joint, const Partition& partition,
                                    const std::string& forward_name, const std::string& backward_name,
                                    std::span<const NodeId> backward_order = {}, bool full = false,
                                    const GraphFile* storages = nullptr);
// The joint's own file with pair `pair`'s forward and backward replaced by the partition's (each
// keeps its name; full copies, as materialize_partition's `full`): the step as it runs under a
// plan, for whole_step. The pair should be one that `joint` partitions (its storages are the
// joint's). Throws Error when the file has no pair `pair`. O(file).
GraphFile with_partition(const JointGraph& joint, std::size_t pair, const Partition& partition,
                         std::span<const NodeId> backward_order = {});
// A GraphFile with the joint's storages (same StorageIds, roles and labels) and no graphs.
GraphFile storage_template(const JointGraph& joint);

// The saved values PyTorch's min-cut partitioner would not save when the joint graph carries
// the tags fxmem_export.apply_remat writes: a getitem, a view op or a node the forward outputs do
// not need can never be banned from recompute, so the partitioner recomputes it in the backward
// as soon as all its inputs are there (saved, or computed in the backward), or are parameters and
// buffers it saves for free (which then join the saved set). A saved view op (view_like) is in
// the list in any case: the partitioner saves either it or its base by their weights, and saving the base
// (the storage the view keeps) is what a tag can force. Empty when the saved set is stable;
// search_remat drops these (saving a dropped view's base instead) until it is, so every plan it
// returns is reproducible.
std::vector<NodeId> unstable_saved(const JointGraph& joint, const Partition& partition);
// The random ops (JointGraph::seeded) of the required forward the partition recomputes. PyTorch's
// own partition may (below budget 1, untagged), but a MUST_RECOMPUTE tag on one makes the
// partitioner save and replay its RNG state (functionalize_rng_ops): apply_remat refuses such a plan.
std::vector<NodeId> seeded_recomputed(const JointGraph& joint, const Partition& partition);
// A partition apply_remat's tags make PyTorch's partitioner reproduce: no unstable saved value,
// no random op recomputed.
inline bool reproducible(const JointGraph& joint, const Partition& partition) {
    return unstable_saved(joint, partition).empty() && seeded_recomputed(joint, partition).empty();
}
// The saved set without unstable_saved's values: a dropped view's base saved instead, and the
// parameters and buffers the dropped values are recomputed from (saved for free); the random ops
// it recomputes are saved.
std::vector<NodeId> stable_saved(const JointGraph& joint, const Partition& partition);
// A view op (the partitioner's view_ops), or a getitem of one (split's pieces): what min-cut never
// bans from recompute and saves, or not, by its weights against its base's.
bool view_like(const JointGraph& joint, NodeId x);

// analyze_pair on the materialized pair (default device filter).
PeakMemory score_partition(const JointGraph& joint, const Partition& partition,
                           std::span<const NodeId> backward_order = {}, const GraphFile* storages = nullptr);

// The saved values of an existing pair of the file, as joint node ids: the backward's
// placeholders that are not tangents, found by name in the joint. Throws Error naming the pair
// and the node when a name is not in the joint.
std::vector<NodeId> saved_of_pair(const JointGraph& joint, const Pair& pair);

// ---- single edits (the Recompute view's "Recompute in backward" / "Save") ----

// `saved` with x recomputed in the backward: x leaves the saved set and the values it reads
// (those the forward computes) join it. Throws Error with the reason when refused: x is not
// saved, x is a primal (a forward input: only saved, never recomputed), x is an in-place op the
// forward must run, or the result leaves a gradient uncomputable.
std::vector<NodeId> recompute_in_backward(const JointGraph& joint, std::span<const NodeId> saved, NodeId x);
// `saved` with x saved by the forward. Throws Error with the reason when refused: x is already
// saved, needs a tangent, or is the output node.
std::vector<NodeId> save_in_forward(const JointGraph& joint, std::span<const NodeId> saved, NodeId x);

// ---- search ----

// The partition a plan is measured against: the file's budget-1.0 pair of this joint, else its
// first pair, else every forward value a backward-phase node reads saved (no recompute).
struct RematBaseline {
    std::vector<NodeId> saved;
    std::int64_t flops = 0;          // the pair's node FLOPs (the simulated partition's without a pair)
    std::optional<std::size_t> pair; // index into file.pairs, none without one
    std::string source;              // "budget=1.0.forward / budget=1.0.backward", or a description
    // Set when the pair is not the joint's partition of its own saved values (its FLOPs differ
    // from that partition's): what it says, and the baseline is then the simulated partition's.
    std::string mismatch;
};
RematBaseline remat_baseline(const JointGraph& joint);

struct RematOptions {
    // At most one limit applies: extra FLOPs over the baseline partition (absolute or in percent
    // of the baseline's FLOPs), or the lowest FLOPs whose peak is at most target_peak.
    std::optional<std::int64_t> max_extra_flops; // >= 0
    std::optional<double> max_extra_percent;     // >= 0
    std::optional<std::int64_t> target_peak;     // >= 0
    double time_limit_s = 30;
    // Optimize the chosen plan's backward order with the reorder optimizer (its share of the time).
    bool optimize_order = true;
    CancelCheck cancelled;
    ProgressReport progress;
};

struct FrontierPoint {
    std::int64_t peak = 0;
    std::int64_t extra_flops = 0;
};

struct RematResult {
    std::vector<NodeId> saved; // the plan (joint ids, backward placeholder order)
    Partition partition;
    std::vector<NodeId> backward_order; // partition.backward, reordered (what the plan runs)
    PeakMemory peak;                    // of the plan, with backward_order
    std::int64_t extra_flops = 0;       // partition.flops - baseline_flops
    std::int64_t baseline_flops = 0;    // forward + backward FLOPs of the baseline partition
    std::int64_t baseline_peak = 0;     // pair peak of the baseline partition
    std::string baseline; // where the baseline comes from: a pair "budget=1.0.forward/backward" or "joint"
    std::vector<FrontierPoint> frontier; // Pareto-optimal (peak, extra FLOPs) of every partition scored, by FLOPs
    std::size_t evaluations = 0;         // partitions scored
    bool met_limit = true;               // false when no partition met target_peak (the lowest peak is returned)
};

// Starts from the baseline partition (the file's budget-1.0 pair of this joint, else of any pair
// of it, else every forward value a backward node reads saved) and every budget pair of the
// joint, then improves greedily: recompute a saved value live at the backward's peak (saving
// what it needs instead) or save a recomputed one, keeping the best move per step. Never returns a
// plan whose peak is above the baseline's. O(N + E) per partition scored.
RematResult search_remat(const JointGraph& joint, const RematOptions& options = {});

// ---- plan files (docs/format.md, "Remat plans") ----

// How a plan names a node besides its name, so that it is found again in a graph whose generated
// names differ: its target, its module (absent: none given), which node of that (target, module)
// it is in graph order, and its tensor's shape and dtype (absent when its val is not one tensor).
struct PlanNodeKey {
    std::string target;
    std::optional<std::string> module;
    std::int64_t occurrence = 0;
    std::optional<std::vector<std::int64_t>> shape;
    std::optional<std::string> dtype;
    bool operator==(const PlanNodeKey&) const = default;
};
// The key of node `id` of `g` (O(N): counts the occurrences; make_plan keys many nodes at once).
PlanNodeKey plan_node_key(const GraphFile& file, const Graph& g, NodeId id);

struct RematPlan {
    std::string joint; // the joint graph's name
    std::vector<std::string> saved, recomputed, order;
    bool recomputed_given = false;            // the plan has a "recomputed" list (checked even when empty)
    std::map<std::string, PlanNodeKey> nodes; // keys of the named nodes (plans before keys: empty)
    std::optional<std::int64_t> peak;         // as predicted when written (none: not given)
    std::optional<std::int64_t> extra_flops;  // likewise
};

std::string plan_to_json(const RematPlan& plan);
// plan_to_json written atomically (write_file_atomically): fxmem-cli remat -o, the app's Save Plan.
// Throws Error naming `path`.
void save_plan(const RematPlan& plan, const std::string& path);
// Reads and checks the shape of a plan document; errors name `source` and the place.
RematPlan parse_plan(std::string_view text, const std::string& source);
RematPlan load_plan(const std::string& path);
// The plan's saved set and backward order in joint ids, checked against the joint: the joint's
// name, every node known, saved nodes computable in the forward, a backward that the saved set
// can compute, an order that is a legal permutation of that backward. Errors name `source`, the
// node and what is wrong.
struct ResolvedPlan {
    std::vector<NodeId> saved;
    Partition partition;
    std::vector<NodeId> backward_order;
};
ResolvedPlan resolve_plan(const JointGraph& joint, const RematPlan& plan, const std::string& source);
RematPlan make_plan(const JointGraph& joint, const RematResult& result);

// ---- PyTorch's budget points ----

struct BudgetRow {
    std::size_t pair = 0; // index into file.pairs
    double budget = 0;
    PeakMemory peak;
    std::size_t step = 0;     // first profile step at the pair peak (forward's, or backward's when the peak is there)
    std::string node;         // the node at that step ("" at step 0)
    bool in_backward = false; // the peak is the backward's
    std::int64_t saved_bytes = 0; // counted bytes of the backward's saved-value placeholders' storages
    std::int64_t flops = 0;       // forward + backward node FLOPs
    std::int64_t extra_flops = 0; // flops - base_flops
    double base_budget = 1.0;     // the row extra_flops is against: the same joint's budget-1.0 pair,
    std::int64_t base_flops = 0;  // or its highest budget when the sweep has no 1.0
    bool pareto = false;          // no other row has peak and extra FLOPs both <= and one <
    bool lowest = false;          // the lowest peak (the first such row)
};
// One row per pair with a budget, in file order. Throws Error when a pair's peak cannot be computed.
std::vector<BudgetRow> budget_rows(const GraphFile& file);
// The forward + backward FLOPs of a pair (node flops, 0 where absent).
std::int64_t pair_flops(const GraphFile& file, const Pair& pair);

} // namespace fxmem
