// The PROGRAM level (fxmem/program.h, fxmem/program_profile.h): read from program_pair.json, its
// allocated profiles and live buffers by hand, the rules of check_program, the writer's round trip
// and nbytes_expr bound by bind_sizes.
//
// program_pair.json, forward "fwd" (K = 3): buffers 0 primals_1 4096 (input), 1 primals_2 1024
// (input), 2 buf0 8192, 3 buf1 8192, 4 buf2 8192 reusing 3, 5 workspace 512, 6 buf3 100 on cpu;
// kernel 0 allocs 2, 5 and frees 5; kernel 1 allocs 3, 6 and frees 6; kernel 2 allocs 4.
// Backward "bwd" (K = 2): 0 primals_2 1024, 1 mm 8192, 2 tangents_1 8192 (inputs), 3 buf0 8192
// reusing 2, 4 buf1 1024 on stream 1; kernel 0 allocs 3 and frees 1, kernel 1 allocs 4 and
// frees 3 and 0.
#include "fxmem/error.h"
#include "fxmem/io.h"
#include "fxmem/program.h"
#include "fxmem/program_profile.h"
#include "fxmem/symbolic.h"

#include "error_of.h"

#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

using namespace fxmem;

namespace {

GraphFile program_pair() { return load_file(std::string(FXMEM_TEST_DATA) + "/good/program_pair.json"); }

GraphId graph_named(const GraphFile& f, const char* name) { return *f.find_graph(name); }

std::vector<std::uint32_t> buffers_of(const std::vector<LiveBuffer>& live) {
    std::vector<std::uint32_t> out;
    for (const LiveBuffer& b : live) out.push_back(b.buffer);
    return out;
}

std::vector<std::string> node_names(const Graph& g, std::span<const NodeId> nodes) {
    std::vector<std::string> out;
    for (NodeId v : nodes) out.push_back(g.node(v).name);
    return out;
}

using fxmem_test::error_of;

// A small graph x -> y -> output with a program built by hand (buffers and kernels given).
struct HandProgram {
    GraphFile file;
    GraphId graph;
    HandProgram() {
        file.source = "hand.json";
        const StorageId sx = file.add_storage(0, "cuda:0", 64), sy = file.add_storage(1, "cuda:0", 64);
        GraphBuilder b(file, "g", GraphKind::Forward);
        b.add("x", OpKind::Placeholder, "x", {}, {sx});
        b.add("y", OpKind::CallFunction, "aten.relu.default", {"x"}, {sy});
        b.add("output", OpKind::Output, "output", {"y"}, {});
        b.finish();
        graph = GraphId(0);
    }
    static ProgramBuffer buffer(const char* name, std::uint32_t device, std::int64_t nbytes, bool input = false) {
        ProgramBuffer out;
        out.name = name;
        out.device = device;
        out.nbytes = nbytes;
        out.input = input;
        return out;
    }
    static void kernel(Program& p, std::vector<std::uint32_t> alloc, std::vector<std::uint32_t> free) {
        ProgramKernel k;
        k.name = "k" + std::to_string(p.kernels.size());
        k.alloc = p.add_buffer_ids(alloc);
        k.free = p.add_buffer_ids(free);
        p.kernels.push_back(k);
    }
};

} // namespace

TEST(ProgramReader, ReadsEveryFieldOfThePairFixture) {
    const GraphFile f = program_pair();
    const Graph& fwd = f.graph(graph_named(f, "fwd"));
    ASSERT_TRUE(fwd.program);
    const Program& p = *fwd.program;
    EXPECT_EQ(p.target, "cuda");
    EXPECT_EQ(p.source, "hand-written for tests (torch._inductor-like)");
    ASSERT_EQ(p.buffers.size(), 7u);
    ASSERT_EQ(p.kernels.size(), 3u);
    EXPECT_EQ(p.buffers[0].name, "primals_1");
    EXPECT_TRUE(p.buffers[0].input);
    EXPECT_FALSE(p.buffers[2].input);
    EXPECT_EQ(p.buffers[2].kind, "extern");
    EXPECT_EQ(p.buffers[0].kind, "");
    EXPECT_EQ(p.buffers[3].nbytes, 8192);
    EXPECT_EQ(node_names(fwd, p.nodes(p.buffers[3])), (std::vector<std::string>{"relu", "mul"}));
    EXPECT_EQ(p.buffers[4].reuses, 3u);
    EXPECT_FALSE(p.buffers[3].reuses);
    EXPECT_EQ(f.devices[p.buffers[6].device], "cpu");
    EXPECT_EQ(f.devices[p.buffers[2].device], "cuda:0");
    EXPECT_EQ(p.kernels[0].name, "extern_kernels.mm");
    EXPECT_EQ(node_names(fwd, p.nodes(p.kernels[1])), (std::vector<std::string>{"relu", "mul"}));
    const auto ids = [](std::span<const std::uint32_t> s) { return std::vector<std::uint32_t>(s.begin(), s.end()); };
    EXPECT_EQ(ids(p.allocs(p.kernels[0])), (std::vector<std::uint32_t>{2, 5}));
    EXPECT_EQ(ids(p.frees(p.kernels[0])), (std::vector<std::uint32_t>{5}));
    EXPECT_EQ(ids(p.frees(p.kernels[2])), (std::vector<std::uint32_t>{}));
    const Program& bwd = *f.graph(graph_named(f, "bwd")).program;
    EXPECT_EQ(bwd.source, "");
    EXPECT_EQ(bwd.buffers[4].stream, 1u);
    EXPECT_EQ(bwd.buffers[3].stream, 0u);
    EXPECT_EQ(ids(bwd.frees(bwd.kernels[1])), (std::vector<std::uint32_t>{3, 0}));
}

TEST(ProgramReader, AGraphWithoutProgramHasNone) {
    const GraphFile f = load_file(std::string(FXMEM_TEST_DATA) + "/good/single.json");
    EXPECT_FALSE(f.graphs[0].program);
    const std::string e = error_of([&] { build_program_profile(f, GraphId(0)); });
    EXPECT_NE(e.find("graph '" + f.graphs[0].name + "' has no program level"), std::string::npos) << e;
    EXPECT_NE(e.find("re-capture"), std::string::npos) << e;
}

TEST(ProgramReader, NullProgramIsAbsent) {
    const std::string text = R"({"format": "fxmem", "version": 1, "storages": [],
      "graphs": [{"name": "g", "kind": "forward", "program": null,
        "nodes": [{"name": "output", "op": "output", "target": "output", "inputs": [], "val": null}]}]})";
    EXPECT_FALSE(load_buffer(text, "t.json").graphs[0].program);
}

// The program may come before the nodes it names, and before the storages: resolved at the end.
TEST(ProgramReader, ProgramBeforeNodesAndStorages) {
    const std::string text = R"({"format": "fxmem", "version": 1,
      "graphs": [{"program": {"kernels": [{"name": "k", "alloc": [1], "free": [0], "nodes": ["y"]}],
                              "buffers": [{"name": "x", "device": "cuda:0", "nbytes": 64, "input": true},
                                          {"name": "b", "device": "cuda:1", "nbytes": 32, "nodes": ["y"]}],
                              "target": "cuda"},
                  "name": "g", "kind": "forward",
        "nodes": [{"name": "x", "op": "placeholder", "target": "x", "inputs": [],
                   "val": {"storage": 0, "dtype": "float32", "shape": [16], "stride": [1], "offset": 0}},
                  {"name": "y", "op": "call_function", "target": "relu", "inputs": ["x"],
                   "val": {"storage": 1, "dtype": "float32", "shape": [8], "stride": [1], "offset": 0}},
                  {"name": "output", "op": "output", "target": "output", "inputs": ["y"], "val": null}]}],
      "storages": [{"id": 0, "device": "cuda:0", "nbytes": 64}, {"id": 1, "device": "cuda:0", "nbytes": 32}]})";
    const GraphFile f = load_buffer(text, "t.json");
    const Program& p = *f.graphs[0].program;
    EXPECT_EQ(node_names(f.graphs[0], p.nodes(p.buffers[1])), (std::vector<std::string>{"y"}));
    EXPECT_EQ(f.devices[p.buffers[1].device], "cuda:1"); // a device no storage has
    // Index 0: x (64); kernel 0 allocates b (32) then frees x.
    EXPECT_EQ(build_program_profile(f, GraphId(0)), (std::vector<std::int64_t>{64, 96, 32}));
}

TEST(ProgramProfile, ForwardByHand) {
    const GraphFile f = program_pair();
    const GraphId fwd = graph_named(f, "fwd");
    // 0: the inputs, 4096 + 1024. Kernel 0: + buf0 8192 + workspace 512, then - workspace.
    // Kernel 1: + buf1 8192 (buf3 is on the CPU), then buf3 freed. Kernel 2: buf2 takes buf1's
    // allocation over (+0), frees nothing; the outputs stay to the end.
    EXPECT_EQ(build_program_profile(f, fwd),
              (std::vector<std::int64_t>{5120, 13824, 13312, 21504, 21504, 21504, 21504}));
    // With every device the CPU buffer counts from kernel 1's alloc to its free.
    EXPECT_EQ(build_program_profile(f, fwd, DeviceFilter::All),
              (std::vector<std::int64_t>{5120, 13824, 13312, 21604, 21504, 21504, 21504}));
}

TEST(ProgramProfile, BackwardByHand) {
    const GraphFile f = program_pair();
    // 0: primals_2 1024 + mm 8192 + tangents_1 8192. Kernel 0: buf0 takes tangents_1 over (+0),
    // then mm is freed. Kernel 1: + buf1 1024, then buf0 8192 and primals_2 1024 are freed.
    EXPECT_EQ(build_program_profile(f, graph_named(f, "bwd")),
              (std::vector<std::int64_t>{17408, 17408, 9216, 10240, 1024}));
}

TEST(ProgramLive, ForwardAtChosenSteps) {
    const GraphFile f = program_pair();
    const ProgramLiveIndex index(f, graph_named(f, "fwd"));
    ASSERT_EQ(index.profile_size(), 7u);
    // After kernel 0's alloc: buf0 8192, primals_1 4096, primals_2 1024, workspace 512.
    std::vector<LiveBuffer> live = index.live_at(1);
    EXPECT_EQ(buffers_of(live), (std::vector<std::uint32_t>{2, 0, 1, 5}));
    EXPECT_EQ(live[3].nbytes, 512);
    EXPECT_EQ(live[3].alloc_kernel, 0u);
    EXPECT_EQ(live[3].free_kernel, 0u);
    EXPECT_EQ(live[3].alloc_step, 1);
    EXPECT_EQ(live[3].free_step, 2);
    EXPECT_FALSE(live[1].alloc_kernel); // an input
    EXPECT_EQ(live[1].alloc_step, 0);
    EXPECT_FALSE(live[1].free_step);
    // After kernel 1's alloc: buf1 is live (ties by size keep buffer order), buf3 is on the CPU.
    live = index.live_at(3);
    EXPECT_EQ(buffers_of(live), (std::vector<std::uint32_t>{2, 3, 0, 1}));
    EXPECT_EQ(live[1].taken_over_by, 4u);
    EXPECT_FALSE(live[1].free_kernel);
    EXPECT_EQ(live[1].free_step, 5);
    // After kernel 2's alloc buf2 holds buf1's allocation.
    live = index.live_at(5);
    EXPECT_EQ(buffers_of(live), (std::vector<std::uint32_t>{2, 4, 0, 1}));
    EXPECT_EQ(live[1].alloc_kernel, 2u);
    EXPECT_EQ(live[1].alloc_step, 5);
    EXPECT_FALSE(live[1].free_step);
    EXPECT_EQ(index.kernel_at(5), 2u);
    EXPECT_FALSE(index.kernel_at(0));
    EXPECT_TRUE(index.live_at(7).empty());
    const ProgramLiveIndex all(f, graph_named(f, "fwd"), DeviceFilter::All);
    EXPECT_EQ(buffers_of(all.live_at(3)), (std::vector<std::uint32_t>{2, 3, 0, 1, 6}));
    EXPECT_EQ(all.live_at(3).back().free_step, 4);
    EXPECT_EQ(buffers_of(all.live_at(4)), (std::vector<std::uint32_t>{2, 3, 0, 1}));
}

TEST(ProgramLive, BackwardAtChosenSteps) {
    const GraphFile f = program_pair();
    const ProgramLiveIndex index(f, graph_named(f, "bwd"));
    EXPECT_EQ(buffers_of(index.live_at(0)), (std::vector<std::uint32_t>{1, 2, 0}));
    EXPECT_EQ(index.live_at(0)[1].taken_over_by, 3u);
    EXPECT_EQ(index.live_at(0)[1].free_step, 1);
    EXPECT_EQ(buffers_of(index.live_at(1)), (std::vector<std::uint32_t>{1, 3, 0}));
    EXPECT_EQ(buffers_of(index.live_at(2)), (std::vector<std::uint32_t>{3, 0}));
    EXPECT_EQ(buffers_of(index.live_at(3)), (std::vector<std::uint32_t>{3, 0, 4}));
    EXPECT_EQ(index.live_at(3)[0].free_kernel, 1u);
    EXPECT_EQ(buffers_of(index.live_at(4)), (std::vector<std::uint32_t>{4}));
}

TEST(ProgramLive, LiveBytesAddUpToTheProfileEverywhere) {
    const GraphFile f = program_pair();
    for (const char* name : {"fwd", "bwd"})
        for (const DeviceFilter d : {DeviceFilter::NonCpu, DeviceFilter::All}) {
            const ProgramLiveIndex index(f, graph_named(f, name), d);
            for (std::size_t i = 0; i < index.profile_size(); ++i) {
                std::int64_t sum = 0;
                for (const LiveBuffer& b : index.live_at(i)) sum += b.nbytes;
                EXPECT_EQ(sum, index.profile()[i]) << name << " at " << i;
            }
        }
}

TEST(ProgramLive, BlocksFollowReuses) {
    const GraphFile f = program_pair();
    const auto blocks = [&](const char* name) {
        std::vector<std::vector<std::int64_t>> out;
        const ProgramLiveIndex index(f, graph_named(f, name));
        for (const ProgramBlock& b : index.blocks()) out.push_back({b.buffer, b.nbytes, b.stream, b.begin, b.end});
        return out;
    };
    // buf1's block runs on through buf2 to the end; the CPU buffer is no block.
    EXPECT_EQ(blocks("fwd"),
              (std::vector<std::vector<std::int64_t>>{
                  {0, 4096, 0, 0, 7}, {1, 1024, 0, 0, 7}, {2, 8192, 0, 1, 7}, {5, 512, 0, 1, 2}, {3, 8192, 0, 3, 7}}));
    // tangents_1's block runs on through buf0, freed after kernel 1.
    EXPECT_EQ(blocks("bwd"), (std::vector<std::vector<std::int64_t>>{
                                 {0, 1024, 0, 0, 4}, {1, 8192, 0, 0, 2}, {2, 8192, 0, 0, 4}, {4, 1024, 1, 3, 5}}));
}

TEST(ProgramCheck, EachRuleByHand) {
    HandProgram h;
    const auto fault = [&](const Program& p) {
        const std::optional<ProgramFault> got = check_program(h.file, h.graph, p);
        return got ? got->place() + ": " + got->what : std::string("none");
    };
    Program p;
    p.target = "cuda";
    p.buffers = {HandProgram::buffer("x", 0, 64, true), HandProgram::buffer("b", 0, 64),
                 HandProgram::buffer("c", 0, 64)};
    p.buffers[2].reuses = 1;
    Program ok = p;
    HandProgram::kernel(ok, {1}, {0});
    HandProgram::kernel(ok, {2}, {2});
    EXPECT_EQ(fault(ok), "none");

    Program twice = p;
    HandProgram::kernel(twice, {1}, {});
    HandProgram::kernel(twice, {1}, {});
    EXPECT_EQ(fault(twice), "program.kernels[1]: buffer 1 ('b') becomes live twice");
    Program input = p;
    HandProgram::kernel(input, {0}, {});
    EXPECT_EQ(fault(input), "program.kernels[0]: buffer 0 ('x') is an input, allocated by no kernel");
    Program freed_twice = p;
    HandProgram::kernel(freed_twice, {}, {0});
    HandProgram::kernel(freed_twice, {}, {0});
    EXPECT_EQ(fault(freed_twice), "program.kernels[1]: buffer 0 ('x') freed twice");
    Program unborn = p;
    HandProgram::kernel(unborn, {}, {1});
    EXPECT_EQ(fault(unborn), "program.kernels[0]: buffer 1 ('b') freed before it is live");
    Program dead_reuse = p;
    HandProgram::kernel(dead_reuse, {1}, {1});
    HandProgram::kernel(dead_reuse, {2}, {});
    EXPECT_EQ(fault(dead_reuse), "program.kernels[1]: buffer 2 ('c') reuses buffer 1 ('b'), which is not live");
    Program taken = p;
    HandProgram::kernel(taken, {1}, {});
    HandProgram::kernel(taken, {2}, {1});
    EXPECT_EQ(
        fault(taken),
        "program.kernels[1]: buffer 1 ('b') freed after buffer 2 ('c') took its allocation over (the reuse frees it)");
    Program range = p;
    HandProgram::kernel(range, {3}, {});
    EXPECT_EQ(fault(range), "program.kernels[0]: 'alloc'[0] is 3, but the program has 3 buffers");

    Program size = p;
    size.buffers[2].nbytes = 32;
    EXPECT_EQ(fault(size), "program.buffers[2]: reuses buffer 1 ('b') of 64 bytes on cuda:0, but has 32 bytes on "
                           "cuda:0 (a reuse takes over the same device and size)");
    Program later = p;
    later.buffers[1].reuses = 2;
    EXPECT_EQ(fault(later), "program.buffers[1]: 'reuses' must name an earlier buffer, got 2");
    Program dup = p;
    dup.buffers[2].name = "b";
    EXPECT_EQ(fault(dup), "program.buffers[2]: duplicate buffer name 'b' (program.buffers[1] has it too)");
    Program device = p;
    device.buffers[1].device = 5;
    EXPECT_EQ(fault(device), "program.buffers[1]: device index 5 is not one of the file's 1 devices");
    Program node = p;
    const NodeId missing[] = {NodeId(3)};
    node.buffers[1].nodes = node.add_nodes(missing);
    EXPECT_EQ(fault(node), "program.buffers[1]: node id 3 is not a node of the graph (it has 3)");

    // set_program refuses a faulty program, naming the file and the graph, and leaves none set.
    EXPECT_EQ(error_of([&] { set_program(h.file, h.graph, twice); }),
              "hand.json: graph 'g', program.kernels[1]: buffer 1 ('b') becomes live twice");
    EXPECT_FALSE(h.file.graphs[0].program);
    set_program(h.file, h.graph, ok);
    // x 64; kernel 0: + b, - x; kernel 1: c takes b over, then c is freed.
    EXPECT_EQ(build_program_profile(h.file, h.graph), (std::vector<std::int64_t>{64, 128, 64, 64, 0}));
}

// An index refuses a program set behind check_program's back instead of reading out of bounds.
TEST(ProgramCheck, AnUncheckedProgramIsAnError) {
    HandProgram h;
    auto p = std::make_shared<Program>();
    p->buffers = {HandProgram::buffer("b", 0, 64)};
    HandProgram::kernel(*p, {4}, {});
    h.file.graphs[0].program = p;
    EXPECT_EQ(error_of([&] { ProgramLiveIndex(h.file, h.graph); }),
              "hand.json: graph 'g', program.kernels[0]: 'alloc'[0] is 4, but the program has 1 buffer");
}

TEST(ProgramWriter, RoundTripKeepsEveryField) {
    const GraphFile f = program_pair();
    const std::string text = to_json(f);
    const GraphFile back = load_buffer(text, "back.json");
    EXPECT_EQ(to_json(back), text);
    for (std::size_t g = 0; g < f.graphs.size(); ++g) {
        const Program& a = *f.graphs[g].program;
        const Program& b = *back.graphs[g].program;
        EXPECT_EQ(a.target, b.target);
        EXPECT_EQ(a.source, b.source);
        ASSERT_EQ(a.buffers.size(), b.buffers.size());
        for (std::size_t i = 0; i < a.buffers.size(); ++i) {
            const ProgramBuffer &x = a.buffers[i], &y = b.buffers[i];
            EXPECT_EQ(x.name, y.name);
            EXPECT_EQ(f.devices[x.device], back.devices[y.device]);
            EXPECT_EQ(x.nbytes, y.nbytes);
            EXPECT_EQ(x.input, y.input);
            EXPECT_EQ(x.kind, y.kind);
            EXPECT_EQ(x.reuses, y.reuses);
            EXPECT_EQ(x.stream, y.stream);
            EXPECT_EQ(std::vector<NodeId>(a.nodes(x).begin(), a.nodes(x).end()),
                      std::vector<NodeId>(b.nodes(y).begin(), b.nodes(y).end()));
        }
        ASSERT_EQ(a.kernels.size(), b.kernels.size());
        for (std::size_t k = 0; k < a.kernels.size(); ++k) {
            const ProgramKernel &x = a.kernels[k], &y = b.kernels[k];
            EXPECT_EQ(x.name, y.name);
            EXPECT_EQ(std::vector<NodeId>(a.nodes(x).begin(), a.nodes(x).end()),
                      std::vector<NodeId>(b.nodes(y).begin(), b.nodes(y).end()));
            EXPECT_EQ(std::vector<std::uint32_t>(a.allocs(x).begin(), a.allocs(x).end()),
                      std::vector<std::uint32_t>(b.allocs(y).begin(), b.allocs(y).end()));
            EXPECT_EQ(std::vector<std::uint32_t>(a.frees(x).begin(), a.frees(x).end()),
                      std::vector<std::uint32_t>(b.frees(y).begin(), b.frees(y).end()));
        }
    }
    EXPECT_EQ(build_program_profile(back, GraphId(0), DeviceFilter::All),
              build_program_profile(f, GraphId(0), DeviceFilter::All));
}

namespace {

// s0 (hint 4, at least 2): x and b are 16*s0 bytes, c reuses b; `c_expr` is c's expression.
std::string symbolic_program(const std::string& c_expr) {
    return R"({"format": "fxmem", "version": 1,
      "symbols": [{"name": "s0", "hint": 4, "source": "L['x'].size()[0]", "min": 2, "max": null}],
      "storages": [{"id": 0, "device": "cuda:0", "nbytes": 64, "nbytes_expr": "16*s0"}],
      "graphs": [{"name": "g", "kind": "forward",
        "nodes": [{"name": "x", "op": "placeholder", "target": "x", "inputs": [],
                   "val": {"storage": 0, "dtype": "float32", "shape": [16], "stride": [1], "offset": 0}},
                  {"name": "output", "op": "output", "target": "output", "inputs": ["x"], "val": null}],
        "program": {"target": "cuda", "buffers": [
            {"name": "x", "device": "cuda:0", "nbytes": 64, "nbytes_expr": "16*s0", "input": true},
            {"name": "b", "device": "cuda:0", "nbytes": 64, "nbytes_expr": "16*s0"},
            {"name": "c", "device": "cuda:0", "nbytes": 64, "nbytes_expr": ")" +
           c_expr + R"(", "reuses": 1},
            {"name": "d", "device": "cuda:0", "nbytes": 8}],
          "kernels": [{"name": "k0", "alloc": [1], "free": []},
                      {"name": "k1", "alloc": [2, 3], "free": [3, 0]}]}}]})";
}

} // namespace

TEST(ProgramSymbolic, NbytesExprIsBound) {
    GraphFile f = load_buffer(symbolic_program("16*s0"), "sym.json");
    ASSERT_EQ(f.symbolic.buffer_sizes.size(), 3u);
    // At the hint: x 64; k0: + b 64; k1: c takes b over, + d 8, then - d, - x.
    EXPECT_EQ(build_program_profile(f, GraphId(0)), (std::vector<std::int64_t>{64, 128, 128, 136, 64}));
    const GraphFile before = f; // shares the program with f until the binding replaces f's
    bind_sizes(f, SizeBinding{{10}});
    EXPECT_EQ(build_program_profile(f, GraphId(0)), (std::vector<std::int64_t>{160, 320, 320, 328, 160}));
    EXPECT_EQ(build_program_profile(before, GraphId(0)), (std::vector<std::int64_t>{64, 128, 128, 136, 64}));
    // Written as bound: the ints at s0 = 10 and the expressions as read.
    const std::string text = to_json(f);
    EXPECT_NE(text.find(R"("name": "c", "device": "cuda:0", "nbytes": 160, "nbytes_expr": "16*s0")"), std::string::npos)
        << text;
    const GraphFile back = load_buffer(text, "back.json");
    EXPECT_EQ(build_program_profile(back, GraphId(0)), (std::vector<std::int64_t>{160, 320, 320, 328, 160}));
}

TEST(ProgramSymbolic, ABindingThatSplitsAReuseIsRefused) {
    // c's size agrees with b's at the hint only.
    GraphFile f = load_buffer(symbolic_program("64"), "sym.json");
    EXPECT_EQ(error_of([&] { bind_sizes(f, SizeBinding{{5}}); }),
              "sym.json: graph 'g', program.buffers[2]: reuses buffer 1 ('b') of 80 bytes on cuda:0, but has 64 "
              "bytes on cuda:0 (a reuse takes over the same device and size) at s0=5");
    // The file is left as it was.
    EXPECT_EQ(f.graphs[0].program->buffers[1].nbytes, 64);
    EXPECT_EQ(f.storages[0].nbytes, 64);
}

TEST(ProgramSymbolic, ANegativeSizeIsRefused) {
    std::string text = symbolic_program("16*s0");
    text.replace(text.find(R"("name": "b", "device": "cuda:0", "nbytes": 64, "nbytes_expr": "16*s0")"),
                 std::string(R"("name": "b", "device": "cuda:0", "nbytes": 64, "nbytes_expr": "16*s0")").size(),
                 R"("name": "b", "device": "cuda:0", "nbytes": 64, "nbytes_expr": "80 - 4*s0")");
    text.replace(text.find(R"("nbytes_expr": "16*s0", "reuses")"),
                 std::string(R"("nbytes_expr": "16*s0", "reuses")").size(), R"("nbytes_expr": "80 - 4*s0", "reuses")");
    GraphFile f = load_buffer(text, "sym.json");
    EXPECT_EQ(error_of([&] { bind_sizes(f, SizeBinding{{21}}); }),
              "sym.json: graph 'g', program.buffers[1]: 'nbytes_expr' '80 - 4*s0' is -4 (negative) at s0=21");
}
