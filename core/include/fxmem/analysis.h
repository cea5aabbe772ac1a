// Everything the app and the CLI need about one graph, computed once and then shared read-only
// (between threads as std::shared_ptr<const GraphAnalysis>): alias info, releasability, the
// profile and its peak, and the live-set index. The members reference each other (LiveSetIndex
// keeps references to file, graph and alias), so an analysis lives on the heap and never moves.
#pragma once
#include "fxmem/cancel.h"
#include "fxmem/estimator.h"
#include "fxmem/liveset.h"
#include "fxmem/model.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace fxmem {

// Which storages count: PyTorch's default (non-CPU), or every device.
enum class DeviceFilter { NonCpu, All };
StorageMask counted_for(const GraphFile& file, DeviceFilter filter);

// How a graph of a forward/backward pair is analysed: as get_peak_memory sees it (the backward's
// do-not-delete inputs and its baseline), or on its own (build_memory_profile with the default
// releasability, as `fxmem-cli profile` reports it).
enum class PairContext { AsInPair, Standalone };

class GraphAnalysis {
public:
    // Alias info, profile and live-set index for graph `graph` of `file`. Throws fxmem::Error
    // (e.g. a pair whose forward does not end with an output node) and fxmem::Cancelled when
    // `cancelled` answers true between phases.
    static std::shared_ptr<const GraphAnalysis> compute(std::shared_ptr<const GraphFile> file, GraphId graph,
                                                        DeviceFilter filter = DeviceFilter::NonCpu,
                                                        const CancelCheck& cancelled = {},
                                                        PairContext context = PairContext::AsInPair);

    // Both graphs of pair `pair_index` (a joined view) from one analyze_pair; baseline_storages are
    // the forward outputs the backward's baseline counts (CPU ones included: the caller filters).
    struct Pair {
        std::shared_ptr<const GraphAnalysis> forward, backward;
        std::vector<StorageId> baseline_storages;
    };
    static Pair compute_pair(std::shared_ptr<const GraphFile> file, std::size_t pair_index,
                             DeviceFilter filter = DeviceFilter::NonCpu, const CancelCheck& cancelled = {});

    GraphAnalysis(const GraphAnalysis&) = delete;
    GraphAnalysis& operator=(const GraphAnalysis&) = delete;

    const GraphFile& file() const { return *file_; }
    const std::shared_ptr<const GraphFile>& shared_file() const { return file_; }
    const Graph& graph() const { return file_->graph(graph_index_); }
    GraphId graph_index() const { return graph_index_; }
    DeviceFilter filter() const { return filter_; }

    const AliasInfo& alias() const { return alias_; }
    const StorageMask& counted() const { return counted_; }
    const NodeMask& releasable() const { return releasable_; }
    const std::vector<std::int64_t>& profile() const { return profile_; } // build_memory_profile, no baseline
    std::int64_t peak() const { return peak_; }                           // max(profile), no baseline
    std::size_t peak_step() const { return peak_step_; }                  // first profile index at the peak
    const LiveSetIndex& live() const { return *live_; }
    bool has_counted_storage() const { return has_counted_; } // false: e.g. a CPU-only graph

    // Pair context: set when this graph is the forward or backward of a pair (AsInPair only).
    std::optional<std::size_t> pair_index() const { return pair_index_; }
    bool is_backward_of_pair() const { return is_backward_; }
    std::int64_t baseline() const { return baseline_; } // backward: forward outputs kept alive
    std::optional<PeakMemory> pair_peak() const { return pair_peak_; }

private:
    GraphAnalysis() = default;
    static std::shared_ptr<GraphAnalysis> start(std::shared_ptr<const GraphFile> file, GraphId graph,
                                                DeviceFilter filter, StorageMask counted);
    void take_from_pair(PairAnalysis& pa, std::size_t pair_index, bool forward);
    void finish(const CancelCheck& cancelled); // peak, hasCounted and the live-set index
    std::shared_ptr<const GraphFile> file_;
    GraphId graph_index_;
    DeviceFilter filter_ = DeviceFilter::NonCpu;
    AliasInfo alias_;
    StorageMask counted_;
    NodeMask releasable_;
    std::vector<std::int64_t> profile_;
    std::int64_t peak_ = 0;
    std::size_t peak_step_ = 0;
    std::unique_ptr<LiveSetIndex> live_;
    bool has_counted_ = false;
    std::optional<std::size_t> pair_index_;
    bool is_backward_ = false;
    std::int64_t baseline_ = 0;
    std::optional<PeakMemory> pair_peak_;
};

} // namespace fxmem
