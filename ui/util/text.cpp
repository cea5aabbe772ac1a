#include "util/text.h"

QString elided(std::string_view s, std::size_t maxBytes) {
    if (s.size() <= maxBytes) return toQString(s);
    std::size_t cut = maxBytes;
    // Back up over UTF-8 continuation bytes (10xxxxxx) so no character is split.
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    return toQString(s.substr(0, cut)) % QStringLiteral("…");
}

QString elided(const QString& s, qsizetype maxChars) {
    if (s.size() <= maxChars) return s;
    qsizetype cut = maxChars;
    if (cut > 0 && s.at(cut).isLowSurrogate()) --cut;
    return s.left(cut) % QStringLiteral("…");
}
