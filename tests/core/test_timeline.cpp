// fxmem::Timeline: the joined pair and the whole step by hand on diff_step_old.json (numbers below),
// the pair fixture with a schedule, and the bundled examples against the estimator's own numbers
// (get_peak_memory, build_memory_profile, whole_step) and fxmem-cli's live/breakdown JSON.
#include "cli_run.h"
#include "fxmem/error.h"
#include "fxmem/estimator.h"
#include "fxmem/io.h"
#include "fxmem/schedule.h"
#include "fxmem/timeline.h"
#include "test_estimator_fixtures.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>

using namespace fxmem;

namespace {

// diff_step_old.json: fwd (primals_1 W 100, primals_2 X 40) -> mm (MM 200) -> sum (S 8), outputs
// sum, mm, primals_1; bwd (primals_1 W, mm MM, tangents_1 T 8) -> mul (MUL 200) -> mm_1 (GW 100);
// optimizer state O 100. Step: fwd, then bwd.
std::shared_ptr<const GraphFile> step_file() {
    return std::make_shared<const GraphFile>(load_file(std::string(FXMEM_TEST_DATA) + "/good/diff_step_old.json"));
}

std::shared_ptr<const GraphFile> example(const std::string& name) {
    return std::make_shared<const GraphFile>(
        load_file(std::string(FXMEM_TEST_DATA) + "/../../resources/examples/" + name + ".fxmem.json"));
}

std::multiset<std::int64_t> file_ids(const GraphFile& file, const std::vector<LiveStorage>& live, std::size_t begin,
                                     std::size_t end) {
    std::multiset<std::int64_t> ids;
    for (std::size_t i = begin; i < end; ++i) ids.insert(file.storages[live[i].storage.index()].file_id);
    return ids;
}

std::int64_t bytes(const std::vector<LiveStorage>& live) {
    std::int64_t sum = 0;
    for (const LiveStorage& l : live) sum += l.nbytes;
    return sum;
}

} // namespace

TEST(Timeline, PairByHand) {
    const auto file = step_file();
    const Timeline t = Timeline::pair(file, 0);
    // fwd: start W + X = 140; mm +200 = 340, 340 (placeholders kept); sum +8 = 348, 348 (mm is an
    // output). bwd in its pair: start W + MM + T = 308; mul +200 = 508, 508 (T do-not-delete);
    // mm_1 +100 = 608, then mul and MM (releasable: a forward output, no primal) freed: 208.
    // Baseline: the forward outputs bwd does not hold: S 8.
    ASSERT_EQ(t.segments().size(), 2u);
    EXPECT_EQ(t.segments()[0].offset, 0);
    EXPECT_EQ(t.segments()[0].length, 5u);
    EXPECT_EQ(t.segments()[0].baseline, 0);
    EXPECT_EQ(t.segments()[1].offset, 5);
    EXPECT_EQ(t.segments()[1].baseline, 8);
    ASSERT_EQ(t.segments()[1].baseline_storages.size(), 1u);
    EXPECT_EQ(file->storages[t.segments()[1].baseline_storages[0].index()].file_id, 4);
    EXPECT_EQ(t.profile(), (std::vector<std::int64_t>{140, 340, 340, 348, 348, 316, 516, 516, 616, 216}));
    EXPECT_EQ(t.peak(), 616);
    EXPECT_EQ(t.peak_step(), 8u);
    ASSERT_TRUE(t.pair_peak());
    EXPECT_EQ(t.pair_peak()->peak, 616);
    EXPECT_EQ(t.step(), nullptr);

    // At the peak: bwd's own W, MM, T, MUL, GW, then the forward's S, made by sum.
    const TimelineLive at = t.live_at(8);
    ASSERT_TRUE(at.where);
    EXPECT_EQ(at.where->segment, 1u);
    EXPECT_EQ(at.where->step, 3u);
    EXPECT_EQ(at.baseline_begin, 5u);
    EXPECT_EQ(file_ids(*file, at.live, 0, 5), (std::multiset<std::int64_t>{1, 3, 5, 7, 6}));
    ASSERT_EQ(at.live.size(), 6u);
    const LiveStorage& s = at.live[5];
    EXPECT_EQ(file->storages[s.storage.index()].file_id, 4);
    EXPECT_EQ(s.nbytes, 8);
    EXPECT_EQ(s.reason, LiveReason::GraphOutput);
    EXPECT_EQ(file->graphs[0].node(s.allocator).name, "sum");
    EXPECT_EQ(file->graphs[0].node(s.last_user).name, "output");
    EXPECT_EQ(bytes(at.live), 616);
    // In the forward no baseline is listed.
    const TimelineLive fwd = t.live_at(3);
    EXPECT_EQ(fwd.baseline_begin, fwd.live.size());
    EXPECT_EQ(file_ids(*file, fwd.live, 0, fwd.live.size()), (std::multiset<std::int64_t>{1, 2, 3, 4}));
}

TEST(Timeline, LocateFindsEverySegmentAndNothingOutside) {
    const Timeline t = Timeline::pair(step_file(), 0);
    EXPECT_FALSE(t.locate(-1));
    EXPECT_FALSE(t.locate(10));
    EXPECT_FALSE(t.live_at(10).where);
    EXPECT_TRUE(t.live_at(-1).live.empty());
    const std::pair<std::int64_t, std::pair<std::size_t, std::size_t>> cases[] = {
        {0, {0, 0}}, {4, {0, 4}}, {5, {1, 0}}, {9, {1, 4}}};
    for (const auto& [global, want] : cases) {
        const auto p = t.locate(global);
        ASSERT_TRUE(p) << global;
        EXPECT_EQ(p->segment, want.first) << global;
        EXPECT_EQ(p->step, want.second) << global;
    }
}

TEST(Timeline, WholeStepByHand) {
    const auto file = step_file();
    const Timeline t = Timeline::whole_step(file);
    // fwd carries O 100 (it holds W); bwd carries O and the loss S 8 the last forward leaves
    // (its W and MM are its own inputs). The profiles are PairByHand's.
    ASSERT_EQ(t.segments().size(), 2u);
    EXPECT_EQ(t.segments()[0].baseline, 100);
    EXPECT_EQ(t.segments()[1].baseline, 108);
    EXPECT_EQ(t.segments()[0].entry, 0u);
    EXPECT_EQ(t.segments()[1].entry, 1u);
    EXPECT_EQ(t.profile(), (std::vector<std::int64_t>{240, 440, 440, 448, 448, 416, 616, 616, 716, 316}));
    EXPECT_EQ(t.peak(), 716);
    EXPECT_EQ(t.peak_step(), 8u);
    EXPECT_FALSE(t.pair_peak());
    ASSERT_NE(t.step(), nullptr);
    EXPECT_EQ(t.step()->timeline, t.profile());
    // One analysis for each graph, shared by nothing else here.
    EXPECT_NE(t.segments()[0].analysis, t.segments()[1].analysis);

    const TimelineLive at = t.live_at(8);
    ASSERT_TRUE(at.where);
    EXPECT_EQ(at.baseline_begin, 5u);
    ASSERT_EQ(at.live.size(), 7u);
    // Carried: the optimizer state (made by no graph), then fwd's loss S (made by sum).
    EXPECT_EQ(file->storages[at.live[5].storage.index()].file_id, 8);
    EXPECT_FALSE(at.live[5].allocator.valid());
    EXPECT_EQ(file->storages[at.live[6].storage.index()].file_id, 4);
    EXPECT_EQ(file->graphs[0].node(at.live[6].allocator).name, "sum");
    EXPECT_EQ(at.live[6].reason, LiveReason::GraphOutput);
    EXPECT_EQ(bytes(at.live), 716);
}

TEST(Timeline, AGraphOnItsOwnOrInItsPair) {
    const auto file = step_file();
    const Timeline in_pair = Timeline::graph(file, GraphId(1));
    EXPECT_EQ(in_pair.profile(), (std::vector<std::int64_t>{308, 508, 508, 608, 208}));
    ASSERT_TRUE(in_pair.pair_peak());
    EXPECT_EQ(in_pair.pair_peak()->peak, 616);
    // On its own every input but the primal is released at its last use: T at mul, MM at mm_1.
    const Timeline alone = Timeline::graph(file, GraphId(1), DeviceFilter::NonCpu, {}, PairContext::Standalone);
    EXPECT_EQ(alone.profile(), (std::vector<std::int64_t>{308, 508, 500, 600, 200}));
    const AliasInfo alias = build_alias_info(*file, file->graphs[1]);
    EXPECT_EQ(alone.profile(), build_memory_profile(*file, file->graphs[1], alias, default_releasable(file->graphs[1]),
                                                    default_counted(*file)));
    EXPECT_TRUE(alone.segments()[0].baseline_storages.empty());
    EXPECT_EQ(bytes(alone.live_at(3).live), alone.profile()[3]);
}

TEST(Timeline, AScheduleReordersOneGraphOfThePair) {
    fxmem::testing::PairFixture f;
    const auto file = std::make_shared<const GraphFile>(f.file);
    const Graph& fwd = file->graphs[0];
    // k before s: h's last user is then s. Start 440; h +100 = 540, 540; k +30 = 570, 570 (h
    // still used by s); s +20 = 590, then h freed: 490; c (cpu) 490, 490; o +12 = 502, 502;
    // c2 (cpu) 502, 502. The backward is PeakByHand's 432, 452, 432, 832, 812 raised by 42.
    Schedule schedule;
    schedule.graph = GraphId(0);
    for (const char* name : {"primals_1", "primals_2", "h", "k", "s", "c", "o", "c2", "output"})
        schedule.order.push_back(fwd.find(name));
    const Timeline t = Timeline::pair(file, 0, DeviceFilter::NonCpu, {}, &schedule);
    EXPECT_EQ(t.profile(), (std::vector<std::int64_t>{440, 540, 540, 570, 570, 590, 490, 490, 490, 502, 502, 502, 502,
                                                      474, 494, 474, 874, 854}));
    ASSERT_NE(t.segments()[0].reordered, nullptr);
    EXPECT_EQ(t.segments()[1].reordered, nullptr);
    EXPECT_EQ(t.peak(), 874);
    EXPECT_EQ(t.peak_step(), 16u);
    // The live set follows the schedule: after k runs, h (100) and keep (30) are both live.
    EXPECT_EQ(bytes(t.live_at(3).live), 570);
    // A schedule of a graph outside the pair is an error naming the file.
    Schedule other;
    other.graph = GraphId(5);
    try {
        (void)Timeline::pair(file, 0, DeviceFilter::NonCpu, {}, &other);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_TRUE(fxmem_test::contains(e.what(), "pair.json: the schedule is for graph 5")) << e.what();
    }
    EXPECT_THROW((void)Timeline::pair(file, 1), Error);
    EXPECT_THROW((void)Timeline::graph(file, GraphId(2)), Error);
    EXPECT_THROW((void)Timeline::whole_step(file), Error); // no step in the fixture
}

// The bundled llama's pair: get_peak_memory's numbers and the two graphs' profiles, and every
// step's live set adding up to the joined profile.
TEST(Timeline, LlamaPairAgreesWithTheEstimator) {
    const auto file = example("llama");
    const Timeline t = Timeline::pair(file, 0);
    const Graph& fwd = file->graph(file->pairs[0].forward);
    const Graph& bwd = file->graph(file->pairs[0].backward);
    const PeakMemory want = get_peak_memory(*file, fwd, bwd);
    EXPECT_EQ(t.peak(), want.peak);
    EXPECT_EQ(t.segments()[1].baseline, want.backward_baseline);
    const StorageMask counted = default_counted(*file);
    const AliasInfo fa = build_alias_info(*file, fwd), ba = build_alias_info(*file, bwd);
    std::vector<std::int64_t> joined = build_memory_profile(*file, fwd, fa, default_releasable(fwd), counted);
    for (std::int64_t v : build_memory_profile(
             *file, bwd, ba, backward_releasable(bwd, get_fwd_bwd_interactions(*file, fwd, bwd)), counted))
        joined.push_back(v + want.backward_baseline);
    EXPECT_EQ(t.profile(), joined);
    std::int64_t baseline = 0;
    for (StorageId s : t.segments()[1].baseline_storages) baseline += file->nbytes(s);
    EXPECT_EQ(baseline, want.backward_baseline);
    for (std::size_t step = 0; step < joined.size(); ++step)
        ASSERT_EQ(bytes(t.live_at(static_cast<std::int64_t>(step)).live), joined[step]) << step;
}

// The examples with a step: whole_step's own timeline and carry, and every step's live set adding
// up to it.
TEST(Timeline, WholeStepExamplesAgreeWithWholeStep) {
    for (const char* name : {"gpt_adam", "gpt_break"}) {
        const auto file = example(name);
        const Timeline t = Timeline::whole_step(file);
        const WholeStep ws = whole_step(*file, default_counted(*file));
        EXPECT_EQ(t.profile(), ws.timeline) << name;
        EXPECT_EQ(t.peak(), ws.peak) << name;
        EXPECT_EQ(t.peak_step(), ws.peak_index) << name;
        ASSERT_EQ(t.segments().size(), ws.segments.size()) << name;
        for (std::size_t s = 0; s < ws.segments.size(); ++s) {
            EXPECT_EQ(t.segments()[s].offset, static_cast<std::int64_t>(ws.segments[s].begin)) << name;
            EXPECT_EQ(t.segments()[s].baseline, ws.segments[s].carry.total()) << name;
        }
        for (std::size_t step = 0; step < ws.timeline.size(); step += 7) {
            const TimelineLive at = t.live_at(static_cast<std::int64_t>(step));
            ASSERT_EQ(bytes(at.live), ws.timeline[step]) << name << " step " << step;
            EXPECT_EQ(at.where->segment, step_point(ws, step).segment) << name;
        }
    }
}

// fxmem-cli's --pair views list what the timeline lists, at a step of the forward, the backward's
// first and the peak (what the app's live table and breakdown show there).
TEST(Timeline, CliPairLiveAndBreakdownListTheTimelinesStorages) {
    const std::string path = std::string(FXMEM_TEST_DATA) + "/../../resources/examples/llama.fxmem.json";
    const auto file = example("llama");
    const Timeline t = Timeline::pair(file, 0);
    const std::int64_t backward = t.segments()[1].offset;
    for (const std::int64_t step : {backward / 2, backward, static_cast<std::int64_t>(t.peak_step())}) {
        const TimelineLive at = t.live_at(step);
        const std::vector<std::string> pair = {"--pair", "forward,backward", "--step", std::to_string(step), "--json"};
        std::vector<std::string> args = {"live", path};
        args.insert(args.end(), pair.begin(), pair.end());
        const fxmem_test::CliRun live = fxmem_test::cli(args);
        ASSERT_EQ(live.status, 0) << live.err;
        const nlohmann::json doc = live.json();
        EXPECT_EQ(doc["total"].get<std::int64_t>(), t.profile()[static_cast<std::size_t>(step)]);
        std::multiset<std::int64_t> ids;
        std::size_t baseline_rows = 0;
        for (const auto& row : doc["storages"]) {
            ids.insert(row["id"].get<std::int64_t>());
            baseline_rows += row["baseline"].get<bool>() ? 1 : 0;
        }
        EXPECT_EQ(ids, file_ids(*file, at.live, 0, at.live.size())) << step;
        EXPECT_EQ(baseline_rows, at.live.size() - at.baseline_begin) << step;
        args[0] = "breakdown";
        const fxmem_test::CliRun breakdown = fxmem_test::cli(args);
        ASSERT_EQ(breakdown.status, 0) << breakdown.err;
        const nlohmann::json groups = breakdown.json();
        EXPECT_EQ(groups["total"].get<std::int64_t>(), bytes(at.live));
        std::size_t storages = 0;
        for (const auto& g : groups["groups"]) storages += g["storages"].get<std::size_t>();
        EXPECT_EQ(storages, at.live.size()) << step;
    }
}
