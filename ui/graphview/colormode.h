// How the graph view colours its nodes, and the legend of each mode.
#pragma once
#include <fxmem/model.h>
#include <fxmem/op_category.h>

#include <QColor>
#include <QPalette>
#include <QString>

#include <array>
#include <bitset>
#include <vector>

// Role: the role of the node's first output storage (Attribution::role); Module: the node's
// module at the model's layer depth (Scene::layerDepth), consecutive modules in two shades.
enum class NodeColorMode { OpCategory, OpKind, MemoryChange, Role, Module };

// Every mode in the order a chooser lists them, the graph view's default (OpCategory) first; a
// chooser builds its items from this list and colorModeName() so it cannot disagree with the view.
inline constexpr std::array<NodeColorMode, 5> kNodeColorModes = {NodeColorMode::OpCategory, NodeColorMode::OpKind,
                                                                 NodeColorMode::MemoryChange, NodeColorMode::Role,
                                                                 NodeColorMode::Module};
QString colorModeName(NodeColorMode mode); // "By op category", …

struct LegendEntry {
    QString text;
    QColor color;
};

// What a scene contains, for a legend that lists only what is drawn.
struct LegendContent {
    std::bitset<fxmem::kOpCategoryCount> categories;
    std::bitset<6> kinds;  // fxmem::OpKind values
    std::bitset<11> roles; // fxmem::StorageRole values of the nodes' first outputs
};

// A node's colour by role (Unknown: no output or no attribution) and the two shades of
// NodeColorMode::Module (`shade` 0 or 1; -1: outside every module at that depth).
QColor roleNodeColor(fxmem::StorageRole role, const QPalette& palette);
QColor moduleShadeColor(int shade, const QPalette& palette);

// The legend of `mode`: the categories or op kinds present, in a fixed order; for memory change
// the three ends of its scale.
std::vector<LegendEntry> legendEntries(NodeColorMode mode, const LegendContent& content, const QPalette& palette);
