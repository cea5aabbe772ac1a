// One exception type for every invalid input. what() is a complete, user-facing message that
// names the file and the place (graph, node, storage id, or line and column) and what is wrong.
#pragma once
#include <stdexcept>
#include <string>

namespace fxmem {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Thrown by a load that the progress callback asked to cancel.
class Cancelled : public std::runtime_error {
public:
    Cancelled() : std::runtime_error("cancelled") {}
};

} // namespace fxmem
