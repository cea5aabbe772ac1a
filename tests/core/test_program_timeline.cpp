// Timeline under Measure::Allocated on program_pair.json (the programs are described in
// test_program.cpp): a graph, the pair and the whole step composed by hand, the live buffers
// beside the baseline, the allocation event stream, the refusals, and the estimator's numbers on
// the same file unchanged (by hand).
#include "fxmem/error.h"
#include "fxmem/io.h"
#include "fxmem/timeline.h"

#include "error_of.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

using namespace fxmem;

namespace {

std::shared_ptr<const GraphFile> shared_program_pair() {
    return std::make_shared<const GraphFile>(load_file(std::string(FXMEM_TEST_DATA) + "/good/program_pair.json"));
}

using fxmem_test::error_of;

// The forward's program profile, then the backward's raised by what the forward program left that
// the backward does not take as inputs: all it left live (21504) plus the tangents the autograd
// engine allocates (8192), less the backward's input buffers (17408): the parameter primals_1
// (4096) and the forward output `add` (8192), 12288.
const std::vector<std::int64_t> kAllocatedPair = {5120,          13824,        13312,         21504,
                                                  21504,         21504,        21504,         17408 + 12288,
                                                  17408 + 12288, 9216 + 12288, 10240 + 12288, 1024 + 12288};

// Replays events and checks that the bytes live after each step's events are the profile there.
void expect_events_match_profile(const Timeline& t) {
    const std::vector<TimelineAllocEvent> events = t.alloc_events();
    std::map<std::uint32_t, std::int64_t> live;
    std::int64_t bytes = 0;
    std::size_t e = 0;
    for (std::size_t g = 0; g < t.profile().size(); ++g) {
        for (; e < events.size() && events[e].step <= static_cast<std::int64_t>(g); ++e) {
            const TimelineAllocEvent& ev = events[e];
            if (ev.kind == TimelineAllocEvent::Kind::Malloc) {
                EXPECT_TRUE(live.emplace(ev.id, ev.bytes).second) << "id " << ev.id << " allocated twice";
                bytes += ev.bytes;
            } else {
                ASSERT_TRUE(live.contains(ev.id)) << "id " << ev.id << " freed while not allocated";
                EXPECT_EQ(live[ev.id], ev.bytes);
                bytes -= ev.bytes;
                live.erase(ev.id);
            }
        }
        EXPECT_EQ(bytes, t.profile()[g]) << "at step " << g;
    }
    for (; e < events.size(); ++e) {
        EXPECT_EQ(events[e].kind, TimelineAllocEvent::Kind::Free);
        EXPECT_EQ(events[e].step, static_cast<std::int64_t>(t.profile().size()));
        live.erase(events[e].id);
    }
    EXPECT_TRUE(live.empty()) << live.size() << " allocations never freed";
}

} // namespace

TEST(AllocatedTimeline, GraphIsItsProgramProfile) {
    const auto f = shared_program_pair();
    const Timeline t =
        Timeline::graph(f, GraphId(0), DeviceFilter::All, {}, PairContext::AsInPair, nullptr, Measure::Allocated);
    EXPECT_EQ(t.measure(), Measure::Allocated);
    EXPECT_EQ(t.profile(), (std::vector<std::int64_t>{5120, 13824, 13312, 21604, 21504, 21504, 21504}));
    EXPECT_EQ(t.peak(), 21604);
    EXPECT_EQ(t.peak_step(), 3u);
    EXPECT_FALSE(t.pair_peak());
    ASSERT_EQ(t.segments().size(), 1u);
    EXPECT_EQ(t.segments()[0].length, 7u);
    const TimelineLive live = t.live_at(3);
    EXPECT_TRUE(live.live.empty());
    EXPECT_EQ(live.baseline_begin, 0u);
    ASSERT_EQ(live.buffers.size(), 5u);
    EXPECT_EQ(live.buffers.back().buffer, 6u); // the CPU buffer counts under DeviceFilter::All
}

TEST(AllocatedTimeline, PairByHand) {
    const auto f = shared_program_pair();
    const Timeline t = Timeline::pair(f, 0, DeviceFilter::NonCpu, {}, nullptr, Measure::Allocated);
    EXPECT_EQ(t.profile(), kAllocatedPair);
    EXPECT_EQ(t.peak(), 29696);
    EXPECT_EQ(t.peak_step(), 7u);
    ASSERT_EQ(t.segments().size(), 2u);
    EXPECT_EQ(t.segments()[1].offset, 7);
    EXPECT_EQ(t.segments()[1].baseline, 12288);
    // At the backward's kernel 0 free (global 9): buf0 8192 and primals_2 1024; the forward's
    // leftover is one amount (the segment's baseline), not storages.
    const TimelineLive live = t.live_at(9);
    ASSERT_TRUE(live.where);
    EXPECT_EQ(live.where->segment, 1u);
    EXPECT_EQ(live.where->step, 2u);
    ASSERT_EQ(live.buffers.size(), 2u);
    EXPECT_EQ(live.buffers[0].buffer, 3u);
    EXPECT_EQ(live.buffers[1].buffer, 0u);
    EXPECT_EQ(live.baseline_begin, 0u);
    EXPECT_TRUE(live.live.empty());
}

TEST(AllocatedTimeline, WholeStepByHand) {
    const auto f = shared_program_pair();
    const Timeline t = Timeline::whole_step(f, DeviceFilter::NonCpu, {}, Measure::Allocated);
    // The step runs fwd then bwd. bwd carries the forward's last output `add` (the loss, 8192) to
    // the end of the step, and the parameter primals_1 (4096), which the backward does not hold
    // (the pair counts only its graphs' placeholders): the estimator's carry, 12288.
    // The same amount the pair's backward carries from its forward program.
    EXPECT_EQ(t.profile(), kAllocatedPair);
    ASSERT_EQ(t.segments().size(), 2u);
    EXPECT_EQ(t.segments()[0].baseline, 0);
    EXPECT_EQ(t.segments()[1].baseline, 12288);
    const Timeline estimator = Timeline::whole_step(f);
    for (std::size_t s = 0; s < 2; ++s) EXPECT_EQ(t.segments()[s].baseline, estimator.segments()[s].baseline);
    // At the backward's last step: buf1 of the program, then the carried storages (ids 0 and 5).
    const TimelineLive live = t.live_at(11);
    ASSERT_EQ(live.buffers.size(), 1u);
    EXPECT_EQ(live.buffers[0].buffer, 4u);
    std::vector<std::int64_t> carried;
    for (const LiveStorage& s : live.live) carried.push_back(f->storages[s.storage.index()].file_id);
    std::sort(carried.begin(), carried.end());
    EXPECT_EQ(carried, (std::vector<std::int64_t>{0, 5}));
    // The carried storages are allocated at the backward's first step and freed after the last.
    std::vector<std::uint32_t> baseline_ids;
    for (const TimelineAllocEvent& e : t.alloc_events())
        if (e.id < f->storages.size()) {
            EXPECT_EQ(e.step, e.kind == TimelineAllocEvent::Kind::Malloc ? 7 : 12);
            baseline_ids.push_back(e.id);
        }
    std::sort(baseline_ids.begin(), baseline_ids.end());
    EXPECT_EQ(baseline_ids, (std::vector<std::uint32_t>{0, 0, 5, 5}));
}

TEST(AllocatedTimeline, EventStreamOfThePairByHand) {
    const auto f = shared_program_pair();
    const Timeline t = Timeline::pair(f, 0, DeviceFilter::NonCpu, {}, nullptr, Measure::Allocated);
    using K = TimelineAllocEvent::Kind;
    struct E {
        K kind;
        std::uint32_t id;
        std::int64_t bytes;
        std::uint32_t stream;
        std::int64_t step;
    };
    // Program blocks are numbered from 9 (the file has 9 storages): fwd primals_1 9, primals_2 10,
    // buf0 11, workspace 12, buf1 (then buf2) 13; the forward's leftover 14 (12288, one amount);
    // bwd primals_2 15, mm 16, tangents_1 (then buf0) 17, buf1 18 on stream 1.
    const std::vector<E> expected = {
        {K::Malloc, 9, 4096, 0, 0},   {K::Malloc, 10, 1024, 0, 0},  {K::Malloc, 11, 8192, 0, 1},
        {K::Malloc, 12, 512, 0, 1},   {K::Free, 12, 512, 0, 2},     {K::Malloc, 13, 8192, 0, 3},
        {K::Free, 9, 4096, 0, 7},     {K::Free, 10, 1024, 0, 7},    {K::Free, 11, 8192, 0, 7},
        {K::Free, 13, 8192, 0, 7},    {K::Malloc, 14, 12288, 0, 7}, {K::Malloc, 15, 1024, 0, 7},
        {K::Malloc, 16, 8192, 0, 7},  {K::Malloc, 17, 8192, 0, 7},  {K::Free, 16, 8192, 0, 9},
        {K::Malloc, 18, 1024, 1, 10}, {K::Free, 15, 1024, 0, 11},   {K::Free, 17, 8192, 0, 11},
        {K::Free, 18, 1024, 1, 12},   {K::Free, 14, 12288, 0, 12}};
    const std::vector<TimelineAllocEvent> got = t.alloc_events();
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i].kind, expected[i].kind) << i;
        EXPECT_EQ(got[i].id, expected[i].id) << i;
        EXPECT_EQ(got[i].bytes, expected[i].bytes) << i;
        EXPECT_EQ(got[i].stream, expected[i].stream) << i;
        EXPECT_EQ(got[i].step, expected[i].step) << i;
    }
    expect_events_match_profile(t);
}

TEST(AllocatedTimeline, EventStreamsReplayToTheProfile) {
    const auto f = shared_program_pair();
    for (const DeviceFilter d : {DeviceFilter::NonCpu, DeviceFilter::All}) {
        expect_events_match_profile(
            Timeline::graph(f, GraphId(1), d, {}, PairContext::AsInPair, nullptr, Measure::Allocated));
        expect_events_match_profile(Timeline::whole_step(f, d, {}, Measure::Allocated));
    }
}

TEST(AllocatedTimeline, Refusals) {
    const auto f = shared_program_pair();
    const auto single =
        std::make_shared<const GraphFile>(load_file(std::string(FXMEM_TEST_DATA) + "/good/single.json"));
    const std::string none = error_of([&] {
        Timeline::graph(single, GraphId(0), DeviceFilter::NonCpu, {}, PairContext::AsInPair, nullptr,
                        Measure::Allocated);
    });
    EXPECT_NE(none.find("graph '" + single->graphs[0].name + "' has no program level"), std::string::npos) << none;
    Schedule order;
    order.graph = GraphId(0);
    for (std::size_t i = 0; i < f->graphs[0].size(); ++i) order.order.push_back(NodeId(static_cast<std::int32_t>(i)));
    const std::string scheduled =
        error_of([&] { Timeline::pair(f, 0, DeviceFilter::NonCpu, {}, &order, Measure::Allocated); });
    EXPECT_NE(scheduled.find("a schedule of graph 'fwd' reorders the FX graph, which has no program"),
              std::string::npos)
        << scheduled;
    EXPECT_NE(error_of([&] {
                  Timeline::whole_step(f, DeviceFilter::NonCpu, {}, Measure::Reserved);
              }).find("reserved measure is simulated"),
              std::string::npos);
    EXPECT_NE(error_of([&] { Timeline::pair(f, 0).alloc_events(); }).find("build the timeline with the allocated"),
              std::string::npos);
}

// The estimator's numbers on the same file, by hand, whether the measure is left out or named.
// fwd: 4096 + 1024 up front; mm + 8192 (primals are never freed); relu + 8192; mul + 8192, then
// relu - 8192; add + 8192, then mul - 8192. bwd, as get_peak_memory scores it: 1024 + 8192 +
// 8192 up front; mul_1 + 8192, then mm - 8192 (tangents_1 holds no forward output: kept); sum_1
// + 1024, then mul_1 - 8192; raised by the baseline 8192.
TEST(AllocatedTimeline, EstimatorNumbersUnchanged) {
    const auto f = shared_program_pair();
    const std::vector<std::int64_t> estimator = {5120,         13312,        13312,        21504,       21504,
                                                 29696,        21504,        29696,        21504,       17408 + 8192,
                                                 25600 + 8192, 17408 + 8192, 18432 + 8192, 10240 + 8192};
    EXPECT_EQ(Timeline::pair(f, 0).profile(), estimator);
    EXPECT_EQ(Timeline::pair(f, 0, DeviceFilter::NonCpu, {}, nullptr, Measure::Estimator).profile(), estimator);
    EXPECT_EQ(Timeline::pair(f, 0).measure(), Measure::Estimator);
    EXPECT_TRUE(Timeline::pair(f, 0).pair_peak());
    // The whole step carries the parameter primals_1 (4096) through the backward as well.
    std::vector<std::int64_t> step = estimator;
    for (std::size_t g = 9; g < step.size(); ++g) step[g] += 4096;
    EXPECT_EQ(Timeline::whole_step(f).profile(), step);
    EXPECT_FALSE(Timeline::pair(f, 0).segments()[0].program);
}
