// The graph view's node colours, worked out once per node, colour mode and palette (a paint
// asks for thousands; each is a category or a memory-change lookup).
#pragma once
#include "graphview/colormode.h"
#include "loading/scene.h"

#include <fxmem/op_category.h>

#include <QPalette>
#include <QRgb>

#include <cstdint>
#include <vector>

class NodeColors {
public:
    // Drops the cache when the scene, the mode or the palette changed. `categories`: per segment,
    // per interned target (fxmem::target_categories).
    void sync(const Scene& scene, NodeColorMode mode, const QPalette& palette,
              const std::vector<std::vector<fxmem::OpCategory>>& categories);
    QRgb of(NodeRef ref); // after sync
    QColor compute(NodeRef ref) const;

private:
    const Scene* scene_ = nullptr;
    const std::vector<std::vector<fxmem::OpCategory>>* categories_ = nullptr;
    NodeColorMode mode_ = NodeColorMode::OpCategory;
    qint64 palette_ = 0;
    QPalette pal_;
    std::vector<std::vector<QRgb>> colors_; // per segment, per node; 0: not worked out yet
    // Per segment, per tree module at the layer depth: its rank among them in tree order, odd or
    // even (the Module mode's shade); -1 for the other modules.
    std::vector<std::vector<std::int8_t>> shade_;
    std::uint32_t layerDepth_ = 1;
};
