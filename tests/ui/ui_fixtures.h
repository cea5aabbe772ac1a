// Small graphs built by hand for the UI tests, with their profiles worked out on paper.
#pragma once
#include <fxmem/error.h>
#include <fxmem/model.h>

#include "loading/sceneloader.h"

#include <QThread>

namespace fixtures {

using namespace fxmem;

// primals_1 (cuda 100) -> a (cuda 10) -> b (cuda 20) -> c (cpu 1000); output(b).
// Non-CPU profile: start 100 (primal); a +10 -> 110, frees nothing (primals are kept);
// b +20 -> 130, frees a's 10 -> 120; c allocates on CPU (not counted) -> 120, b reaches the
// output -> 120. Profile [100, 110, 110, 130, 120, 120, 120], peak 130 at step 3.
inline GraphFile chain() {
    GraphFile f;
    f.source = "chain.json";
    const StorageId s0 = f.add_storage(0, "cuda:0", 100), s1 = f.add_storage(1, "cuda:0", 10),
                    s2 = f.add_storage(2, "cuda:0", 20), s3 = f.add_storage(3, "cpu", 1000);
    GraphBuilder g(f, "chain", GraphKind::Inference);
    g.add("primals_1", OpKind::Placeholder, "primals_1", {}, {s0});
    g.add("a", OpKind::CallFunction, "aten.relu.default", {"primals_1"}, {s1});
    g.add("b", OpKind::CallFunction, "aten.mul.Tensor", {"a"}, {s2});
    g.add("c", OpKind::CallFunction, "aten._to_copy.default", {"b"}, {s3});
    g.add("output", OpKind::Output, "output", {"b"}, {});
    g.finish();
    return f;
}
inline const std::vector<std::int64_t> kChainProfile = {100, 110, 110, 130, 120, 120, 120};

// Forward: primals_1 (100) -> a (10) -> b (20); output(b, a): forward outputs s1, s2.
// Backward: tangents_1 (5, holds no forward output: do-not-delete), saved_a (holds s1),
// g = f(tangents_1, saved_a) (40); output(g). Baseline: s2 = 20 (no backward placeholder holds it).
// Forward profile [100, 110, 110, 130, 130]; backward [15, 55, 45] (+20 joined: [35, 75, 65]).
// Pair peak max(130, 20 + 55) = 130.
inline GraphFile pair() {
    GraphFile f;
    f.source = "pair.json";
    const StorageId s0 = f.add_storage(10, "cuda:0", 100), s1 = f.add_storage(11, "cuda:0", 10),
                    s2 = f.add_storage(12, "cuda:0", 20), s3 = f.add_storage(13, "cuda:0", 5),
                    s4 = f.add_storage(14, "cuda:0", 40);
    {
        GraphBuilder g(f, "fwd", GraphKind::Forward);
        g.add("primals_1", OpKind::Placeholder, "primals_1", {}, {s0});
        g.add("a", OpKind::CallFunction, "aten.relu.default", {"primals_1"}, {s1});
        g.add("b", OpKind::CallFunction, "aten.mul.Tensor", {"a"}, {s2});
        g.add("output", OpKind::Output, "output", {"b", "a"}, {});
        g.finish();
    }
    {
        GraphBuilder g(f, "bwd", GraphKind::Backward);
        g.add("tangents_1", OpKind::Placeholder, "tangents_1", {}, {s3});
        g.add("saved_a", OpKind::Placeholder, "saved_a", {}, {s1});
        g.add("g", OpKind::CallFunction, "aten.threshold_backward.default", {"tangents_1", "saved_a"}, {s4});
        g.add("output", OpKind::Output, "output", {"g"}, {});
        g.finish();
    }
    f.add_pair("fwd", "bwd");
    return f;
}
inline const std::vector<std::int64_t> kJoinedProfile = {100, 110, 110, 130, 130, 35, 75, 65};

// A pair whose backward can be reordered. Forward: primals_1 (100) -> f1 (10) -> f2 (20);
// output(f1, f2); profile [100, 110, 110, 130, 130], peak 130. Backward: tangents_1 (5,
// do-not-delete), saved_f1 (holds f1's storage: releasable), big (200) from tangents_1, small (30)
// from saved_f1, use_big (1) from big, use_small (1) from small; output(use_big, use_small).
// Baseline: f2's 20 (no backward placeholder holds it). Backward profile
// [15, 215, 215, 245, 235, 236, 36, 37, 7]: peak 245, pair peak max(130, 20 + 245) = 265.
// use_big right after big (position 4 -> 3): tracker peak 216, pair peak max(130, 20 + 216) = 236.
inline GraphFile pairReorder() {
    GraphFile f;
    f.source = "pair_reorder.json";
    const StorageId p = f.add_storage(0, "cuda:0", 100), f1 = f.add_storage(1, "cuda:0", 10),
                    f2 = f.add_storage(2, "cuda:0", 20), t = f.add_storage(3, "cuda:0", 5),
                    big = f.add_storage(4, "cuda:0", 200), small = f.add_storage(5, "cuda:0", 30),
                    ub = f.add_storage(6, "cuda:0", 1), us = f.add_storage(7, "cuda:0", 1);
    {
        GraphBuilder g(f, "fwd", GraphKind::Forward);
        g.add("primals_1", OpKind::Placeholder, "primals_1", {}, {p});
        g.add("f1", OpKind::CallFunction, "aten.relu.default", {"primals_1"}, {f1});
        g.add("f2", OpKind::CallFunction, "aten.relu.default", {"f1"}, {f2});
        g.add("output", OpKind::Output, "output", {"f1", "f2"}, {});
        g.finish();
    }
    {
        GraphBuilder g(f, "bwd", GraphKind::Backward);
        g.add("tangents_1", OpKind::Placeholder, "tangents_1", {}, {t});
        g.add("saved_f1", OpKind::Placeholder, "saved_f1", {}, {f1});
        g.add("big", OpKind::CallFunction, "aten.empty", {"tangents_1"}, {big});
        g.add("small", OpKind::CallFunction, "aten.empty", {"saved_f1"}, {small});
        g.add("use_big", OpKind::CallFunction, "aten.sum", {"big"}, {ub});
        g.add("use_small", OpKind::CallFunction, "aten.sum", {"small"}, {us});
        g.add("output", OpKind::Output, "output", {"use_big", "use_small"}, {});
        g.finish();
    }
    f.add_pair("fwd", "bwd");
    return f;
}

// Only CPU storages: nothing counts by default.
inline GraphFile cpuOnly() {
    GraphFile f;
    f.source = "cpu.json";
    const StorageId s0 = f.add_storage(0, "cpu", 64), s1 = f.add_storage(1, "cpu", 64);
    GraphBuilder g(f, "cpu", GraphKind::Inference);
    g.add("x", OpKind::Placeholder, "x", {}, {s0});
    g.add("y", OpKind::CallFunction, "aten.neg.default", {"x"}, {s1});
    g.add("output", OpKind::Output, "output", {"y"}, {});
    g.finish();
    return f;
}

// primals_1 (4, never freed) feeds big (100) and small (10); use_big and use_small (1 each) consume them.
// Original profile [4, 104, 104, 114, 114, 115, 15, 16, 6], peak 115. Moving use_big right after
// big (schedule position 3 -> 2) gives [4, 104, 104, 105, 5, 15, 15, 16, 6], peak 105.
inline GraphFile reorderable() {
    GraphFile f;
    f.source = "reorder.json";
    const StorageId sx = f.add_storage(0, "cuda:0", 4), sb = f.add_storage(1, "cuda:0", 100),
                    ss = f.add_storage(2, "cuda:0", 10), ub = f.add_storage(3, "cuda:0", 1),
                    us = f.add_storage(4, "cuda:0", 1);
    GraphBuilder g(f, "reorder", GraphKind::Inference);
    g.add("primals_1", OpKind::Placeholder, "primals_1", {}, {sx});
    g.add("big", OpKind::CallFunction, "aten.empty", {"primals_1"}, {sb});
    g.add("small", OpKind::CallFunction, "aten.empty", {"primals_1"}, {ss});
    g.add("use_big", OpKind::CallFunction, "aten.sum", {"big"}, {ub});
    g.add("use_small", OpKind::CallFunction, "aten.sum", {"small"}, {us});
    g.add("output", OpKind::Output, "output", {"use_big", "use_small"}, {});
    g.finish();
    return f;
}

// A loader that serves the graphs above by name and fails like the real one otherwise.
inline FileLoader fakeLoader() {
    return [](const std::string& path, const LoadControl& control) -> GraphFile {
        throw_if_cancelled(control.cancelled);
        if (control.progress) control.progress(0.5);
        if (path.ends_with("chain.json")) return chain();
        if (path.ends_with("pair_reorder.json")) return pairReorder();
        if (path.ends_with("pair.json")) return pair();
        if (path.ends_with("cpu.json")) return cpuOnly();
        if (path.ends_with("reorder.json")) return reorderable();
        throw Error(path + ":3:7: expected '\"' to start a member name");
    };
}

} // namespace fixtures
