// The allocated measure of one graph (docs/format.md, "The allocated profile"; docs/estimator.md,
// "The allocated measure"): the bytes its program's counted buffers hold at every profile index,
// and which buffers those are. Profile index 0 is the counted input buffers; 1 + 2k is after
// kernel k's `alloc` list, 2 + 2k after its `free` list; length 1 + 2K for K kernels.
//
// Each counted buffer is live on one half-open interval [begin, end) of profile indices: from 0
// (an input) or 1 + 2k (allocated before kernel k) to 2 + 2k (freed after kernel k), to 1 + 2j
// (taken over by a buffer that reuses its allocation before kernel j), or to the end.
//
// Lifetime and threads: a ProgramLiveIndex shares the graph's Program and copies what it counts,
// so it needs nothing else kept alive; read-only after construction, any thread.
#pragma once
#include "fxmem/analysis.h"
#include "fxmem/model.h"
#include "fxmem/program.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace fxmem {

// One buffer live at a profile index, for the live table. Its FX nodes (to name the user's nodes,
// modules and roles) are program().nodes(program().buffers[buffer]).
struct LiveBuffer {
    std::uint32_t buffer = 0; // index into Program::buffers
    std::int64_t nbytes = 0;
    std::optional<std::uint32_t> alloc_kernel;  // the kernel before which it became live; none: an input
    std::optional<std::uint32_t> free_kernel;   // the kernel after which it is freed; none: not freed by one
    std::optional<std::uint32_t> taken_over_by; // the buffer that takes its allocation over (a reuse)
    std::int64_t alloc_step = 0;                // profile index where it became live
    std::optional<std::int64_t> free_step;      // profile index where it is gone; none: live to the end
};

// One allocation of the caching allocator's view: a buffer that takes nothing over, followed
// through the buffers that reuse it, live on [begin, end) (end == profile size: never freed).
struct ProgramBlock {
    std::uint32_t buffer = 0; // the buffer that allocates it
    std::int64_t nbytes = 0;
    std::uint32_t stream = 0;
    std::int64_t begin = 0, end = 0;
};

class ProgramLiveIndex {
public:
    // Graph `graph`'s program, counted as `devices` says (CPU buffers only with All). Throws Error
    // naming the graph when it has no program (the file was captured without the program level)
    // or when its program breaks a rule (check_program). O(K + B log B) for B buffers (the size
    // order of live_at's answers; the rest is linear).
    ProgramLiveIndex(const GraphFile& file, GraphId graph, DeviceFilter devices = DeviceFilter::NonCpu);

    const Program& program() const { return *program_; }
    GraphId graph() const { return graph_; }
    std::size_t profile_size() const { return size_; }
    // Bytes live at every profile index.
    const std::vector<std::int64_t>& profile() const { return profile_; }
    // The kernel of a profile index (none for index 0).
    std::optional<std::uint32_t> kernel_at(std::size_t profile_index) const;
    // The counted buffers live at a profile index, largest first (ties by buffer index); their
    // bytes add up to profile()[profile_index]. Empty past the end. O(log K + live).
    std::vector<LiveBuffer> live_at(std::size_t profile_index) const;
    // The counted allocations in the order they are made (inputs in buffer order, then each
    // kernel's `alloc` list in order). O(1).
    const std::vector<ProgramBlock>& blocks() const { return blocks_; }
    // The counted input buffers holding a tangent (storage role tangent; without roles, a
    // placeholder whose target contains "tangents", as PyTorch's _is_tangent tells them): AOTAutograd's gradients
    // of the forward's outputs, which the autograd engine allocates before the backward and frees
    // after it.
    std::int64_t tangent_bytes() const { return tangent_bytes_; }

private:
    struct Interval {
        std::int64_t begin, end;
        std::uint32_t buffer;
    };
    LiveBuffer describe(const Interval& iv) const;

    std::shared_ptr<const Program> program_;
    GraphId graph_;
    std::size_t size_ = 0;
    std::vector<std::int64_t> profile_;
    std::vector<ProgramBlock> blocks_;
    std::int64_t tangent_bytes_ = 0;
    std::vector<std::int64_t> nbytes_;    // per buffer, as counted when the index was built
    std::vector<std::uint32_t> alloc_at_; // per buffer: its alloc kernel + 1, 0 for none
    std::vector<std::uint32_t> free_at_;  // per buffer: its free kernel + 1, 0 for none
    std::vector<std::uint32_t> taken_by_; // per buffer: the buffer that reuses it + 1, 0 for none
    std::vector<Interval> intervals_;     // counted buffers, in buffer order
    std::vector<std::uint32_t> rank_;     // per interval: place in (size descending, buffer) order
    // An implicit centred interval tree over profile indices (as LiveSetIndex keeps one; see
    // program_live.cpp): per centre a bucket of intervals, by ascending begin and descending end.
    unsigned levels_ = 0;
    std::vector<std::uint32_t> bucket_, by_begin_, by_end_;
};

// The allocated profile of graph `graph` (ProgramLiveIndex(...).profile()). Throws Error as the
// index does.
std::vector<std::int64_t> build_program_profile(const GraphFile& file, GraphId graph,
                                                DeviceFilter devices = DeviceFilter::NonCpu);

} // namespace fxmem
