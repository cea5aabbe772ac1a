// Small helpers for writing JSON text by hand (the writer and the loader's re-serialisation of
// "meta"/"producer"): faster than a DOM and byte-for-byte predictable.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace fxmem::json_text {

// Appends `s` as a quoted JSON string. `s` is UTF-8 (the loader only passes validated text);
// quotes, backslashes and control characters are escaped, everything else is copied.
void append_string(std::string& out, std::string_view s);
void append_int(std::string& out, std::int64_t v);
void append_uint(std::string& out, std::uint64_t v);

// Line and column (both 1-based) of byte `offset` in `text`, for error messages.
struct LineColumn {
    std::size_t line = 1, column = 1;
};
LineColumn line_column(std::string_view text, std::size_t offset);

} // namespace fxmem::json_text
