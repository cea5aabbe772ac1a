// The storages live at a global step of a scene, as every view lists them (live table,
// breakdown): the segment's live set in the order shown, then, for the backward of a joined pair,
// the forward outputs its baseline keeps, so the bytes add up to the plotted curve.
#pragma once
#include "analysis/orderedlive.h"
#include "loading/scene.h"

#include <fxmem/liveset.h>

#include <cstdint>
#include <vector>

struct LiveAtStep {
    Scene::Where where;                    // segment -1: outside every segment (live is empty)
    std::vector<fxmem::LiveStorage> live;  // largest first, then the baseline storages
    std::size_t baselineBegin = 0;         // live[baselineBegin, end) hold the baseline
};

// `ordered`, when it describes that segment of a single-graph scene, gives the edited order's
// live set; otherwise the graph's own order. Baseline entries carry the forward's allocator and
// last user and LiveReason::GraphOutput. O(log N + live).
LiveAtStep liveAtStep(const Scene& scene, const OrderedLive* ordered, std::int64_t globalStep);
