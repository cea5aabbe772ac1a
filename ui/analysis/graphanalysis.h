// Everything the views need about one graph, computed once off the GUI thread and then shared
// read-only between threads (std::shared_ptr<const GraphAnalysis>). The members reference each
// other (LiveSetIndex keeps references to file, graph and alias), so an analysis is created on the
// heap by compute() and never moved.
#pragma once
#include <fxmem/estimator.h>
#include <fxmem/liveset.h>
#include <fxmem/model.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

enum class DeviceFilter { NonCpu, All };

class GraphAnalysis {
public:
    // Computes alias info, profile and live-set index for graph `graphIndex` of `file`. When the
    // graph is the backward of a pair, its releasability and baseline follow get_peak_memory.
    // Throws fxmem::Error (e.g. a pair whose forward does not end with an output node).
    static std::shared_ptr<const GraphAnalysis> compute(std::shared_ptr<const fxmem::GraphFile> file, int graphIndex,
                                                        DeviceFilter filter = DeviceFilter::NonCpu);

    // Both graphs of pair `pairIndex` (a joined view) from one analyze_pair; baselineStorages are
    // the forward outputs the backward's baseline counts (CPU ones included: the caller filters).
    struct Pair {
        std::shared_ptr<const GraphAnalysis> forward, backward;
        std::vector<fxmem::StorageId> baselineStorages;
    };
    static Pair computePair(std::shared_ptr<const fxmem::GraphFile> file, int pairIndex,
                            DeviceFilter filter = DeviceFilter::NonCpu);

    GraphAnalysis(const GraphAnalysis&) = delete;
    GraphAnalysis& operator=(const GraphAnalysis&) = delete;

    const fxmem::GraphFile& file() const { return *file_; }
    const std::shared_ptr<const fxmem::GraphFile>& sharedFile() const { return file_; }
    const fxmem::Graph& graph() const { return file_->graphs[static_cast<std::size_t>(graphIndex_)]; }
    int graphIndex() const { return graphIndex_; }
    DeviceFilter filter() const { return filter_; }

    const fxmem::AliasInfo& alias() const { return alias_; }
    const fxmem::StorageMask& counted() const { return counted_; }
    const fxmem::NodeMask& releasable() const { return releasable_; }
    const std::vector<std::int64_t>& profile() const { return profile_; }  // build_memory_profile, no baseline
    std::int64_t peak() const { return peak_; }                           // max(profile), no baseline
    std::size_t peakStep() const { return peakStep_; }                    // first profile index at the peak
    const fxmem::LiveSetIndex& live() const { return *live_; }
    bool hasCountedStorage() const { return hasCounted_; }                // false: e.g. a CPU-only graph

    // Pair context: set when this graph is the forward or backward of a pair.
    int pairIndex() const { return pairIndex_; }
    bool isBackwardOfPair() const { return isBackward_; }
    std::int64_t baseline() const { return baseline_; }                    // backward: forward outputs kept alive
    std::optional<fxmem::PeakMemory> pairPeak() const { return pairPeak_; }

private:
    GraphAnalysis() = default;
    static std::shared_ptr<GraphAnalysis> start(std::shared_ptr<const fxmem::GraphFile> file, int graphIndex,
                                                DeviceFilter filter, fxmem::StorageMask counted);
    void takeFromPair(fxmem::PairAnalysis& pa, int pairIndex, bool forward);
    void finish();  // peak, hasCounted and the live-set index from the profile and alias info
    std::shared_ptr<const fxmem::GraphFile> file_;
    int graphIndex_ = -1;
    DeviceFilter filter_ = DeviceFilter::NonCpu;
    fxmem::AliasInfo alias_;
    fxmem::StorageMask counted_;
    fxmem::NodeMask releasable_;
    std::vector<std::int64_t> profile_;
    std::int64_t peak_ = 0;
    std::size_t peakStep_ = 0;
    std::unique_ptr<fxmem::LiveSetIndex> live_;
    bool hasCounted_ = false;
    int pairIndex_ = -1;
    bool isBackward_ = false;
    std::int64_t baseline_ = 0;
    std::optional<fxmem::PeakMemory> pairPeak_;
};
