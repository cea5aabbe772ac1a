// load_buffer and the reader's two paths alone: the edge where a ReadError (read_error.h) becomes
// a FileError: the user's message, and its parts with the line and column. The reader itself is
// reader.h.
#include "fxmem/error.h"
#include "fxmem/io.h"
#include "io/json_text.h"
#include "io/load_paths.h"
#include "io/reader.h"

namespace fxmem {

namespace {

template <class Read>
auto at_the_edge(std::string_view text, Read&& read) {
    try {
        return read();
    } catch (reader::ReadError& e) {
        std::optional<FileError::Position> at;
        if (e.offset != reader::ReadError::kNoOffset) {
            const json_text::LineColumn lc = json_text::line_column(text, e.offset);
            at = FileError::Position{lc.line, lc.column};
        }
        std::string message = reader::format(e, text);
        throw FileError(std::move(message), std::move(e.source), at, std::move(e.place), std::move(e.what));
    }
}

} // namespace

// The fast path first; on anything it declines, and on any error (whose message needs nlohmann's
// positions), nlohmann reads the text again from the start so every message is nlohmann's.
GraphFile load_buffer(std::string_view json, std::string source, const LoadControl& control) {
    try {
        reader::Reader fast(json, source, control);
        if (std::optional<GraphFile> file = fast.run_fast()) return std::move(*file);
    } catch (const reader::ReadError&) {
    } catch (const Error&) {}
    return load_buffer_nlohmann(json, std::move(source), control);
}

std::optional<GraphFile> load_buffer_fast(std::string_view json, std::string source, const LoadControl& control) {
    return at_the_edge(json, [&] { return reader::Reader(json, std::move(source), control).run_fast(); });
}

GraphFile load_buffer_nlohmann(std::string_view json, std::string source, const LoadControl& control) {
    return at_the_edge(json, [&] { return reader::Reader(json, std::move(source), control).run(); });
}

} // namespace fxmem
