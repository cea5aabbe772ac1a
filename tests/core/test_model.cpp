#include "fxmem/error.h"
#include "fxmem/model.h"

#include <gtest/gtest.h>

using namespace fxmem;

TEST(Model, BuilderDerivesUsersAndDedupedOutputs) {
    GraphFile f;
    f.source = "mem";
    const StorageId a = f.add_storage(7, "cuda:0", 64), b = f.add_storage(3, "cpu", 16);
    GraphBuilder g(f, "g", GraphKind::Forward);
    g.add("x", OpKind::Placeholder, "x", {}, {a});
    g.add("y", OpKind::CallFunction, "aten.split", {"x"}, {a, b, a});
    g.add("out", OpKind::Output, "output", {"x", "y"}, {});
    const Graph& graph = g.finish();
    ASSERT_EQ(graph.size(), 3u);
    const auto outs = graph.outputs(NodeId(1));
    ASSERT_EQ(outs.size(), 2u);
    EXPECT_EQ(outs[0], a);
    EXPECT_EQ(outs[1], b);
    const auto users = graph.users(NodeId(0));
    ASSERT_EQ(users.size(), 2u);
    EXPECT_EQ(users[0], NodeId(1));
    EXPECT_EQ(users[1], NodeId(2));
    EXPECT_EQ(graph.val(NodeId(1))[0].payload, 3u); // a list of three tensors
    EXPECT_TRUE(f.is_cpu(b));
    EXPECT_FALSE(f.is_cpu(a));
    EXPECT_EQ(f.total_bytes(), 80);
    EXPECT_EQ(graph.find("y"), NodeId(1));
}

TEST(Model, BuilderRejectsBadStructure) {
    GraphFile f;
    f.source = "mem";
    const StorageId a = f.add_storage(0, "cuda:0", 8);
    EXPECT_THROW(f.add_storage(0, "cuda:0", 8), Error);
    EXPECT_THROW(f.add_storage(1, "cuda:0", -1), Error);
    EXPECT_THROW(f.add_storage(2, "cuda:0", INT64_MAX), Error);
    GraphBuilder g(f, "g", GraphKind::Other);
    g.add("x", OpKind::Placeholder, "x", {}, {a});
    EXPECT_THROW(g.add("x", OpKind::Placeholder, "x", {}, {}), Error);
    try {
        g.add("y", OpKind::CallFunction, "f", {"nope"}, {});
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("unknown input 'nope'"), std::string::npos) << e.what();
    }
}

// Storage ids index a dense table when they are small and a map when far apart; an id must be
// found, and refused as a duplicate, whichever side took it, even after the dense side grows
// past an id the map holds.
TEST(Model, StorageIdsDenseAndSparseAgree) {
    GraphFile f;
    f.source = "t";
    const std::vector<std::int64_t> ids = {5000, 0, 1, 7, 3000, 2, 1'000'000'000'000, 4999, 5001};
    std::vector<StorageId> got;
    for (std::int64_t id : ids) got.push_back(f.add_storage(id, "cuda:0", id % 97));
    // Fill the dense side up to beyond 5000 so that it covers ids the map took.
    for (std::int64_t id = 8; id < 2000; ++id) f.add_storage(id, "cpu", 1);
    for (std::int64_t id = 5002; id < 5200; ++id) f.add_storage(id, "cpu", 1);
    for (std::size_t i = 0; i < ids.size(); ++i) {
        EXPECT_EQ(f.find_storage(ids[i]), got[i]) << ids[i];
        EXPECT_EQ(f.storages[got[i].index()].file_id, ids[i]);
        EXPECT_THROW(f.add_storage(ids[i], "cuda:0", 1), Error) << ids[i];
    }
    EXPECT_EQ(f.find_storage(2000), StorageId{});
    EXPECT_EQ(f.find_storage(4998), StorageId{});
    EXPECT_EQ(f.find_storage(-1), StorageId{});
    EXPECT_EQ(f.find_storage(999'999'999'999), StorageId{});
    EXPECT_EQ(f.find_storage(1999), StorageId(static_cast<std::int32_t>(ids.size() + 1991)));
}
