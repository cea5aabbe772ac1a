// The storages live at a global step of a scene, as every view lists them (live table,
// breakdown): the segment's live set in the order shown, then, for the backward of a joined pair,
// the forward outputs its baseline keeps, or in the whole step every storage the segment carries
// (Timeline::carried, in that order), so the bytes add up to the plotted curve.
#pragma once
#include "analysis/orderedlive.h"
#include "loading/scene.h"

#include <fxmem/liveset.h>

#include <cstdint>
#include <vector>

// The live-set index a segment is shown in: the edited order's when `ordered` describes that
// segment of a single-graph scene (a joined pair is never edited), else the graph's own order.
const fxmem::LiveSetIndex& shownIndex(const Scene& scene, const Segment& segment, const OrderedLive* ordered);

struct LiveAtStep {
    Scene::Where where;                         // segment -1: outside every segment (live is empty)
    std::vector<fxmem::LiveStorage> live;       // largest first, then the baseline storages
    std::size_t baselineBegin = 0;              // live[baselineBegin, end) hold the baseline (the carried storages)
    std::vector<fxmem::CarriedStorage> carried; // the whole step: live[baselineBegin + k] is carried[k]
};

// The live set comes from shownIndex(scene, segment, ordered), the baseline from core's
// Timeline::live_at: the allocator and last user of the graph that made it, LiveReason::GraphOutput.
// O(log N + live).
LiveAtStep liveAtStep(const Scene& scene, const OrderedLive* ordered, std::int64_t globalStep);

// The segment whose graph made at.live[i] (its allocator is a node of that graph): the cursor's
// segment for its own live set, the joined pair's forward for the backward's baseline, in the
// whole step the run that made a carried storage, or -1 for what no run of the step made
// (parameters, optimizer state).
int madeInSegment(const Scene& scene, const LiveAtStep& at, std::size_t i);
// The allocators of at.live, each in the segment that made it (the cursor's when none did): what
// the graph view marks as holding a live storage, the live table's rows in the same order.
std::vector<NodeRef> liveProducers(const Scene& scene, const LiveAtStep& at);
