// The one way a name (node, graph, schedule, key, value read from a file) is quoted in an error
// message. Names come from user files and may be megabytes long: a refusal is built on every
// drag-over and a load error is shown whole, so a hostile 100 MB name must not make each message
// 100 MB. Names up to kQuoteLimit bytes are quoted whole; longer ones keep their first 120 and
// last 60 bytes (cut on UTF-8 boundaries) around "…".
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace fxmem::detail {

inline constexpr std::size_t kQuoteLimit = 200;

inline std::string quote(std::string_view s) {
    std::string r; // appended piece by piece: "'" + std::string(s) trips GCC 12's -Wrestrict at -O3
    r += '\'';
    if (s.size() <= kQuoteLimit) {
        r += s;
    } else {
        const auto continuation = [&](std::size_t i) { return (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80; };
        std::size_t head = 120, tail = s.size() - 60;
        while (head > 0 && continuation(head)) --head;
        while (tail < s.size() && continuation(tail)) ++tail;
        r += s.substr(0, head);
        r += "\u2026";
        r += s.substr(tail);
    }
    r += '\'';
    // A NUL would end the message where std::exception::what() is read as a C string: written
    // as \x00 (the CLI escapes other control characters when it prints).
    if (r.find('\0') != std::string::npos) {
        std::string e;
        for (char c : r) e += c == '\0' ? std::string_view("\\x00") : std::string_view(&c, 1);
        return e;
    }
    return r;
}

} // namespace fxmem::detail
