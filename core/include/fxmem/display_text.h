// Text from a file or a path shown to a person or written into JSON. Names may hold terminal
// control sequences (ESC ] 0 ; ... BEL retitles a terminal), line breaks that would break a row,
// or bidi controls (U+202E) that reorder what is drawn beside them, numbers included; a path
// may hold bytes that are not UTF-8, which JSON cannot hold. The CLI's human-readable output
// and the app show names through escape_control; JSON output writes paths through
// utf8_or_escaped.
#pragma once
#include <string>
#include <string_view>

namespace fxmem {

// `s` with control and invisible formatting characters escaped: \n \r \t, other C0 bytes, DEL
// and bytes that are not UTF-8 as \xNN, C1 controls, bidi controls (U+061C, U+200E/F,
// U+202A-202E, U+2066-2069), zero-width characters (U+200B-200D, U+2060, U+FEFF) and line/
// paragraph separators (U+2028/9) as \uXXXX. Everything else is copied. keep_newlines: '\n'
// stays (a multi-line error message). O(|s|).
std::string escape_control(std::string_view s, bool keep_newlines = false);

// `s` itself when it is UTF-8; otherwise each byte that is not as \xNN (a backslash, 'x' and
// two hex digits), so the result is UTF-8 and names the bytes. O(|s|).
std::string utf8_or_escaped(std::string_view s);

} // namespace fxmem
