// The graph view's tooltips in words (rich text): a node, a module band or collapsed box, a
// collective in flight. The view finds what is under the pointer; these only write about it.
#pragma once
#include "loading/scene.h"

#include <fxmem/attribution.h>
#include <fxmem/op_category.h>

#include <QString>

#include <cstdint>
#include <vector>

// `categories`: the segment's per-target categories (null: none worked out); `step`: global.
QString nodeTooltip(const Segment& seg, const std::vector<fxmem::OpCategory>* categories, fxmem::NodeId node,
                    std::int64_t step);
// A module band (`inBand`) or a collapsed box; `boxNodes`: the node count of each box under the pointer.
QString moduleTooltip(const fxmem::ModuleTree& tree, std::uint32_t module, bool inBand, bool collapsed,
                      const std::vector<std::uint32_t>& boxNodes);
// A collective started by `start` at global step a and waited by `wait` at step b.
QString spanTooltip(const fxmem::Graph& g, fxmem::NodeId start, fxmem::NodeId wait, std::int64_t a, std::int64_t b);
