#include "graphview/nodemarks.h"

#include <algorithm>

void NodeMarks::reset(const Scene* scene) {
    liveNodes_.clear();
    live_.clear();
    match_.clear();
    recomputed_.clear();
    if (!scene) return;
    for (const Segment& seg : scene->segments) {
        live_.emplace_back(seg.analysis->graph().size(), 0);
        match_.emplace_back(seg.analysis->graph().size(), 0);
        recomputed_.emplace_back(seg.analysis->graph().size(), 0);
    }
}

void NodeMarks::setLive(std::vector<NodeRef> nodes) {
    for (const NodeRef& r : liveNodes_) live_[static_cast<std::size_t>(r.segment)][r.node.index()] = 0;
    liveNodes_ = std::move(nodes);
    for (const NodeRef& r : liveNodes_)
        if (r.valid()) live_[static_cast<std::size_t>(r.segment)][r.node.index()] = 1;
    std::erase_if(liveNodes_, [](const NodeRef& r) { return !r.valid(); });
    ++liveGen_;
}

void NodeMarks::setMatches(const std::vector<NodeRef>& matches) {
    for (auto& m : match_) std::fill(m.begin(), m.end(), 0);
    for (const NodeRef& r : matches)
        if (r.valid()) match_[static_cast<std::size_t>(r.segment)][r.node.index()] = 1;
    ++otherGen_;
}

void NodeMarks::setRecomputed(const std::vector<NodeRef>& nodes) {
    for (auto& m : recomputed_) std::fill(m.begin(), m.end(), 0);
    for (const NodeRef& r : nodes)
        if (r.valid() && static_cast<std::size_t>(r.segment) < recomputed_.size())
            recomputed_[static_cast<std::size_t>(r.segment)][r.node.index()] = 1;
    ++otherGen_;
}

bool NodeMarks::isLive(NodeRef ref) const {
    return ref.valid() && static_cast<std::size_t>(ref.segment) < live_.size() &&
           ref.node.index() < live_[static_cast<std::size_t>(ref.segment)].size() &&
           live_[static_cast<std::size_t>(ref.segment)][ref.node.index()] != 0;
}

bool NodeMarks::recomputed(NodeRef ref) const {
    return ref.valid() && static_cast<std::size_t>(ref.segment) < recomputed_.size() &&
           recomputed_[static_cast<std::size_t>(ref.segment)][ref.node.index()] != 0;
}
