// What the graph view works out once per scene for colouring: each graph's op category per
// interned target, its collectives (drawn as in-flight spans), and which categories and op kinds
// occur at all (the legend lists only those). O(N) per scene.
#pragma once
#include "graphview/colormode.h"
#include "loading/scene.h"
#include <fxmem/collectives.h>

#include <fxmem/op_category.h>

#include <vector>

struct SceneCategories {
    std::vector<std::vector<fxmem::OpCategory>> byTarget;        // per segment, per interned target
    std::vector<std::vector<fxmem::CollectivePair>> collectives; // per segment
    LegendContent legend;

    void reset(const Scene* scene);
};
