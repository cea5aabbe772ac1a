// A fast JSON tokenizer over a contiguous buffer that drives the same SAX callbacks as
// nlohmann::json::sax_parse, for the loader's common case. It is deliberately partial: anything it
// does not handle exactly like nlohmann (floats out of range, huge integers, surrogate escapes, a BOM, control
// characters, malformed UTF-8, any syntax error) makes it return false, and the caller re-runs
// nlohmann from the start, so every message stays nlohmann's. On true, the callbacks it made are
// exactly those nlohmann would have made for the same text.
#pragma once

#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace fxmem::json_fast {

namespace detail {

inline bool is_ws(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

inline int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlongs, no surrogates, at most
// U+10FFFF), or 0.
inline std::size_t utf8_length(const unsigned char* p, const unsigned char* end) {
    const unsigned char c = p[0];
    const auto cont = [&](std::size_t i, unsigned char lo, unsigned char hi) {
        return p + i < end && p[i] >= lo && p[i] <= hi;
    };
    if (c >= 0xC2 && c <= 0xDF) return cont(1, 0x80, 0xBF) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        const unsigned char lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
        return cont(1, lo, hi) && cont(2, 0x80, 0xBF) ? 3 : 0;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        const unsigned char lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
        return cont(1, lo, hi) && cont(2, 0x80, 0xBF) && cont(3, 0x80, 0xBF) ? 4 : 0;
    }
    return 0;
}

// Whether any of the 8 bytes in w is '"', '\\', a control character (< 0x20) or not ASCII.
// Exact for "any": the borrow tricks only misplace bits above the first match.
inline bool has_special(std::uint64_t w) {
    constexpr std::uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    const auto has_zero = [](std::uint64_t v) { return (v - ones) & ~v & high; };
    const std::uint64_t quote = has_zero(w ^ (ones * '"'));
    const std::uint64_t backslash = has_zero(w ^ (ones * '\\'));
    const std::uint64_t control = (w - ones * 0x20) & ~w & high;
    return (quote | backslash | control | (w & high)) != 0;
}

inline void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

} // namespace detail

// Parses `text` into `h`'s SAX callbacks. `cursor` is kept just past what has been read (for the
// handler's progress reports). Returns false on anything it leaves to nlohmann; exceptions from
// the handler propagate. Strings reach the handler as string_views (key_view, string_value) that
// are valid only during the call.
template <class Handler>
bool sax_parse(std::string_view text, Handler& h, const char*& cursor) {
    using detail::is_ws;
    const char* p = text.data();
    const char* const end = p + text.size();
    std::string str;         // the current string or key, reused
    std::vector<char> stack; // '{' or '[' per open container
    stack.reserve(64);

    const auto skip_ws = [&] {
        while (p < end && is_ws(*p)) ++p;
    };

    // Reads a string starting after its opening quote; p ends after the closing quote. `sv` views
    // the text itself unless the string has escapes, which are decoded into `str`.
    std::string_view sv;
    const auto read_string = [&]() -> bool {
        const char* const start = p;
        const char* run = p;
        bool owned = false; // str holds the decoded prefix
        for (;;) {
            // Plain run: 8 bytes at a time while none is special, then byte by byte.
            while (end - p >= 8) {
                std::uint64_t w;
                std::memcpy(&w, p, 8);
                if (detail::has_special(w)) break;
                p += 8;
            }
            while (p < end) {
                const auto c = static_cast<unsigned char>(*p);
                if (c == '"' || c == '\\' || c < 0x20) break;
                if (c >= 0x80) {
                    // Well-formed UTF-8 passes through unchanged, as nlohmann keeps it.
                    const std::size_t n = detail::utf8_length(reinterpret_cast<const unsigned char*>(p),
                                                              reinterpret_cast<const unsigned char*>(end));
                    if (n == 0) return false;
                    p += n;
                    continue;
                }
                ++p;
            }
            if (p >= end) return false;
            const auto c = static_cast<unsigned char>(*p);
            if (c == '"') {
                if (owned) {
                    str.append(run, p);
                    sv = str;
                } else {
                    sv = std::string_view(start, static_cast<std::size_t>(p - start));
                }
                ++p;
                return true;
            }
            if (c < 0x20) return false;
            // Backslash.
            if (!owned) {
                str.assign(start, p);
                owned = true;
            } else {
                str.append(run, p);
            }
            if (end - p < 2) return false;
            const char e = p[1];
            p += 2;
            switch (e) {
            case '"': str.push_back('"'); break;
            case '\\': str.push_back('\\'); break;
            case '/': str.push_back('/'); break;
            case 'b': str.push_back('\b'); break;
            case 'f': str.push_back('\f'); break;
            case 'n': str.push_back('\n'); break;
            case 'r': str.push_back('\r'); break;
            case 't': str.push_back('\t'); break;
            case 'u': {
                if (end - p < 4) return false;
                unsigned cp = 0;
                for (int i = 0; i < 4; ++i) {
                    const int v = detail::hex_value(p[i]);
                    if (v < 0) return false;
                    cp = cp * 16 + static_cast<unsigned>(v);
                }
                p += 4;
                if (cp >= 0xD800 && cp <= 0xDFFF) return false; // surrogates: nlohmann's business
                detail::append_utf8(str, cp);
                break;
            }
            default: return false;
            }
            run = p;
        }
    };

    // Reads one number; leading zeros and out-of-range values are left to nlohmann. A float is
    // handed over with its text, as nlohmann does (from_chars rounds correctly, as strtod does).
    const auto read_float = [&](const char* start) -> bool {
        const auto digit_run = [&] {
            const char* d = p;
            while (p < end && *p >= '0' && *p <= '9') ++p;
            return p > d;
        };
        if (p < end && *p == '.') {
            ++p;
            if (!digit_run()) return false;
        }
        if (p < end && (*p == 'e' || *p == 'E')) {
            ++p;
            if (p < end && (*p == '+' || *p == '-')) ++p;
            if (!digit_run()) return false;
        }
        double v = 0;
        const auto r = std::from_chars(start, p, v);
        if (r.ec != std::errc() || r.ptr != p) return false;
        cursor = p;
        h.number_float(v, std::string(start, p));
        return true;
    };
    const auto read_number = [&]() -> bool {
        const char* start = p;
        const bool negative = *p == '-';
        if (negative) ++p;
        const char* digits = p;
        while (p < end && *p >= '0' && *p <= '9') ++p;
        if (p == digits) return false;
        if (*digits == '0' && p - digits > 1) return false;
        if (p < end && (*p == '.' || *p == 'e' || *p == 'E')) return read_float(start);
        if (negative && p - digits == 1 && *digits == '0') return false; // "-0": leave it
        cursor = p;
        if (negative) {
            std::int64_t v = 0;
            const auto r = std::from_chars(start, p, v);
            if (r.ec != std::errc() || r.ptr != p) return false;
            h.number_integer(v);
        } else {
            std::uint64_t v = 0;
            const auto r = std::from_chars(start, p, v);
            if (r.ec != std::errc() || r.ptr != p) return false;
            h.number_unsigned(v);
        }
        return true;
    };

    // true, false, null: the whole word or give up.
    const auto take_literal = [&](std::string_view word) {
        if (static_cast<std::size_t>(end - p) < word.size() || std::memcmp(p, word.data(), word.size()) != 0)
            return false;
        p += word.size();
        cursor = p;
        return true;
    };

    // An object member's key and its colon, from the opening quote on; p ends at the value.
    const auto read_key = [&]() -> bool {
        if (p >= end || *p != '"') return false;
        ++p;
        if (!read_string()) return false;
        cursor = p;
        h.key_view(sv);
        skip_ws();
        if (p >= end || *p != ':') return false;
        ++p;
        skip_ws();
        return true;
    };

    // A UTF-8 byte order mark: nlohmann skips it; leave that to it.
    if (text.size() >= 3 && static_cast<unsigned char>(p[0]) == 0xEF) return false;

    bool expect_value = true; // otherwise: expect ',' or a closer
    skip_ws();
    for (;;) {
        if (expect_value) {
            if (p >= end) return false;
            const char c = *p;
            switch (c) {
            case '{':
                ++p;
                cursor = p;
                h.start_object(static_cast<std::size_t>(-1));
                skip_ws();
                if (p < end && *p == '}') {
                    ++p;
                    cursor = p;
                    h.end_object();
                    expect_value = false;
                    break;
                }
                stack.push_back('{');
                if (!read_key()) return false;
                continue; // expect the member's value
            case '[':
                ++p;
                cursor = p;
                h.start_array(static_cast<std::size_t>(-1));
                skip_ws();
                if (p < end && *p == ']') {
                    ++p;
                    cursor = p;
                    h.end_array();
                    expect_value = false;
                    break;
                }
                stack.push_back('[');
                continue;
            case '"':
                ++p;
                if (!read_string()) return false;
                cursor = p;
                h.string_value(sv);
                expect_value = false;
                break;
            case 't':
                if (!take_literal("true")) return false;
                h.boolean(true);
                expect_value = false;
                break;
            case 'f':
                if (!take_literal("false")) return false;
                h.boolean(false);
                expect_value = false;
                break;
            case 'n':
                if (!take_literal("null")) return false;
                h.null();
                expect_value = false;
                break;
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    if (!read_number()) return false;
                    expect_value = false;
                    break;
                }
                return false;
            }
            if (expect_value) continue;
        }
        // After a value.
        skip_ws();
        if (stack.empty()) return p == end; // nlohmann is strict: nothing may follow the root
        if (p >= end) return false;
        const char c = *p++;
        if (c == ',') {
            skip_ws();
            if (stack.back() == '{' && !read_key()) return false;
            expect_value = true;
            continue;
        }
        if (c == '}' && stack.back() == '{') {
            stack.pop_back();
            cursor = p;
            h.end_object();
            continue;
        }
        if (c == ']' && stack.back() == '[') {
            stack.pop_back();
            cursor = p;
            h.end_array();
            continue;
        }
        return false;
    }
}

} // namespace fxmem::json_fast
