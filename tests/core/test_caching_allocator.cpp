// The caching allocator simulation (fxmem/caching_allocator.h). Each expectation is worked out by
// hand from the PyTorch function its comment names (c10/cuda/CUDACachingAllocator.cpp unless said
// otherwise; torch 2.13), or ported from PyTorch's own tests where they check numbers.
#include "fxmem/caching_allocator.h"
#include "fxmem/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

using fxmem::AllocatorConfig;
using fxmem::AllocEvent;
using fxmem::parse_alloc_conf;
using fxmem::simulate_caching_allocator;

constexpr std::int64_t KiB = 1024;
constexpr std::int64_t MiB = 1024 * KiB;

AllocEvent M(std::uint32_t id, std::int64_t bytes, std::uint32_t stream = 0) {
    return AllocEvent{AllocEvent::Kind::Malloc, id, bytes, stream};
}
AllocEvent F(std::uint32_t id) { return AllocEvent{AllocEvent::Kind::Free, id, 0, 0}; }

fxmem::AllocatorRun run(const std::vector<AllocEvent>& events, const std::string& conf = "",
                        std::optional<std::int64_t> capacity = std::nullopt) {
    return simulate_caching_allocator(events, parse_alloc_conf(conf), capacity);
}

std::string error_of(const std::string& conf) {
    try {
        parse_alloc_conf(conf);
    } catch (const fxmem::Error& e) {
        return e.what();
    }
    return "(no error)";
}

// --- PYTORCH_CUDA_ALLOC_CONF ---

// AcceleratorAllocatorConfig's constructor and CUDAAllocatorConfig's members: the defaults.
TEST(AllocConf, EmptyStringGivesPyTorchDefaults) {
    const AllocatorConfig c = parse_alloc_conf("");
    EXPECT_EQ(c.max_split_size, fxmem::kNoMaxSplitSize);
    EXPECT_EQ(c.max_non_split_rounding_size, 20 * MiB);
    EXPECT_EQ(c.large_segment_size, 20 * MiB);
    for (std::int64_t d : c.roundup_power2_divisions) EXPECT_EQ(d, 0);
    EXPECT_FALSE(c.expandable_segments);
    EXPECT_EQ(c.garbage_collection_threshold, 0.0);
    EXPECT_EQ(c.per_process_memory_fraction, 1.0);
    EXPECT_EQ(c, AllocatorConfig{});
}

// AcceleratorAllocatorConfig::parseRoundUpPower2Divisions: a list entry "N:d" sets the interval of
// N MiB (index log2 N), the first one also fills every interval below, ">:d" fills those above the
// last one named.
TEST(AllocConf, BriefExampleParsesEveryKey) {
    const AllocatorConfig c = parse_alloc_conf("max_split_size_mb:128,roundup_power2_divisions:[256:1,512:2,>:8],"
                                               "expandable_segments:True,garbage_collection_threshold:0.6");
    EXPECT_EQ(c.max_split_size, 128 * MiB);
    const std::array<std::int64_t, 16> divisions{1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 8, 8, 8, 8, 8, 8};
    EXPECT_EQ(c.roundup_power2_divisions, divisions);
    EXPECT_TRUE(c.expandable_segments);
    EXPECT_EQ(c.garbage_collection_threshold, 0.6);
}

// Ported from c10/test/core/AllocatorConfig_test.cpp, allocator_config_test (its device-specific test
// key left out: a CUDA build refuses it). roundup_power2_divisions(size) reads interval log2(size) - 20.
TEST(AllocConf, PortedAllocatorConfigTest) {
    AllocatorConfig c = parse_alloc_conf("max_split_size_mb:40,max_non_split_rounding_mb:30,"
                                         "garbage_collection_threshold:0.5,"
                                         "roundup_power2_divisions:[64:8,128:2,256:4,512:2,1024:4,>:1],"
                                         "expandable_segments:True,pinned_use_background_threads:True");
    EXPECT_EQ(c.large_segment_size, 20 * MiB);
    EXPECT_EQ(c.max_split_size, 40 * MiB);
    EXPECT_EQ(c.max_non_split_rounding_size, 30 * MiB);
    EXPECT_EQ(c.garbage_collection_threshold, 0.5);
    EXPECT_EQ(c.roundup_power2_divisions[5], 8);  // 32 MiB
    EXPECT_EQ(c.roundup_power2_divisions[6], 8);  // 64 MiB
    EXPECT_EQ(c.roundup_power2_divisions[7], 2);  // 128 MiB
    EXPECT_EQ(c.roundup_power2_divisions[8], 4);  // 256 MiB
    EXPECT_EQ(c.roundup_power2_divisions[9], 2);  // 512 MiB
    EXPECT_EQ(c.roundup_power2_divisions[10], 4); // 1024 MiB
    EXPECT_EQ(c.roundup_power2_divisions[11], 1); // 2048 MiB
    EXPECT_EQ(c.roundup_power2_divisions[13], 1); // 8192 MiB
    EXPECT_TRUE(c.expandable_segments);

    c = parse_alloc_conf("large_segment_size_mb:15,max_split_size_mb:20,max_non_split_rounding_mb:40,"
                         "garbage_collection_threshold:0.8");
    EXPECT_EQ(c.large_segment_size, 15 * MiB);
    EXPECT_EQ(c.max_split_size, 20 * MiB);
    EXPECT_EQ(c.max_non_split_rounding_size, 40 * MiB);
    EXPECT_EQ(c.garbage_collection_threshold, 0.8);

    c = parse_alloc_conf("roundup_power2_divisions:[128:8,256:16,512:1,2048:8,>:2]");
    EXPECT_EQ(c.roundup_power2_divisions[6], 8);
    EXPECT_EQ(c.roundup_power2_divisions[7], 8);
    EXPECT_EQ(c.roundup_power2_divisions[8], 16);
    EXPECT_EQ(c.roundup_power2_divisions[9], 1);
    EXPECT_EQ(c.roundup_power2_divisions[10], 0); // 1024 MiB: named by no entry
    EXPECT_EQ(c.roundup_power2_divisions[11], 8);
    EXPECT_EQ(c.roundup_power2_divisions[12], 2);

    c = parse_alloc_conf("roundup_power2_divisions:4");
    for (std::int64_t d : c.roundup_power2_divisions) EXPECT_EQ(d, 4);
    EXPECT_FALSE(parse_alloc_conf("expandable_segments:False,").expandable_segments);
    // large_segment_size_mb is read first: it raises max_split_size_mb's minimum to 25.
    EXPECT_NE(error_of("max_split_size_mb:20,large_segment_size_mb:25").find("must be >= 25"), std::string::npos);
    EXPECT_NE(error_of("foo:123,bar:456").find("Unrecognized key 'foo'"), std::string::npos);
}

// ConfigTokenizer drops whitespace; CUDAAllocatorConfig::parseArgs checks its own keys and ignores
// them here (they change no size).
TEST(AllocConf, WhitespaceAndCudaOnlyKeys) {
    const AllocatorConfig c =
        parse_alloc_conf(" max_split_size_mb : 64 , backend:native, release_lock_on_cudamalloc:True,"
                         "pinned_num_register_threads:8,per_process_memory_fraction:0.25");
    EXPECT_EQ(c.max_split_size, 64 * MiB);
    EXPECT_EQ(c.per_process_memory_fraction, 0.25);
}

// Each message is PyTorch's for the same string (run through torch 2.13's
// torch._C._accelerator_setAllocatorSettings, and CUDAAllocatorConfig.cpp for the CUDA keys), behind a
// prefix naming the key and the value.
TEST(AllocConf, BadStringsAreRefusedWithPyTorchsMessage) {
    const std::vector<std::pair<std::string, std::string>> cases{
        {"max_split_size_mb:19", "key 'max_split_size_mb' value '19': CachingAllocator option max_split_size_mb too "
                                 "small, must be >= 20"},
        {"max_non_split_rounding_mb:4", "max_non_split_rounding_mb too small, must be >= 20"},
        {"garbage_collection_threshold:1.0",
         "key 'garbage_collection_threshold' value '1.0': garbage_collect_threshold is invalid, set it in (0.0, 1.0)"},
        {"garbage_collection_threshold:0", "set it in (0.0, 1.0)"},
        {"roundup_power2_divisions:3", "For roundups, the divisions has to be power of 2"},
        {"roundup_power2_divisions:0", "For roundups, the divisions has to be power of 2"},
        {"roundup_power2_divisions:[256:3]", "has to be power of 2 or 0 to disable roundup"},
        {"roundup_power2_divisions:[300:2]", "the intervals have to be power of 2 (got '300')"},
        {"roundup_power2_divisions:[64:8", "Expected closing bracket ']'"},
        {"expandable_segments:true",
         "key 'expandable_segments' value 'true': Expected 'True' or 'False' but got 'true'"},
        {"large_segment_size_mb:10", "CachingAllocator option large_segment_size_mb must be > 10 MB"},
        {"per_process_memory_fraction:1.5", "per_process_memory_fraction is invalid, set it in [0.0, 1.0]"},
        {"pinned_num_register_threads:3", "Number of register threads has to be power of 2, got 3"},
        {"pinned_num_register_threads:256", "less than or equal to 128, got 256"},
        {"backend:foo", "Unknown allocator backend, options are native and cudaMallocAsync"},
        {"foo:1", "Unrecognized key 'foo' in Accelerator allocator config."},
        // PyTorch refuses these with an internal assert or a ValueError (gh-186453).
        {"max_split_size_mb", "expected ':' after 'max_split_size_mb'"},
        {"max_split_size_mb:", "key 'max_split_size_mb': missing value"},
        // Accepted by PyTorch but not simulated, or misread by its stoull: refused here.
        {"backend:cudaMallocAsync", "not the caching allocator simulated here"},
        {"max_split_size_mb:20abc", "expected an unsigned integer, got '20abc'"},
        {"max_split_size_mb:-5", "expected an unsigned integer, got '-5'"},
        {"max_split_size_mb,128", "expected ':' after 'max_split_size_mb'"},
        {"max_split_size_mb:128,,expandable_segments:True", "expected a key, got ','"},
    };
    for (const auto& [conf, message] : cases) {
        const std::string got = error_of(conf);
        EXPECT_NE(got.find(message), std::string::npos) << conf << " -> " << got;
        EXPECT_NE(got.find("PYTORCH_CUDA_ALLOC_CONF '" + conf + "'"), std::string::npos) << got;
    }
}

// --- round_size and get_allocation_size ---

// round_size(): at least kMinBlockSize (512), a multiple of it; roundup_power2_next_division() only
// when the size exceeds 512 * divisions.
TEST(CachingAllocator, RoundSize) {
    const AllocatorConfig plain;
    EXPECT_EQ(fxmem::caching_allocator_round_size(1, plain), 512);
    EXPECT_EQ(fxmem::caching_allocator_round_size(512, plain), 512);
    EXPECT_EQ(fxmem::caching_allocator_round_size(513, plain), 1024);
    EXPECT_EQ(fxmem::caching_allocator_round_size(MiB + 1, plain), MiB + 512);
    const AllocatorConfig four = parse_alloc_conf("roundup_power2_divisions:4");
    EXPECT_EQ(fxmem::caching_allocator_round_size(1200, four), 1536); // 1200 <= 512 * 4: plain rounding
    EXPECT_EQ(fxmem::caching_allocator_round_size(5000, four), 5120); // 4096 + 1024
    EXPECT_EQ(fxmem::caching_allocator_round_size(64 * MiB, four), 64 * MiB);
    EXPECT_EQ(fxmem::caching_allocator_round_size(65 * MiB, four), 80 * MiB);
}

// Ported from test/test_cuda.py, TestCuda.test_allocator_settings: allocated bytes of a float tensor
// of 21 Mi elements (84 MiB) and 100 Mi elements (400 MiB) under each setting, expected as its
// power2_div(nbytes, divisions). test/test_cuda_expandable_segments.py runs the same test with
// expandable_segments:True: rounding does not depend on it.
TEST(CachingAllocator, PortedAllocatorSettingsRoundup) {
    const std::int64_t nbytes = 4 * 21 * MiB, nbytes_big = 4 * 100 * MiB;
    const std::string array =
        "garbage_collection_threshold:0.5,roundup_power2_divisions:[64:8,128:2,256:2,512:2,1024:1,>:1]";
    for (const std::string expandable : {"", ",expandable_segments:True"}) {
        EXPECT_EQ(run({M(0, nbytes)}, "expandable_segments:False" + expandable).allocated[0], nbytes);
        EXPECT_EQ(run({M(0, nbytes)}, "roundup_power2_divisions:4" + expandable).allocated[0], 96 * MiB);
        EXPECT_EQ(
            run({M(0, nbytes)}, "garbage_collection_threshold:0.5,max_split_size_mb:40" + expandable).allocated[0],
            nbytes);
        EXPECT_EQ(run({M(0, nbytes)}, array + expandable).allocated[0], 88 * MiB);
        EXPECT_EQ(run({M(0, nbytes_big)}, array + expandable).allocated[0], 512 * MiB);
    }
}

// get_allocation_size(): small requests (<= 1 MiB after rounding) get a 2 MiB segment, large ones
// below 10 MiB a large_segment_size (20 MiB) one, larger ones their size rounded up to 2 MiB.
TEST(CachingAllocator, SegmentSizeOfEachPool) {
    const std::vector<std::pair<std::int64_t, std::int64_t>> cases{
        {1, 2 * MiB},         {MiB, 2 * MiB},           {MiB + 1, 20 * MiB},    {10 * MiB - 512, 20 * MiB},
        {10 * MiB, 10 * MiB}, {11 * MiB + 1, 12 * MiB}, {100 * MiB, 100 * MiB},
    };
    for (const auto& [bytes, reserved] : cases) EXPECT_EQ(run({M(0, bytes)}).reserved[0], reserved) << bytes;
    EXPECT_EQ(run({M(0, 3 * MiB)}, "large_segment_size_mb:32").reserved[0], 32 * MiB);
    EXPECT_EQ(fxmem::caching_allocator_segment_size(MiB + 512, AllocatorConfig{}), 20 * MiB);
}

// should_split(): a small-pool block splits when 512 bytes or more remain; free blocks are found by
// get_free_block's best fit, so four 512 KiB requests fill one 2 MiB segment, the fifth opens another.
TEST(CachingAllocator, SmallPoolPacksTwoMiBSegments) {
    const auto r = run({M(0, 512 * KiB), M(1, 512 * KiB), M(2, 512 * KiB), M(3, 512 * KiB), M(4, 512 * KiB)});
    EXPECT_EQ(r.reserved, (std::vector<std::int64_t>{2 * MiB, 2 * MiB, 2 * MiB, 2 * MiB, 4 * MiB}));
    EXPECT_EQ(r.allocated.back(), 5 * 512 * KiB);
    ASSERT_EQ(r.segments_at_peak.size(), 2u);
    const fxmem::SimSegment& first = r.segments_at_peak[0];
    EXPECT_EQ(first.address, fxmem::kSimBaseAddress);
    EXPECT_TRUE(first.small_pool);
    ASSERT_EQ(first.blocks.size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(first.blocks[i].address, fxmem::kSimBaseAddress + static_cast<std::int64_t>(i) * 512 * KiB);
        EXPECT_EQ(first.blocks[i].id, static_cast<std::uint32_t>(i));
    }
    EXPECT_EQ(r.segments_at_peak[1].address, fxmem::kSimBaseAddress + 2 * MiB);
}

// should_split(): a large-pool block splits only when more than kSmallSize (1 MiB) would remain; a
// 15 MiB request gets a 16 MiB segment whole.
TEST(CachingAllocator, LargePoolSplitsOnlyAboveOneMiBRemainder) {
    const auto r = run({M(0, 3 * MiB), M(1, 3 * MiB), M(2, 15 * MiB)});
    EXPECT_EQ(r.reserved, (std::vector<std::int64_t>{20 * MiB, 20 * MiB, 36 * MiB}));
    EXPECT_EQ(r.allocated, (std::vector<std::int64_t>{3 * MiB, 6 * MiB, 22 * MiB}));
    EXPECT_EQ(r.block_address, (std::vector<std::int64_t>{fxmem::kSimBaseAddress, fxmem::kSimBaseAddress + 3 * MiB,
                                                          fxmem::kSimBaseAddress + 20 * MiB}));
    EXPECT_EQ(r.block_size, (std::vector<std::int64_t>{3 * MiB, 3 * MiB, 16 * MiB}));
    ASSERT_EQ(r.segments_at_peak.size(), 2u);
    EXPECT_EQ(r.segments_at_peak[0].blocks.size(), 3u); // 3 + 3 + 14 free
    EXPECT_EQ(r.segments_at_peak[0].blocks[2].size, 14 * MiB);
    EXPECT_FALSE(r.segments_at_peak[0].blocks[2].allocated);
    ASSERT_EQ(r.segments_at_peak[1].blocks.size(), 1u);
    EXPECT_EQ(r.segments_at_peak[1].blocks[0].size, 16 * MiB);
    EXPECT_EQ(r.segments_at_peak[1].blocks[0].requested, 15 * MiB);
}

// free_block() merges a freed block with free neighbours (try_merge_blocks): freeing b after a merges
// it with its previous block; the 4 MiB block they make serves a 3 MiB request whole (1 MiB left is
// not > kSmallSize). Freeing c between d and the tail merges both ways: the segment is one 20 MiB
// block again, which serves a 20 MiB request without a cudaMalloc.
TEST(CachingAllocator, FreeMergesNeighbours) {
    const auto r =
        run({M(0, 2 * MiB), M(1, 2 * MiB), M(2, 2 * MiB), F(0), F(1), M(3, 3 * MiB), F(3), F(2), M(4, 20 * MiB)});
    EXPECT_EQ(r.allocated[5], 6 * MiB); // 4 MiB block + c's 2 MiB
    EXPECT_EQ(r.block_address[5], fxmem::kSimBaseAddress);
    EXPECT_EQ(r.block_size[5], 4 * MiB);
    EXPECT_EQ(r.block_size[4], 2 * MiB); // a Free reports the block it returns, before merging
    EXPECT_EQ(r.allocated[8], 20 * MiB);
    EXPECT_EQ(r.reserved.back(), 20 * MiB);
    EXPECT_EQ(r.counters.num_device_alloc, 1);
}

// BlockComparatorSize orders free blocks by (stream, size, address): of two free 12 MiB segments the
// one at the lower address serves an 11 MiB request (no split: 1 MiB is not > kSmallSize).
TEST(CachingAllocator, BestFitTakesSmallestThenLowestAddress) {
    const auto r =
        run({M(0, 12 * MiB), M(1, 14 * MiB), M(2, 12 * MiB), F(0), F(2), F(1), M(3, 11 * MiB), M(4, 30 * MiB)});
    EXPECT_EQ(r.reserved[6], 38 * MiB);
    EXPECT_EQ(r.allocated[6], 12 * MiB);
    EXPECT_EQ(r.peak_reserved_event, 7u);
    ASSERT_EQ(r.segments_at_peak.size(), 4u);
    EXPECT_EQ(r.segments_at_peak[0].blocks[0].id, std::optional<std::uint32_t>(3));
    EXPECT_FALSE(r.segments_at_peak[1].blocks[0].allocated);
    EXPECT_FALSE(r.segments_at_peak[2].blocks[0].allocated);
    EXPECT_EQ(r.segments_at_peak[3].blocks[0].id, std::optional<std::uint32_t>(4));
}

// get_free_block() with max_split_size_mb:40: a request below it never takes a block at or above it;
// a request at or above it takes one only if less than max_non_split_rounding (20 MiB) larger.
// should_split() never splits a request at or above max_split_size.
TEST(CachingAllocator, MaxSplitSizeRefusesOversizeBlocks) {
    // 42 MiB may not take the 62 MiB block: 62 >= 42 + 20.
    const auto r = run({M(0, 62 * MiB), F(0), M(1, 42 * MiB), M(2, 30 * MiB), M(3, 45 * MiB)}, "max_split_size_mb:40");
    EXPECT_EQ(r.reserved, (std::vector<std::int64_t>{62 * MiB, 62 * MiB, 104 * MiB, 134 * MiB, 134 * MiB}));
    EXPECT_EQ(r.allocated[4], 42 * MiB + 30 * MiB + 62 * MiB);
    // Without the setting the 62 MiB block serves the 41 MiB request, split.
    const auto plain = run({M(0, 62 * MiB), F(0), M(1, 42 * MiB)});
    EXPECT_EQ(plain.reserved[2], 62 * MiB);
    EXPECT_EQ(plain.allocated[2], 42 * MiB);
}

// Blocks are reused only on their own stream (get_free_block's search key has the stream first).
TEST(CachingAllocator, StreamsDoNotShareBlocks) {
    const auto r = run({M(0, 3 * MiB, 0), F(0), M(1, 3 * MiB, 1), M(2, 3 * MiB, 0)});
    EXPECT_EQ(r.reserved, (std::vector<std::int64_t>{20 * MiB, 20 * MiB, 40 * MiB, 40 * MiB}));
    ASSERT_EQ(r.segments_at_peak.size(), 2u);
    EXPECT_EQ(r.segments_at_peak[1].stream, 1u);
}

// Expandable segments (find_expandable_block, map_block): one segment per stream and pool, mapped in
// pages of 2 MiB (small pool) and large_segment_size (large pool); a request that outgrows the free
// tail maps the next page and merges with it.
TEST(CachingAllocator, ExpandableSegmentsMapPages) {
    const auto r = run({M(0, 1), M(1, 3 * MiB), M(2, 18 * MiB)}, "expandable_segments:True");
    EXPECT_EQ(r.reserved, (std::vector<std::int64_t>{2 * MiB, 22 * MiB, 42 * MiB}));
    EXPECT_EQ(r.allocated[2], 512 + 3 * MiB + 18 * MiB);
    ASSERT_EQ(r.segments_at_peak.size(), 2u);
    const fxmem::SimSegment& large = r.segments_at_peak[1];
    EXPECT_TRUE(large.expandable);
    EXPECT_EQ(large.size, 40 * MiB);
    ASSERT_EQ(large.blocks.size(), 3u);
    EXPECT_EQ(large.blocks[1].address, large.address + 3 * MiB);
    EXPECT_EQ(large.blocks[1].size, 18 * MiB);
    EXPECT_EQ(large.blocks[2].size, 19 * MiB);
    // Without: the 18 MiB request gets a segment of its own.
    EXPECT_EQ(run({M(0, 1), M(1, 3 * MiB), M(2, 18 * MiB)}).reserved[2], 40 * MiB);
}

// With a capacity of 60 MiB, C (45 MiB) does not fit beside A's cached 30 MiB. release_cached_blocks()
// -> release_blocks(): A's segment is split, so it stays reserved, and C raises out-of-memory although
// the allocated bytes (5 + 45 MiB) would fit. With expandable segments unmap_block() returns A's
// whole page (20 MiB) and the retried alloc_block() maps C's pages.
TEST(CachingAllocator, ReleaseAndRetryUnmapsExpandablePages) {
    const std::vector<AllocEvent> events{M(0, 30 * MiB), M(1, 5 * MiB), F(0), M(2, 45 * MiB)};
    const auto fixed = run(events, "", 60 * MiB);
    ASSERT_TRUE(fixed.oom.has_value());
    EXPECT_EQ(fixed.oom->event, 3u);
    EXPECT_EQ(fixed.oom->requested, 45 * MiB);
    EXPECT_EQ(fixed.oom->allocated, 5 * MiB);
    EXPECT_EQ(fixed.oom->reserved, 20 * MiB); // A's 30 MiB segment was released before giving up
    EXPECT_EQ(fixed.oom->capacity, 60 * MiB);
    EXPECT_TRUE(fixed.oom->allocated_would_fit);
    EXPECT_EQ(fixed.allocated.size(), 3u);
    EXPECT_EQ(fixed.counters.num_alloc_retries, 1);
    using Action = fxmem::SegmentAction;
    const std::int64_t base = fxmem::kSimBaseAddress;
    EXPECT_EQ(fixed.segment_actions, (std::vector<Action>{{0, Action::Kind::Alloc, base, 30 * MiB, 0},
                                                          {1, Action::Kind::Alloc, base + 30 * MiB, 20 * MiB, 0},
                                                          {3, Action::Kind::Free, base, 30 * MiB, 0}}));

    const auto expandable = run(events, "expandable_segments:True", 60 * MiB);
    EXPECT_FALSE(expandable.oom.has_value());
    EXPECT_EQ(expandable.reserved, (std::vector<std::int64_t>{40 * MiB, 40 * MiB, 40 * MiB, 60 * MiB}));
    EXPECT_EQ(expandable.allocated[3], 50 * MiB);
    EXPECT_EQ(expandable.counters.num_alloc_retries, 1);
    EXPECT_EQ(expandable.counters.num_device_free, 1); // one unmap
    // Pages of 20 MiB: A maps two; C first fails to map two more, then A's first page (wholly free)
    // is unmapped and C's two pages are mapped.
    EXPECT_EQ(expandable.segment_actions, (std::vector<Action>{{0, Action::Kind::Map, base, 40 * MiB, 0},
                                                               {3, Action::Kind::Unmap, base, 20 * MiB, 0},
                                                               {3, Action::Kind::Map, base + 40 * MiB, 40 * MiB, 0}}));
}

// malloc(): when even the allocated bytes exceed the capacity, out-of-memory says so.
TEST(CachingAllocator, OutOfMemoryWhenAllocatedDoesNotFit) {
    const auto r = run({M(0, 30 * MiB), M(1, 30 * MiB)}, "", 40 * MiB);
    ASSERT_TRUE(r.oom.has_value());
    EXPECT_EQ(r.oom->event, 1u);
    EXPECT_EQ(r.oom->allocated, 30 * MiB);
    EXPECT_EQ(r.oom->reserved, 30 * MiB);
    EXPECT_FALSE(r.oom->allocated_would_fit);
    EXPECT_EQ(r.peak_reserved, 30 * MiB);
}

// Ported from test/test_cuda.py, TestCuda.test_max_split_expandable (its expandable_segments:False
// steps): 120 MiB allowed, max_split_size_mb:40; three 40 MiB tensors fill it, a fourth raises
// out-of-memory; after freeing the three, 120 MiB is allocated by release_available_cached_blocks()
// freeing the largest oversize blocks until their sizes add up to the request.
TEST(CachingAllocator, PortedMaxSplitReleasesAvailableCachedBlocks) {
    const auto full =
        run({M(0, 40 * MiB), M(1, 40 * MiB), M(2, 40 * MiB), M(3, 40 * MiB)}, "max_split_size_mb:40", 120 * MiB);
    ASSERT_TRUE(full.oom.has_value());
    EXPECT_EQ(full.oom->event, 3u);
    EXPECT_FALSE(full.oom->allocated_would_fit);

    const auto freed = run({M(0, 40 * MiB), M(1, 40 * MiB), M(2, 40 * MiB), F(0), F(1), F(2), M(3, 120 * MiB)},
                           "max_split_size_mb:40", 120 * MiB);
    EXPECT_FALSE(freed.oom.has_value());
    EXPECT_EQ(freed.reserved.back(), 120 * MiB);
    EXPECT_EQ(freed.counters.num_device_free, 3);
    EXPECT_EQ(freed.counters.num_alloc_retries, 0); // satisfied before release_cached_blocks

    // The other branch: the smallest oversize block at least max(request, max_split_size) is freed
    // alone. A 30 MiB request may not take the cached 50 MiB block (get_free_block) and does not fit
    // beside it; freeing it makes room.
    const auto one = run({M(0, 50 * MiB), M(1, 42 * MiB), F(0), M(2, 30 * MiB)}, "max_split_size_mb:40", 100 * MiB);
    EXPECT_FALSE(one.oom.has_value());
    EXPECT_EQ(one.reserved, (std::vector<std::int64_t>{50 * MiB, 92 * MiB, 92 * MiB, 72 * MiB}));
    EXPECT_EQ(one.counters.num_device_free, 1);
}

// Ported from test/test_cuda.py, TestCuda.test_set_per_process_memory_fraction on an 80 GB H100
// (total_memory 85,520,809,984): at fraction 0.5, 0.499 of the memory can be allocated, 0.5 cannot:
// its segment, rounded up to 2 MiB, exceeds the allowed bytes while the block itself would fit.
TEST(CachingAllocator, PortedPerProcessMemoryFraction) {
    const std::int64_t total = 85'520'809'984;
    const auto r = run({M(0, static_cast<std::int64_t>(static_cast<double>(total) * 0.499)), F(0), M(1, total / 2)},
                       "per_process_memory_fraction:0.5", total);
    ASSERT_TRUE(r.oom.has_value());
    EXPECT_EQ(r.oom->event, 2u);
    EXPECT_EQ(r.oom->allowed, std::optional<std::int64_t>(total / 2));
    EXPECT_EQ(r.oom->reserved, 0); // the cached segment was released first
    EXPECT_TRUE(r.oom->allocated_would_fit);
    EXPECT_THROW(run({M(0, 1)}, "per_process_memory_fraction:0.5"), fxmem::Error); // needs a capacity
}

// garbage_collect_cached_blocks(): with a memory fraction set (allowed 100 MiB) and the threshold at
// 0.8 (80 MiB), a cudaMalloc that would pass 80 MiB first frees unsplit cached large blocks whose
// age (get_free_block calls since they were cached) is at least the average: a (age 3) but not b
// (age 2). b then serves a 30 MiB request.
TEST(CachingAllocator, GarbageCollectionFreesOldBlocks) {
    const std::vector<AllocEvent> events{M(0, 30 * MiB), M(1, 30 * MiB),    F(0),           M(2, 12 * MiB, 1),
                                         F(1),           M(3, 12 * MiB, 1), M(4, 40 * MiB), M(5, 30 * MiB)};
    const auto gc = run(events, "garbage_collection_threshold:0.8,per_process_memory_fraction:0.5", 200 * MiB);
    EXPECT_EQ(gc.reserved, (std::vector<std::int64_t>{30 * MiB, 60 * MiB, 60 * MiB, 72 * MiB, 72 * MiB, 84 * MiB,
                                                      94 * MiB, 94 * MiB}));
    EXPECT_EQ(gc.counters.num_device_free, 1);
    EXPECT_EQ(gc.counters.num_alloc_retries, 0);
    // Equal ages (3 and 3, average 3): both blocks are at least the average, both freed, and the
    // 40 MiB cudaMalloc fits without release_cached_blocks.
    const std::vector<AllocEvent> equal{M(0, 30 * MiB),    M(1, 30 * MiB),    F(0),          F(1),
                                        M(2, 12 * MiB, 1), M(3, 12 * MiB, 1), M(4, 40 * MiB)};
    const auto both = run(equal, "garbage_collection_threshold:0.8,per_process_memory_fraction:0.5", 200 * MiB);
    EXPECT_EQ(both.reserved.back(), 64 * MiB);
    EXPECT_EQ(both.counters.num_device_free, 2);
    EXPECT_EQ(both.counters.num_alloc_retries, 0);
    // No memory fraction: PyTorch runs no garbage collection.
    const auto no_fraction = run(events, "garbage_collection_threshold:0.8", 200 * MiB);
    EXPECT_EQ(no_fraction.reserved[6], 124 * MiB);
    EXPECT_EQ(no_fraction.counters.num_device_free, 0);
}

// Figures that must agree whatever the rules decide, on a long pseudo-random replay: the segments at
// the peak tile their blocks and add up to the peak reserved bytes, their allocated blocks to the
// allocated bytes after the peak's event, reserved never falls below allocated, and the segment
// actions add up to reserved after every event.
TEST(CachingAllocator, SnapshotAgreesWithStatsOnRandomReplay) {
    std::uint64_t state = 12345;
    auto next = [&] { return (state = state * 6364136223846793005ULL + 1442695040888963407ULL) >> 33; };
    std::vector<AllocEvent> events;
    std::vector<std::uint32_t> live;
    std::uint32_t next_id = 0;
    for (int i = 0; i < 20000; ++i) {
        if (live.empty() || next() % 100 < 55) {
            const std::int64_t bytes = static_cast<std::int64_t>(1 + next() % 4096) << (next() % 15);
            events.push_back(M(next_id, bytes, static_cast<std::uint32_t>(next() % 2)));
            live.push_back(next_id++);
        } else {
            const std::size_t k = next() % live.size();
            events.push_back(F(live[k]));
            live[k] = live.back();
            live.pop_back();
        }
    }
    for (const std::string conf : {"", "expandable_segments:True", "max_split_size_mb:40,roundup_power2_divisions:4"}) {
        const auto r = run(events, conf);
        ASSERT_EQ(r.reserved.size(), events.size());
        std::int64_t segments = 0, allocated = 0;
        for (const fxmem::SimSegment& s : r.segments_at_peak) {
            std::int64_t at = s.address, sum = 0;
            for (const fxmem::SimBlock& b : s.blocks) {
                EXPECT_EQ(b.address, at) << conf;
                at += b.size;
                sum += b.size;
                if (b.allocated) allocated += b.size;
            }
            EXPECT_EQ(sum, s.size) << conf;
            segments += s.size;
        }
        EXPECT_EQ(segments, r.peak_reserved) << conf;
        EXPECT_EQ(allocated, r.allocated[r.peak_reserved_event]) << conf;
        EXPECT_EQ(r.peak_reserved, *std::max_element(r.reserved.begin(), r.reserved.end())) << conf;
        EXPECT_EQ(r.peak_allocated, *std::max_element(r.allocated.begin(), r.allocated.end())) << conf;
        for (std::size_t i = 0; i < events.size(); ++i) EXPECT_GE(r.reserved[i], r.allocated[i]) << conf;
        // The device calls account for every change of reserved.
        std::int64_t device = 0;
        std::size_t k = 0;
        for (std::size_t i = 0; i < events.size(); ++i) {
            for (; k < r.segment_actions.size() && r.segment_actions[k].event == i; ++k) {
                const fxmem::SegmentAction& a = r.segment_actions[k];
                const bool grows =
                    a.kind == fxmem::SegmentAction::Kind::Alloc || a.kind == fxmem::SegmentAction::Kind::Map;
                device += grows ? a.size : -a.size;
            }
            ASSERT_EQ(device, r.reserved[i]) << conf << " event " << i;
        }
        EXPECT_EQ(k, r.segment_actions.size()) << conf;
    }
}

TEST(CachingAllocator, ZeroByteMallocAllocatesNothing) {
    const auto r = run({M(0, 0), F(0)});
    EXPECT_EQ(r.allocated, (std::vector<std::int64_t>{0, 0}));
    EXPECT_EQ(r.reserved, (std::vector<std::int64_t>{0, 0}));
    EXPECT_EQ(r.block_address, (std::vector<std::int64_t>{-1, -1}));
    EXPECT_TRUE(r.segments_at_peak.empty());
}

TEST(CachingAllocator, BadEventsNameTheEvent) {
    auto message = [](const std::vector<AllocEvent>& events) -> std::string {
        try {
            simulate_caching_allocator(events, AllocatorConfig{});
        } catch (const fxmem::Error& e) {
            return e.what();
        }
        return "(no error)";
    };
    EXPECT_EQ(message({M(0, 1), F(7)}), "allocator events: event 1 (free of id 7): the id is not allocated (never, or "
                                        "already freed)");
    EXPECT_EQ(message({M(0, 1), F(0), F(0)}), "allocator events: event 2 (free of id 0): the id is not allocated "
                                              "(never, or already freed)");
    EXPECT_EQ(message({M(3, 1), M(3, 1)}),
              "allocator events: event 1 (malloc of id 3): the id is still allocated (by event 0)");
    EXPECT_EQ(message({M(0, -4)}), "allocator events: event 0 (malloc of id 0): negative size -4");
    // An id can be allocated again once freed.
    EXPECT_EQ(message({M(0, 1), F(0), M(0, 1)}), "(no error)");
}

} // namespace
