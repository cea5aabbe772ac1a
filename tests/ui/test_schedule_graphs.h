// Graphs for the schedule editor tests. Storages are on "cuda:0" (all counted) unless named.
//
// Graph "g" is tests/common/small_graph.h (its comment works out its profiles by hand).
// Graph "h" is another small graph of the same file (for "schedule of another graph").
#pragma once
#include "analysis/graphanalysis.h"

#include <fxmem/model.h>

#include "../common/small_graph.h"

#include <initializer_list>
#include <memory>
#include <vector>

namespace schedtest {

inline const std::vector<std::int64_t> kOriginalProfile = {100, 1100, 1100, 3100, 3000, 3010, 2010, 2030, 20};
inline const std::vector<std::int64_t> kMovedProfile = {100, 1100, 1100, 1110, 110, 2110, 2010, 2030, 20};

inline std::vector<fxmem::NodeId> ids(std::initializer_list<int> values) {
    std::vector<fxmem::NodeId> out;
    for (int v : values) out.emplace_back(v);
    return out;
}

// Orders of g: its own (x a b c d output), and c before b (peak 2110, down from 3100).
inline const std::vector<fxmem::NodeId> kOriginal = ids({0, 1, 2, 3, 4, 5});
inline const std::vector<fxmem::NodeId> kMoved = ids({0, 1, 3, 2, 4, 5});

inline std::shared_ptr<fxmem::GraphFile> smallFile() {
    using fxmem::OpKind;
    auto file = std::make_shared<fxmem::GraphFile>();
    file->source = "schedule-test";
    fxmem_test::add_small_graph(*file);
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
    return GraphAnalysis::compute(smallFile(), fxmem::GraphId(graph));
}

} // namespace schedtest
