// A six-node graph "g" with its MemoryTracker values worked out by hand, shared by the core
// tests of profiles and order comparison and the UI tests of the schedule editor.
//
//   step 0  x       placeholder      allocates s0 (100 B)     live from the start: 100
//   step 1  a  = relu(x)             +1000 -> 1100            frees nothing (b still needs x)  1100
//   step 2  b  = mul(x)              +2000 -> 3100 (peak)     frees x (100)                     3000
//   step 3  c  = add(a)              +10   -> 3010            frees a (1000)                    2010
//   step 4  d  = add(b, c)           +20   -> 2030            frees b, c (2010)                 20
//   step 5  output(d)                changes nothing                                            20
//   profile = [100, 1100,1100, 3100,3000, 3010,2010, 2030,20], peak 3100 at profile index 3.
// Moving c to step 2 (x, a, c, b, d, output):
//   a 1100/1100; c 1110, frees a -> 110; b 2110 (peak), frees x -> 2010; d 2030 -> 20
//   profile = [100, 1100,1100, 1110,110, 2110,2010, 2030,20], peak 2110 at index 5: -990 B.
#pragma once
#include "fxmem/model.h"

namespace fxmem_test {

// Adds "g" (storage ids 0..4) to `file`.
inline const fxmem::Graph& add_small_graph(fxmem::GraphFile& file) {
    using fxmem::OpKind;
    const fxmem::StorageId s0 = file.add_storage(0, "cuda:0", 100), s1 = file.add_storage(1, "cuda:0", 1000),
                           s2 = file.add_storage(2, "cuda:0", 2000), s3 = file.add_storage(3, "cuda:0", 10),
                           s4 = file.add_storage(4, "cuda:0", 20);
    fxmem::GraphBuilder b(file, "g", fxmem::GraphKind::Inference);
    b.add("x", OpKind::Placeholder, "x", {}, {s0});
    b.add("a", OpKind::CallFunction, "aten.relu.default", {"x"}, {s1});
    b.add("b", OpKind::CallFunction, "aten.mul.Tensor", {"x"}, {s2});
    b.add("c", OpKind::CallFunction, "aten.add.Tensor", {"a"}, {s3});
    b.add("d", OpKind::CallFunction, "aten.add.Tensor", {"b", "c"}, {s4});
    b.add("output", OpKind::Output, "output", {"d"}, {});
    return b.finish();
}

} // namespace fxmem_test
