// Small hand-built graphs shared by the estimator, tracker, schedule, liveset and incremental
// tests. Every size is chosen so that sums are easy to check by hand.
#pragma once
#include "fxmem/estimator.h"
#include "fxmem/model.h"

#include <string_view>
#include <vector>

namespace fxmem::testing {

// G1 ("g1"): views, a mid-graph get_attr, a CPU storage, a primal, an unused storage and
// storages that reach the output.
//   node         op             inputs          outputs (bytes)
//   0 primals_1  placeholder    -               P0 100
//   1 x          placeholder    -               P1 10
//   2 a          call_function  primals_1, x   A 200
//   3 v          call_function  a               A (a view: allocates nothing)
//   4 w          get_attr       -               W 1000 (mid-graph: still allocated at the start)
//   5 b          call_function  v, w            B 30
//   6 c          call_function  b               C 5000 on cpu
//   7 d          call_function  c, x            D 7
//   8 e          call_function  a               E 11 (nobody uses E)
//   9 output     output         d, b            -
struct G1 {
    GraphFile file;
    StorageId P0, P1, A, W, B, C, D, E;
    const Graph* graph = nullptr;
    G1() {
        file.source = "g1.json";
        P0 = file.add_storage(10, "cuda:0", 100);
        P1 = file.add_storage(11, "cuda:0", 10);
        A = file.add_storage(12, "cuda:0", 200);
        W = file.add_storage(13, "cuda:0", 1000);
        B = file.add_storage(14, "cuda:0", 30);
        C = file.add_storage(15, "cpu", 5000);
        D = file.add_storage(16, "cuda:0", 7);
        E = file.add_storage(17, "cuda:0", 11);
        GraphBuilder b(file, "g1", GraphKind::Forward);
        b.add("primals_1", OpKind::Placeholder, "primals_1", {}, {P0});
        b.add("x", OpKind::Placeholder, "x", {}, {P1});
        b.add("a", OpKind::CallFunction, "aten.add", {"primals_1", "x"}, {A});
        b.add("v", OpKind::CallFunction, "aten.view", {"a"}, {A});
        b.add("w", OpKind::GetAttr, "weight", {}, {W});
        b.add("b", OpKind::CallFunction, "aten.mm", {"v", "w"}, {B});
        b.add("c", OpKind::CallFunction, "aten._to_copy", {"b"}, {C});
        b.add("d", OpKind::CallFunction, "aten.mul", {"c", "x"}, {D});
        b.add("e", OpKind::CallFunction, "aten.neg", {"a"}, {E});
        b.add("output", OpKind::Output, "output", {"d", "b"}, {});
        graph = &b.finish();
    }
    NodeId id(std::string_view name) const { return graph->find(name); }
    std::vector<NodeId> order(std::initializer_list<std::string_view> names) const {
        std::vector<NodeId> out;
        for (auto n : names) out.push_back(id(n));
        return out;
    }
};

// G2 ("g2"): a multi-output node and a getitem that uses all of its elements.
//   0 x       placeholder    -    S3 8
//   1 m       call_function  x    [S1 40, S2 60]
//   2 g0      call_function  m    S1 (getitem 0: a view of element 0; uses S1 and S2)
//   3 r       call_function  g0   S4 16
//   4 output  output         r    -
struct G2 {
    GraphFile file;
    StorageId S1, S2, S3, S4;
    const Graph* graph = nullptr;
    G2() {
        file.source = "g2.json";
        S1 = file.add_storage(1, "cuda:0", 40);
        S2 = file.add_storage(2, "cuda:0", 60);
        S3 = file.add_storage(3, "cuda:0", 8);
        S4 = file.add_storage(4, "cuda:0", 16);
        GraphBuilder b(file, "g2", GraphKind::Inference);
        b.add("x", OpKind::Placeholder, "x", {}, {S3});
        b.add("m", OpKind::CallFunction, "aten.split", {"x"}, {S1, S2});
        b.add("g0", OpKind::CallFunction, "getitem", {"m"}, {S1});
        b.add("r", OpKind::CallFunction, "aten.relu", {"g0"}, {S4});
        b.add("output", OpKind::Output, "output", {"r"}, {});
        graph = &b.finish();
    }
};

// Pair ("fwd", "bwd"):
//   forward: primals_1 -> w1 400, primals_2 -> inp 40, h = mm(primals_1, primals_2) -> h 100,
//            s = relu(h) -> saved 20, c = to_cpu(s) -> cpuS 8 (cpu), o = sum(s) -> out 12,
//            c2 = to_cpu(o) -> cpu2 1000 (cpu), k = neg(h) -> keep 30,
//            output(o, s, primals_1, c, k, c2)
//   backward: primals_1 -> w1 (holds a primal), relu_saved -> saved, tangents_1 -> tan 12 (new),
//             cpu_in -> cpuS, sym (val null), g = mul(tangents_1, relu_saved) -> grad 20,
//             gw = mm(g, primals_1) -> gradw 400, output(gw, cpu_in)
struct PairFixture {
    GraphFile file;
    StorageId w1, inp, h, saved, cpuS, out, cpu2, keep, tan, grad, gradw;
    const Graph* fwd = nullptr;
    const Graph* bwd = nullptr;
    PairFixture() {
        file.source = "pair.json";
        w1 = file.add_storage(0, "cuda:0", 400);
        inp = file.add_storage(1, "cuda:0", 40);
        h = file.add_storage(2, "cuda:0", 100);
        saved = file.add_storage(3, "cuda:0", 20);
        cpuS = file.add_storage(4, "cpu", 8);
        out = file.add_storage(5, "cuda:0", 12);
        cpu2 = file.add_storage(6, "cpu", 1000);
        keep = file.add_storage(7, "cuda:0", 30);
        tan = file.add_storage(8, "cuda:0", 12);
        grad = file.add_storage(9, "cuda:0", 20);
        gradw = file.add_storage(10, "cuda:0", 400);
        {
            GraphBuilder b(file, "fwd", GraphKind::Forward);
            b.add("primals_1", OpKind::Placeholder, "primals_1", {}, {w1});
            b.add("primals_2", OpKind::Placeholder, "primals_2", {}, {inp});
            b.add("h", OpKind::CallFunction, "aten.mm", {"primals_1", "primals_2"}, {h});
            b.add("s", OpKind::CallFunction, "aten.relu", {"h"}, {saved});
            b.add("c", OpKind::CallFunction, "aten._to_copy", {"s"}, {cpuS});
            b.add("o", OpKind::CallFunction, "aten.sum", {"s"}, {out});
            b.add("c2", OpKind::CallFunction, "aten._to_copy", {"o"}, {cpu2});
            b.add("k", OpKind::CallFunction, "aten.neg", {"h"}, {keep});
            b.add("output", OpKind::Output, "output", {"o", "s", "primals_1", "c", "k", "c2"}, {});
            b.finish();
        }
        {
            GraphBuilder b(file, "bwd", GraphKind::Backward);
            b.add("primals_1", OpKind::Placeholder, "primals_1", {}, {w1});
            b.add("relu_saved", OpKind::Placeholder, "relu_saved", {}, {saved});
            b.add("tangents_1", OpKind::Placeholder, "tangents_1", {}, {tan});
            b.add("cpu_in", OpKind::Placeholder, "cpu_in", {}, {cpuS});
            b.add("sym", OpKind::Placeholder, "sym", {}, {});
            b.add("g", OpKind::CallFunction, "aten.mul", {"tangents_1", "relu_saved"}, {grad});
            b.add("gw", OpKind::CallFunction, "aten.mm", {"g", "primals_1"}, {gradw});
            b.add("output", OpKind::Output, "output", {"gw", "cpu_in"}, {});
            b.finish();
        }
        fwd = &file.graphs[0];
        bwd = &file.graphs[1];
        file.add_pair("fwd", "bwd");
    }
};

} // namespace fxmem::testing
