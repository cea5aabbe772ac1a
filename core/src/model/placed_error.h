// The model's errors (GraphFile, GraphBuilder) in parts: the message is "<source>: <place>: <what>"
// ("<source>: <what>" without a place), and the parts stay readable, so that the reader, which
// knows the line and column, can say the same again with them without taking the message apart.
#pragma once
#include "fxmem/error.h"

#include <string>

namespace fxmem::detail {

class PlacedError : public Error {
public:
    // UnknownName: a name (an input) that the graph does not have, so far.
    enum class Reason { Other, UnknownName };

    PlacedError(const std::string& source, std::string place, std::string what, Reason reason = Reason::Other)
        : Error(source + ": " + (place.empty() ? std::string() : place + ": ") + what), place_(std::move(place)),
          what_(std::move(what)), reason_(reason) {}

    const std::string& place() const noexcept { return place_; }
    const std::string& detail() const noexcept { return what_; }
    Reason reason() const noexcept { return reason_; }

private:
    std::string place_, what_;
    Reason reason_;
};

} // namespace fxmem::detail
