// Which layout each graph of the scene is drawn in: the scene's own, except segment 0 while the
// edited schedule orders the scene's single graph; then the schedule's current layout, held here
// because the schedule may replace it while it is painted.
#pragma once
#include "graphview/graphmodules.h"
#include "graphview/hittest.h"
#include "loading/scene.h"

#include <fxmem/layout.h>

#include <cstdint>
#include <memory>
#include <vector>

class EditedSchedule;

class SceneLayouts {
public:
    // Takes the scene and the schedule's layout as they are now (after a move or a new scene).
    void update(const Scene* scene, const EditedSchedule* schedule);
    // Segment 0's nodes can be dragged: a single graph that the schedule edits.
    bool editable() const;
    // The edited layout of segment 0, or null while it is not edited.
    const fxmem::GraphLayout* edited() const { return edited_.get(); }
    const fxmem::GraphLayout& of(int segment) const;
    // The global step of a node (-1: none).
    std::int64_t stepOf(NodeRef ref) const;
    // The most lanes of any graph (at least 1).
    std::int32_t lanes() const;
    std::vector<const fxmem::GraphLayout*> all() const;
    std::vector<HitSegment> hitSegments(const GraphModules& modules) const;

private:
    const Scene* scene_ = nullptr;
    const EditedSchedule* schedule_ = nullptr;
    std::shared_ptr<const fxmem::GraphLayout> edited_;
};
