// A streaming writer of the pickle subset a memory snapshot needs: protocol 2, dict, list, tuple,
// str, int, bool and None, no memo. Its bytes are what Python's pickle.Pickler(protocol=2) writes
// with fast = True (no memo): lists and dicts in batches of 1000 (APPEND/SETITEM for a batch of
// one), ints as BININT1/BININT2/BININT/LONG1. Containers are announced with their size, so that
// the batches are written while the items stream (PyTorch's MemoryViz.js spreads each batch into
// a call's arguments: one batch per list would overflow its stack on a large trace).
#pragma once
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string_view>
#include <vector>

namespace fxmem::detail {

class PickleWriter {
public:
    explicit PickleWriter(std::ostream& out); // writes PROTO 2
    void none();
    void boolean(bool value);
    void integer(std::int64_t value);
    // UTF-8; invalid sequences are written as U+FFFD, so that Python and the browser decode it.
    void string(std::string_view text);
    // A container of exactly `size` items (a dict: `size` key/value pairs, key first), closed by end().
    void begin_list(std::size_t size);
    void begin_dict(std::size_t size);
    void begin_tuple(std::size_t size);
    void end();
    // The key and value of a dict item, for the common case.
    void key(std::string_view k) { string(k); }
    void finish(); // STOP; every container must be closed
    std::size_t bytes() const { return bytes_; }

private:
    enum class Kind : std::uint8_t { List, Dict, Tuple };
    struct Open {
        Kind kind;
        std::size_t size;    // items (dict: pairs)
        std::size_t written; // values written (dict: keys and values)
    };
    std::ostream& out_;
    std::vector<Open> open_;
    std::size_t bytes_ = 0;
    void put(char c);
    void put(const void* data, std::size_t n);
    void before_item(); // MARK at the start of a batch of more than one
    void after_item();  // APPEND(S)/SETITEM(S) at the end of a batch
};

} // namespace fxmem::detail
