// simulate_caching_allocator: the events checked, then replayed through DeviceAllocatorSim. The
// segments at the reserved peak come from a second replay that stops after the peak's event (a
// snapshot at every new peak would cost O(blocks) each time).
#include "allocator/device_allocator_sim.h"
#include "fxmem/error.h"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace fxmem {
namespace {

// An event with the caller's id replaced by a dense slot (one per distinct id).
struct SlotEvent {
    bool malloc;
    std::uint32_t slot;
    std::int64_t bytes;
    std::uint32_t stream;
    std::uint32_t id;
};

// Maps each caller id to a dense slot: the id itself when ids are dense enough for a table,
// else through a hash map.
class SlotOf {
public:
    explicit SlotOf(std::span<const AllocEvent> events) {
        std::uint32_t max_id = 0;
        for (const AllocEvent& e : events) max_id = std::max(max_id, e.id);
        if (max_id < 4 * events.size() + 1024)
            dense_ = max_id + std::size_t{1};
        else
            sparse_.reserve(events.size());
    }
    std::size_t size() const { return dense_ ? dense_ : sparse_.size(); }
    std::uint32_t operator()(std::uint32_t id) {
        if (dense_) return id;
        return sparse_.try_emplace(id, static_cast<std::uint32_t>(sparse_.size())).first->second;
    }

private:
    std::size_t dense_ = 0;
    std::unordered_map<std::uint32_t, std::uint32_t> sparse_;
};

std::vector<SlotEvent> checked_events(std::span<const AllocEvent> events, std::size_t& slots) {
    SlotOf slot_of(events);
    std::vector<std::int64_t> live_since(slot_of.size(), -1); // per slot: the Malloc event holding it, or -1
    std::vector<SlotEvent> out;
    out.reserve(events.size());
    for (std::size_t i = 0; i < events.size(); ++i) {
        const AllocEvent& e = events[i];
        const bool malloc = e.kind == AllocEvent::Kind::Malloc;
        auto where = [&] {
            return "allocator events: event " + std::to_string(i) + " (" + (malloc ? "malloc" : "free") + " of id " +
                   std::to_string(e.id) + ")";
        };
        const std::uint32_t slot = slot_of(e.id);
        if (slot >= live_since.size()) live_since.resize(slot + std::size_t{1}, -1);
        if (malloc) {
            if (e.bytes < 0) throw Error(where() + ": negative size " + std::to_string(e.bytes));
            if (live_since[slot] >= 0)
                throw Error(where() + ": the id is still allocated (by event " + std::to_string(live_since[slot]) +
                            ")");
            live_since[slot] = static_cast<std::int64_t>(i);
        } else {
            if (live_since[slot] < 0) throw Error(where() + ": the id is not allocated (never, or already freed)");
            live_since[slot] = -1;
        }
        out.push_back(SlotEvent{malloc, slot, e.bytes, e.stream, e.id});
    }
    slots = live_since.size();
    return out;
}

} // namespace

std::int64_t caching_allocator_round_size(std::int64_t bytes, const AllocatorConfig& config) {
    return detail::DeviceAllocatorSim(config, std::nullopt).round_size(bytes);
}

std::int64_t caching_allocator_segment_size(std::int64_t rounded, const AllocatorConfig& config) {
    return detail::DeviceAllocatorSim(config, std::nullopt).get_allocation_size(rounded);
}

AllocatorRun simulate_caching_allocator(std::span<const AllocEvent> events, const AllocatorConfig& config,
                                        std::optional<std::int64_t> capacity) {
    if (capacity && *capacity < 0) throw Error("allocator capacity: negative (" + std::to_string(*capacity) + ")");
    if (!capacity && config.per_process_memory_fraction < 1.0)
        throw Error("per_process_memory_fraction:" + std::to_string(config.per_process_memory_fraction) +
                    " limits the allocator to a share of the device's memory: the simulation needs a capacity");
    std::size_t slots = 0;
    const std::vector<SlotEvent> checked = checked_events(events, slots);

    // Replays events [0, stop) through sim; records the per-event figures when run is given.
    auto replay = [&](detail::DeviceAllocatorSim& sim, std::size_t stop, AllocatorRun* run) {
        std::vector<detail::BlockIndex> block_of(slots, detail::kNoBlock);
        for (std::size_t i = 0; i < stop; ++i) {
            const SlotEvent& e = checked[i];
            sim.at_event(i);
            const std::int64_t peak_before = sim.peak_reserved();
            detail::BlockIndex block = block_of[e.slot]; // a Free's block, before it merges
            if (e.malloc) {
                // malloc(0) allocates nothing (CUDACachingAllocator::allocate returns a null pointer).
                if (e.bytes > 0) {
                    block = block_of[e.slot] = sim.malloc(e.bytes, e.stream, e.id);
                    if (block == detail::kNoBlock) {
                        if (run) {
                            const std::int64_t limit = sim.allowed().value_or(*capacity);
                            run->oom = OutOfMemory{i,
                                                   e.bytes,
                                                   sim.allocated(),
                                                   sim.reserved(),
                                                   *capacity,
                                                   sim.allowed(),
                                                   sim.allocated() + sim.round_size(e.bytes) <= limit};
                            if (sim.peak_reserved() > peak_before) run->peak_reserved_event = i;
                        }
                        return;
                    }
                }
            }
            if (run) {
                run->block_address.push_back(block == detail::kNoBlock ? -1 : sim.block_address(block));
                run->block_size.push_back(block == detail::kNoBlock ? 0 : sim.block_size(block));
            }
            if (!e.malloc) {
                if (block != detail::kNoBlock) sim.free(block);
                block_of[e.slot] = detail::kNoBlock;
            }
            if (run) {
                run->allocated.push_back(sim.allocated());
                run->reserved.push_back(sim.reserved());
                run->peak_allocated = std::max(run->peak_allocated, sim.allocated());
                if (sim.peak_reserved() > peak_before) run->peak_reserved_event = i;
            }
        }
    };

    AllocatorRun run;
    run.allocated.reserve(checked.size());
    run.reserved.reserve(checked.size());
    run.block_address.reserve(checked.size());
    run.block_size.reserve(checked.size());
    {
        detail::DeviceAllocatorSim sim(config, capacity);
        sim.log_segment_actions(&run.segment_actions);
        replay(sim, checked.size(), &run);
        run.peak_reserved = sim.peak_reserved();
        run.counters = sim.counters();
    }
    if (run.peak_reserved > 0) {
        detail::DeviceAllocatorSim sim(config, capacity);
        replay(sim, run.peak_reserved_event + 1, nullptr);
        run.segments_at_peak = sim.snapshot();
    }
    return run;
}

} // namespace fxmem
