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
    // Alias info, profile and live-set index for graph `graphIndex` of `file`. Throws fxmem::Error
    // (e.g. a pair whose forward does not end with an output node) and fxmem::Cancelled when
    // `cancelled` answers true between phases.
    static std::shared_ptr<const GraphAnalysis> compute(std::shared_ptr<const GraphFile> file, int graphIndex,
                                                        DeviceFilter filter = DeviceFilter::NonCpu,
                                                        const CancelCheck& cancelled = {},
                                                        PairContext context = PairContext::AsInPair);

    // Both graphs of pair `pairIndex` (a joined view) from one analyze_pair; baselineStorages are
    // the forward outputs the backward's baseline counts (CPU ones included: the caller filters).
    struct Pair {
        std::shared_ptr<const GraphAnalysis> forward, backward;
        std::vector<StorageId> baselineStorages;
    };
    static Pair computePair(std::shared_ptr<const GraphFile> file, int pairIndex,
                            DeviceFilter filter = DeviceFilter::NonCpu, const CancelCheck& cancelled = {});

    GraphAnalysis(const GraphAnalysis&) = delete;
    GraphAnalysis& operator=(const GraphAnalysis&) = delete;

    const GraphFile& file() const { return *file_; }
    const std::shared_ptr<const GraphFile>& sharedFile() const { return file_; }
    const Graph& graph() const { return file_->graphs[static_cast<std::size_t>(graphIndex_)]; }
    int graphIndex() const { return graphIndex_; }
    DeviceFilter filter() const { return filter_; }

    const AliasInfo& alias() const { return alias_; }
    const StorageMask& counted() const { return counted_; }
    const NodeMask& releasable() const { return releasable_; }
    const std::vector<std::int64_t>& profile() const { return profile_; } // build_memory_profile, no baseline
    std::int64_t peak() const { return peak_; }                           // max(profile), no baseline
    std::size_t peakStep() const { return peakStep_; }                    // first profile index at the peak
    const LiveSetIndex& live() const { return *live_; }
    bool hasCountedStorage() const { return hasCounted_; } // false: e.g. a CPU-only graph

    // Pair context: set when this graph is the forward or backward of a pair (AsInPair only).
    int pairIndex() const { return pairIndex_; }
    bool isBackwardOfPair() const { return isBackward_; }
    std::int64_t baseline() const { return baseline_; } // backward: forward outputs kept alive
    std::optional<PeakMemory> pairPeak() const { return pairPeak_; }

private:
    GraphAnalysis() = default;
    static std::shared_ptr<GraphAnalysis> start(std::shared_ptr<const GraphFile> file, int graphIndex,
                                                DeviceFilter filter, StorageMask counted);
    void takeFromPair(PairAnalysis& pa, int pairIndex, bool forward);
    void finish(const CancelCheck& cancelled); // peak, hasCounted and the live-set index
    std::shared_ptr<const GraphFile> file_;
    int graphIndex_ = -1;
    DeviceFilter filter_ = DeviceFilter::NonCpu;
    AliasInfo alias_;
    StorageMask counted_;
    NodeMask releasable_;
    std::vector<std::int64_t> profile_;
    std::int64_t peak_ = 0;
    std::size_t peakStep_ = 0;
    std::unique_ptr<LiveSetIndex> live_;
    bool hasCounted_ = false;
    int pairIndex_ = -1;
    bool isBackward_ = false;
    std::int64_t baseline_ = 0;
    std::optional<PeakMemory> pairPeak_;
};

} // namespace fxmem
