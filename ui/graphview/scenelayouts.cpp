#include "graphview/scenelayouts.h"

#include "state/editedschedule.h"

#include <algorithm>

void SceneLayouts::update(const Scene* scene, const EditedSchedule* schedule) {
    scene_ = scene;
    schedule_ = schedule;
    edited_ = editable() ? schedule_->layout() : nullptr;
}

bool SceneLayouts::editable() const {
    return schedule_ && scene_ && !scene_->empty() && !scene_->joined() &&
           schedule_->analysis() == scene_->segments.front().analysis && schedule_->size() > 0;
}

const fxmem::GraphLayout& SceneLayouts::of(int segment) const {
    if (segment == 0 && editable())
        if (const fxmem::GraphLayout* edited = edited_.get()) return *edited;
    return *scene_->segments[static_cast<std::size_t>(segment)].layout;
}

std::int64_t SceneLayouts::stepOf(NodeRef ref) const {
    if (!scene_ || !ref.valid()) return -1;
    return scene_->segments[static_cast<std::size_t>(ref.segment)].offset + of(ref.segment).step(ref.node);
}

std::int32_t SceneLayouts::lanes() const {
    std::int32_t lanes = 1;
    if (scene_)
        for (std::size_t s = 0; s < scene_->segments.size(); ++s)
            lanes = std::max(lanes, of(static_cast<int>(s)).lanes());
    return lanes;
}

std::vector<const fxmem::GraphLayout*> SceneLayouts::all() const {
    std::vector<const fxmem::GraphLayout*> layouts;
    if (scene_)
        for (std::size_t s = 0; s < scene_->segments.size(); ++s) layouts.push_back(&of(static_cast<int>(s)));
    return layouts;
}

std::vector<HitSegment> SceneLayouts::hitSegments(const GraphModules& modules) const {
    std::vector<HitSegment> segs;
    if (scene_)
        for (std::size_t s = 0; s < scene_->segments.size(); ++s)
            segs.push_back({&of(static_cast<int>(s)), scene_->segments[s].offset, modules.of(static_cast<int>(s))});
    return segs;
}
