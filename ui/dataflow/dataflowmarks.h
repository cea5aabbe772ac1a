// What the Dataflow mode marks at the cursor step: the node running there, the nodes holding a
// live storage (the segment's own live set, and the placeholders that read what it carries from
// before), the edges leaving them and each module's live bytes. A plain function of the scene,
// the layouts and the live set the views show (ViewState::shownLive), so a test can call it
// and the view computes nothing the live table would compute differently.
#pragma once
#include "analysis/liveatstep.h"
#include "dataflow/dataflowlayouts.h"

#include <cstdint>
#include <vector>

struct DataflowMarks {
    int segment = -1;        // the cursor's segment, -1 outside every one
    fxmem::NodeId executing; // the node running at the cursor step
    std::uint32_t executingBox = DataflowLayouts::kNone;
    std::vector<std::uint8_t> liveNode;   // per node of the segment: holds a storage live at the step
    std::vector<std::uint8_t> liveBox;    // per box of the segment's drawing: draws such a node
    std::vector<std::uint8_t> liveEdge;   // per edge of the segment's drawing: leaves such a node
    std::vector<std::int64_t> moduleLive; // per tree module: bytes of its own storages live at the step

    // For the next step (updateDataflowMarks): the layouts' revision these were made for, the
    // entries set above, and the segment's placeholders.
    std::uint64_t revision = 0;
    std::vector<std::uint32_t> setNodes, setBoxes, setEdges, placeholders;
    // Scratch of the live edges' search, kept to spare allocations: the live nodes by box, and a
    // stamp per box of the segment's drawing.
    std::vector<std::uint64_t> byBox;
    std::vector<std::uint32_t> stamp;
    std::uint32_t stampNow = 0;
};

// `executing`: the node at the cursor (ViewState::nodeAt of the located step; invalid: none).
// O(N + live · users + modules + live · depth).
DataflowMarks dataflowMarks(const Scene& scene, const DataflowLayouts& layouts, const LiveAtStep& live,
                            fxmem::NodeId executing);
// Makes `m` what dataflowMarks returns. Marks of the same segment and layouts revision (the
// cursor moved on) are changed by difference: only the entries they set are cleared, so a scrub
// step costs O(marked + live · users + modules + live · depth), not O(N + edges).
void updateDataflowMarks(DataflowMarks& m, const Scene& scene, const DataflowLayouts& layouts, const LiveAtStep& live,
                         fxmem::NodeId executing);
