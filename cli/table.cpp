#include "table.h"
#include "text.h"

#include "fxmem/units.h"

#include <algorithm>
#include <ostream>
#include <sstream>

namespace fxmem::cli {

namespace {

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Byte offset of the character `n` characters from the start.
std::size_t offset_of(std::string_view s, std::size_t n) {
    std::size_t i = 0;
    for (; i < s.size() && n > 0; ++i)
        if (i + 1 >= s.size() || !is_continuation(s[i + 1])) --n;
    return i;
}

std::size_t raw_width(std::string_view s) {
    std::size_t n = 0;
    for (char c : s) n += is_continuation(c) ? 0 : 1;
    return n;
}

std::string raw_elide(std::string_view s, std::size_t max) {
    const std::size_t width = raw_width(s);
    if (width <= max) return std::string(s);
    if (max == 0) return {};
    // Cut between characters, and never inside an escape (a backslash and what follows it).
    std::size_t head = offset_of(s, (max - 1) / 2), tail = offset_of(s, width - (max - 1 - (max - 1) / 2));
    const auto back_to_escape = [&](std::size_t at) {
        const std::size_t from = at >= 5 ? at - 5 : 0;
        const std::size_t bs = s.substr(from, at - from).rfind('\\');
        return bs == std::string_view::npos ? at : from + bs;
    };
    head = back_to_escape(head);
    if (const std::size_t bs = back_to_escape(tail); bs != tail) {
        // The tail starts inside an escape: skip to its end (escapes are ASCII, 2 to 6 bytes).
        std::size_t end = bs + 1;
        const char kind = end < s.size() ? s[end] : 0;
        end += kind == 'x' ? 3 : kind == 'u' ? 5 : 1;
        tail = std::min(end, s.size());
    }
    std::string out(s.substr(0, head));
    out += "\u2026";
    out += s.substr(tail);
    return out;
}

} // namespace

std::size_t display_width(std::string_view s) { return raw_width(escape_control(s)); }

// Where escaping may start at or after `at` and agree with escaping from the start: a byte that
// starts no continuation, or one at least 4 bytes past any lead (a sequence is at most 4 bytes).
std::size_t char_start_from(std::string_view s, std::size_t at) {
    for (std::size_t k = 0; k < 3 && at < s.size() && is_continuation(s[at]); ++k, ++at)
        if (at >= 3 && is_continuation(s[at - 1]) && is_continuation(s[at - 2]) && is_continuation(s[at - 3])) break;
    return at;
}

std::string elide(std::string_view s, std::size_t max) {
    // Every character escapes to at least one shown character and takes at most 4 bytes, so the
    // shown head and tail come from a window of 4 (max + 4) bytes at each end: a name 100,000
    // modules deep is not escaped whole to show 60 characters.
    const std::size_t window = 4 * (max + 4);
    if (s.size() <= 2 * window + 8) return raw_elide(escape_control(s), max);
    const std::string head = escape_control(s.substr(0, window));
    const std::size_t tail_at = char_start_from(s, s.size() - window);
    return raw_elide(head + escape_control(s.substr(tail_at)), max);
}

std::size_t column_width(std::string_view header, std::size_t widest) {
    return std::max(display_width(header), std::min(widest, kMaxCell));
}

void put_cell(std::ostream& out, std::string_view text, std::size_t width, bool right) {
    const std::string shown = elide(text, width); // escaped, so its width is its raw width
    const std::size_t pad = width - std::min(width, raw_width(shown));
    if (right) out << std::string(pad, ' ');
    out << shown;
    if (!right) out << std::string(pad, ' ');
}

void write_table(std::ostream& out, const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& right) {
    if (rows.empty()) return;
    std::vector<std::size_t> width(rows.front().size(), 0);
    for (std::size_t r = 1; r < rows.size(); ++r)
        for (std::size_t c = 0; c < width.size() && c < rows[r].size(); ++c)
            width[c] = std::max(width[c], display_width(rows[r][c]));
    for (std::size_t c = 0; c < width.size(); ++c) width[c] = column_width(rows.front()[c], width[c]);
    for (const auto& row : rows) {
        std::ostringstream line;
        line << "  ";
        for (std::size_t c = 0; c < width.size(); ++c) {
            const std::string_view text = c < row.size() ? std::string_view(row[c]) : std::string_view();
            put_cell(line, text, width[c], right[c]);
            if (c + 1 < width.size()) line << "  ";
        }
        std::string text = line.str();
        text.erase(text.find_last_not_of(' ') + 1); // no trailing blanks
        out << text << '\n';
    }
}

std::string bytes_text(std::int64_t v) { return format_bytes(v) + " (" + std::to_string(v) + " bytes)"; }

std::string memory_verdict(std::int64_t peak, std::int64_t memory) {
    if (peak <= memory)
        return "fits in " + format_bytes(memory) + ": " + format_bytes(memory - peak) + " free at the peak";
    return "does not fit in " + format_bytes(memory) + ": over by " + format_bytes(peak - memory);
}

} // namespace fxmem::cli
