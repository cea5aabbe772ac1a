// The rules of DeviceCachingAllocator (c10/cuda/CUDACachingAllocator.cpp, torch 2.13), function by
// function. What a CUDA call would answer is decided here: cudaMalloc and cuMemCreate fail when the
// reserved bytes plus the request exceed the capacity.
#include "allocator/device_allocator_sim.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <iterator>

namespace fxmem::detail {
namespace {

std::int64_t round_up(std::int64_t n, std::int64_t to) { return (n + to - 1) / to * to; }

// An address space for an expandable segment with no capacity given: 1 TiB, as if the device had
// that much (ExpandableSegment reserves 1 1/8 of the device's memory).
constexpr std::int64_t kDefaultDeviceMemory = std::int64_t{1} << 40;

} // namespace

DeviceAllocatorSim::DeviceAllocatorSim(const AllocatorConfig& config, std::optional<std::int64_t> capacity)
    : config_(config), capacity_(capacity) {
    // setMemoryFraction(): a limit only below 1, as a fraction of the device's total memory.
    if (capacity_ && config_.per_process_memory_fraction < 1.0)
        allowed_memory_maximum_ =
            static_cast<std::int64_t>(config_.per_process_memory_fraction * static_cast<double>(*capacity_));
}

// round_size() and roundup_power2_next_division(): the interval of a size is log2(size) - 20,
// clamped to [0, 15] (AcceleratorAllocatorConfig::roundup_power2_divisions(size)).
std::int64_t DeviceAllocatorSim::round_size(std::int64_t size) const {
    if (size < kMinBlockSize) return kMinBlockSize;
    const int log_size = std::bit_width(static_cast<std::uint64_t>(size)) - 1;
    const std::size_t index = static_cast<std::size_t>(std::clamp(log_size - 20, 0, 15));
    const std::int64_t divisions = config_.roundup_power2_divisions[index];
    if (divisions > 1 && size > kMinBlockSize * divisions) {
        if (std::has_single_bit(static_cast<std::uint64_t>(size))) return size;
        const std::int64_t floor = std::int64_t{1} << log_size;
        const std::int64_t step = floor >> (std::bit_width(static_cast<std::uint64_t>(divisions)) - 1);
        if (step == 0) return floor << 1;
        const std::int64_t rounded_floor = size & ~(step - 1);
        return rounded_floor == size ? size : rounded_floor + step;
    }
    return round_up(size, kMinBlockSize);
}

std::int64_t DeviceAllocatorSim::get_allocation_size(std::int64_t size) const {
    if (size <= kSmallSize) return kSmallBuffer;
    if (size < kMinLargeAlloc) return config_.large_segment_size;
    return round_up(size, kRoundLarge);
}

BlockIndex DeviceAllocatorSim::malloc(std::int64_t orig_size, std::uint32_t stream, std::uint32_t id) {
    const std::int64_t size = round_size(orig_size);
    SimPool& pool = size <= kSmallSize ? small_blocks_ : large_blocks_;
    AllocParams p{size, stream, &pool, get_allocation_size(size)};
    bool found = get_free_block(p);
    if (!found) {
        if (allowed_memory_maximum_ && config_.garbage_collection_threshold > 0.0) garbage_collect_cached_blocks();
        found = alloc_block(p, false) || (release_available_cached_blocks(p) && alloc_block(p, false)) ||
                (release_cached_blocks(), alloc_block(p, true));
    }
    if (!found) return kNoBlock;
    const bool split = should_split(p.block, size);
    alloc_found_block(p, orig_size, id, split);
    return p.block;
}

void DeviceAllocatorSim::free(BlockIndex block) {
    SimBlockState& b = blocks_[block];
    b.allocated = false;
    allocated_ -= b.size;
    free_block(block);
}

bool DeviceAllocatorSim::get_free_block(AllocParams& p) {
    SimPool& pool = *p.pool;
    if (allowed_memory_maximum_ && config_.garbage_collection_threshold > 0.0) ++pool.get_free_blocks_call_count;
    auto it = pool.blocks.lower_bound(FreeKey{p.stream, p.size, 0, kNoBlock});
    if (it == pool.blocks.end() || it->stream != p.stream) return false;
    if (is_expandable(it->block)) {
        // The block before an expandable segment's unmapped tail counts as large as it can grow, so
        // best fit prefers blocks that need no mapping.
        auto expandable_size = [&](BlockIndex b) {
            const BlockIndex n = blocks_[b].next;
            return blocks_[b].size + (n != kNoBlock && !blocks_[n].mapped ? blocks_[n].size : 0);
        };
        auto next = std::next(it);
        while (is_expandable(it->block) && next != pool.blocks.end() && next->stream == p.stream &&
               expandable_size(next->block) < expandable_size(it->block))
            it = next++;
    }
    // Do not return an oversized block for a large request; round an oversized one up only so far.
    if (p.size < config_.max_split_size && it->size >= config_.max_split_size) return false;
    if (p.size >= config_.max_split_size && it->size >= p.size + config_.max_non_split_rounding_size) return false;
    p.block = it->block;
    pool.blocks.erase(it);
    return true;
}

bool DeviceAllocatorSim::alloc_block(AllocParams& p, bool is_retry) {
    if (is_retry) ++counters_.num_alloc_retries;
    if (allowed_memory_maximum_ && reserved_ + p.alloc_size > *allowed_memory_maximum_) return false;
    if (config_.expandable_segments) {
        p.block = try_allocate_expandable_block(p.stream, *p.pool, p.size);
        return p.block != kNoBlock;
    }
    if (!fits_device(p.alloc_size)) return false; // cudaMalloc: cudaErrorMemoryAllocation
    const std::int32_t segment = new_segment(p.alloc_size, p.stream, p.pool->small, false, 0);
    p.block = new_block(segments_[segment].base, p.alloc_size, segment);
    increase_reserved(p.alloc_size);
    log(SegmentAction::Kind::Alloc, segments_[segment].base, p.alloc_size, p.stream);
    ++counters_.num_device_alloc;
    return true;
}

bool DeviceAllocatorSim::should_split(BlockIndex block, std::int64_t size) const {
    const std::int64_t remaining = blocks_[block].size - size;
    if (blocks_[block].small || config_.expandable_segments) return remaining >= kMinBlockSize;
    return size < config_.max_split_size && remaining > kSmallSize;
}

void DeviceAllocatorSim::alloc_found_block(AllocParams& p, std::int64_t orig_size, std::uint32_t id, bool split) {
    BlockIndex block = p.block;
    if (split) {
        const BlockIndex remaining = block;
        block = new_block(blocks_[remaining].ptr, p.size, blocks_[remaining].segment);
        splice(block, blocks_[remaining].prev, remaining);
        blocks_[remaining].ptr += p.size;
        blocks_[remaining].size -= p.size;
        insert_into_blocks(remaining);
    }
    SimBlockState& b = blocks_[block];
    b.allocated = true;
    b.requested = orig_size;
    b.id = id;
    allocated_ += b.size;
    p.block = block; // the block split off is the one handed out
}

void DeviceAllocatorSim::free_block(BlockIndex block) {
    try_merge_blocks(block, blocks_[block].prev);
    try_merge_blocks(block, blocks_[block].next);
    insert_into_blocks(block);
}

std::int64_t DeviceAllocatorSim::try_merge_blocks(BlockIndex dst, BlockIndex src) {
    if (src == kNoBlock || blocks_[src].allocated || blocks_[dst].mapped != blocks_[src].mapped) return 0;
    if (blocks_[src].mapped)
        erase_from_blocks(src);
    else
        pool_of(src).unmapped.erase(address_key(src));
    SimBlockState& d = blocks_[dst];
    const SimBlockState& s = blocks_[src];
    if (d.prev == src) { // [src dst]
        d.ptr = s.ptr;
        d.prev = s.prev;
        if (d.prev != kNoBlock) blocks_[d.prev].next = dst;
    } else { // [dst src]
        d.next = s.next;
        if (d.next != kNoBlock) blocks_[d.next].prev = dst;
    }
    const std::int64_t subsumed = s.size;
    d.size += subsumed;
    delete_block(src);
    return subsumed;
}

// Frees unsplit cached large blocks whose age (get_free_block calls on the pool since the block was
// cached) is at least the average, until the reserved bytes are back under the threshold.
void DeviceAllocatorSim::garbage_collect_cached_blocks() {
    const auto gc_threshold =
        static_cast<std::int64_t>(config_.garbage_collection_threshold * static_cast<double>(*allowed_memory_maximum_));
    if (reserved_ <= gc_threshold) return;
    const std::int64_t target_size = reserved_ - gc_threshold;
    std::int64_t gc_reclaimed = 0;
    auto gc_count = [&](BlockIndex b) {
        return static_cast<std::uint64_t>(large_blocks_.get_free_blocks_call_count - blocks_[b].gc_count_base);
    };
    std::uint64_t total_age = 0;
    int freeable_block_count = 0;
    for (const FreeKey& k : large_blocks_.blocks)
        if (!is_split(k.block)) {
            total_age += gc_count(k.block);
            ++freeable_block_count;
        }
    if (freeable_block_count == 0) return;
    bool block_freed = true;
    while (gc_reclaimed < target_size && block_freed && freeable_block_count > 0) {
        const double age_threshold = static_cast<double>(total_age) / freeable_block_count;
        block_freed = false;
        for (auto it = large_blocks_.blocks.begin(); it != large_blocks_.blocks.end();) {
            const BlockIndex b = it->block;
            ++it;
            if (!is_split(b) && !is_expandable(b) && static_cast<double>(gc_count(b)) >= age_threshold) {
                block_freed = true;
                gc_reclaimed += blocks_[b].size;
                total_age -= gc_count(b);
                --freeable_block_count;
                release_block(b);
            }
        }
    }
}

// Frees oversize (>= max_split_size) cached blocks of the request's stream: the smallest that is
// large enough, else the largest ones until their sizes add up to the request.
bool DeviceAllocatorSim::release_available_cached_blocks(const AllocParams& p) {
    if (config_.max_split_size == kNoMaxSplitSize) return false;
    SimPool& pool = *p.pool;
    const std::int64_t key_size = std::max(p.size, config_.max_split_size);
    auto it = pool.blocks.lower_bound(FreeKey{p.stream, key_size, 0, kNoBlock});
    if (it == pool.blocks.end() || it->stream != p.stream || is_expandable(it->block)) {
        if (it == pool.blocks.begin()) return false;
        std::int64_t total_released = 0;
        --it;
        while (total_released < key_size && it->size >= config_.max_split_size && it->stream == p.stream) {
            const BlockIndex cur = it->block;
            const bool is_first = it == pool.blocks.begin();
            if (!is_first) --it;
            if (!is_expandable(cur)) {
                total_released += blocks_[cur].size;
                release_block(cur);
            }
            if (is_first) break;
        }
        if (total_released < key_size) return false;
    } else {
        release_block(it->block);
    }
    return true;
}

void DeviceAllocatorSim::release_cached_blocks() {
    release_blocks(large_blocks_);
    release_blocks(small_blocks_);
}

// Frees every unsplit cached block; unmaps the free pages of expandable segments.
void DeviceAllocatorSim::release_blocks(SimPool& pool) {
    std::vector<BlockIndex> to_unmap;
    for (auto it = pool.blocks.begin(); it != pool.blocks.end();) {
        const BlockIndex b = it->block;
        ++it;
        if (is_expandable(b))
            to_unmap.push_back(b);
        else if (!is_split(b))
            release_block(b);
    }
    for (BlockIndex b : to_unmap) {
        unmap_block(b);
        if (!blocks_[b].mapped && !is_split(b)) release_expandable_segment(b);
    }
}

void DeviceAllocatorSim::release_block(BlockIndex block) {
    log(SegmentAction::Kind::Free, blocks_[block].ptr, blocks_[block].size, blocks_[block].stream);
    erase_from_blocks(block);
    reserved_ -= blocks_[block].size;
    segments_[blocks_[block].segment].live = false;
    delete_block(block);
    ++counters_.num_device_free;
}

// Unmaps the whole pages inside a free block of an expandable segment; the partial pages at its ends
// stay mapped as free blocks of their own.
void DeviceAllocatorSim::unmap_block(BlockIndex block) {
    const SimSegmentState& seg = segments_[blocks_[block].segment];
    const std::int64_t page = seg.page;
    const std::int64_t begin = round_up(blocks_[block].ptr - seg.base, page) / page;
    const std::int64_t end = (blocks_[block].ptr + blocks_[block].size - seg.base) / page;
    if (begin >= end) return;
    const std::int64_t unmapped_ptr = seg.base + begin * page;
    const std::int64_t unmapped_size = (end - begin) * page;
    erase_from_blocks(block);
    const std::int64_t before_size = unmapped_ptr - blocks_[block].ptr;
    if (before_size > 0) {
        const BlockIndex before_free = new_block(blocks_[block].ptr, before_size, blocks_[block].segment);
        splice(before_free, blocks_[block].prev, block);
        insert_into_blocks(before_free);
    }
    const std::int64_t after_size = blocks_[block].size - (before_size + unmapped_size);
    if (after_size > 0) {
        const BlockIndex after_free = new_block(unmapped_ptr + unmapped_size, after_size, blocks_[block].segment);
        splice(after_free, block, blocks_[block].next);
        insert_into_blocks(after_free);
    }
    blocks_[block].ptr = unmapped_ptr;
    blocks_[block].size = unmapped_size;
    blocks_[block].mapped = false;
    try_merge_blocks(block, blocks_[block].prev);
    try_merge_blocks(block, blocks_[block].next);
    pool_of(block).unmapped.insert(address_key(block));
    reserved_ -= unmapped_size;
    ++counters_.num_device_free;
    log(SegmentAction::Kind::Unmap, unmapped_ptr, unmapped_size, blocks_[block].stream);
}

void DeviceAllocatorSim::release_expandable_segment(BlockIndex block) {
    pool_of(block).unmapped.erase(address_key(block));
    segments_[blocks_[block].segment].live = false;
    delete_block(block);
}

BlockIndex DeviceAllocatorSim::try_allocate_expandable_block(std::uint32_t stream, SimPool& pool, std::int64_t size) {
    BlockIndex candidate = find_expandable_block(stream, pool, size);
    // candidate heads a run of free and unmapped blocks with at least size bytes.
    if (!blocks_[candidate].mapped && !map_block(candidate, std::min(blocks_[candidate].size, size))) return kNoBlock;
    while (blocks_[candidate].size < size) {
        const std::int64_t remaining = size - blocks_[candidate].size;
        const BlockIndex new_candidate = blocks_[candidate].next;
        if (!map_block(new_candidate, std::min(remaining, blocks_[new_candidate].size))) return kNoBlock;
        candidate = new_candidate;
    }
    erase_from_blocks(candidate);
    return candidate;
}

// The lowest address, in this stream's expandable segments of the pool, where free and unmapped
// blocks together hold size bytes; a new segment when there is none.
BlockIndex DeviceAllocatorSim::find_expandable_block(std::uint32_t stream, SimPool& pool, std::int64_t size) {
    auto allocatable = [&](BlockIndex b) { return b != kNoBlock && !blocks_[b].allocated; };
    auto has_available_address_space = [&](BlockIndex b) {
        std::int64_t bytes = 0;
        while (bytes < size && allocatable(b)) {
            bytes += blocks_[b].size;
            b = blocks_[b].next;
        }
        return bytes >= size;
    };
    for (auto it = pool.unmapped.lower_bound(AddressKey{stream, 0, kNoBlock});
         it != pool.unmapped.end() && it->stream == stream; ++it) {
        BlockIndex c = it->block;
        if (allocatable(blocks_[c].prev)) c = blocks_[c].prev;
        if (has_available_address_space(c)) return c;
    }
    const std::int64_t page = pool.small ? kSmallBuffer : config_.large_segment_size;
    const std::int64_t device = capacity_.value_or(kDefaultDeviceMemory);
    const std::int64_t address_space = round_up(device + device / 8, page);
    const std::int32_t segment = new_segment(address_space, stream, pool.small, true, page);
    const BlockIndex candidate = new_block(segments_[segment].base, address_space, segment);
    blocks_[candidate].mapped = false;
    pool.unmapped.insert(address_key(candidate));
    return candidate;
}

// Maps the pages covering [to_map.ptr, to_map.ptr + size) (ExpandableSegment::map: all or none).
bool DeviceAllocatorSim::map_block(BlockIndex to_map, std::int64_t size) {
    const SimSegmentState& seg = segments_[blocks_[to_map].segment];
    const std::int64_t begin = (blocks_[to_map].ptr - seg.base) / seg.page;
    const std::int64_t end = round_up(blocks_[to_map].ptr + size - seg.base, seg.page) / seg.page;
    const std::int64_t mapped_size = (end - begin) * seg.page;
    if (mapped_size == 0 || !fits_device(mapped_size)) return false; // cuMemCreate: out of memory
    const std::int64_t mapped_ptr = blocks_[to_map].ptr;
    SimPool& pool = pool_of(to_map);
    pool.unmapped.erase(address_key(to_map));
    blocks_[to_map].mapped = true;
    if (mapped_size < blocks_[to_map].size) {
        const BlockIndex remaining =
            new_block(blocks_[to_map].ptr + mapped_size, blocks_[to_map].size - mapped_size, blocks_[to_map].segment);
        blocks_[remaining].mapped = false;
        splice(remaining, to_map, blocks_[to_map].next);
        pool.unmapped.insert(address_key(remaining));
        blocks_[to_map].size = mapped_size;
    }
    try_merge_blocks(to_map, blocks_[to_map].prev);
    try_merge_blocks(to_map, blocks_[to_map].next);
    insert_into_blocks(to_map);
    increase_reserved(mapped_size);
    ++counters_.num_device_alloc;
    log(SegmentAction::Kind::Map, mapped_ptr, mapped_size, blocks_[to_map].stream);
    return true;
}

std::vector<SimSegment> DeviceAllocatorSim::snapshot() const {
    std::vector<SimSegment> result;
    for (BlockIndex head = 0; head < static_cast<BlockIndex>(blocks_.size()); ++head) {
        if (!blocks_[head].live || blocks_[head].prev != kNoBlock) continue;
        const SimSegmentState& seg = segments_[blocks_[head].segment];
        // One SimSegment per run of mapped blocks (an expandable segment may hold several).
        for (BlockIndex b = head; b != kNoBlock;) {
            if (!blocks_[b].mapped) {
                b = blocks_[b].next;
                continue;
            }
            SimSegment s;
            s.address = blocks_[b].ptr;
            s.stream = seg.stream;
            s.small_pool = seg.small;
            s.expandable = seg.expandable;
            for (; b != kNoBlock && blocks_[b].mapped; b = blocks_[b].next) {
                const SimBlockState& k = blocks_[b];
                s.blocks.push_back(SimBlock{k.ptr, k.size, k.allocated ? k.requested : 0, k.allocated,
                                            k.allocated ? std::optional<std::uint32_t>(k.id) : std::nullopt});
                s.size += k.size;
            }
            result.push_back(std::move(s));
        }
    }
    std::sort(result.begin(), result.end(),
              [](const SimSegment& a, const SimSegment& b) { return a.address < b.address; });
    return result;
}

BlockIndex DeviceAllocatorSim::new_block(std::int64_t ptr, std::int64_t size, std::int32_t segment) {
    BlockIndex b;
    if (!free_slots_.empty()) {
        b = free_slots_.back();
        free_slots_.pop_back();
    } else {
        b = static_cast<BlockIndex>(blocks_.size());
        blocks_.emplace_back();
    }
    SimBlockState& k = blocks_[b];
    k = SimBlockState{};
    k.ptr = ptr;
    k.size = size;
    k.segment = segment;
    k.stream = segments_[segment].stream;
    k.small = segments_[segment].small;
    k.live = true;
    return b;
}

void DeviceAllocatorSim::delete_block(BlockIndex block) {
    blocks_[block].live = false;
    free_slots_.push_back(block);
}

std::int32_t DeviceAllocatorSim::new_segment(std::int64_t size, std::uint32_t stream, bool small, bool expandable,
                                             std::int64_t page) {
    SimSegmentState s;
    s.base = round_up(next_address_, kRoundLarge);
    s.size = size;
    s.page = page;
    s.stream = stream;
    s.small = small;
    s.expandable = expandable;
    next_address_ = round_up(s.base + size, kRoundLarge);
    segments_.push_back(s);
    return static_cast<std::int32_t>(segments_.size() - 1);
}

void DeviceAllocatorSim::splice(BlockIndex block, BlockIndex before, BlockIndex after) {
    if (before != kNoBlock) blocks_[before].next = block;
    blocks_[block].prev = before;
    if (after != kNoBlock) blocks_[after].prev = block;
    blocks_[block].next = after;
}

void DeviceAllocatorSim::insert_into_blocks(BlockIndex block) {
    SimPool& pool = pool_of(block);
    blocks_[block].gc_count_base = pool.get_free_blocks_call_count;
    pool.blocks.insert(free_key(block));
}

void DeviceAllocatorSim::erase_from_blocks(BlockIndex block) { pool_of(block).blocks.erase(free_key(block)); }

FreeKey DeviceAllocatorSim::free_key(BlockIndex block) const {
    const SimBlockState& b = blocks_[block];
    return FreeKey{b.stream, b.size, b.ptr, block};
}

AddressKey DeviceAllocatorSim::address_key(BlockIndex block) const {
    const SimBlockState& b = blocks_[block];
    return AddressKey{b.stream, b.ptr, block};
}

void DeviceAllocatorSim::increase_reserved(std::int64_t bytes) {
    reserved_ += bytes;
    peak_reserved_ = std::max(peak_reserved_, reserved_);
}

} // namespace fxmem::detail
