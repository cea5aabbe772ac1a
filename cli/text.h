// Text shown to a person (tables, summaries, error messages): names from a file may hold
// terminal control sequences (ESC ] 0 ; ... BEL retitles the terminal), line breaks that would
// break table rows, or bidi overrides (U+202E) that reorder what is shown. Every command's
// human-readable output escapes them through these helpers; JSON output is escaped by the JSON
// writer and CSV quoted per RFC 4180, so neither goes through here.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace fxmem::cli {

// `s` with control and invisible formatting characters escaped: \n \r \t, other C0 bytes, DEL
// and bytes that are not UTF-8 as \xNN, C1 controls, bidi controls (U+061C, U+200E/F,
// U+202A-202E, U+2066-2069), zero-width characters (U+200B-200D, U+2060, U+FEFF) and line/
// paragraph separators (U+2028/9) as \uXXXX. Everything else is copied. keep_newlines: '\n'
// stays (a multi-line error message). O(|s|).
std::string escape_control(std::string_view s, bool keep_newlines = false);

// A comma-separated list of the first `max_items` of `items` (each already formatted), then
// "and N more" when there are more: an error message never lists 200k names.
std::string capped_list(const std::vector<std::string>& items, std::size_t total, std::size_t max_items = 10);

// The help of one command, cut from the global usage text: its synopsis line(s), the lines
// that describe it, and the common options. Empty when `usage` has no such command.
std::string command_help(std::string_view usage, std::string_view command);

} // namespace fxmem::cli
