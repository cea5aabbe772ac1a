// Attribution: roles derived by hand on small pairs, the module tree, owner modules, and
// breakdowns / stacked profiles that add up to the estimator's profile at every step.
#include "fxmem/attribution.h"
#include "fxmem/error.h"
#include "fxmem/liveset.h"
#include "test_attribution_fixture.h"
#include "test_estimator_fixtures.h"
#include "test_estimator_random.h"
#include "work_counters.h"

#include <gtest/gtest.h>

#include <iostream>

using namespace fxmem;
using namespace fxmem::testing;

namespace {

using Groups = std::vector<Attribution::Group>;

// (key, bytes, storages) per group, in order.
std::vector<std::tuple<std::string, std::int64_t, std::uint32_t>> flat(const Groups& groups) {
    std::vector<std::tuple<std::string, std::int64_t, std::uint32_t>> out;
    for (const auto& g : groups) out.emplace_back(g.key, g.bytes, g.storages);
    return out;
}

std::int64_t total(const Groups& groups) {
    std::int64_t t = 0;
    for (const auto& g : groups) t += g.bytes;
    return t;
}

struct Indexed {
    AliasInfo alias;
    NodeMask releasable;
    std::unique_ptr<LiveSetIndex> index;
};

// The live index of the pair's forward (graph 0) or backward (graph 1), as analyze_pair counts them.
Indexed index_of(const GraphFile& f, std::size_t graph) {
    Indexed r;
    const Graph& g = f.graphs[graph];
    r.alias = build_alias_info(f, g);
    r.releasable =
        graph == 0 ? default_releasable(g) : backward_releasable(g, get_fwd_bwd_interactions(f, f.graphs[0], g));
    r.index = std::make_unique<LiveSetIndex>(f, g, r.alias, r.releasable, default_counted(f));
    return r;
}

} // namespace

TEST(Attribution, RolesDerivedOnThePairFixture) {
    PairFixture t;
    const RoleAssignment r = resolve_roles(t.file);
    EXPECT_EQ(r.source, RoleSource::Derived);
    EXPECT_EQ(r.from_file, 0u);
    auto role = [&](StorageId s) { return r.role[s.index()]; };
    EXPECT_EQ(role(t.w1), StorageRole::Parameter);     // primals_1 (the backward's primals_1 too)
    EXPECT_EQ(role(t.inp), StorageRole::Parameter);    // primals_2
    EXPECT_EQ(role(t.h), StorageRole::Temporary);      // computed, reaches no output
    EXPECT_EQ(role(t.saved), StorageRole::Activation); // forward output held by relu_saved
    EXPECT_EQ(role(t.cpuS), StorageRole::Activation);  // held by cpu_in
    EXPECT_EQ(role(t.out), StorageRole::Output);       // forward output no backward input holds
    EXPECT_EQ(role(t.cpu2), StorageRole::Output);
    EXPECT_EQ(role(t.keep), StorageRole::Output);
    EXPECT_EQ(role(t.tan), StorageRole::Tangent);
    EXPECT_EQ(role(t.grad), StorageRole::Temporary); // computed in the backward, not returned
    EXPECT_EQ(role(t.gradw), StorageRole::Gradient);
    // Producers: the forward's relu for the saved activation, none for the parameters.
    EXPECT_EQ(r.producer_graph[t.saved.index()], 0u);
    EXPECT_EQ(r.producer_node[t.saved.index()], t.fwd->find("s"));
    EXPECT_EQ(r.producer_graph[t.gradw.index()], 1u);
    EXPECT_EQ(r.producer_node[t.gradw.index()], t.bwd->find("gw"));
    EXPECT_EQ(r.producer_graph[t.w1.index()], kNoGraph);
    EXPECT_FALSE(r.producer_node[t.tan.index()].valid());
}

TEST(Attribution, RolesFromTheFileWinAndTheSourceSaysSo) {
    PairFixture t;
    t.file.set_role(t.h, StorageRole::Activation, "");
    t.file.set_role(t.w1, StorageRole::Buffer, "blocks.0.bn.running_mean");
    RoleAssignment r = resolve_roles(t.file);
    EXPECT_EQ(r.source, RoleSource::Mixed);
    EXPECT_EQ(r.from_file, 2u);
    EXPECT_EQ(r.role[t.h.index()], StorageRole::Activation);
    EXPECT_EQ(r.role[t.w1.index()], StorageRole::Buffer);
    EXPECT_EQ(r.role[t.out.index()], StorageRole::Output); // still derived
    for (std::size_t s = 0; s < t.file.storages.size(); ++s)
        t.file.set_role(StorageId(static_cast<std::int32_t>(s)), StorageRole::Temporary, "");
    r = resolve_roles(t.file);
    EXPECT_EQ(r.source, RoleSource::File);
    EXPECT_EQ(r.from_file, t.file.storages.size());
    for (StorageRole role : r.role) EXPECT_EQ(role, StorageRole::Temporary);
    EXPECT_EQ(to_string(RoleSource::File), "file");
    EXPECT_EQ(to_string(RoleSource::Derived), "derived");
    EXPECT_EQ(to_string(RoleSource::Mixed), "mixed");
}

TEST(Attribution, RolesOfAnUnpairedGraph) {
    G1 t; // primals_1, x placeholders; get_attr w; output(d, b)
    const RoleAssignment r = resolve_roles(t.file);
    auto role = [&](StorageId s) { return r.role[s.index()]; };
    EXPECT_EQ(role(t.P0), StorageRole::Parameter);
    EXPECT_EQ(role(t.P1), StorageRole::Input);
    EXPECT_EQ(role(t.W), StorageRole::Buffer);
    EXPECT_EQ(role(t.A), StorageRole::Temporary);
    EXPECT_EQ(role(t.B), StorageRole::Output);
    EXPECT_EQ(role(t.D), StorageRole::Output);
    EXPECT_EQ(role(t.C), StorageRole::Temporary);
    EXPECT_EQ(role(t.E), StorageRole::Temporary);
    // An empty file: nothing to derive from, nothing given.
    GraphFile empty;
    const RoleAssignment none = resolve_roles(empty);
    EXPECT_TRUE(none.role.empty());
    EXPECT_EQ(none.source, RoleSource::Derived);
}

TEST(Attribution, RolesOfTheModulePair) {
    ModulePair t;
    const RoleAssignment r = resolve_roles(t.file);
    const std::vector<StorageRole> expected = {StorageRole::Parameter,  StorageRole::Parameter, StorageRole::Input,
                                               StorageRole::Activation, StorageRole::Temporary, StorageRole::Output,
                                               StorageRole::Tangent,    StorageRole::Gradient,  StorageRole::Temporary,
                                               StorageRole::Gradient};
    EXPECT_EQ(r.role, expected);
}

TEST(ModuleTree, AncestorsDepthsAndLookups) {
    GraphFile f;
    f.source = "tree.json";
    const StorageId s = f.add_storage(0, "cuda:0", 8);
    GraphBuilder b(f, "g", GraphKind::Forward);
    add_in_module(b, f, "x", OpKind::Placeholder, "x", {}, {s});
    add_in_module(b, f, "a", OpKind::CallFunction, "aten.mm.default", {"x"}, {}, "blocks.0.attn", "Attention");
    add_in_module(b, f, "c", OpKind::CallFunction, "aten.relu.default", {"a"}, {}, "blocks.1.mlp.fc", "Linear");
    add_in_module(b, f, "r", OpKind::CallFunction, "aten.add.Tensor", {"c"}, {}, "", "GPT");
    add_in_module(b, f, "h", OpKind::CallFunction, "aten.mm.default", {"r"}, {}, "head", "Linear");
    add_in_module(b, f, "a2", OpKind::CallFunction, "aten.mm.default", {"h"}, {}, "blocks.0.attn", "");
    add_in_module(b, f, "blk", OpKind::CallFunction, "aten.mm.default", {"a2"}, {}, "blocks", "ModuleList");
    const Graph& g = b.finish();
    const ModuleTree tree(g);
    // root, blocks, blocks.0, blocks.0.attn, blocks.1, blocks.1.mlp, blocks.1.mlp.fc, head
    ASSERT_EQ(tree.size(), 8u);
    std::vector<std::string> names;
    for (const auto& m : tree.modules()) names.emplace_back(m.name);
    EXPECT_EQ(names, (std::vector<std::string>{"", "blocks", "blocks.0", "blocks.0.attn", "blocks.1", "blocks.1.mlp",
                                               "blocks.1.mlp.fc", "head"}));
    const std::uint32_t blocks = tree.find("blocks"), attn = tree.find("blocks.0.attn"),
                        fc = tree.find("blocks.1.mlp.fc");
    EXPECT_EQ(tree[ModuleTree::kRoot].type, "GPT");
    EXPECT_EQ(tree[ModuleTree::kRoot].parent, ModuleTree::npos);
    EXPECT_EQ(tree[blocks].type, "ModuleList"); // named by a node after its children were built
    EXPECT_EQ(tree[tree.find("blocks.0")].type, "");
    EXPECT_EQ(tree[attn].type, "Attention"); // the later typeless mention keeps it
    EXPECT_EQ(tree[attn].depth, 3u);
    EXPECT_EQ(tree[fc].depth, 4u);
    EXPECT_EQ(tree.max_depth(), 4u);
    EXPECT_EQ(tree[tree.find("blocks.0")].parent, blocks);
    EXPECT_EQ(tree[ModuleTree::kRoot].children, (std::vector<std::uint32_t>{blocks, tree.find("head")}));
    EXPECT_EQ(tree[blocks].children, (std::vector<std::uint32_t>{tree.find("blocks.0"), tree.find("blocks.1")}));
    // Nodes: none -> root.
    EXPECT_EQ(tree.node_module(g.find("x")), ModuleTree::kRoot);
    EXPECT_EQ(tree.node_module(g.find("a")), attn);
    EXPECT_EQ(tree.node_module(g.find("a2")), attn);
    EXPECT_EQ(tree.node_module(g.find("r")), ModuleTree::kRoot);
    EXPECT_EQ(tree.node_module(g.find("blk")), blocks);
    EXPECT_EQ(tree.ancestor_at_depth(fc, 0), ModuleTree::kRoot);
    EXPECT_EQ(tree.ancestor_at_depth(fc, 1), blocks);
    EXPECT_EQ(tree.ancestor_at_depth(fc, 2), tree.find("blocks.1"));
    EXPECT_EQ(tree.ancestor_at_depth(fc, 9), fc);
    EXPECT_EQ(tree.ancestor_at_depth(blocks, 3), blocks);
    EXPECT_TRUE(tree.contains(blocks, fc));
    EXPECT_TRUE(tree.contains(ModuleTree::kRoot, fc));
    EXPECT_TRUE(tree.contains(fc, fc));
    EXPECT_FALSE(tree.contains(attn, fc));
    EXPECT_EQ(tree.find("blocks.2"), ModuleTree::npos);
    EXPECT_EQ(tree.nearest("blocks.0.attn.qkv"), attn);
    EXPECT_EQ(tree.nearest("blocks.7.attn"), blocks);
    EXPECT_EQ(tree.nearest("blocksX"), ModuleTree::kRoot);
    EXPECT_EQ(tree.nearest(""), ModuleTree::kRoot);
    // Copies share the name pool: names stay valid after the original is gone.
    auto copy = std::make_unique<ModuleTree>(tree);
    {
        const ModuleTree moved = std::move(*copy);
        copy.reset();
        EXPECT_EQ(moved[fc].name, "blocks.1.mlp.fc");
        EXPECT_EQ(moved[moved.find("blocks.1")].name, "blocks.1");
    }
    EXPECT_EQ(tree[fc].name, "blocks.1.mlp.fc");
    // A graph without modules: the root alone.
    G1 plain;
    const ModuleTree flat_tree(*plain.graph);
    EXPECT_EQ(flat_tree.size(), 1u);
    EXPECT_EQ(flat_tree.node_module(plain.id("b")), ModuleTree::kRoot);
}

TEST(ModuleTree, OddNamesStayAProperTree) {
    GraphFile f;
    f.source = "odd.json";
    GraphBuilder b(f, "g", GraphKind::Other);
    add_in_module(b, f, "n0", OpKind::CallFunction, "t", {}, {}, "a..b", "");
    add_in_module(b, f, "n1", OpKind::CallFunction, "t", {}, {}, "c.", "");
    add_in_module(b, f, "n2", OpKind::CallFunction, "t", {}, {}, ".", "");
    std::string deep = "m";
    for (int i = 0; i < 20000; ++i) deep += ".m"; // 20001 levels: linear work, no recursion
    add_in_module(b, f, "n3", OpKind::CallFunction, "t", {}, {}, deep.c_str(), "");
    const Graph& g = b.finish();
    const ModuleTree tree(g);
    const std::uint32_t ab = tree.find("a..b");
    ASSERT_NE(ab, ModuleTree::npos);
    EXPECT_EQ(tree[ab].depth, 3u);
    EXPECT_EQ(tree[tree[ab].parent].name, "a.");
    EXPECT_EQ(tree[tree.find("c.")].parent, tree.find("c"));
    EXPECT_EQ(tree[tree.find(".")].parent, ModuleTree::kRoot);
    EXPECT_EQ(tree[tree.node_module(g.find("n3"))].depth, 20001u);
    EXPECT_EQ(tree.max_depth(), 20001u);
    for (std::uint32_t m = 1; m < tree.size(); ++m) {
        ASSERT_LT(tree[m].parent, m); // parents first
        ASSERT_EQ(tree[m].depth, tree[tree[m].parent].depth + 1);
    }
}

// A module name of D dotted levels costs the tree O(D) lookups and bytes of names hashed or
// compared (WorkCounters::lookup_bytes), not O(D^2): each level is found by (parent, last component). Hashing every
// full prefix, as before, hashed D^2 bytes (2e8 at D = 20000). Counted, not timed. A wide level (more children than a
// scan takes) goes through the hash map, found the same way.
TEST(ModuleTree, DeepNamesCostTheirLength) {
    std::uint64_t work[2] = {};
    std::size_t length[2] = {};
    for (int k = 0; k < 2; ++k) {
        const std::size_t depth = k == 0 ? 10000 : 20000;
        std::string deep = "m";
        for (std::size_t i = 1; i < depth; ++i) deep += ".m";
        GraphFile f;
        f.source = "deep.json";
        GraphBuilder b(f, "g", GraphKind::Other);
        add_in_module(b, f, "n0", OpKind::CallFunction, "t", {}, {}, deep.c_str(), "");
        add_in_module(b, f, "n1", OpKind::CallFunction, "t", {}, {}, (deep + ".x").c_str(), "");
        for (int w = 0; w < 20; ++w) // 20 children of the root and 20 of "m.m"
            for (const std::string& parent : {std::string(), std::string("m.m.")}) {
                const std::string name = parent + "w" + std::to_string(w);
                add_in_module(b, f, ("w" + std::to_string(w) + parent).c_str(), OpKind::CallFunction, "t", {}, {},
                              name.c_str(), "");
            }
        const Graph& g = b.finish();
        const ModuleTree tree(g);
        ASSERT_EQ(tree.size(), depth + 2 + 40); // root, D levels, "x", the wide ones
        EXPECT_EQ(tree.find(deep), tree.node_module(g.find("n0")));
        EXPECT_EQ(tree.nearest(deep + ".y"), tree.node_module(g.find("n0")));
        EXPECT_EQ(tree[tree.find("m.m.w13")].parent, tree.find("m.m"));
        EXPECT_EQ(tree[tree.find("w19")].parent, ModuleTree::kRoot);
        EXPECT_EQ(tree.find("w20"), ModuleTree::npos);
        EXPECT_EQ(tree.nearest("m.m.w7.z"), tree.find("m.m.w7"));
        EXPECT_EQ(tree.node_module(g.find("w5m.m.")), tree.find("m.m.w5"));
        work[k] = fxmem::detail::WorkCounters::lookup_bytes(tree);
        length[k] = 2 * deep.size() + 2;
    }
    std::cout << "lookups + bytes hashed or compared: " << work[0] << " at depth 10000, " << work[1] << " at 20000\n";
    // Each component is looked up a few times (the interning, find and nearest above), a few
    // bytes of overhead each: a small multiple of the names' length.
    EXPECT_LE(work[0], 16 * length[0]);
    EXPECT_LE(work[1], 16 * length[1]);
    EXPECT_LE(work[1], work[0] * 21 / 10);
}

TEST(Attribution, OwnersFollowLabelsAllocatorsAndProducers) {
    ModulePair t;
    {
        // Without labels the parameters belong to their placeholders' module: the root.
        const RoleAssignment r = resolve_roles(t.file);
        const Attribution fwd(t.file, GraphId(0), r);
        EXPECT_EQ(fwd.owner(t.W0), ModuleTree::kRoot);
        EXPECT_EQ(fwd.tree()[fwd.owner(t.A0)].name, "layers.0.fc");
    }
    t.label_parameters();
    t.file.set_role(t.X, StorageRole::Buffer, "layers.0.norm.scale"); // no node runs in layers.0.norm
    const RoleAssignment r = resolve_roles(t.file);
    const Attribution fwd(t.file, GraphId(0), r), bwd(t.file, GraphId(1), r);
    auto name = [](const Attribution& a, StorageId s) { return a.tree()[a.owner(s)].name; };
    EXPECT_EQ(name(fwd, t.W0), "layers.0.fc");
    EXPECT_EQ(name(fwd, t.W1), "layers.1.fc");
    EXPECT_EQ(name(fwd, t.X), "layers.0.norm"); // the module its label names, added to the tree
    EXPECT_EQ(name(fwd, t.A0), "layers.0.fc");
    EXPECT_EQ(name(fwd, t.A1), "layers.1.fc");
    EXPECT_EQ(name(fwd, t.L), "");
    EXPECT_EQ(name(fwd, t.G1), ""); // not in this graph
    EXPECT_EQ(name(bwd, t.W1), "layers.1.fc");
    EXPECT_EQ(name(bwd, t.A0), "layers.0.fc"); // a saved activation: its forward producer's module
    EXPECT_EQ(name(bwd, t.T), "");
    EXPECT_EQ(name(bwd, t.G1), "layers.1.fc");
    EXPECT_EQ(name(bwd, t.D), "layers.1.fc");
    EXPECT_EQ(name(bwd, t.G0), "layers.0.fc");
    EXPECT_EQ(bwd.role(t.A0), StorageRole::Activation);
    // A label without a dot belongs to the root.
    t.file.set_role(t.W0, StorageRole::Parameter, "scale");
    EXPECT_EQ(Attribution(t.file, GraphId(0), resolve_roles(t.file)).owner(t.W0), ModuleTree::kRoot);
}

TEST(Attribution, BreakdownAtThePeaksByHand) {
    ModulePair t;
    t.label_parameters();
    const RoleAssignment r = resolve_roles(t.file);
    EXPECT_EQ(r.source, RoleSource::Mixed);
    const Attribution fwd(t.file, GraphId(0), r), bwd(t.file, GraphId(1), r);
    const Indexed fi = index_of(t.file, 0), bi = index_of(t.file, 1);
    EXPECT_EQ(fi.index->profile(), (std::vector<std::int64_t>{3100, 3400, 3300, 3700, 3700, 3704, 3304}));
    EXPECT_EQ(bi.index->profile(), (std::vector<std::int64_t>{2304, 4304, 4004, 4054, 4054, 5054, 5004}));

    using Row = std::tuple<std::string, std::int64_t, std::uint32_t>;
    using Rows = std::vector<Row>;
    const auto f5 = fi.index->live_at(5);
    EXPECT_EQ(flat(fwd.by_role(f5)),
              (Rows{{"parameter", 3000, 2}, {"temporary", 400, 1}, {"activation", 300, 1}, {"output", 4, 1}}));
    EXPECT_EQ(flat(fwd.by_module(f5, 0)), (Rows{{"", 3704, 5}}));
    EXPECT_EQ(flat(fwd.by_module(f5, 1)), (Rows{{"layers", 3700, 4}, {"", 4, 1}}));
    EXPECT_EQ(flat(fwd.by_module(f5, 2)), (Rows{{"layers.1", 2400, 2}, {"layers.0", 1300, 2}, {"", 4, 1}}));
    EXPECT_EQ(flat(fwd.by_module(f5, 3)), (Rows{{"layers.1.fc", 2400, 2}, {"layers.0.fc", 1300, 2}, {"", 4, 1}}));
    EXPECT_EQ(flat(fwd.by_module(f5, 7)), flat(fwd.by_module(f5, 3)));
    // Index 0: the placeholders, x an input.
    EXPECT_EQ(flat(fwd.by_role(fi.index->live_at(0))), (Rows{{"parameter", 3000, 2}, {"input", 100, 1}}));

    const auto b5 = bi.index->live_at(5);
    EXPECT_EQ(flat(bwd.by_role(b5)),
              (Rows{{"gradient", 3000, 2}, {"parameter", 2000, 1}, {"temporary", 50, 1}, {"tangent", 4, 1}}));
    EXPECT_EQ(flat(bwd.by_module(b5, 3)), (Rows{{"layers.1.fc", 4050, 3}, {"layers.0.fc", 1000, 1}, {"", 4, 1}}));
    EXPECT_EQ(flat(bwd.breakdown(bi.index->live_at(0), GroupBy::Module, 2)),
              (Rows{{"layers.1", 2000, 1}, {"layers.0", 300, 1}, {"", 4, 1}}));
    EXPECT_EQ(flat(bwd.breakdown(bi.index->live_at(0), GroupBy::Role, 0)),
              (Rows{{"parameter", 2000, 1}, {"activation", 300, 1}, {"tangent", 4, 1}}));
    // Group ids name the role / tree module.
    const Groups g = bwd.by_module(b5, 3);
    EXPECT_EQ(g[0].id, bwd.tree().find("layers.1.fc"));
    EXPECT_EQ(bwd.by_role(b5)[0].id, static_cast<std::uint32_t>(StorageRole::Gradient));
    EXPECT_EQ(bwd.group_key(GroupBy::Role, static_cast<std::uint32_t>(StorageRole::Tangent)), "tangent");
    EXPECT_EQ(bwd.group_key(GroupBy::Module, g[1].id), "layers.0.fc");

    // Inclusive module totals at the backward peak.
    const Attribution::ModuleTotals m = bwd.module_totals(b5);
    const ModuleTree& tree = bwd.tree();
    EXPECT_EQ(m.bytes[ModuleTree::kRoot], 5054);
    EXPECT_EQ(m.storages[ModuleTree::kRoot], 5u);
    EXPECT_EQ(m.bytes[tree.find("layers")], 5050);
    EXPECT_EQ(m.bytes[tree.find("layers.1")], 4050);
    EXPECT_EQ(m.storages[tree.find("layers.1.fc")], 3u);
    EXPECT_EQ(m.bytes[tree.find("layers.0.fc")], 1000);
    // Nothing live: no groups.
    EXPECT_TRUE(fwd.by_role({}).empty());
    EXPECT_TRUE(fwd.by_module({}, 1).empty());
}

TEST(Attribution, GroupsAddUpToTheProfileAtEveryStep) {
    ModulePair t;
    t.label_parameters();
    const RoleAssignment r = resolve_roles(t.file);
    for (std::size_t g = 0; g < 2; ++g) {
        const Attribution a(t.file, GraphId(static_cast<std::int32_t>(g)), r);
        const Indexed ix = index_of(t.file, g);
        const auto profile = ix.index->profile();
        for (std::size_t i = 0; i < profile.size(); ++i) {
            const auto live = ix.index->live_at(i);
            EXPECT_EQ(total(a.by_role(live)), profile[i]);
            for (std::uint32_t d = 0; d <= 4; ++d) EXPECT_EQ(total(a.by_module(live, d)), profile[i]);
            EXPECT_EQ(a.module_totals(live).bytes[ModuleTree::kRoot], profile[i]);
        }
    }
}

TEST(Attribution, ProfileByStacksTheModulePairExactly) {
    ModulePair t;
    t.label_parameters();
    const RoleAssignment r = resolve_roles(t.file);
    const Attribution bwd(t.file, GraphId(1), r);
    const Indexed bi = index_of(t.file, 1);
    const std::vector<std::int64_t> rows =
        bi.index->profile_by(bwd.storage_groups(GroupBy::Role, 0), kStorageRoleCount);
    ASSERT_EQ(rows.size(), 7 * kStorageRoleCount);
    auto at = [&](std::size_t i, StorageRole role) {
        return rows[i * kStorageRoleCount + static_cast<std::size_t>(role)];
    };
    // Step 5 by hand; activation A0 is freed after g1 (index 2).
    EXPECT_EQ(at(5, StorageRole::Gradient), 3000);
    EXPECT_EQ(at(5, StorageRole::Parameter), 2000);
    EXPECT_EQ(at(5, StorageRole::Temporary), 50);
    EXPECT_EQ(at(5, StorageRole::Tangent), 4);
    EXPECT_EQ(at(1, StorageRole::Activation), 300);
    EXPECT_EQ(at(2, StorageRole::Activation), 0);
    EXPECT_EQ(at(6, StorageRole::Temporary), 0);
    // By module at depth 2: groups are tree indices.
    const auto mod = bi.index->profile_by(bwd.storage_groups(GroupBy::Module, 2), bwd.group_count(GroupBy::Module));
    const std::size_t n = bwd.group_count(GroupBy::Module);
    EXPECT_EQ(mod[0 * n + bwd.tree().find("layers.0")], 300);
    EXPECT_EQ(mod[5 * n + bwd.tree().find("layers.1")], 4050);
    EXPECT_EQ(mod[5 * n + ModuleTree::kRoot], 4);
    EXPECT_EQ(mod[5 * n + bwd.tree().find("layers.1.fc")], 0); // counted in its ancestor at depth 2
    // Bad group arrays.
    EXPECT_THROW(bi.index->profile_by(std::vector<std::uint32_t>(3, 0), 1), PreconditionError);
    EXPECT_THROW(bi.index->profile_by(bwd.storage_groups(GroupBy::Role, 0), 2), PreconditionError);
}

TEST(Attribution, RandomGraphsAndOrdersStackExactly) {
    RandomGraphs gen(777);
    for (int round = 0; round < 80; ++round) {
        GraphFile f;
        f.source = "random";
        RandomGraphOptions o;
        o.nodes = 1 + gen.pick(round < 70 ? 60 : 400);
        o.output = gen.coin(0.9);
        const Graph& g = gen.make(f, "r", o);
        const AliasInfo a = build_alias_info(f, g);
        const NodeMask rel = default_releasable(g);
        const StorageMask counted = default_counted(f);
        const std::size_t groups = 1 + gen.pick(6);
        std::vector<std::uint32_t> group(f.storages.size());
        for (auto& x : group) x = static_cast<std::uint32_t>(gen.pick(groups));
        const RoleAssignment roles = resolve_roles(f);
        const Attribution attr(f, GraphId(0), roles);
        for (int k = 0; k < 3; ++k) {
            const std::vector<NodeId> order = k == 0 ? std::vector<NodeId>() : gen.topological(g);
            std::unique_ptr<LiveSetIndex> idx;
            try {
                idx = std::make_unique<LiveSetIndex>(f, g, a, rel, counted, order);
            } catch (const Error&) {
                continue; // an order the tracker rejects (a rogue storage not live yet)
            }
            const auto profile = idx->profile();
            const auto rows = idx->profile_by(group, groups);
            const auto by_role = idx->profile_by(attr.storage_groups(GroupBy::Role, 0), kStorageRoleCount);
            ASSERT_EQ(rows.size(), profile.size() * groups);
            const StackedProfile stacked = stacked_profile(*idx, attr, GroupBy::Role, 0);
            for (std::size_t i = 0; i < profile.size(); ++i) {
                std::int64_t sum = 0;
                for (std::size_t b = 0; b < stacked.bands.size(); ++b) sum += stacked.at(i, b);
                ASSERT_EQ(sum, profile[i]);
            }
            for (std::size_t i = 0; i < profile.size(); ++i) {
                std::int64_t sum = 0;
                std::vector<std::int64_t> expected(groups, 0);
                const auto live = idx->live_at(i);
                for (const auto& l : live) expected[group[l.storage.index()]] += l.nbytes;
                for (std::size_t gi = 0; gi < groups; ++gi) {
                    ASSERT_EQ(rows[i * groups + gi], expected[gi]) << "round " << round << " index " << i;
                    sum += rows[i * groups + gi];
                }
                ASSERT_EQ(sum, profile[i]);
                // The role breakdown of the live set equals the role rows.
                const Groups br = attr.by_role(live);
                ASSERT_EQ(total(br), profile[i]);
                for (const auto& b : br) ASSERT_EQ(by_role[i * kStorageRoleCount + b.id], b.bytes);
                ASSERT_EQ(total(attr.by_module(live, 0)), profile[i]);
            }
        }
        for (StorageRole role : roles.role) ASSERT_NE(role, StorageRole::Unknown);
    }
}

TEST(Attribution, StackedProfileBandsByHand) {
    ModulePair t;
    t.label_parameters();
    const RoleAssignment r = resolve_roles(t.file);
    const Attribution fwd(t.file, GraphId(0), r);
    const Indexed fi = index_of(t.file, 0);
    // By role, in StorageRole order: parameter, input, activation, output, temporary.
    const StackedProfile roles = stacked_profile(*fi.index, fwd, GroupBy::Role, 0);
    std::vector<std::string> keys;
    for (const auto& b : roles.bands) keys.push_back(b.key);
    EXPECT_EQ(keys, (std::vector<std::string>{"parameter", "input", "activation", "output", "temporary"}));
    ASSERT_EQ(roles.steps, 7u);
    // Step 5: 3000 parameters, x gone, A0 300, L 4, A1 400.
    EXPECT_EQ(roles.at(5, 0), 3000);
    EXPECT_EQ(roles.at(5, 1), 0);
    EXPECT_EQ(roles.at(0, 1), 100);
    EXPECT_EQ(roles.at(5, 2), 300);
    EXPECT_EQ(roles.at(5, 3), 4);
    EXPECT_EQ(roles.at(5, 4), 400);
    EXPECT_EQ(roles.bands[4].peak, 400);
    EXPECT_EQ(roles.bands[1].peak, 100);
    // By module at depth 3, peaks: layers.1.fc 2400, layers.0.fc 1300, root 4.
    const StackedProfile mods = stacked_profile(*fi.index, fwd, GroupBy::Module, 3);
    ASSERT_EQ(mods.bands.size(), 3u);
    EXPECT_EQ(mods.bands[0].key, "layers.1.fc");
    EXPECT_EQ(mods.bands[0].peak, 2400);
    EXPECT_EQ(mods.bands[1].key, "layers.0.fc");
    EXPECT_EQ(mods.bands[1].peak, 1300);
    EXPECT_EQ(mods.bands[2].key, "");
    EXPECT_EQ(mods.bands[2].id, ModuleTree::kRoot);
    // Two bands at most: the root folds into "other".
    const StackedProfile two = stacked_profile(*fi.index, fwd, GroupBy::Module, 3, 2);
    ASSERT_EQ(two.bands.size(), 2u);
    EXPECT_EQ(two.bands[0].key, "layers.1.fc");
    EXPECT_EQ(two.bands[1].key, "other");
    EXPECT_EQ(two.bands[1].id, kOtherBand);
    EXPECT_EQ(two.at(5, 1), 1304);
    EXPECT_EQ(two.bands[1].peak, 1400); // step 1: W0 1000 + A0 300 + x 100 (root: a placeholder without module)
    const auto profile = fi.index->profile();
    for (const StackedProfile* s : {&roles, &mods, &two})
        for (std::size_t i = 0; i < profile.size(); ++i) {
            std::int64_t sum = 0;
            for (std::size_t b = 0; b < s->bands.size(); ++b) sum += s->at(i, b);
            EXPECT_EQ(sum, profile[i]) << "step " << i;
        }
}
