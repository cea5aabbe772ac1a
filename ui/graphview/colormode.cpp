#include "graphview/colormode.h"

#include "timeline/stackedbands.h"
#include "util/colors.h"
#include "util/text.h"

#include <QCoreApplication>

QString colorModeName(NodeColorMode mode) {
    switch (mode) {
    case NodeColorMode::OpCategory: return QCoreApplication::translate("GraphView", "By op category");
    case NodeColorMode::OpKind: return QCoreApplication::translate("GraphView", "By op kind");
    case NodeColorMode::MemoryChange: return QCoreApplication::translate("GraphView", "By memory change");
    case NodeColorMode::Role: return QCoreApplication::translate("GraphView", "By role");
    case NodeColorMode::Module: return QCoreApplication::translate("GraphView", "By module");
    }
    return {};
}

QColor roleNodeColor(fxmem::StorageRole role, const QPalette& palette) {
    // The timeline's role bands' colours, so a node and the band its output joins agree.
    return role == fxmem::StorageRole::Unknown
               ? colors::mix(palette.color(QPalette::Base), palette.color(QPalette::Text), 0.25)
               : StackedBands::roleColour(role);
}

QColor moduleShadeColor(int shade, const QPalette& palette) {
    const QColor base = palette.color(QPalette::Base);
    if (shade < 0) return colors::mix(base, palette.color(QPalette::Text), 0.25);
    return colors::mix(base, palette.color(QPalette::Highlight), shade == 0 ? 0.45 : 0.8);
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
    case NodeColorMode::Role:
        for (std::size_t r = 0; r < content.roles.size(); ++r)
            if (content.roles[r]) {
                const auto role = static_cast<fxmem::StorageRole>(r);
                out.push_back({role == fxmem::StorageRole::Unknown
                                   ? QCoreApplication::translate("GraphView", "no role (no output)")
                                   : toQString(fxmem::to_string(role)),
                               roleNodeColor(role, palette)});
            }
        break;
    case NodeColorMode::Module:
        out.push_back({QCoreApplication::translate("GraphView", "a layer"), moduleShadeColor(0, palette)});
        out.push_back({QCoreApplication::translate("GraphView", "the next layer"), moduleShadeColor(1, palette)});
        out.push_back({QCoreApplication::translate("GraphView", "outside the layers"), moduleShadeColor(-1, palette)});
        break;
    }
    return out;
}
