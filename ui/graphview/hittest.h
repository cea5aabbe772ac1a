// What lies under a point of the graph view: the nearest node, a module band or collapsed box,
// a collective's span. Plain functions of the layouts and the viewport (or of the items a paint
// would draw), so the view's input and tooltips ask the same questions as the tests.
#pragma once
#include "graphview/modulegroups.h"
#include "graphview/viewport.h"
#include "graphview/visibleitems.h"
#include "loading/scene.h"

#include <fxmem/layout.h>

#include <QPoint>

#include <cstdint>
#include <span>
#include <utility>

// One graph of the scene as hit tests and navigation see it (segment 0 may be edited).
struct HitSegment {
    const fxmem::GraphLayout* layout = nullptr;
    std::int64_t offset = 0;              // global step of the graph's step 0
    const ModuleGroups* groups = nullptr; // null: the graph has no modules
};

// The node nearest to pos within 3 pixels (or the pointer's own lane when lanes are taller);
// nodes hidden in collapsed modules are skipped. Invalid when none.
NodeRef hitNode(std::span<const HitSegment> segments, const GraphViewport& view, QPoint pos);
// The module band or collapsed module box at pos: {segment, tree index}, or {-1, npos}.
std::pair<int, std::uint32_t> hitModule(const VisibleItems& items, QPoint pos);
// The collective's span at pos (a couple of pixels of slack), or null.
const VisibleItems::Span* hitSpan(const VisibleItems& items, QPoint pos);
