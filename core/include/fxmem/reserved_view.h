// The reserved measure of a view: its allocated timeline's allocations and frees (Timeline::
// alloc_events) replayed through the caching-allocator simulation (fxmem/caching_allocator.h),
// per global step: what the allocator has handed out (its blocks, sizes rounded) and what it
// holds from the device. The device's own overhead (CUDA context, cuBLAS workspaces, NCCL
// buffers) is a stated amount beside it, never folded in (docs/estimator.md).
//
// Plain values; reserved_view only reads its arguments: any thread.
#pragma once
#include "fxmem/caching_allocator.h"
#include "fxmem/timeline.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace fxmem {

struct ReservedView {
    // Per global step of the timeline, after the events of that step: allocated_bytes (rounded
    // blocks) and reserved_bytes.
    std::vector<std::int64_t> allocated, reserved;
    std::int64_t peak_allocated = 0, peak_reserved = 0;
    std::size_t peak_step = 0; // the first global step at the reserved peak
    std::vector<SimSegment> segments_at_peak;
    // With a capacity: the first out-of-memory, at this global step (the run stops there; the
    // per-step numbers after it repeat the last values before it).
    std::optional<OutOfMemory> oom;
    std::optional<std::int64_t> oom_step;
    std::int64_t fragmentation() const { return peak_reserved - peak_allocated; }
};

// `allocated` must be a Measure::Allocated timeline (Error otherwise). `capacity`: the device
// memory available to the allocator (the card's total less the device overhead), none: unlimited.
ReservedView reserved_view(const Timeline& allocated, const AllocatorConfig& config,
                           std::optional<std::int64_t> capacity = std::nullopt);

} // namespace fxmem
