// DeviceAllocatorSim: the state and rules of PyTorch's DeviceCachingAllocator
// (c10/cuda/CUDACachingAllocator.cpp), one device, no CUDA graphs, no cross-stream uses. Each
// member function is named after the PyTorch function it follows; the comments say where ours differs.
//
// Blocks live in one arena (a vector, slots reused) and refer to each other by index; the free
// blocks of a pool are a std::set ordered as BlockComparatorSize orders them (stream, size,
// address), unmapped expandable ranges one ordered as BlockComparatorAddress (stream, address).
#pragma once
#include "fxmem/caching_allocator.h"

#include <cstdint>
#include <memory_resource>
#include <optional>
#include <set>
#include <vector>

namespace fxmem::detail {

inline constexpr std::int64_t kMinBlockSize = 512;                  // every size rounds to a multiple
inline constexpr std::int64_t kSmallSize = std::int64_t{1} << 20;   // the small pool's largest request
inline constexpr std::int64_t kSmallBuffer = std::int64_t{2} << 20; // the small pool's segment
inline constexpr std::int64_t kMinLargeAlloc = 10 * kAllocMiB;      // below: a large_segment_size segment
inline constexpr std::int64_t kRoundLarge = std::int64_t{2} << 20;  // above: rounded up to this

using BlockIndex = std::int32_t;
inline constexpr BlockIndex kNoBlock = -1;

struct SimBlockState {
    std::int64_t ptr = 0, size = 0, requested = 0;
    BlockIndex prev = kNoBlock, next = kNoBlock;
    std::int32_t segment = 0;
    std::uint32_t stream = 0;
    std::uint32_t id = 0;
    std::int64_t gc_count_base = 0;
    bool allocated = false, mapped = true, small = false, live = false;
};

struct SimSegmentState {
    std::int64_t base = 0, size = 0; // a cudaMalloc's range, or an expandable segment's address space
    std::int64_t page = 0;           // expandable: the mapping granularity
    std::uint32_t stream = 0;
    bool small = false, expandable = false, live = true;
};

struct FreeKey {
    std::uint32_t stream;
    std::int64_t size, ptr;
    BlockIndex block;
    bool operator<(const FreeKey& o) const {
        if (stream != o.stream) return stream < o.stream;
        if (size != o.size) return size < o.size;
        return ptr < o.ptr;
    }
};

struct AddressKey {
    std::uint32_t stream;
    std::int64_t ptr;
    BlockIndex block;
    bool operator<(const AddressKey& o) const { return stream != o.stream ? stream < o.stream : ptr < o.ptr; }
};

struct SimPool {
    SimPool(bool is_small, std::pmr::memory_resource* nodes) : blocks(nodes), unmapped(nodes), small(is_small) {}
    std::pmr::set<FreeKey> blocks;
    std::pmr::set<AddressKey> unmapped;
    bool small = false;
    std::int64_t get_free_blocks_call_count = 0;
};

class DeviceAllocatorSim {
public:
    DeviceAllocatorSim(const AllocatorConfig& config, std::optional<std::int64_t> capacity);
    DeviceAllocatorSim(const DeviceAllocatorSim&) = delete;
    DeviceAllocatorSim& operator=(const DeviceAllocatorSim&) = delete;

    // malloc(): the allocated block, or kNoBlock when the allocator raises out-of-memory.
    BlockIndex malloc(std::int64_t orig_size, std::uint32_t stream, std::uint32_t id);
    void free(BlockIndex block);

    std::int64_t block_address(BlockIndex block) const { return blocks_[block].ptr; }
    std::int64_t block_size(BlockIndex block) const { return blocks_[block].size; }
    std::int64_t allocated() const { return allocated_; }
    std::int64_t reserved() const { return reserved_; }
    std::int64_t peak_reserved() const { return peak_reserved_; }
    const std::optional<std::int64_t>& allowed() const { return allowed_memory_maximum_; }
    const AllocatorCounters& counters() const { return counters_; }
    // snapshot(): the mapped segments with their blocks, by address.
    std::vector<SimSegment> snapshot() const;

    // Records every device call into log, tagged with the event set by at_event.
    void log_segment_actions(std::vector<SegmentAction>* log) { log_ = log; }
    void at_event(std::size_t event) { event_ = event; }

    std::int64_t round_size(std::int64_t size) const;
    std::int64_t get_allocation_size(std::int64_t size) const;

private:
    struct AllocParams {
        std::int64_t size;
        std::uint32_t stream;
        SimPool* pool;
        std::int64_t alloc_size;
        BlockIndex block = kNoBlock;
    };

    bool get_free_block(AllocParams& p);
    bool alloc_block(AllocParams& p, bool is_retry);
    bool should_split(BlockIndex block, std::int64_t size) const;
    void alloc_found_block(AllocParams& p, std::int64_t orig_size, std::uint32_t id, bool split);
    void free_block(BlockIndex block);
    std::int64_t try_merge_blocks(BlockIndex dst, BlockIndex src);
    void garbage_collect_cached_blocks();
    bool release_available_cached_blocks(const AllocParams& p);
    void release_cached_blocks();
    void release_blocks(SimPool& pool);
    void release_block(BlockIndex block);
    void unmap_block(BlockIndex block);
    void release_expandable_segment(BlockIndex block);
    BlockIndex try_allocate_expandable_block(std::uint32_t stream, SimPool& pool, std::int64_t size);
    BlockIndex find_expandable_block(std::uint32_t stream, SimPool& pool, std::int64_t size);
    bool map_block(BlockIndex to_map, std::int64_t size);

    BlockIndex new_block(std::int64_t ptr, std::int64_t size, std::int32_t segment);
    void delete_block(BlockIndex block);
    std::int32_t new_segment(std::int64_t size, std::uint32_t stream, bool small, bool expandable, std::int64_t page);
    void splice(BlockIndex block, BlockIndex before, BlockIndex after);
    SimPool& pool_of(BlockIndex block) { return blocks_[block].small ? small_blocks_ : large_blocks_; }
    void insert_into_blocks(BlockIndex block);
    void erase_from_blocks(BlockIndex block);
    FreeKey free_key(BlockIndex block) const;
    AddressKey address_key(BlockIndex block) const;
    bool is_split(BlockIndex block) const { return blocks_[block].prev != kNoBlock || blocks_[block].next != kNoBlock; }
    bool is_expandable(BlockIndex block) const { return segments_[blocks_[block].segment].expandable; }
    void increase_reserved(std::int64_t bytes);
    void log(SegmentAction::Kind kind, std::int64_t address, std::int64_t size, std::uint32_t stream) {
        if (log_) log_->push_back(SegmentAction{event_, kind, address, size, stream});
    }
    bool fits_device(std::int64_t bytes) const { return !capacity_ || reserved_ + bytes <= *capacity_; }

    AllocatorConfig config_;
    std::optional<std::int64_t> capacity_;
    std::optional<std::int64_t> allowed_memory_maximum_; // setMemoryFraction(per_process_memory_fraction)
    std::vector<SimBlockState> blocks_;
    std::vector<BlockIndex> free_slots_;
    std::vector<SimSegmentState> segments_;
    std::pmr::unsynchronized_pool_resource set_nodes_; // the pools' set nodes, recycled
    SimPool large_blocks_{false, &set_nodes_}, small_blocks_{true, &set_nodes_};
    std::int64_t next_address_ = kSimBaseAddress;
    std::int64_t allocated_ = 0, reserved_ = 0, peak_reserved_ = 0;
    AllocatorCounters counters_;
    std::vector<SegmentAction>* log_ = nullptr;
    std::size_t event_ = 0;
};

} // namespace fxmem::detail
