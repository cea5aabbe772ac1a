// escape_control and utf8_or_escaped of fxmem/display_text.h.
#include "fxmem/display_text.h"

#include <cstdint>

namespace fxmem {

namespace {

// Length of the UTF-8 sequence at s[i] and its code point; 0 when s[i] does not start a valid one.
std::size_t decode(std::string_view s, std::size_t i, char32_t& cp) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return 0;
    cp = n == 1 ? c : n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
    for (std::size_t k = 1; k < n; ++k) {
        if ((b(i + k) & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (b(i + k) & 0x3F);
    }
    // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
    static constexpr char32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return n;
}

bool invisible(char32_t cp) {
    return (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C || (cp >= 0x200B && cp <= 0x200F) ||
           (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x2069) || cp == 0xFEFF;
}

const char kHex[] = "0123456789abcdef";

} // namespace

std::string escape_control(std::string_view s, bool keep_newlines) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        char32_t cp = 0;
        const std::size_t n = decode(s, i, cp);
        if (n == 0) { // not UTF-8: the byte itself
            const auto c = static_cast<unsigned char>(s[i++]);
            out += "\\x";
            out += kHex[c >> 4];
            out += kHex[c & 15];
            continue;
        }
        if (n == 1 && (cp < 0x20 || cp == 0x7F) && !(keep_newlines && cp == '\n')) {
            if (cp == '\n')
                out += "\\n";
            else if (cp == '\r')
                out += "\\r";
            else if (cp == '\t')
                out += "\\t";
            else {
                out += "\\x";
                out += kHex[cp >> 4];
                out += kHex[cp & 15];
            }
        } else if (invisible(cp)) {
            out += "\\u";
            for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(cp >> shift) & 15];
        } else {
            out.append(s.substr(i, n));
        }
        i += n;
    }
    return out;
}

std::string utf8_or_escaped(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        char32_t cp = 0;
        if (const std::size_t n = decode(s, i, cp); n > 0) {
            out.append(s.substr(i, n));
            i += n;
            continue;
        }
        const auto c = static_cast<unsigned char>(s[i++]);
        out += "\\x";
        out += kHex[c >> 4];
        out += kHex[c & 15];
    }
    return out;
}

} // namespace fxmem
