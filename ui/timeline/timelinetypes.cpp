#include "timeline/timelinetypes.h"

#include <QStringBuilder>

namespace timeline {

QString legendName(const QString& name) {
    constexpr qsizetype kMax = 36;
    return name.size() <= kMax ? name : name.left(kMax / 2 - 1) % QStringLiteral("…") % name.right(kMax / 2 - 1);
}

} // namespace timeline
