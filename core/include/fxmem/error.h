// The exceptions core throws. Three kinds, kept apart so that a frontend can tell them apart:
//   Error              bad input (a file, a plan, a schedule, an option value): what() is a complete,
//                      user-facing message naming the file and the place and what is wrong;
//   FileError          an Error in a file being read, with its parts kept (source, line and column,
//                      the entity, what is wrong) for a frontend that points at the place;
//   PreconditionError  a caller's mistake (an index out of range, a mask or tree for another
//                      graph): a bug in the calling code, never the user's input, so not an Error.
// Cancelled ends work that a CancelCheck asked to stop. All are plain values: any thread.
#pragma once
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>

namespace fxmem {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// what() is "<source>:<line>:<column>: <place>: <detail>" (no line and column when the error is
// about the file as a whole, no place when it names no entity), as Error's message always was.
class FileError : public Error {
public:
    struct Position {
        std::size_t line = 0, column = 0; // 1-based
    };
    FileError(std::string message, std::string source, std::optional<Position> at, std::string place,
              std::string detail)
        : Error(std::move(message)), source_(std::move(source)), at_(at), place_(std::move(place)),
          detail_(std::move(detail)) {}
    const std::string& source() const noexcept { return source_; }
    const std::optional<Position>& position() const noexcept { return at_; }
    const std::string& place() const noexcept { return place_; } // "graph 'g', node 'n'", or empty
    const std::string& detail() const noexcept { return detail_; }

private:
    std::string source_;
    std::optional<Position> at_;
    std::string place_, detail_;
};

class PreconditionError : public std::logic_error {
public:
    using std::logic_error::logic_error;
};

// Thrown by a load that the progress callback asked to cancel.
class Cancelled : public std::runtime_error {
public:
    Cancelled() : std::runtime_error("cancelled") {}
};

} // namespace fxmem
