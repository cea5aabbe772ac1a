// Text shown to a person (tables, summaries, error messages): names from a file may hold
// terminal control sequences (ESC ] 0 ; ... BEL retitles the terminal), line breaks that would
// break table rows, or bidi overrides (U+202E) that reorder what is shown. Every command's
// human-readable output escapes them through these helpers; JSON output is escaped by the JSON
// writer and CSV quoted per RFC 4180, so neither goes through here.
#pragma once
#include "fxmem/display_text.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace fxmem::cli {

// The escaping every command's human-readable output uses is core's, which the app shares.
using fxmem::escape_control;

// A comma-separated list of the first `max_items` of `items` (each already formatted), then
// "and N more" when there are more: an error message never lists 200k names.
std::string capped_list(const std::vector<std::string>& items, std::size_t total, std::size_t max_items = 10);

// The help of one command, cut from the global usage text: its synopsis line(s), the lines
// that describe it, and the common options. Empty when `usage` has no such command.
std::string command_help(std::string_view usage, std::string_view command);

} // namespace fxmem::cli
