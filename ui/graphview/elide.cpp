#include "graphview/elide.h"

#include <algorithm>
#include <cmath>

namespace {
// The byte length of the first `maxChars` UTF-8 code points of `s` (continuation bytes
// 10xxxxxx do not start a code point).
std::size_t prefixBytes(std::string_view s, std::size_t maxChars) {
    std::size_t chars = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
        if (chars == maxChars) return i;
        ++chars;
    }
    return s.size();
}
} // namespace

QString clippedName(std::string_view s, std::size_t maxChars) {
    const std::size_t n = prefixBytes(s, maxChars);
    QString out = QString::fromUtf8(s.data(), static_cast<qsizetype>(n));
    if (n < s.size()) out += QChar(0x2026);
    return out;
}

QString elidedName(std::string_view s, const QFontMetricsF& fm, double width) {
    if (width <= 0) return {};
    // No glyph is narrower than a third of the average width in the fonts we use: more
    // characters than that could never be shown.
    const double narrow = std::max(1.0, fm.averageCharWidth() / 3);
    const auto maxChars = static_cast<std::size_t>(std::min(4096.0, std::ceil(width / narrow) + 2));
    return fm.elidedText(clippedName(s, maxChars), Qt::ElideRight, width);
}
