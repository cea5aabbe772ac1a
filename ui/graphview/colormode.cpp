#include "graphview/colormode.h"

#include "util/colors.h"
#include "util/text.h"

#include <QCoreApplication>

QString colorModeName(NodeColorMode mode) {
    switch (mode) {
    case NodeColorMode::OpCategory: return QCoreApplication::translate("GraphView", "By op category");
    case NodeColorMode::OpKind: return QCoreApplication::translate("GraphView", "By op kind");
    case NodeColorMode::MemoryChange: return QCoreApplication::translate("GraphView", "By memory change");
    }
    return {};
}

std::vector<LegendEntry> legendEntries(NodeColorMode mode, const LegendContent& content, const QPalette& palette) {
    std::vector<LegendEntry> out;
    switch (mode) {
    case NodeColorMode::OpCategory:
        for (std::size_t c = 0; c < fxmem::kOpCategoryCount; ++c)
            if (content.categories[c]) {
                const auto cat = static_cast<fxmem::OpCategory>(c);
                out.push_back({toQString(fxmem::to_string(cat)), colors::categoryColor(cat, palette)});
            }
        break;
    case NodeColorMode::OpKind:
        for (std::size_t k = 0; k < 6; ++k)
            if (content.kinds[k]) {
                const auto kind = static_cast<fxmem::OpKind>(k);
                out.push_back({toQString(fxmem::to_string(kind)), colors::opColor(kind, palette)});
            }
        break;
    case NodeColorMode::MemoryChange:
        out.push_back({QCoreApplication::translate("GraphView", "frees memory"), colors::deltaColor(-1, palette)});
        out.push_back({QCoreApplication::translate("GraphView", "no change"), colors::deltaColor(0, palette)});
        out.push_back({QCoreApplication::translate("GraphView", "allocates memory"), colors::deltaColor(1, palette)});
        break;
    }
    return out;
}
