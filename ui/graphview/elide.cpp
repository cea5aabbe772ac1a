#include "graphview/elide.h"

#include <algorithm>
#include <cmath>

QString elidedName(std::string_view s, const QFontMetricsF& fm, double width) {
    if (width <= 0) return {};
    // No glyph is narrower than a third of the average width in the fonts we use: more
    // characters than that could never be shown (4 bytes at most each in UTF-8).
    const double narrow = std::max(1.0, fm.averageCharWidth() / 3);
    const auto maxChars = static_cast<std::size_t>(std::min(4096.0, std::ceil(width / narrow) + 2));
    return fm.elidedText(elided(s, 4 * maxChars), Qt::ElideRight, width);
}
