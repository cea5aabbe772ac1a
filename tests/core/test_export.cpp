// Core's export timeline (fxmem/export.h) on the bundled examples: the storages' stays add up to
// the total at every step and cross graph boundaries as one stay where the storage lives on, a
// schedule reorders the graph as MemoryTracker scores it, and memory_viz's rounded peak is the
// largest sum of 512-byte blocks live at once. Checked against core's own analyses (the CLI's
// output is checked in test_cli_export.cpp, the pickle against PyTorch in the exporter's pytest).
#include "cli_run.h"
#include "fxmem/analysis.h"
#include "fxmem/error.h"
#include "fxmem/export.h"
#include "fxmem/io.h"
#include "fxmem/liveset.h"
#include "fxmem/schedule.h"
#include "fxmem/view_spec.h"
#include "fxmem/whole_step.h"
#include "test_paths.h"
#include "work_counters.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>

namespace {

using namespace fxmem;

std::shared_ptr<const GraphFile> example(const std::string& name) {
    return std::make_shared<const GraphFile>(load_file(kExamples + "/" + name + ".fxmem.json"));
}

// Bytes of the stays live at every index (`block`: each rounded to the allocator's block size).
std::vector<std::int64_t> stays_profile(const GraphFile& file, const ExportTimeline& t, bool block = false) {
    std::vector<std::int64_t> diff(t.total.size() + 1, 0);
    for (const ExportStay& s : t.stays) {
        const std::int64_t n = file.nbytes(s.storage);
        if (n == 0 && block) continue;
        diff[s.begin] += block ? cuda_block_size(n) : n;
        diff[s.end] -= block ? cuda_block_size(n) : n;
    }
    std::vector<std::int64_t> out(t.total.size());
    std::int64_t run = 0;
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = run += diff[i];
    return out;
}

void expect_consistent(const GraphFile& file, const ExportTimeline& t) {
    EXPECT_EQ(stays_profile(file, t), t.total);
    for (const ExportStay& s : t.stays) {
        ASSERT_LT(s.begin, s.end);
        ASSERT_LE(s.end, t.total.size());
        ASSERT_LT(s.section, t.sections.size());
        const ExportSection& sec = t.sections[s.section];
        ASSERT_GE(s.begin, sec.begin);
        ASSERT_LT(s.begin, sec.begin + sec.length);
        if (s.allocator.valid()) {
            ASSERT_LT(s.allocator.index(), file.graph(sec.graph).size());
        }
    }
    EXPECT_TRUE(std::is_sorted(t.stays.begin(), t.stays.end(),
                               [](const ExportStay& a, const ExportStay& b) { return a.begin < b.begin; }));
}

} // namespace

TEST(Export, StaysAddUpToTheTotalAtEveryStep) {
    for (const char* name : {"gpt", "llama", "fsdp", "cnn", "inplace"}) {
        const auto file = example(name);
        ViewSpec v;
        v.scope = ViewScope::Pair;
        const ExportTimeline t = export_timeline(file, v);
        SCOPED_TRACE(name);
        expect_consistent(*file, t);
    }
    for (const char* name : {"gpt_break", "gpt_adam"})
        for (const DeviceFilter devices : {DeviceFilter::NonCpu, DeviceFilter::All}) {
            const auto file = example(name);
            ViewSpec v;
            v.devices = devices;
            const ExportTimeline t = export_timeline(file, v);
            SCOPED_TRACE(name);
            EXPECT_EQ(t.sections.size(), file->step.size());
            expect_consistent(*file, t);
        }
    const auto mlp = example("mlp");
    for (std::uint32_t g = 0; g < mlp->graphs.size(); ++g)
        for (const PairContext context : {PairContext::Standalone, PairContext::AsInPair}) {
            ViewSpec v;
            v.scope = ViewScope::Graph;
            v.graph = GraphId(static_cast<std::int32_t>(g));
            v.context = context;
            const ExportTimeline t = export_timeline(mlp, v);
            expect_consistent(*mlp, t);
            EXPECT_EQ(t.total, GraphAnalysis::compute(mlp, v.graph, DeviceFilter::NonCpu, {}, context)->profile());
        }
}

TEST(Export, APairsStoragesLiveOnAcrossTheBoundary) {
    // What the forward leaves live at its end and the backward holds at its start (saved
    // activations, parameters, the baseline) is one stay; the rest ends or begins there.
    const auto file = example("gpt");
    ViewSpec v;
    v.scope = ViewScope::Pair;
    const ExportTimeline t = export_timeline(file, v);
    const GraphAnalysis::Pair pa = GraphAnalysis::compute_pair(file, 0);
    std::set<std::int32_t> at_end, at_start;
    for (const LiveStorage& s : pa.forward->live().live_at(pa.forward->profile().size() - 1))
        at_end.insert(s.storage.value);
    for (const LiveStorage& s : pa.backward->live().live_at(0)) at_start.insert(s.storage.value);
    for (StorageId s : pa.baseline_storages) at_start.insert(s.value);
    const std::size_t boundary = t.sections[1].begin;
    std::set<std::int32_t> crossing;
    for (const ExportStay& s : t.stays)
        if (s.begin < boundary && s.end > boundary) {
            EXPECT_TRUE(crossing.insert(s.storage.value).second);
        }
    std::set<std::int32_t> both;
    std::set_intersection(at_end.begin(), at_end.end(), at_start.begin(), at_start.end(),
                          std::inserter(both, both.begin()));
    EXPECT_EQ(crossing, both);
    EXPECT_GT(both.size(), 10u);
}

TEST(Export, AScheduleReordersTheGraphAsMemoryTrackerScoresIt) {
    // fsdp's stored Inductor overlap order of the backward, scored in its pair (score's default).
    const auto file = example("fsdp");
    const NamedSchedule* stored = nullptr;
    for (const NamedSchedule& s : file->schedules)
        if (file->graph(s.graph).kind == GraphKind::Backward) stored = &s;
    ASSERT_NE(stored, nullptr);
    ViewSpec v;
    v.scope = ViewScope::Graph;
    v.graph = stored->graph;
    v.context = PairContext::AsInPair;
    v.schedule = Schedule{stored->graph, stored->order};
    const ExportTimeline t = export_timeline(file, v);
    expect_consistent(*file, t);
    const auto a = GraphAnalysis::compute(file, stored->graph);
    const ScheduleScore score =
        score_schedule(*file, a->graph(), a->alias(), stored->order, a->releasable(), a->counted());
    std::size_t k = 0;
    for (std::size_t p = 0; p < stored->order.size(); ++p) {
        const NodeId n = stored->order[p];
        const OpKind op = a->graph().node(n).op;
        if (op == OpKind::Placeholder || op == OpKind::GetAttr || op == OpKind::Output) continue;
        ASSERT_EQ(t.sections[0].step_node[2 + 2 * k], n);
        ASSERT_EQ(t.total[2 + 2 * k], score.current[p]) << k;
        ++k;
    }
    EXPECT_EQ(t.total.size(), 1 + 2 * k);
    EXPECT_EQ(t.peak, score.peak);
    // The same order in the pair view reorders its backward only.
    v.scope = ViewScope::Pair;
    const ExportTimeline p = export_timeline(file, v);
    expect_consistent(*file, p);
    EXPECT_EQ(p.sections[1].length, t.total.size());
    for (std::size_t i = 0; i < t.total.size(); ++i)
        ASSERT_EQ(p.total[p.sections[1].begin + i], t.total[i] + a->baseline()) << i;
}

TEST(Export, RefusesViewsTheFileLacks) {
    const auto file = example("gpt");
    ViewSpec v;
    v.scope = ViewScope::WholeStep;
    EXPECT_THROW(export_timeline(file, v), Error); // gpt has no step
    v.scope = ViewScope::Pair;
    v.pair = 3;
    try {
        export_timeline(file, v);
        ADD_FAILURE();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("no pair 3"), std::string::npos) << e.what();
    }
    v.pair = 0;
    v.schedule = Schedule{GraphId(7), {}};
    EXPECT_THROW(export_timeline(file, v), Error); // not a graph of the pair
    const auto step = example("gpt_break");
    ViewSpec w;
    w.schedule = Schedule{GraphId(0), original_order(step->graphs[0])};
    EXPECT_THROW(export_timeline(step, w), Error); // the whole step keeps its recorded orders
}

TEST(Export, MemoryVizPeakIsTheLargestSumOfBlocks) {
    EXPECT_EQ(cuda_block_size(0), 512);
    EXPECT_EQ(cuda_block_size(1), 512);
    EXPECT_EQ(cuda_block_size(512), 512);
    EXPECT_EQ(cuda_block_size(513), 1024);
    EXPECT_EQ(cuda_block_size(std::int64_t{1} << 30), std::int64_t{1} << 30);
    for (const char* name : {"gpt", "gpt_break", "llama"}) {
        SCOPED_TRACE(name);
        const auto file = example(name);
        ViewSpec v;
        v.scope = file->step.empty() ? ViewScope::Pair : ViewScope::WholeStep;
        const ExportTimeline t = export_timeline(file, v);
        const std::vector<std::int64_t> blocks = stays_profile(*file, t, true);
        const auto top = std::max_element(blocks.begin(), blocks.end());
        for (const bool until_peak : {false, true}) {
            std::ostringstream out;
            MemoryVizOptions options;
            options.until_peak = until_peak;
            const MemoryVizSummary s = write_memory_viz(out, *file, t, options);
            if (!until_peak) {
                EXPECT_EQ(s.peak, *top);
                EXPECT_EQ(s.peak_index, static_cast<std::size_t>(top - blocks.begin()));
            } else {
                EXPECT_EQ(s.peak, *std::max_element(blocks.begin(), blocks.begin() + t.peak_index + 1));
            }
            EXPECT_GE(s.peak, t.peak);
            EXPECT_GE(s.reserved, s.peak); // best fit may leave holes, never overlaps
            EXPECT_EQ(s.devices.front(), "meta");
            EXPECT_EQ(out.str().substr(0, 3), std::string("\x80\x02}", 3));
            EXPECT_EQ(out.str().back(), '.');
        }
    }
}

namespace {

// diff_step_old.json's 5-storage pair run as n forward calls, then n backward calls (last call
// first): tests/hostile/scale_inputs.py calls.
std::shared_ptr<const GraphFile> many_calls_step(std::size_t n) {
    nlohmann::json doc = nlohmann::json::parse(fxmem_test::slurp(kData + "/good/diff_step_old.json"));
    nlohmann::json step = nlohmann::json::array();
    for (std::size_t i = 0; i < n; ++i) step.push_back({{"graph", "fwd"}, {"call", i}});
    for (std::size_t i = n; i-- > 0;) step.push_back({{"graph", "bwd"}, {"call", i}});
    doc["step"] = step;
    return std::make_shared<const GraphFile>(load_buffer(doc.dump(), "calls_" + std::to_string(n) + ".json"));
}

} // namespace

// Issue 39, item 3: export --whole-step continued every carried stay section by section, so n
// forward calls each saving storages for their backward (O(n) stays open through O(n) sections)
// cost O(n^2): 1.1 s at n = 2,500, 3.8 s at 5,000. The work (pieces, open stays and carried items
// visited) is now linear: twice the calls at most 2.2 times the work (quadratic work is 4 times).
// Each timeline is also checked: the stays live at every index add up to its total, and its peak
// is whole_step's.
TEST(ExportTimeline, AWholeStepOfManyCallsCostsLinearWork) {
    std::vector<std::uint64_t> work;
    for (const std::size_t n : {400u, 800u, 1600u}) {
        SCOPED_TRACE(n);
        const auto file = many_calls_step(n);
        const std::uint64_t before = detail::WorkCounters::export_stay_work();
        const ExportTimeline t = export_timeline(file, ViewSpec::of_whole_step());
        work.push_back(detail::WorkCounters::export_stay_work() - before);
        ASSERT_EQ(t.sections.size(), 2 * n);
        EXPECT_EQ(t.peak, whole_step(*file, default_counted(*file)).peak);
        std::vector<std::int64_t> live(t.total.size() + 1, 0); // differences, summed below
        for (const ExportStay& s : t.stays) {
            ASSERT_LE(s.begin, s.end);
            ASSERT_LE(s.end, t.total.size());
            live[s.begin] += file->nbytes(s.storage);
            live[s.end] -= file->nbytes(s.storage);
        }
        std::int64_t at = 0;
        for (std::size_t i = 0; i < t.total.size(); ++i) {
            at += live[i];
            ASSERT_EQ(at, t.total[i]) << "index " << i;
        }
    }
    EXPECT_LE(work[1] * 10, work[0] * 22) << work[0] << " then " << work[1];
    EXPECT_LE(work[2] * 10, work[1] * 22) << work[1] << " then " << work[2];
}
