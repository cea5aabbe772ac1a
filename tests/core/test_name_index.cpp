// NameIndex (the loader's name -> position table) and the builder's interning of targets and
// pooling of stack traces / meta, which replaced per-node strings.
#include "fxmem/error.h"
#include "fxmem/model.h"
#include "fxmem/name_index.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

using namespace fxmem;

namespace {

struct Names {
    std::vector<std::string> v;
    std::string_view operator()(std::uint32_t i) const { return v[i]; }
};

TEST(NameIndex, FindsEveryInsertedNameAcrossGrowthAndRejectsDuplicates) {
    NameIndex index;
    Names names;
    EXPECT_EQ(index.find("absent", names), NameIndex::npos);
    // FX-style names that differ only in a counter, plus empty-ish and long ones.
    for (int i = 0; i < 5000; ++i) names.v.push_back((i % 3 ? "add_" : "convolution_backward_") + std::to_string(i));
    names.v.push_back("x");
    names.v.push_back(std::string(100, 'q'));
    for (std::uint32_t i = 0; i < names.v.size(); ++i)
        ASSERT_EQ(index.insert(names.v[i], i, names), NameIndex::npos) << i;
    EXPECT_EQ(index.size(), names.v.size());
    for (std::uint32_t i = 0; i < names.v.size(); ++i) EXPECT_EQ(index.find(names.v[i], names), i) << names.v[i];
    // A second insert of a stored name reports where it is and changes nothing.
    EXPECT_EQ(index.insert("add_1", 99999, names), 1u);
    EXPECT_EQ(index.size(), names.v.size());
    EXPECT_EQ(index.find("add_5000", names), NameIndex::npos);
    EXPECT_EQ(index.find("add_", names), NameIndex::npos);
    EXPECT_EQ(index.find(std::string(99, 'q'), names), NameIndex::npos);
    index.clear();
    EXPECT_EQ(index.find("add_1", names), NameIndex::npos);
}

TEST(NameIndex, AgreesWithAStandardMapOnRandomNames) {
    std::mt19937 rng(7);
    Names names;
    NameIndex index;
    index.reserve(10); // grows past it
    std::unordered_map<std::string, std::uint32_t> reference;
    for (int i = 0; i < 20000; ++i) {
        std::string s(1 + rng() % 12, ' ');
        for (char& c : s) c = static_cast<char>('a' + rng() % 4); // small alphabet: many repeats
        const auto next = static_cast<std::uint32_t>(names.v.size());
        const auto [it, fresh] = reference.emplace(s, next);
        const std::uint32_t got = index.insert(s, next, names);
        if (fresh) {
            ASSERT_EQ(got, NameIndex::npos) << s;
            names.v.push_back(s);
        } else {
            ASSERT_EQ(got, it->second) << s;
        }
    }
    for (const auto& [s, i] : reference) EXPECT_EQ(index.find(s, names), i);
}

TEST(NameIndex, HashSpreadsCounterSuffixes) {
    // 64k names that differ in their last digits land in distinct 64-bit hashes and fill the
    // low 16 bits (the first probe of a 64k-slot table) about evenly.
    std::set<std::uint64_t> hashes;
    std::vector<int> buckets(1 << 16, 0);
    for (int i = 0; i < (1 << 16); ++i) {
        const std::uint64_t h = hash_name("getitem_" + std::to_string(i));
        hashes.insert(h);
        ++buckets[h & 0xFFFF];
    }
    EXPECT_EQ(hashes.size(), std::size_t{1} << 16);
    int empty = 0;
    for (int b : buckets) empty += b == 0;
    // A uniform hash leaves 1/e of the buckets empty (24,109); allow a few percent either way.
    EXPECT_GT(empty, 23000);
    EXPECT_LT(empty, 25200);
}

TEST(GraphBuilderText, TargetsAreInternedAndTextsPooledPerNode) {
    GraphFile f;
    f.source = "t";
    const StorageId s0 = f.add_storage(0, "cuda:0", 16);
    GraphBuilder b(f, "g", GraphKind::Forward);
    b.add("a", OpKind::Placeholder, "primals_1", {}, {s0});
    b.begin_node("b", OpKind::CallFunction, "aten.relu.default");
    b.add_input("a");
    b.set_stack_trace("File \"m.py\", line 1");
    b.end_node();
    b.begin_node("c", OpKind::CallFunction, "aten.relu.default");
    b.add_input("b");
    b.set_meta_json(R"({"seq_nr":3})");
    b.end_node();
    b.add("output", OpKind::Output, "output", {"c"}, {});
    const Graph& g = b.finish();
    ASSERT_EQ(g.targets.size(), 3u); // primals_1, aten.relu.default (once), output
    EXPECT_EQ(g.node(NodeId(1)).target, g.node(NodeId(2)).target);
    EXPECT_EQ(g.target(NodeId(0)), "primals_1");
    EXPECT_EQ(g.target(NodeId(2)), "aten.relu.default");
    EXPECT_EQ(g.target(NodeId(3)), "output");
    EXPECT_EQ(g.stack_trace(NodeId(1)), "File \"m.py\", line 1");
    EXPECT_EQ(g.meta_json(NodeId(1)), "");
    EXPECT_EQ(g.stack_trace(NodeId(2)), "");
    EXPECT_EQ(g.meta_json(NodeId(2)), R"({"seq_nr":3})");
    EXPECT_EQ(g.stack_trace(NodeId(0)), "");
    // A second graph interns on its own.
    GraphBuilder b2(f, "h", GraphKind::Other);
    b2.add("output", OpKind::Output, "output", {}, {});
    EXPECT_EQ(b2.finish().targets.size(), 1u);
}

TEST(GraphBuilderText, TextOutsideANodeIsAnError) {
    GraphFile f;
    f.source = "t";
    GraphBuilder b(f, "g", GraphKind::Forward);
    EXPECT_THROW(b.set_stack_trace("x"), Error);
    EXPECT_THROW(b.set_meta_json("{}"), Error);
}

} // namespace
