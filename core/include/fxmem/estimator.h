// An exact port of torch/_inductor/fx_passes/memory_estimator.py (GraphAliasTracker,
// build_memory_profile, MemoryTracker, get_fwd_bwd_interactions, get_peak_memory) on dense ids.
// The policies PyTorch passes as callables are evaluated once into masks:
//   StorageMask: per StorageId, 1 when the storage counts (PyTorch's device_filter);
//   NodeMask:    per NodeId of one graph, 1 when storages allocated by that node may be released.
//
// Lifetime and threads: AliasInfo, the masks, PeakMemory, FwdBwdInteractions and PairAnalysis are
// values. MemoryTracker keeps references to its file, graph and alias info, which must outlive it,
// and is mutable: one thread at a time. The functions only read their arguments, so any number of
// threads may run them on one shared GraphFile.
#pragma once
#include "fxmem/model.h"

#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

namespace fxmem {

using StorageMask = std::vector<std::uint8_t>;
using NodeMask = std::vector<std::uint8_t>;

// Default device filter: storages whose device type is not "cpu" count.
StorageMask default_counted(const GraphFile& file);
// Any filter on the device string ("cuda:0", "cpu", "meta"), evaluated once per device.
StorageMask counted_by_device(const GraphFile& file, const std::function<bool(std::string_view device)>& keep);
// Default releasability: the allocator's name does not start with "primals".
NodeMask default_releasable(const Graph& graph);

// GraphAliasTracker. Per-node lists are CSR ranges; per-storage arrays are indexed by the
// file-wide StorageId and hold an invalid NodeId for storages this graph never touches.
struct AliasInfo {
    std::vector<Range> fresh;     // per node: storages it allocates first, in output order
    std::vector<Range> uses;      // per node: union of its inputs' output storages, ordered, no repeats
    std::vector<Range> last_used; // per node: storages whose last use is this node
    std::vector<StorageId> fresh_pool, uses_pool, last_used_pool;

    std::vector<NodeId> allocator;    // per storage
    std::vector<NodeId> last_user;    // per storage; invalid when never used
    std::vector<Range> storage_users; // per storage: nodes that use it, in graph order
    std::vector<NodeId> storage_users_pool;

    std::span<const StorageId> fresh_of(NodeId n) const { return span(fresh_pool, fresh[n.index()]); }
    std::span<const StorageId> uses_of(NodeId n) const { return span(uses_pool, uses[n.index()]); }
    std::span<const StorageId> last_used_at(NodeId n) const { return span(last_used_pool, last_used[n.index()]); }
    std::span<const NodeId> users_of(StorageId s) const { return span(storage_users_pool, storage_users[s.index()]); }

private:
    template <class T>
    static std::span<const T> span(const std::vector<T>& v, Range r) {
        return {v.data() + r.begin, r.size()};
    }
};

AliasInfo build_alias_info(const GraphFile& file, const Graph& graph);
// The same into `reuse`, whose per-storage arrays are kept when it was built for another graph of
// this file: only the storages that graph allocated are cleared, so building it for every graph
// of a file costs the sum of the graphs' sizes, not graphs x storages.
void build_alias_info(const GraphFile& file, const Graph& graph, AliasInfo& reuse);

// Nodes that appear in a memory profile: all but placeholder, get_attr and output, in graph order.
std::vector<NodeId> profile_nodes(const Graph& graph);

// build_memory_profile: length 1 + 2K for K profile nodes. Index 0 is the start (placeholders and
// get_attr allocated); index 1+2k is after node k's allocations, 2+2k after its frees.
std::vector<std::int64_t> build_memory_profile(const GraphFile& file, const Graph& graph, const AliasInfo& alias,
                                               const NodeMask& releasable, const StorageMask& counted);

// MemoryTracker: scores any order. O(1) amortised per use through per-storage counters of
// unscheduled users. schedule() throws Error when a node is scheduled twice or uses a counted
// storage that is not live (PyTorch asserts there).
class MemoryTracker {
public:
    MemoryTracker(const GraphFile& file, const Graph& graph, const AliasInfo& alias, NodeMask releasable,
                  StorageMask counted);
    void schedule(NodeId node);
    std::int64_t current() const { return current_; }
    std::int64_t peak() const { return peak_; }
    bool is_live(StorageId s) const { return live_[s.index()] != 0; }

private:
    const GraphFile& file_;
    const Graph& graph_;
    const AliasInfo& alias_;
    NodeMask releasable_;
    StorageMask counted_;
    std::vector<std::uint8_t> live_;
    std::vector<std::uint8_t> scheduled_;
    std::vector<std::uint32_t> unscheduled_users_;
    std::int64_t current_ = 0;
    std::int64_t peak_ = 0;
};

struct FwdBwdInteractions {
    std::int64_t backward_baseline = 0; // counted forward-output storages no backward placeholder holds
    NodeMask do_not_delete;             // per backward node: a placeholder that must not be released
    std::vector<StorageId> baseline_storages;
};

// PyTorch finds the forward's output node with next(iter(reversed(nodes)))[-1], which raises
// TypeError in torch 2.13; we implement the evident intent: the forward's last node, which must be
// an output node (Error otherwise).
FwdBwdInteractions get_fwd_bwd_interactions(const GraphFile& file, const Graph& forward, const Graph& backward);
// The same with the forward's alias info given (build_alias_info of `forward`) and a per-storage
// scratch that is all zero between calls (sized on first use): a file of many pairs then costs the
// sum of the pairs' sizes, not pairs x storages.
FwdBwdInteractions get_fwd_bwd_interactions(const GraphFile& file, const Graph& forward, const AliasInfo& forward_alias,
                                            const Graph& backward, std::vector<std::uint8_t>& scratch);

// Releasability in the backward graph of a pair: default and not do-not-delete.
NodeMask backward_releasable(const Graph& backward, const FwdBwdInteractions& interactions);

struct PeakMemory {
    std::int64_t forward_peak = 0;
    std::int64_t backward_baseline = 0;
    std::int64_t backward_peak = 0; // baseline included
    std::int64_t peak = 0;
};

PeakMemory get_peak_memory(const GraphFile& file, const Graph& forward, const Graph& backward);

// baseline + backward_peak, the pair's backward peak; throws Error naming the file and the graphs
// when the sum exceeds 2^63-1 (a storage listed in both graphs is counted twice). Every other sum
// of sizes is of distinct storages of one graph, which the loader caps at 2^63-1.
std::int64_t pair_backward_peak(const GraphFile& file, const Graph& forward, const Graph& backward,
                                std::int64_t baseline, std::int64_t backward_peak);

// Everything a pair's numbers need, each computed once: what get_peak_memory computes on the
// way, kept for the caller (the app shows both profiles; recomputing alias info doubled the cost).
// `counted` filters the profiles as get_peak_memory's device filter does; the baseline always
// skips CPU storages, as PyTorch does.
struct PairAnalysis {
    AliasInfo forward_alias, backward_alias;
    NodeMask forward_releasable, backward_releasable;
    FwdBwdInteractions interactions;
    std::vector<std::int64_t> forward_profile, backward_profile; // backward's without the baseline
    PeakMemory peak;
};
PairAnalysis analyze_pair(const GraphFile& file, const Graph& forward, const Graph& backward,
                          const StorageMask& counted);

} // namespace fxmem
