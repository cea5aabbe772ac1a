// The PROGRAM level of a graph (docs/format.md, "PROGRAM"): what the program Inductor generates
// from the graph allocates and frees, in its kernel order. Buffers are the wrapper's allocations
// (and the graph inputs it receives); kernels list, by buffer index, what becomes live right
// before each runs and what is freed right after. A graph holds its program by shared_ptr
// (Graph::program; null when the file has none), so that copying a graph stays cheap.
//
// Lifetime and threads: a Program is a plain value, read-only once set on a graph; any thread.
#pragma once
#include "fxmem/model.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fxmem {

struct ProgramBuffer {
    std::string name;                    // the wrapper's name ("buf3", "primals_1"); unique in the program
    std::uint32_t device = 0;            // index into GraphFile::devices
    std::int64_t nbytes = 0;             // what the allocation asks for, before allocator rounding
    bool input = false;                  // a graph input: live from the start, allocated by no kernel
    std::string kind;                    // "kernel", "extern", "fallback", "scratch", free-form; empty: absent
    Range nodes;                         // Program::node_ids: the FX nodes whose values it holds
    std::optional<std::uint32_t> reuses; // an earlier buffer whose allocation it takes over
    std::uint32_t stream = 0;            // the caching allocator's stream
};

struct ProgramKernel {
    std::string name;
    Range nodes; // Program::node_ids
    Range alloc; // Program::buffer_ids: live right before the kernel runs
    Range free;  // Program::buffer_ids: freed right after it runs
};

class Program {
public:
    std::string target; // "cpu" or "cuda"
    std::string source; // free-form provenance; empty when absent
    std::vector<ProgramBuffer> buffers;
    std::vector<ProgramKernel> kernels; // in the order the program runs them
    std::vector<NodeId> node_ids;       // the buffers' and kernels' node lists, back to back
    std::vector<std::uint32_t> buffer_ids;

    std::span<const NodeId> nodes(const ProgramBuffer& b) const { return slice(node_ids, b.nodes); }
    std::span<const NodeId> nodes(const ProgramKernel& k) const { return slice(node_ids, k.nodes); }
    std::span<const std::uint32_t> allocs(const ProgramKernel& k) const { return slice(buffer_ids, k.alloc); }
    std::span<const std::uint32_t> frees(const ProgramKernel& k) const { return slice(buffer_ids, k.free); }

    // Builders for code that makes a program by hand (tests, generators): each appends a list to
    // its pool and returns its range.
    Range add_nodes(std::span<const NodeId> nodes);
    Range add_buffer_ids(std::span<const std::uint32_t> ids);

private:
    template <class T>
    static std::span<const T> slice(const std::vector<T>& v, Range r) {
        return {v.data() + r.begin, r.size()};
    }
};

// Where a program breaks a rule of docs/format.md: "program.kernels[2]" or "program.buffers[3]",
// the index of that kernel or buffer, and what is wrong ("buffer 5 ('buf4') freed twice").
struct ProgramFault {
    enum class In : std::uint8_t { Buffer, Kernel } in = In::Kernel;
    std::uint32_t index = 0;
    std::string what;
    std::string place() const; // "program.kernels[2]"
};

// Checks every rule of the format's PROGRAM section against graph `graph` of `file`: every
// index names a buffer, a `reuses` an earlier buffer; a buffer becomes live at most once and is
// freed at most once, only while live; an input is in no `alloc` list; a reuse takes over a live
// buffer of the same device and size, which is then in no `free` list; node ids are the graph's
// and devices the file's. The buffers' own faults first, then the first in kernel order; nullopt
// when there is none. O(buffers + the kernels' lists).
std::optional<ProgramFault> check_program(const GraphFile& file, GraphId graph, const Program& program);

// Sets graph `graph`'s program after check_program; throws Error naming the file, the graph and
// the place on a fault (the program is not set then).
void set_program(GraphFile& file, GraphId graph, Program program);

} // namespace fxmem
