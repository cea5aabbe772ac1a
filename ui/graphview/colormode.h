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

enum class NodeColorMode { OpCategory, OpKind, MemoryChange };

// Every mode in the order a chooser lists them, the graph view's default (OpCategory) first; a
// chooser builds its items from this list and colorModeName() so it cannot disagree with the view.
inline constexpr std::array<NodeColorMode, 3> kNodeColorModes = {NodeColorMode::OpCategory, NodeColorMode::OpKind,
                                                                 NodeColorMode::MemoryChange};
QString colorModeName(NodeColorMode mode); // "By op category", …

struct LegendEntry {
    QString text;
    QColor color;
};

// What a scene contains, for a legend that lists only what is drawn.
struct LegendContent {
    std::bitset<fxmem::kOpCategoryCount> categories;
    std::bitset<6> kinds; // fxmem::OpKind values
};

// The legend of `mode`: the categories or op kinds present, in a fixed order; for memory change
// the three ends of its scale.
std::vector<LegendEntry> legendEntries(NodeColorMode mode, const LegendContent& content, const QPalette& palette);
