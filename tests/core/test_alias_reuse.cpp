// build_alias_info into a reused AliasInfo (one scratch for every graph of a file, as `info` does)
// gives exactly what a fresh build gives, in any order of graphs, graphs sharing storages included.
#include "fxmem/estimator.h"
#include "test_estimator_random.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace fxmem;
using namespace fxmem::testing;

namespace {

template <class T>
std::vector<T> to_vec(std::span<const T> s) {
    return {s.begin(), s.end()};
}

// Same answers to every query, per node and per storage of the file.
void expect_same(const GraphFile& f, const Graph& g, const AliasInfo& a, const AliasInfo& b, const std::string& where) {
    for (std::size_t i = 0; i < g.size(); ++i) {
        const NodeId n(static_cast<std::int32_t>(i));
        ASSERT_EQ(to_vec(a.fresh_of(n)), to_vec(b.fresh_of(n))) << where << " node " << i;
        ASSERT_EQ(to_vec(a.uses_of(n)), to_vec(b.uses_of(n))) << where << " node " << i;
        ASSERT_EQ(to_vec(a.last_used_at(n)), to_vec(b.last_used_at(n))) << where << " node " << i;
    }
    ASSERT_EQ(a.allocator.size(), f.storages.size());
    ASSERT_EQ(b.allocator.size(), f.storages.size());
    for (std::size_t s = 0; s < f.storages.size(); ++s) {
        const StorageId id(static_cast<std::int32_t>(s));
        ASSERT_EQ(a.allocator[s], b.allocator[s]) << where << " storage " << s;
        ASSERT_EQ(a.last_user[s], b.last_user[s]) << where << " storage " << s;
        ASSERT_EQ(to_vec(a.users_of(id)), to_vec(b.users_of(id))) << where << " storage " << s;
    }
}

} // namespace

TEST(AliasReuse, SameAsFreshBuildForEveryGraphInAnyOrder) {
    RandomGraphs gen(4242);
    for (int round = 0; round < 40; ++round) {
        GraphFile f;
        f.source = "reuse";
        // Several graphs; later ones hold some storages of earlier ones through placeholders.
        std::vector<StorageId> earlier;
        for (int k = 0; k < 5; ++k) {
            RandomGraphOptions o;
            o.nodes = 1 + gen.pick(40);
            for (int p = 0; p < 3 && !earlier.empty(); ++p)
                if (gen.coin(0.5))
                    o.preset.push_back({"saved_" + std::to_string(p), {earlier[gen.pick(earlier.size())]}});
            gen.make(f, "g" + std::to_string(k), o);
            for (std::size_t s = 0; s < f.storages.size(); ++s) earlier.emplace_back(static_cast<std::int32_t>(s));
        }
        std::vector<AliasInfo> fresh;
        for (const Graph& g : f.graphs) fresh.push_back(build_alias_info(f, g));
        AliasInfo reused;
        const std::size_t n = f.graphs.size();
        // Forward, backward, and each graph twice in a row.
        std::vector<std::size_t> order;
        for (std::size_t i = 0; i < n; ++i) order.push_back(i);
        for (std::size_t i = n; i-- > 0;) order.push_back(i);
        for (std::size_t i = 0; i < n; ++i) order.insert(order.end(), {i, i});
        for (std::size_t i : order) {
            build_alias_info(f, f.graphs[i], reused);
            expect_same(f, f.graphs[i], fresh[i], reused,
                        "round " + std::to_string(round) + " graph " + std::to_string(i));
            if (::testing::Test::HasFatalFailure()) return;
            // The profile from the reused info is the fresh one's.
            ASSERT_EQ(
                build_memory_profile(f, f.graphs[i], reused, default_releasable(f.graphs[i]), default_counted(f)),
                build_memory_profile(f, f.graphs[i], fresh[i], default_releasable(f.graphs[i]), default_counted(f)));
        }
    }
}

// A scratch sized for another file (fewer storages) is resized, not misread.
TEST(AliasReuse, ScratchFromAnotherFileIsRebuilt) {
    RandomGraphs gen(99);
    GraphFile small, big;
    small.source = "small";
    big.source = "big";
    RandomGraphOptions o;
    o.nodes = 5;
    gen.make(small, "s", o);
    o.nodes = 30;
    gen.make(big, "b", o);
    AliasInfo scratch = build_alias_info(small, small.graphs[0]);
    build_alias_info(big, big.graphs[0], scratch);
    expect_same(big, big.graphs[0], build_alias_info(big, big.graphs[0]), scratch, "big after small");
}
