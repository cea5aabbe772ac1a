// Reading and writing graph files (format v1, docs/format.md).
//
// Lifetime and threads: a loaded GraphFile owns all it holds (no reference to the text or the
// path); loads and saves of different files may run on different threads at once.
#pragma once
#include "fxmem/cancel.h"
#include "fxmem/model.h"

#include <string>
#include <string_view>

namespace fxmem {

// Throws Error with a message naming `source`/the path and the place (line and column for JSON
// syntax; graph, node or storage id for contract violations).
GraphFile load_buffer(std::string_view json, std::string source, const LoadControl& control = {});
GraphFile load_file(const std::string& path, const LoadControl& control = {});
// control.cancelled is polled about every megabyte read (true: the load throws Cancelled), and
// control.progress receives the fraction of the input read at the same points and 1 at the end.

// The whole content of a regular file. Throws Error naming the path for anything else (a
// directory, a FIFO, a device such as /dev/zero: refused before they are opened or read) and
// "file too large for memory" when it cannot be held.
std::string read_regular_file(const std::string& path);

std::string to_json(const GraphFile& file);
// Writes atomically (temporary file, then rename). Throws Error on failure.
void save_file(const GraphFile& file, const std::string& path);

// Atomic text write used by every writer: a temporary file beside the target, then a rename.
// The target is `path`, or, when `path` is a symbolic link, the file it points to (the link is
// kept and its target written; a dangling link is refused). A target that exists and is not a
// regular file (a directory, a FIFO, a device, a socket) is refused, never replaced. An existing
// file keeps its permission bits (a 0600 file stays 0600); a new one gets 0666 minus the umask.
// Throws Error naming `path`.
void write_file_atomically(const std::string& path, std::string_view contents);

// The file write_file_atomically(path, ...) would replace, after the same checks it makes before
// writing (also: the directory exists and is writable). Throws Error naming `path`. Lets a
// command check its output path before long work.
std::string resolve_write_target(const std::string& path);

// Whether `a` and `b` name one existing file by any path (links, "./", hard links): an output
// that is an input would replace what was read. False when either does not exist.
bool same_file(const std::string& a, const std::string& b);

} // namespace fxmem
