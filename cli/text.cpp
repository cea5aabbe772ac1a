#include "text.h"

#include <cstdint>

namespace fxmem::cli {

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

std::string capped_list(const std::vector<std::string>& items, std::size_t total, std::size_t max_items) {
    std::string out;
    for (std::size_t i = 0; i < items.size() && i < max_items; ++i) out += (i ? ", " : "") + items[i];
    const std::size_t shown = items.size() < max_items ? items.size() : max_items;
    if (total > shown) out += (shown ? ", and " : "") + std::to_string(total - shown) + " more";
    return out;
}

std::string command_help(std::string_view usage, std::string_view command) {
    // A command's block: "  NAME ..." at two spaces, then the lines indented deeper.
    const std::string head = "  " + std::string(command) + " ";
    std::string synopsis, text;
    std::size_t at = 0;
    bool in_block = false;
    while (at < usage.size()) {
        const std::size_t end = std::min(usage.find('\n', at), usage.size());
        const std::string_view line = usage.substr(at, end - at);
        at = end + 1;
        if (line.starts_with(head)) {
            in_block = true;
            synopsis = std::string(line.substr(2));
        } else if (in_block && text.empty() && line.starts_with("        [")) {
            synopsis += "\n" + std::string(line.substr(2)); // the synopsis goes on: no blank line inside it
        } else if (in_block && line.starts_with("    ")) {
            text += std::string(line.substr(2)) + "\n";
        } else if (in_block) {
            break;
        }
    }
    if (synopsis.empty()) return {};
    return "usage: fxmem-cli " + synopsis + "\n\n" + text +
           "\noptions of every command:\n  -h, --help    show this help\n\n"
           "Exit status: 0 success, 1 invalid input (message on stderr), 2 bad usage.\n";
}

} // namespace fxmem::cli
