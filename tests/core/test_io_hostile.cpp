// Hostile files (huge names and values, deep nesting, bad encodings, dangling ids): each must give a clear fxmem::Error
// naming the file and the place, never a wrong number, a hang or a crash.
#include "fxmem/error.h"
#include "fxmem/estimator.h"
#include "fxmem/incremental.h"
#include "fxmem/io.h"
#include "fxmem/liveset.h"
#include "fxmem/name_index.h"
#include "fxmem/schedule.h"
#include "work_counters.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include <algorithm>
#include <chrono>
#include <future>
#include <iostream>
#include <limits>
#include <string>
#include <unordered_map>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace fxmem;
using fxmem::detail::WorkCounters;

namespace {

const std::string kHostile = std::string(FXMEM_TEST_DATA) + "/hostile";

// The Error's message, or "" when `f` throws nothing.
template <class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

std::string replace_first(std::string s, const std::string& from, const std::string& to) {
    const std::size_t at = s.find(from);
    if (at != std::string::npos) s.replace(at, from.size(), to);
    return s;
}

} // namespace

// Item 10: storage 1 (5e18 bytes) is a forward output no backward placeholder holds (the
// baseline) and the backward allocates it again: baseline + backward peak = 5e18 + (5e18 + 16) > 2^63-1.
TEST(IoHostile, PairBackwardPeakOverflowIsAnError) {
    const std::string path = kHostile + "/pair_overflow.json";
    const GraphFile file = load_file(path);
    const std::string msg = error_of([&] { get_peak_memory(file, file.graphs[0], file.graphs[1]); });
    EXPECT_EQ(msg.rfind(path + ": graph 'bwd' (backward of 'fwd'): ", 0), 0u) << msg;
    EXPECT_NE(msg.find("the backward baseline (5000000000000000000 bytes) plus the backward's peak "
                       "(5000000000000000016 bytes) is more than 2^63-1 bytes"),
              std::string::npos)
        << msg;
    EXPECT_FALSE(error_of([&] { analyze_pair(file, file.graphs[0], file.graphs[1], default_counted(file)); }).empty());
}

TEST(IoHostile, PairBackwardPeakAtTheLimitIsExact) {
    const GraphFile file = load_file(kHostile + "/pair_overflow.json");
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    EXPECT_EQ(pair_backward_peak(file, file.graphs[0], file.graphs[1], kMax - 5, 5), kMax);
    EXPECT_FALSE(error_of([&] { pair_backward_peak(file, file.graphs[0], file.graphs[1], kMax - 5, 6); }).empty());
}

// Item 11 for schedules (graph files: tests/data/bad/nul_*.json). nlohmann takes a NUL byte for
// the end of the input, so these parsed before.
TEST(IoHostile, ScheduleWithBytesAfterTheDocumentIsAnError) {
    const GraphFile file = load_file(std::string(FXMEM_TEST_DATA) + "/good/single.json");
    const std::string order =
        R"({"graph": "g", "order": ["x", "split", "getitem_1", "add", "unused", "add_", "getitem", "cpu_copy", "output"]})";
    EXPECT_NO_THROW(parse_schedule(file, order + "\n \t\n", "s.json"));
    EXPECT_EQ(error_of([&] { parse_schedule(file, order + "\n" + std::string(1, '\0') + "garbage", "s.json"); }),
              "s.json:2:1: JSON syntax error: unexpected NUL byte after the JSON document (nothing but whitespace "
              "may follow it)");
    EXPECT_EQ(error_of([&] { parse_schedule(file, order + std::string(1, '\0'), "s.json"); }).rfind("s.json:1:", 0),
              0u);
    EXPECT_EQ(error_of([&] { parse_schedule(file, std::string(R"({"graph": "g", )") + '\0' + "}", "s.json"); }),
              "s.json:1:16: JSON syntax error: unexpected NUL byte");
    EXPECT_NE(error_of([&] { parse_schedule(file, order + " x", "s.json"); }).find("s.json:1:"), std::string::npos);
}

// Item 12: a known key twice is an error, as in graph files (it was: the last one wins).
TEST(IoHostile, ScheduleWithDuplicateKeysIsAnError) {
    const GraphFile file = load_file(std::string(FXMEM_TEST_DATA) + "/good/single.json");
    const std::string order =
        R"(["x", "split", "getitem_1", "add", "unused", "add_", "getitem", "cpu_copy", "output"])";
    EXPECT_EQ(error_of([&] {
                  parse_schedule(file, "{\"graph\": \"g\",\n \"graph\": \"g\", \"order\": " + order + "}", "s.json");
              }),
              "s.json:2:8: top level: duplicate key 'graph'");
    EXPECT_EQ(error_of([&] {
                  parse_schedule(file, "{\"graph\": \"g\", \"order\": [], \"order\": " + order + "}", "s.json");
              }),
              "s.json:1:35: top level: duplicate key 'order'");
    // Unknown keys are ignored, repeated or not, as in graph files; so are keys of nested objects.
    EXPECT_NO_THROW(parse_schedule(
        file, R"({"note": 1, "note": 2, "x": {"graph": 1, "graph": 2}, "graph": "g", "order": )" + order + "}",
        "s.json"));
}

// Item 15: what is not a regular file is refused before it is read: a FIFO without a writer
// blocked in open(), /dev/zero was read until memory ran out, a directory as a schedule gave a
// JSON syntax error.
TEST(IoHostile, FifoIsRefusedWithoutBlocking) {
    const std::string fifo = ::testing::TempDir() + "fxmem_hostile_fifo_" + std::to_string(::getpid());
    ::unlink(fifo.c_str());
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    auto result = std::async(std::launch::async, [&] { return error_of([&] { load_file(fifo); }); });
    if (result.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
        ADD_FAILURE() << "load_file blocked on a FIFO";
        const int w = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK); // let the reader go
        if (w >= 0) ::close(w);
    }
    EXPECT_EQ(result.get(), fifo + ": cannot read: it is a FIFO (named pipe), not a regular file");
    ::unlink(fifo.c_str());
}

TEST(IoHostile, DevicesAndDirectoriesAreRefused) {
    EXPECT_EQ(error_of([] { load_file("/dev/zero"); }),
              "/dev/zero: cannot read: it is a character device, not a regular file");
    const std::string dir = ::testing::TempDir();
    EXPECT_EQ(error_of([&] { load_file(dir); }), dir + ": cannot read: it is a directory, not a regular file");
    const GraphFile file = load_file(std::string(FXMEM_TEST_DATA) + "/good/single.json");
    EXPECT_EQ(error_of([&] { load_schedule(file, dir); }),
              dir + ": cannot read: it is a directory, not a regular file");
    EXPECT_EQ(error_of([&] { load_schedule(file, "/dev/zero"); }),
              "/dev/zero: cannot read: it is a character device, not a regular file");
}

TEST(IoHostile, FileLargerThanMemoryIsTooLarge) {
    // A sparse file larger than the machine's memory: refused up front, not read.
    const std::string path = ::testing::TempDir() + "fxmem_hostile_huge_" + std::to_string(::getpid()) + ".json";
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    ASSERT_GT(pages, 0);
    const auto size = static_cast<off_t>(pages) * page * 2;
    {
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        ASSERT_GE(fd, 0);
        const bool ok = ::ftruncate(fd, size) == 0;
        ::close(fd);
        if (!ok) {
            ::unlink(path.c_str());
            GTEST_SKIP() << "this file system cannot hold a sparse file of " << size << " bytes";
        }
    }
    EXPECT_EQ(error_of([&] { load_file(path); }),
              path + ": file too large for memory (" + std::to_string(size) + " bytes)");
    ::unlink(path.c_str());
}

// Item 13: names crafted against the fixed, unkeyed hash all landed in one slot cluster, so each
// insert probed every earlier name: 200k such node names took 30 s. The hash is seeded per process.
TEST(IoHostile, NamesCraftedAgainstTheUnseededHashDoNotCollide) {
    // 2000 names whose unseeded tags share their low 12 bits (a table of 2^12 slots or less).
    std::vector<std::string> crafted;
    for (std::uint64_t i = 0; crafted.size() < 2000; ++i) {
        std::string name = "add_" + std::to_string(i);
        if ((NameIndex::tag_with_seed(name, 0) & 0xFFF) == 0) crafted.push_back(std::move(name));
    }
    const auto name_of = [&](std::uint32_t i) { return std::string_view(crafted[i]); };
    const std::uint64_t n = crafted.size();
    NameIndex unseeded, seeded;
    for (std::uint32_t i = 0; i < n; ++i) {
        unseeded.insert(crafted[i], NameIndex::tag_with_seed(crafted[i], 0), i, name_of);
        seeded.insert(crafted[i], NameIndex::tag_of(crafted[i]), i, name_of);
    }
    EXPECT_GT(WorkCounters::insert_probes(unseeded), n * n / 4) << "the crafted names must collide without the seed";
    EXPECT_LT(WorkCounters::insert_probes(seeded), 4 * n) << "with the seed they behave like random names";
    for (std::uint32_t i = 0; i < n; ++i) ASSERT_EQ(seeded.find(crafted[i], name_of), i);
    EXPECT_NE(name_hash_seed(), 0u);
}

namespace {

// `graphs` one-node graphs (each an output node with one tensor), every tensor of its own dtype
// and every storage on its own device: all three lists grow with the file.
std::string many_names_file(int graphs) {
    std::string t = R"({"format": "fxmem", "version": 1, "storages": [)";
    for (int i = 0; i < graphs; ++i)
        t += (i ? ", " : "") + std::string(R"({"id": )") + std::to_string(i) + R"(, "device": "cuda:)" +
             std::to_string(i) + R"(", "nbytes": 4})";
    t += R"(], "graphs": [)";
    for (int i = 0; i < graphs; ++i)
        t +=
            (i ? ", " : "") + std::string(R"({"name": "g)") + std::to_string(i) +
            R"(", "kind": "other", "nodes": [{"name": "output", "op": "output", "target": "output", "inputs": [], "val": {"storage": )" +
            std::to_string(i) + R"(, "dtype": "dtype)" + std::to_string(i) +
            R"(", "shape": [1], "stride": [1], "offset": 0}}]})";
    return t + "]}";
}

} // namespace

// 100k graphs took 87 s (find_graph scanned every graph, finish() allocated a storage-sized array
// per graph), 100k dtypes 20 s, 40k devices 2.8 s. The work is now proportional to the file.
TEST(IoHostile, ManyGraphsDtypesAndDevicesLoadInLinearWork) {
    for (const int n : {10000, 40000}) {
        const std::string text = many_names_file(n);
        const auto start = std::chrono::steady_clock::now();
        const GraphFile f = load_buffer(text, "many.json");
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        ASSERT_EQ(f.graphs.size(), static_cast<std::size_t>(n));
        EXPECT_EQ(f.dtypes.size(), static_cast<std::size_t>(n));
        EXPECT_EQ(f.devices.size(), static_cast<std::size_t>(n));
        EXPECT_EQ(f.find_graph("g" + std::to_string(n - 1)), GraphId(n - 1));
        EXPECT_EQ(f.find_graph("g" + std::to_string(n)), std::nullopt);
        EXPECT_EQ(f.graphs[7].outputs(NodeId(0)).size(), 1u);
        EXPECT_EQ(f.graphs[7].outputs(NodeId(0))[0], StorageId(7));
        // Three indexes of n names each: a few probes per insert (a scan would be n/2 per name).
        EXPECT_LT(WorkCounters::index_probes(f), static_cast<std::uint64_t>(3 * 4 * n));
        std::cout << "  " << n << " graphs, dtypes and devices (" << text.size() / 1000 << " kB): loaded in " << ms
                  << " ms\n";
    }
}

// Every stored schedule's line:column was computed while loading, each a scan of the text up to
// it: 10k graphs with one schedule each took 19 s. It is spelled out only on an error now; the
// place of an error in the last schedule is still exact.
TEST(IoHostile, ManySchedulesLoadInLinearWorkAndErrorsStayPlaced) {
    const int n = 10000;
    std::string t = many_names_file(n);
    t.resize(t.size() - 1); // reopen the top-level object
    t += R"(, "schedules": [)";
    for (int i = 0; i < n; ++i)
        t += (i ? ", " : "") + std::string(R"({"name": "s", "graph": "g)") + std::to_string(i) +
             R"(", "order": ["output"]})";
    const auto start = std::chrono::steady_clock::now();
    const GraphFile f = load_buffer(t + "]}", "scheds.json");
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    ASSERT_EQ(f.schedules.size(), static_cast<std::size_t>(n));
    EXPECT_EQ(f.schedules[n - 1].name, "s");
    EXPECT_EQ(f.schedules[n - 1].graph, GraphId(n - 1));
    std::cout << "  " << n << " graphs with a schedule each (" << t.size() / 1000 << " kB): loaded in " << ms
              << " ms\n";
    // The last schedule names an unknown node: the message places it on line 1 at that name (the
    // graphs are read by then, so the order is checked entry by entry as it is read).
    const std::string bad = t + R"(, {"name": "x", "graph": "g0", "order": ["nope"]}]})";
    const std::string msg = [&] {
        try {
            (void)load_buffer(bad, "scheds.json");
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string();
    }();
    const std::size_t column = bad.size() - 4; // 1-based column of the closing quote of "nope"
    EXPECT_EQ(msg, "scheds.json:1:" + std::to_string(column) + ": schedules[" + std::to_string(n) +
                       "]: schedule 'x' of graph 'g0': order[0] names unknown node 'nope'");
}

// A stored schedule's order after the graphs is checked entry by entry as it is read: a repeat
// ends the load there, so what follows (here 200k more entries and then no valid JSON at all)
// is never read nor held.
TEST(IoHostile, StoredScheduleStopsAtTheFirstRepeat) {
    std::ifstream in(std::string(FXMEM_TEST_DATA) + "/good/annotated.json", std::ios::binary);
    std::string t((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::size_t from = t.find("\"schedules\": [");
    const std::size_t to = t.find("],", from);
    t.erase(from, to - from + 2); // the schedules move after the graphs
    std::string order = R"(["primals_1", "inp", "primals_1")";
    for (int i = 0; i < 200000; ++i) order += R"(, "a")";
    t.insert(t.rfind('}'), R"(, "schedules": [{"name": "s", "graph": "g", "order": )" + order + ", garbage");
    const std::string msg = error_of([&] { (void)load_buffer(t, "rep.json"); });
    EXPECT_NE(msg.find(": schedules[0]: schedule 's' of graph 'g': repeats node 'primals_1' (positions 0 and 2)"),
              std::string::npos)
        << msg.substr(0, 300);
}

// Storage ids far apart go to a hash map; with the identity hash of std::hash<int64_t>, ids that
// are multiples of the map's bucket count all chained in one bucket (200k of them: 27 s).
TEST(IoHostile, StorageIdsCraftedAgainstTheIdentityHashSpread) {
    constexpr int kN = 20000;
    std::unordered_map<std::int64_t, int> probe; // the bucket count an unseeded map ends with
    for (int i = 0; i < kN; ++i) probe.emplace(i, i);
    const auto step = static_cast<std::int64_t>(probe.bucket_count());
    std::string t = R"({"format": "fxmem", "version": 1, "storages": [)";
    for (int i = 0; i < kN; ++i)
        t += (i ? ", " : "") + std::string(R"({"id": )") + std::to_string((i + 1) * step) +
             R"(, "device": "cuda:0", "nbytes": 4})";
    t += R"(], "graphs": []})";
    const GraphFile f = load_buffer(t, "ids.json");
    ASSERT_EQ(f.storages.size(), static_cast<std::size_t>(kN));
    EXPECT_EQ(f.find_storage(kN * step), StorageId(kN - 1));
    EXPECT_LT(WorkCounters::longest_sparse_id_chain(f), 16u); // unseeded: all kN in one bucket
}

// Item 10, the other sums: within one graph every sum is of distinct storages, which the loader
// caps at 2^63-1, so a graph whose storages add up to exactly 2^63-1 is computed exactly by the
// profile, MemoryTracker, the incremental scorer and the live-set profile (no overflow, no wrap).
TEST(IoHostile, OneGraphAtTheByteLimitIsExactEverywhere) {
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    constexpr std::int64_t kA = std::int64_t{1} << 62, kB = kMax - kA - 16; // 16 + kA + kB = 2^63-1
    const std::string text = R"({"format": "fxmem", "version": 1, "storages": [
      {"id": 0, "device": "cuda:0", "nbytes": 16},
      {"id": 1, "device": "cuda:0", "nbytes": )" +
                             std::to_string(kA) + R"(},
      {"id": 2, "device": "cuda:0", "nbytes": )" +
                             std::to_string(kB) + R"(}],
      "graphs": [{"name": "g", "kind": "inference", "nodes": [
      {"name": "x", "op": "placeholder", "target": "x", "inputs": [], "val": {"storage": 0, "dtype": "f", "shape": [4], "stride": [1], "offset": 0}},
      {"name": "a", "op": "call_function", "target": "relu", "inputs": ["x"], "val": {"storage": 1, "dtype": "f", "shape": [4], "stride": [1], "offset": 0}},
      {"name": "b", "op": "call_function", "target": "relu", "inputs": ["x"], "val": {"storage": 2, "dtype": "f", "shape": [4], "stride": [1], "offset": 0}},
      {"name": "output", "op": "output", "target": "output", "inputs": ["a", "b"], "val": null}]}]})";
    const GraphFile f = load_buffer(text, "limit.json");
    ASSERT_EQ(f.total_bytes(), kMax);
    const Graph& g = f.graphs[0];
    const AliasInfo alias = build_alias_info(f, g);
    const NodeMask releasable = default_releasable(g);
    const StorageMask counted = default_counted(f);
    const auto profile = build_memory_profile(f, g, alias, releasable, counted);
    EXPECT_EQ(*std::max_element(profile.begin(), profile.end()), kMax);
    EXPECT_EQ(score_schedule(f, g, alias, original_order(g), releasable, counted).peak, kMax);
    EXPECT_EQ(IncrementalSchedule(f, g, alias, releasable, counted, original_order(g)).peak(), kMax);
    const auto live_profile = LiveSetIndex(f, g, alias, releasable, counted).profile();
    EXPECT_EQ(*std::max_element(live_profile.begin(), live_profile.end()), kMax);
    // One byte more cannot even be loaded.
    EXPECT_NE(error_of([&] {
                  load_buffer(replace_first(text, std::to_string(kB), std::to_string(kB + 1)), "over.json");
              }).find("the storages' sizes add up to more than 2^63-1 bytes"),
              std::string::npos);
}

// Names in errors are quoted one way, with one limit (core/src/model/quote.h): a 100 KB node name
// repeated in a file made the builder's "duplicate node name" message, and so the loader's, copy
// the whole name; now it keeps its first 120 and last 60 bytes around "…", on the fast path and
// nlohmann's alike, and the reader still names the graph and the line:column of the node.
TEST(IoHostile, HugeNamesInErrorsAreElided) {
    const std::string big = "head" + std::string(100000, 'x') + "tail";
    const std::string node =
        R"({"name": ")" + big + R"(", "op": "placeholder", "target": "p", "inputs": [], "val": null})";
    const std::string text =
        R"({"format": "fxmem", "version": 1, "storages": [], "graphs": [{"name": "g", "kind": "other", "nodes": [)" +
        node + ",\n" + node + "]}]}";
    const std::string elided = "'head" + std::string(116, 'x') + "\u2026" + std::string(56, 'x') + "tail'";
    const std::string msg = error_of([&] { load_buffer(text, "huge.json"); });
    // The place is the second node's closing brace: line 2, the last column of its object.
    const std::string column = std::to_string(node.size());
    EXPECT_EQ(msg, "huge.json:2:" + column + ": graph 'g': duplicate node name " + elided);
    EXPECT_LT(msg.size(), 300u);
}
