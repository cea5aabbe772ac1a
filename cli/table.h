// Human-readable tables: every cell is elided to at most kMaxCell characters ("…" in the middle),
// so one huge node or graph name cannot blow up a table whose rows are padded to the widest cell.
#pragma once
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace fxmem::cli {

inline constexpr std::size_t kMaxCell = 60;

// Characters (UTF-8 code points) in `s`.
std::size_t display_width(std::string_view s);
// `s` itself when it has at most `max` characters; otherwise its head, "…" and its tail, `max`
// characters in all, cut at character boundaries.
std::string elide(std::string_view s, std::size_t max = kMaxCell);
// The width of a column holding `header` and cells of up to `widest` characters, capped.
std::size_t column_width(std::string_view header, std::size_t widest);
// Writes `text` elided to `width` and padded to it, on the left (right = true) or the right.
void put_cell(std::ostream& out, std::string_view text, std::size_t width, bool right);

// "10.0 KiB (10236 bytes)": a figure users read and scripts can check.
std::string bytes_text(std::int64_t v);
// The verdict of a peak against a device's memory, one line without its newline: "fits in 80.0 GB:
// 12.3 GiB free at the peak" or "does not fit in 24.0 GB: over by 3.10 GiB".
std::string memory_verdict(std::int64_t peak, std::int64_t memory);

// A whole table: the first row is the header; `right[c]` aligns column c to the right. Columns
// are separated by two spaces and indented by two.
void write_table(std::ostream& out, const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& right);

} // namespace fxmem::cli
