// Graphs for the schedule editor tests. Storages are on "cuda:0" (all counted) unless named.
//
// Graph "g", original order and MemoryTracker values worked out by hand:
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
// Graph "h" is another small graph of the same file (for "schedule of another graph").
#pragma once
#include "analysis/graphanalysis.h"

#include <fxmem/model.h>

#include <memory>
#include <vector>

namespace schedtest {

inline const std::vector<std::int64_t> kOriginalProfile = {100, 1100, 1100, 3100, 3000, 3010, 2010, 2030, 20};
inline const std::vector<std::int64_t> kMovedProfile = {100, 1100, 1100, 1110, 110, 2110, 2010, 2030, 20};

inline std::shared_ptr<fxmem::GraphFile> smallFile() {
    using fxmem::OpKind;
    auto file = std::make_shared<fxmem::GraphFile>();
    file->source = "schedule-test";
    const fxmem::StorageId s0 = file->add_storage(0, "cuda:0", 100);
    const fxmem::StorageId s1 = file->add_storage(1, "cuda:0", 1000);
    const fxmem::StorageId s2 = file->add_storage(2, "cuda:0", 2000);
    const fxmem::StorageId s3 = file->add_storage(3, "cuda:0", 10);
    const fxmem::StorageId s4 = file->add_storage(4, "cuda:0", 20);
    {
        fxmem::GraphBuilder b(*file, "g", fxmem::GraphKind::Inference);
        b.add("x", OpKind::Placeholder, "x", {}, {s0});
        b.add("a", OpKind::CallFunction, "aten.relu.default", {"x"}, {s1});
        b.add("b", OpKind::CallFunction, "aten.mul.Tensor", {"x"}, {s2});
        b.add("c", OpKind::CallFunction, "aten.add.Tensor", {"a"}, {s3});
        b.add("d", OpKind::CallFunction, "aten.add.Tensor", {"b", "c"}, {s4});
        b.add("output", OpKind::Output, "output", {"d"}, {});
        b.finish();
    }
    const fxmem::StorageId t0 = file->add_storage(10, "cuda:0", 8);
    const fxmem::StorageId t1 = file->add_storage(11, "cuda:0", 16);
    {
        fxmem::GraphBuilder b(*file, "h", fxmem::GraphKind::Inference);
        b.add("y", OpKind::Placeholder, "y", {}, {t0});
        b.add("e", OpKind::CallFunction, "aten.neg.default", {"y"}, {t1});
        b.add("output", OpKind::Output, "output", {"e"}, {});
        b.finish();
    }
    return file;
}

inline std::shared_ptr<const GraphAnalysis> smallAnalysis(int graph = 0) {
    return GraphAnalysis::compute(smallFile(), graph);
}

} // namespace schedtest
