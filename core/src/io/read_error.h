// An error found while reading a graph file, in parts: where in the text (a byte offset, or none
// for the file as a whole), the entity being read ("graph 'g', node 'n'", "storages[3] (id 7)")
// and what is wrong. The reader throws it; the entry points (load_buffer and the two paths alone)
// turn it into fxmem::Error's message once, at the edge, where line and column are computed.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace fxmem::reader {

struct ReadError {
    static constexpr std::size_t kNoOffset = static_cast<std::size_t>(-1);
    std::string source;
    std::size_t offset = kNoOffset;
    std::string place; // empty: the message names no entity
    std::string what;
};

// "<source>:<line>:<column>: <place>: <what>", without the line and column when there is no
// offset and without "<place>: " when there is no place.
std::string format(const ReadError& e, std::string_view text);

} // namespace fxmem::reader
