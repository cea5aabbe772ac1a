// A deterministic simulation of PyTorch's CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp,
// DeviceCachingAllocator, as in torch 2.13): it replays a sequence of malloc/free events and reports
// what the allocator hands out ("allocated") and what it holds from the device ("reserved").
//
// Simulated: size rounding (round_size, roundup_power2_divisions), the small and large pools and
// their segment sizes (get_allocation_size), best fit in (stream, size, address) order
// (get_free_block, with max_split_size_mb and max_non_split_rounding_mb), splitting (should_split)
// and merging free neighbours (free_block, try_merge_blocks), expandable segments (mapped page by
// page, unmapped on release), garbage_collection_threshold, and with a capacity the path that frees
// cached blocks and retries (release_available_cached_blocks, release_cached_blocks) before an
// out-of-memory error. docs/estimator.md, "The caching allocator (reserved)", says what is not.
//
// Addresses are fake but deterministic: segments are laid out from kSimBaseAddress upwards, each
// aligned to 2 MiB (an expandable segment to its page size), never reused.
//
// Plain values and a pure function: any thread.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace fxmem {

inline constexpr std::int64_t kAllocMiB = std::int64_t{1} << 20;
// c10/core/AllocatorConfig.h: roundup_power2_divisions has one entry per power-of-two interval of
// sizes, from [1 MiB, 2 MiB) (and everything smaller) up to [32 GiB, 64 GiB) and everything larger.
inline constexpr std::size_t kRoundupPower2Intervals = 16;
// "No max_split_size_mb": PyTorch's default, std::numeric_limits<size_t>::max().
inline constexpr std::int64_t kNoMaxSplitSize = std::numeric_limits<std::int64_t>::max();

// The settings of a PYTORCH_CUDA_ALLOC_CONF string that change what the allocator reserves. Defaults
// are PyTorch's (AcceleratorAllocatorConfig and CUDAAllocatorConfig).
struct AllocatorConfig {
    std::int64_t max_split_size = kNoMaxSplitSize;             // bytes (max_split_size_mb)
    std::int64_t max_non_split_rounding_size = 20 * kAllocMiB; // bytes (max_non_split_rounding_mb)
    std::int64_t large_segment_size = 20 * kAllocMiB;          // bytes (large_segment_size_mb): kLargeBuffer
    // Divisions per interval; 0 and 1 mean no power-of-two rounding in that interval.
    std::array<std::int64_t, kRoundupPower2Intervals> roundup_power2_divisions{};
    bool expandable_segments = false;
    double garbage_collection_threshold = 0.0; // 0 = off; else in (0, 1)
    double per_process_memory_fraction = 1.0;  // < 1 limits the allocator to this share of the capacity

    bool operator==(const AllocatorConfig&) const = default;
};

// Parses PYTORCH_CUDA_ALLOC_CONF ("" gives the defaults): comma-separated key:value pairs, lists in
// brackets, as c10's ConfigTokenizer splits them. Keys that do not change the simulation (backend:native,
// release_lock_on_cudamalloc, pinned_*, graph_capture_record_stream_reuse, throw_on_cudamalloc_oom) are
// checked and ignored. Throws fxmem::Error naming the key and value for what PyTorch refuses
// (unknown key, out-of-range value, divisions that are not powers of two, ...), for
// backend:cudaMallocAsync (a different allocator, not simulated), and for malformed text that
// PyTorch's parser would misread silently (a missing ':', "20abc" as a number).
AllocatorConfig parse_alloc_conf(std::string_view conf);

// One call to the allocator. A Malloc names the caller's allocation id (unique among live ones);
// a Free names the id of a live Malloc, and its stream is ignored (a block goes back to the stream
// it was allocated on).
struct AllocEvent {
    enum class Kind : std::uint8_t { Malloc, Free };
    Kind kind = Kind::Malloc;
    std::uint32_t id = 0;
    std::int64_t bytes = 0; // Malloc: bytes requested (0 allocates nothing, as in PyTorch)
    std::uint32_t stream = 0;
};

// A block of a segment as PyTorch's snapshot() reports it.
struct SimBlock {
    std::int64_t address = 0, size = 0;
    std::int64_t requested = 0; // the request's bytes while allocated, 0 when free
    bool allocated = false;
    std::optional<std::uint32_t> id; // the allocation's id while allocated
    bool operator==(const SimBlock&) const = default;
};

// A segment: one cudaMalloc, or one contiguous mapped range of an expandable segment (as snapshot()
// reports them), its blocks in address order.
struct SimSegment {
    std::int64_t address = 0, size = 0;
    std::uint32_t stream = 0;
    bool small_pool = false;
    bool expandable = false;
    std::vector<SimBlock> blocks;
};

struct OutOfMemory {
    std::size_t event = 0;               // index of the Malloc that failed
    std::int64_t requested = 0;          // its bytes
    std::int64_t allocated = 0;          // allocated_bytes when it failed (after cached blocks were released)
    std::int64_t reserved = 0;           // reserved_bytes then
    std::int64_t capacity = 0;           // the capacity given
    std::optional<std::int64_t> allowed; // per_process_memory_fraction * capacity, when < 1
    // allocated + the request's rounded size would fit in the limit (allowed, else capacity): the
    // bytes in use fit, what the allocator reserves around them does not.
    bool allocated_would_fit = false;
};

// A call to the device, as the allocator's trace records it (TraceEntry's SEGMENT_ALLOC,
// SEGMENT_FREE, SEGMENT_MAP, SEGMENT_UNMAP): a cudaMalloc or cudaFree of a whole segment, or pages of
// an expandable segment mapped or unmapped.
struct SegmentAction {
    enum class Kind : std::uint8_t { Alloc, Free, Map, Unmap };
    std::size_t event = 0; // the event during which it happened
    Kind kind = Kind::Alloc;
    std::int64_t address = 0, size = 0;
    std::uint32_t stream = 0;
    bool operator==(const SegmentAction&) const = default;
};

// How often the allocator went to the device (DeviceStats' counters of the same names).
struct AllocatorCounters {
    std::int64_t num_device_alloc = 0;  // cudaMalloc calls and page maps
    std::int64_t num_device_free = 0;   // cudaFree calls and page unmaps
    std::int64_t num_alloc_retries = 0; // allocations retried after release_cached_blocks
};

struct AllocatorRun {
    // After each event (up to the failing one, excluded): allocated_bytes (rounded block sizes) and
    // reserved_bytes, PyTorch's "allocated_bytes.all.current" and "reserved_bytes.all.current".
    std::vector<std::int64_t> allocated, reserved;
    // Per event likewise: the block handed out by a Malloc or returned by a Free, its address and size
    // (the rounded request, or more when the block was not split); -1 and 0 for malloc(0).
    std::vector<std::int64_t> block_address, block_size;
    std::int64_t peak_allocated = 0, peak_reserved = 0; // max_memory_allocated(), max_memory_reserved()
    std::size_t peak_reserved_event = 0;                // the event during which reserved first peaked
    std::vector<SimSegment> segments_at_peak;           // when reserved first peaked, by address
    std::optional<OutOfMemory> oom;                     // the run stops at the first out-of-memory
    std::vector<SegmentAction> segment_actions;         // in order, the failing event's included
    AllocatorCounters counters;
};

// Where the simulated segments start. 2 MiB aligned.
inline constexpr std::int64_t kSimBaseAddress = std::int64_t{0x7f} << 40;

// Replays the events. capacity: device memory available to PyTorch (what cudaMalloc and page maps can
// take); none = unlimited. With per_process_memory_fraction < 1 the allocator may use that share of
// it (and only then runs garbage collection, as PyTorch). Throws fxmem::Error naming the event index
// for a Free of an id that is not live, a Malloc of a live id, or negative bytes; and for a negative
// capacity, or a memory fraction without a capacity.
AllocatorRun simulate_caching_allocator(std::span<const AllocEvent> events, const AllocatorConfig& config,
                                        std::optional<std::int64_t> capacity = std::nullopt);

// round_size(): the block size a request of `bytes` gets (at least 512, a multiple of 512, or the next
// power-of-two division when roundup_power2_divisions applies to its interval).
std::int64_t caching_allocator_round_size(std::int64_t bytes, const AllocatorConfig& config);

// get_allocation_size(): the segment size cudaMalloc'ed for a rounded block size that no cached
// block can take (2 MiB for the small pool, large_segment_size below 10 MiB, else rounded up to 2 MiB).
std::int64_t caching_allocator_segment_size(std::int64_t rounded, const AllocatorConfig& config);

} // namespace fxmem
