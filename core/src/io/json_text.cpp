#include "json_text.h"

#include <algorithm>
#include <charconv>

namespace fxmem::json_text {

void append_string(std::string& out, std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
    out.push_back('"');
    std::size_t run = 0; // start of the pending run of characters that need no escape
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        out.append(s.data() + run, i - run);
        run = i + 1;
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
            out += "\\u00";
            out.push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 15]);
        }
    }
    out.append(s.data() + run, s.size() - run);
    out.push_back('"');
}

void append_int(std::string& out, std::int64_t v) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

void append_uint(std::string& out, std::uint64_t v) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

LineColumn line_column(std::string_view text, std::size_t offset) {
    offset = std::min(offset, text.size());
    LineColumn lc;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < offset; ++i)
        if (text[i] == '\n') ++lc.line, line_start = i + 1;
    lc.column = offset - line_start + 1;
    return lc;
}

std::string parser_detail(std::string what) {
    if (auto at = what.find("] "); at != std::string::npos) what.erase(0, at + 2);
    if (what.rfind("parse error", 0) == 0)
        if (auto colon = what.find(": "); colon != std::string::npos) what.erase(0, colon + 2);
    return what;
}

std::string location(std::string_view source, std::string_view text, std::size_t offset) {
    const LineColumn lc = line_column(text, offset);
    std::string out(source);
    out += ':';
    out += std::to_string(lc.line);
    out += ':';
    out += std::to_string(lc.column);
    out += ": ";
    return out;
}

} // namespace fxmem::json_text
