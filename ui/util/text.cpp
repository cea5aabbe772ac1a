#include "util/text.h"

#include <fxmem/display_text.h>

QString elided(std::string_view s, std::size_t maxBytes) {
    std::size_t cut = s.size();
    if (s.size() > maxBytes) {
        cut = maxBytes;
        // Back up over UTF-8 continuation bytes (10xxxxxx) so no character is split.
        while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    }
    // Escaped after the cut (a 100 MB name costs its head), as fxmem-cli escapes names: a U+202E
    // in a name would draw the text after it, "peak 180 B" included, right to left.
    const QString shown = toQString(fxmem::escape_control(s.substr(0, cut), true));
    return cut < s.size() ? shown % QStringLiteral("…") : shown;
}

QString elided(const QString& s, qsizetype maxChars) {
    qsizetype cut = s.size();
    if (s.size() > maxChars) {
        cut = maxChars;
        if (cut > 0 && s.at(cut).isLowSurrogate()) --cut;
    }
    const QString shown = toQString(fxmem::escape_control(s.left(cut).toStdString(), true));
    return cut < s.size() ? shown % QStringLiteral("…") : shown;
}
