// The per-node marks the graph view draws over its nodes: live at the cursor, search matches and
// recomputed activations, one byte per node and segment (what prepareVisibleItems reads), with a
// generation for each kind so that the prepared items know when they are stale.
#pragma once
#include "loading/scene.h"

#include <cstdint>
#include <vector>

class NodeMarks {
public:
    // Every mark cleared, sized for the scene's segments (none without a scene).
    void reset(const Scene* scene);
    // Only the nodes that changed are touched: a cursor step costs the two live sets.
    void setLive(std::vector<NodeRef> nodes);
    void setMatches(const std::vector<NodeRef>& matches);
    void setRecomputed(const std::vector<NodeRef>& nodes);
    bool recomputed(NodeRef ref) const;
    bool isLive(NodeRef ref) const;

    const std::vector<std::uint8_t>& live(std::size_t segment) const { return live_[segment]; }
    const std::vector<std::uint8_t>& matches(std::size_t segment) const { return match_[segment]; }
    const std::vector<std::uint8_t>& recomputed(std::size_t segment) const { return recomputed_[segment]; }
    std::uint64_t liveGeneration() const { return liveGen_; }
    // Matches and recomputed marks (outside the live set: they make the prepared items stale).
    std::uint64_t otherGeneration() const { return otherGen_; }

private:
    std::vector<std::vector<std::uint8_t>> live_, match_, recomputed_; // per segment, per node
    std::vector<NodeRef> liveNodes_;
    std::uint64_t liveGen_ = 0, otherGen_ = 0;
};
