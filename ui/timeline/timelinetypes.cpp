#include "timeline/timelinetypes.h"

#include "util/text.h"

#include <QStringBuilder>

namespace timeline {

QString legendName(const QString& name) {
    constexpr qsizetype kMax = 36;
    if (name.size() <= kMax) return elided(name, kMax);
    return elided(name.left(kMax / 2 - 1), kMax) % QStringLiteral("…") % elided(name.right(kMax / 2 - 1), kMax);
}

} // namespace timeline
