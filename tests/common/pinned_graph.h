// A matmul pinned by its own single-use view input, shared by the core and the UI tests of
// moving a node with its view inputs.
//
// primals_1 (100 B) and primals_2 (200 B), never freed; b = neg(primals_1) 10 B; a =
// relu(primals_1) 1000 B; t = t(primals_2), a view (no bytes); mm = mm(b, t) 50 B; output(a, mm).
// Order p1 p2 b a t mm output. MemoryTracker: start 300; b 310; a 1310; t 1310; mm 1360 (the
// peak), frees b -> 1350. With t and mm before a: 1350 (during a).
#pragma once
#include "fxmem/model.h"

namespace fxmem_test {

inline const fxmem::Graph& add_pinned_graph(fxmem::GraphFile& f) {
    using fxmem::OpKind;
    f.source = "pinned.json";
    const fxmem::StorageId P1 = f.add_storage(0, "cuda:0", 100), P2 = f.add_storage(1, "cuda:0", 200),
                           B = f.add_storage(2, "cuda:0", 10), A = f.add_storage(3, "cuda:0", 1000),
                           M = f.add_storage(4, "cuda:0", 50);
    fxmem::GraphBuilder b(f, "g", fxmem::GraphKind::Forward);
    b.add("primals_1", OpKind::Placeholder, "primals_1", {}, {P1});
    b.add("primals_2", OpKind::Placeholder, "primals_2", {}, {P2});
    b.add("b", OpKind::CallFunction, "aten.neg.default", {"primals_1"}, {B});
    b.add("a", OpKind::CallFunction, "aten.relu.default", {"primals_1"}, {A});
    b.add("t", OpKind::CallFunction, "aten.t.default", {"primals_2"}, {P2});
    b.add("mm", OpKind::CallFunction, "aten.mm.default", {"b", "t"}, {M});
    b.add("output", OpKind::Output, "output", {"a", "mm"}, {});
    return b.finish();
}

} // namespace fxmem_test
