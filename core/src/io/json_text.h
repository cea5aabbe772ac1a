// Small helpers for writing JSON text by hand (the writer and the loader's re-serialisation of
// "meta"/"producer"): faster than a DOM and byte-for-byte predictable.
#pragma once
#include <cstddef>
#include <cstdint>
#include <iterator>
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
// "<source>:<line>:<column>: ", the start of every message that points into a text.
std::string location(std::string_view source, std::string_view text, std::size_t offset);
// The explanation in a message of nlohmann's parser: "[json.exception.parse_error.101] parse
// error at line 1, column 2: <detail>" gives <detail> (our messages name the place themselves).
std::string parser_detail(std::string what);

// A char iterator for nlohmann's parsers that publishes how far the lexer has read, for progress
// and for the positions of errors found in callbacks.
struct CursorIter {
    using iterator_category = std::forward_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;
    const char* p = nullptr;
    const char** cursor = nullptr;
    reference operator*() const { return *p; }
    CursorIter& operator++() {
        *cursor = ++p;
        return *this;
    }
    CursorIter operator++(int) {
        CursorIter old = *this;
        ++*this;
        return old;
    }
    friend bool operator==(const CursorIter& a, const CursorIter& b) { return a.p == b.p; }
};

} // namespace fxmem::json_text
