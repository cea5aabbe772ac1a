// The generator: deterministic, structurally valid, shaped like real AOT graphs, and its JSON
// text loads back (through the core's loader) into the same graphs it built in memory.
#include "synth.h"
#include "synth_step.h"

#include "fxmem/estimator.h"
#include "fxmem/io.h"
#include "fxmem/whole_step.h"
#include "work_counters.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace fxmem {
namespace {

synth::Options small(std::uint64_t seed = 7, bool pair = true) {
    synth::Options o;
    o.nodes = 3000;
    o.seed = seed;
    o.pair = pair;
    return o;
}

const Graph& graph_named(const GraphFile& f, std::string_view name) {
    const std::optional<GraphId> g = f.find_graph(name);
    EXPECT_TRUE(g.has_value()) << name;
    return f.graph(g.value_or(GraphId(0)));
}

NodeId id(std::size_t i) { return NodeId(static_cast<std::int32_t>(i)); }

TEST(Synth, SameSeedSameGraphOtherSeedOtherGraph) {
    const std::string a = synth::generate_json(small(7));
    EXPECT_EQ(a, synth::generate_json(small(7)));
    EXPECT_NE(a, synth::generate_json(small(8)));
    EXPECT_EQ(a, synth::write_json(synth::generate(small(7))));
}

TEST(Synth, NodeBudgetIsSharedTwoFifthsForwardThreeFifthsBackward) {
    synth::Options o = small();
    o.nodes = 10000;
    const GraphFile f = synth::generate(o);
    ASSERT_EQ(f.graphs.size(), 2u);
    ASSERT_EQ(f.pairs.size(), 1u);
    const Graph& fwd = f.graph(f.pairs[0].forward);
    const Graph& bwd = f.graph(f.pairs[0].backward);
    EXPECT_EQ(fwd.name, synth::kForwardName);
    EXPECT_EQ(bwd.name, synth::kBackwardName);
    EXPECT_EQ(fwd.kind, GraphKind::Forward);
    EXPECT_EQ(bwd.kind, GraphKind::Backward);
    // A multi-output node's getitems may overshoot the body by a few nodes.
    EXPECT_NEAR(static_cast<double>(fwd.size()), 4000.0, 8.0);
    EXPECT_NEAR(static_cast<double>(bwd.size()), 6000.0, 8.0);

    o.pair = false;
    const GraphFile single = synth::generate(o);
    ASSERT_EQ(single.graphs.size(), 1u);
    EXPECT_TRUE(single.pairs.empty());
    EXPECT_NEAR(static_cast<double>(single.graphs[0].size()), 10000.0, 8.0);
}

TEST(Synth, EveryInputPrecedesItsUserAndOutputIsLast) {
    const GraphFile f = synth::generate(small());
    for (const Graph& g : f.graphs) {
        ASSERT_GT(g.size(), 2u);
        for (std::size_t i = 0; i < g.size(); ++i) {
            const auto inputs = g.inputs(id(i));
            std::set<std::int32_t> distinct;
            for (NodeId in : inputs) {
                EXPECT_LT(in.index(), i) << g.name << " node " << g.node(id(i)).name;
                distinct.insert(in.value);
            }
            EXPECT_EQ(distinct.size(), inputs.size()) << g.node(id(i)).name;
            if (i + 1 < g.size()) {
                EXPECT_NE(g.node(id(i)).op, OpKind::Output);
            }
        }
        EXPECT_EQ(g.nodes.back().op, OpKind::Output) << g.name;
        // Placeholders come first.
        bool body = false;
        for (const Node& n : g.nodes) {
            if (n.op != OpKind::Placeholder) {
                body = true;
            } else {
                EXPECT_FALSE(body) << n.name;
            }
        }
    }
}

TEST(Synth, StorageSizesAndDevices) {
    const GraphFile f = synth::generate(small());
    std::size_t cpu = 0;
    for (std::size_t s = 0; s < f.storages.size(); ++s) {
        const StorageId sid(static_cast<std::int32_t>(s));
        EXPECT_GE(f.nbytes(sid), 512);
        EXPECT_LE(f.nbytes(sid), 64 << 20);
        EXPECT_EQ(f.nbytes(sid) % 512, 0);
        const std::string_view dev = f.device(sid);
        EXPECT_TRUE(dev == "cuda:0" || dev == "cpu") << dev;
        cpu += f.is_cpu(sid);
    }
    // 5% by default, drawn at random: well inside (1%, 10%) for a few thousand storages.
    EXPECT_GT(cpu * 100, f.storages.size());
    EXPECT_LT(cpu * 10, f.storages.size());

    synth::Options none = small();
    none.cpu_fraction = 0;
    const GraphFile g = synth::generate(none);
    for (std::size_t s = 0; s < g.storages.size(); ++s) EXPECT_FALSE(g.is_cpu(StorageId(static_cast<std::int32_t>(s))));
}

// Views, getitems of multi-output nodes and in-place nodes all output a storage that an
// earlier node allocated; the forward has each kind, and the tensors agree with their storage.
TEST(Synth, ForwardHasViewsMultiOutputsGetitemsAndInPlaceNodes) {
    const GraphFile f = synth::generate(small());
    const Graph& g = graph_named(f, synth::kForwardName);
    std::vector<std::int32_t> allocator(f.storages.size(), -1);
    std::size_t views = 0, inplace = 0, multi = 0, getitems = 0, get_attrs = 0, no_tensor = 0;
    for (std::size_t i = 0; i < g.size(); ++i) {
        const Node& n = g.node(id(i));
        if (n.op == OpKind::GetAttr) ++get_attrs;
        if (n.op == OpKind::Output) continue;
        const auto outs = g.outputs(id(i));
        if (outs.empty()) ++no_tensor;
        for (const Tensor& t : g.node_tensors(id(i))) {
            // Every view stays inside its storage.
            std::int64_t last = t.offset;
            for (std::size_t d = 0; d < t.rank; ++d) last += (g.shape(t)[d] - 1) * g.stride(t)[d];
            const std::int64_t elem = f.dtypes[t.dtype] == "float32" ? 4 : 2;
            EXPECT_LE((last + 1) * elem, f.nbytes(t.storage)) << n.name;
        }
        const bool reuses = !outs.empty() && allocator[outs[0].index()] >= 0;
        const std::string_view target = g.target(id(i));
        if (target == "aten.view.default" || target == "aten.t.default" || target == "aten.slice.Tensor") {
            EXPECT_TRUE(reuses) << n.name;
            EXPECT_EQ(outs[0], g.outputs(g.inputs(id(i))[0])[0]) << n.name;
            ++views;
        }
        if (target == "aten.add_.Tensor" || target == "aten.copy_.default") {
            EXPECT_EQ(outs[0], g.outputs(g.inputs(id(i))[0])[0]) << n.name;
            ++inplace;
        }
        if (target == "operator.getitem") {
            const NodeId src = g.inputs(id(i))[0];
            ASSERT_EQ(g.val(src)[0].kind, ValToken::Kind::List) << n.name;
            const auto src_outs = g.outputs(src);
            EXPECT_NE(std::find(src_outs.begin(), src_outs.end(), outs[0]), src_outs.end()) << n.name;
            EXPECT_TRUE(reuses) << n.name;
            ++getitems;
        }
        if (g.val(id(i))[0].kind == ValToken::Kind::List) ++multi;
        for (StorageId s : outs)
            if (allocator[s.index()] < 0) allocator[s.index()] = static_cast<std::int32_t>(i);
    }
    EXPECT_GT(views, 20u);
    EXPECT_GT(inplace, 5u);
    EXPECT_GT(multi, 5u);
    EXPECT_GE(getitems, multi);
    EXPECT_GT(get_attrs, 0u);
    EXPECT_GT(no_tensor, 0u);
}

// The backward's placeholders: primals holding the forward primal storages, the saved tensors
// under their forward names and storages (all reaching the forward output), fresh tangents.
TEST(Synth, BackwardPlaceholdersHoldPrimalsSavedOutputsAndFreshTangents) {
    const GraphFile f = synth::generate(small());
    const Graph& fwd = graph_named(f, synth::kForwardName);
    const Graph& bwd = graph_named(f, synth::kBackwardName);
    std::set<std::int32_t> forward_storages, forward_output;
    for (std::size_t i = 0; i < fwd.size(); ++i)
        for (StorageId s : fwd.outputs(id(i))) forward_storages.insert(s.value);
    const NodeId out = id(fwd.size() - 1);
    for (NodeId in : fwd.inputs(out))
        for (StorageId s : fwd.outputs(in)) forward_output.insert(s.value);

    std::size_t primals = 0, saved = 0, tangents = 0;
    for (const Node& n : bwd.nodes) {
        if (n.op != OpKind::Placeholder) break;
        const NodeId bid = bwd.find(n.name);
        ASSERT_EQ(bwd.outputs(bid).size(), 1u) << n.name;
        const StorageId s = bwd.outputs(bid)[0];
        if (n.name.starts_with("primals_")) {
            const NodeId fid = fwd.find(n.name);
            ASSERT_TRUE(fid.valid()) << n.name;
            EXPECT_EQ(fwd.outputs(fid)[0], s) << n.name;
            ++primals;
        } else if (n.name.starts_with("tangents_")) {
            EXPECT_EQ(forward_storages.count(s.value), 0u) << n.name;
            ++tangents;
        } else {
            const NodeId fid = fwd.find(n.name);
            ASSERT_TRUE(fid.valid()) << n.name;
            EXPECT_EQ(fwd.outputs(fid)[0], s) << n.name;
            EXPECT_EQ(forward_output.count(s.value), 1u) << n.name;
            ++saved;
        }
    }
    EXPECT_GT(primals, 0u);
    EXPECT_GT(saved, 20u);
    EXPECT_GE(tangents, 1u);
    // Backward body nodes never reuse a forward node's name for something else.
    for (const Node& n : bwd.nodes) {
        if (n.op != OpKind::Placeholder && n.op != OpKind::Output) {
            EXPECT_FALSE(fwd.find(n.name).valid()) << n.name;
        }
    }
}

TEST(Synth, SaveFractionZeroSavesNothing) {
    synth::Options o = small();
    o.save_fraction = 0;
    const GraphFile f = synth::generate(o);
    const Graph& bwd = graph_named(f, synth::kBackwardName);
    for (const Node& n : bwd.nodes) {
        if (n.op != OpKind::Placeholder) break;
        EXPECT_TRUE(n.name.starts_with("primals_") || n.name.starts_with("tangents_")) << n.name;
    }
    // The forward's output then returns only the user-visible activations.
    const Graph& fwd = graph_named(f, synth::kForwardName);
    EXPECT_LE(fwd.inputs(id(fwd.size() - 1)).size(), 2u);
}

void expect_same(const GraphFile& a, const GraphFile& b) {
    ASSERT_EQ(a.storages.size(), b.storages.size());
    for (std::size_t i = 0; i < a.storages.size(); ++i) {
        const StorageId sa(static_cast<std::int32_t>(i));
        const StorageId sb = b.find_storage(a.storages[i].file_id);
        ASSERT_TRUE(sb.valid()) << a.storages[i].file_id;
        EXPECT_EQ(a.nbytes(sa), b.nbytes(sb));
        EXPECT_EQ(a.device(sa), b.device(sb));
        EXPECT_EQ(a.is_cpu(sa), b.is_cpu(sb));
    }
    ASSERT_EQ(a.graphs.size(), b.graphs.size());
    for (std::size_t gi = 0; gi < a.graphs.size(); ++gi) {
        const Graph& ga = a.graphs[gi];
        const Graph& gb = b.graphs[gi];
        EXPECT_EQ(ga.name, gb.name);
        EXPECT_EQ(ga.kind, gb.kind);
        ASSERT_EQ(ga.size(), gb.size());
        for (std::size_t i = 0; i < ga.size(); ++i) {
            const Node& na = ga.node(id(i));
            const Node& nb = gb.node(id(i));
            ASSERT_EQ(na.name, nb.name);
            EXPECT_EQ(na.op, nb.op) << na.name;
            EXPECT_EQ(ga.target(id(i)), gb.target(id(i))) << na.name;
            EXPECT_EQ(ga.stack_trace(id(i)), gb.stack_trace(id(i))) << na.name;
            EXPECT_EQ(ga.meta_json(id(i)), gb.meta_json(id(i))) << na.name;
            const auto ia = ga.inputs(id(i)), ib = gb.inputs(id(i));
            ASSERT_EQ(ia.size(), ib.size()) << na.name;
            for (std::size_t k = 0; k < ia.size(); ++k) EXPECT_EQ(ia[k], ib[k]) << na.name;
            const auto ua = ga.users(id(i)), ub = gb.users(id(i));
            ASSERT_EQ(ua.size(), ub.size()) << na.name;
            for (std::size_t k = 0; k < ua.size(); ++k) EXPECT_EQ(ua[k], ub[k]) << na.name;
            const auto va = ga.val(id(i)), vb = gb.val(id(i));
            ASSERT_EQ(va.size(), vb.size()) << na.name;
            for (std::size_t k = 0; k < va.size(); ++k) {
                ASSERT_EQ(va[k].kind, vb[k].kind) << na.name;
                if (va[k].kind == ValToken::Kind::List) {
                    EXPECT_EQ(va[k].payload, vb[k].payload) << na.name;
                }
                if (va[k].kind == ValToken::Kind::Other) {
                    EXPECT_EQ(ga.others[va[k].payload], gb.others[vb[k].payload]) << na.name;
                }
            }
            const auto ta = ga.node_tensors(id(i)), tb = gb.node_tensors(id(i));
            ASSERT_EQ(ta.size(), tb.size()) << na.name;
            for (std::size_t k = 0; k < ta.size(); ++k) {
                EXPECT_EQ(a.storages[ta[k].storage.index()].file_id, b.storages[tb[k].storage.index()].file_id);
                EXPECT_EQ(a.dtypes[ta[k].dtype], b.dtypes[tb[k].dtype]) << na.name;
                EXPECT_EQ(ta[k].offset, tb[k].offset) << na.name;
                const auto sha = ga.shape(ta[k]), shb = gb.shape(tb[k]);
                const auto sta = ga.stride(ta[k]), stb = gb.stride(tb[k]);
                EXPECT_TRUE(std::equal(sha.begin(), sha.end(), shb.begin(), shb.end())) << na.name;
                EXPECT_TRUE(std::equal(sta.begin(), sta.end(), stb.begin(), stb.end())) << na.name;
            }
            const auto oa = ga.outputs(id(i)), ob = gb.outputs(id(i));
            ASSERT_EQ(oa.size(), ob.size()) << na.name;
            for (std::size_t k = 0; k < oa.size(); ++k)
                EXPECT_EQ(a.storages[oa[k].index()].file_id, b.storages[ob[k].index()].file_id) << na.name;
        }
    }
    ASSERT_EQ(a.pairs.size(), b.pairs.size());
    for (std::size_t i = 0; i < a.pairs.size(); ++i) {
        EXPECT_EQ(a.pairs[i].forward, b.pairs[i].forward);
        EXPECT_EQ(a.pairs[i].backward, b.pairs[i].backward);
    }
}

TEST(Synth, JsonLoadsBackIntoTheSameGraphs) {
    for (const bool pair : {true, false}) {
        const synth::Options o = small(11, pair);
        const GraphFile built = synth::generate(o);
        const GraphFile loaded = load_buffer(synth::generate_json(o), "synth.json");
        expect_same(built, loaded);
    }
}

// The writer escapes what JSON requires: quotes, backslashes, newlines, control characters.
TEST(Synth, WriterEscapesStrings) {
    GraphFile f;
    f.source = "escapes";
    const StorageId s = f.add_storage(42, "cuda:0", 1024);
    const StorageId c = f.add_storage(7, "cpu", 512);
    GraphBuilder b(f, "g \"quoted\"", GraphKind::Inference);
    b.add("x\\y", OpKind::Placeholder, "x", {}, {s});
    const NodeId n = b.begin_node("tab\tnew\nline\x01", OpKind::CallFunction, "aten.\"odd\".target");
    b.add_input(NodeId(0));
    b.set_stack_trace("File \"a.py\", line 3\n\tx = y\\z\r");
    b.val_begin_list();
    b.val_other("SymInt \"s0\"");
    b.val_null();
    const std::int64_t shape[2] = {2, 64}, stride[2] = {64, 1};
    b.val_tensor(c, "bfloat16", shape, stride, 0);
    b.val_end_list();
    b.end_node();
    b.begin_node("output", OpKind::Output, "output");
    b.add_input(n);
    b.end_node();
    b.finish();
    const GraphFile loaded = load_buffer(synth::write_json(f), "escapes.json");
    expect_same(f, loaded);
    EXPECT_EQ(loaded.graphs[0].name, "g \"quoted\"");
}

} // namespace
} // namespace fxmem

namespace fxmem {

// A large whole step (synth_step.h), checked against the carry rules segment by segment: region r's
// forward (entry r) carries the other n - 1 parameters and the r saved activations before it; the
// backward of region r (entry 2n - 1 - r) carries every parameter, r saved activations, the
// gradients of the n - 1 - r backwards before it and the loss.
TEST(SynthStep, LargeStepsFollowTheCarryRules) {
    for (const auto& [regions, calls] : {std::pair<std::size_t, std::size_t>{3000, 0}, {0, 20000}}) {
        const std::size_t n = calls ? calls : regions;
        SCOPED_TRACE(std::to_string(regions) + " regions, " + std::to_string(calls) + " calls");
        const GraphFile file = load_buffer(synth::step_json(regions, calls), "step.json");
        const WholeStep ws = whole_step(file, default_counted(file));
        ASSERT_EQ(ws.segments.size(), 2 * n);
        EXPECT_EQ(ws.timeline.size(), 10 * n); // 5 points per graph: the start, 2 nodes x 2
        EXPECT_EQ(ws.parameters, static_cast<std::int64_t>(n) * 1000);
        EXPECT_TRUE(ws.missing_backward.empty());
        EXPECT_EQ(ws.peak, synth::step_peak(n));
        EXPECT_EQ(ws.peak_segment, 2 * n - 1);
        const auto N = static_cast<std::int64_t>(n);
        for (std::size_t e = 0; e < 2 * n; ++e) {
            const StepCarry& c = ws.segments[e].carry;
            const bool forward = e < n;
            const auto r = static_cast<std::int64_t>(forward ? e : 2 * n - 1 - e);
            const StepCarry want{forward ? (N - 1) * 1000 : N * 1000, 0, r * 10, forward ? 0 : (N - 1 - r) * 1000,
                                 forward ? 0 : 1};
            ASSERT_EQ(c.parameters, want.parameters) << "entry " << e;
            ASSERT_EQ(c.saved, want.saved) << "entry " << e;
            ASSERT_EQ(c.gradients, want.gradients) << "entry " << e;
            ASSERT_EQ(c.outputs, want.outputs) << "entry " << e;
            ASSERT_EQ(c.optimizer_state, 0) << "entry " << e;
        }
        // What the peak's run carries, storage by storage: every parameter, the other gradients, the loss.
        const std::vector<CarriedStorage> at = carried_at(ws, ws.peak_segment);
        std::int64_t bytes = 0;
        std::size_t params = 0, grads = 0, outputs = 0;
        for (const CarriedStorage& c : at) {
            bytes += c.bytes;
            params += c.kind == CarryKind::Parameter;
            grads += c.kind == CarryKind::Gradient;
            outputs += c.kind == CarryKind::Output;
        }
        EXPECT_EQ(bytes, ws.segments[ws.peak_segment].carry.total());
        EXPECT_EQ(params, n);
        EXPECT_EQ(grads, n - 1);
        EXPECT_EQ(outputs, 1u);
        EXPECT_EQ(at.size(), 2 * n);
    }
}

} // namespace fxmem

namespace fxmem {

// The whole step of many small regions fills each per-storage table once, not once per graph
// (it was graphs x storages: 16k regions took 1.8 s, 1k 0.02 s); counted, not timed.
TEST(SynthStep, ManyRegionsFillPerStorageTablesOnce) {
    const GraphFile file = load_buffer(synth::step_json(3000), "step.json");
    const std::uint64_t before = detail::WorkCounters::storage_table_passes();
    const WholeStep ws = whole_step(file, default_counted(file));
    EXPECT_EQ(ws.peak, synth::step_peak(3000));
    // The graph's alias tables, its forward's (a backward's pair) and the pair's storage flags.
    EXPECT_LE(detail::WorkCounters::storage_table_passes() - before, 3u);
}

} // namespace fxmem
