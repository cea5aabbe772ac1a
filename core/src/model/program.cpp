// The PROGRAM level's rules (fxmem/program.h), checked once, for the reader and for programs made
// by hand: one walk over the kernels in order, with each buffer's state.
#include "fxmem/program.h"

#include "model/placed_error.h"
#include "model/quote.h"

#include <limits>
#include <unordered_map>

namespace fxmem {

using detail::quote;

namespace {

template <class T>
Range append_range(std::vector<T>& pool, std::span<const T> items) {
    if (pool.size() + items.size() > std::numeric_limits<std::uint32_t>::max())
        throw Error("a program's lists exceed 2^32 entries");
    const auto begin = static_cast<std::uint32_t>(pool.size());
    pool.insert(pool.end(), items.begin(), items.end());
    return {begin, static_cast<std::uint32_t>(pool.size())};
}

std::string named(const Program& p, std::uint32_t b) {
    return "buffer " + std::to_string(b) + " (" + quote(p.buffers[b].name) + ")";
}

} // namespace

Range Program::add_nodes(std::span<const NodeId> nodes) { return append_range(node_ids, nodes); }
Range Program::add_buffer_ids(std::span<const std::uint32_t> ids) { return append_range(buffer_ids, ids); }

std::string ProgramFault::place() const {
    return (in == In::Buffer ? "program.buffers[" : "program.kernels[") + std::to_string(index) + "]";
}

std::optional<ProgramFault> check_program(const GraphFile& file, GraphId graph, const Program& p) {
    const std::size_t graph_size = file.graph(graph).size();
    const auto n = static_cast<std::uint32_t>(p.buffers.size());
    const auto nodes_fault = [&](std::span<const NodeId> nodes) -> std::optional<std::string> {
        for (NodeId v : nodes)
            if (!v.valid() || v.index() >= graph_size)
                return "node id " + std::to_string(v.value) + " is not a node of the graph (it has " +
                       std::to_string(graph_size) + ")";
        return std::nullopt;
    };
    std::unordered_map<std::string_view, std::uint32_t> by_name;
    for (std::uint32_t b = 0; b < n; ++b) {
        const ProgramBuffer& buf = p.buffers[b];
        const auto fault = [&](std::string what) { return ProgramFault{ProgramFault::In::Buffer, b, std::move(what)}; };
        if (const auto [at, fresh] = by_name.emplace(buf.name, b); !fresh)
            return fault("duplicate buffer name " + quote(buf.name) + " (program.buffers[" +
                         std::to_string(at->second) + "] has it too)");
        if (buf.device >= file.devices.size())
            return fault("device index " + std::to_string(buf.device) + " is not one of the file's " +
                         std::to_string(file.devices.size()) + " devices");
        if (buf.nbytes < 0) return fault("'nbytes' must be >= 0, got " + std::to_string(buf.nbytes));
        if (auto bad = nodes_fault(p.nodes(buf))) return fault(std::move(*bad));
        if (!buf.reuses) continue;
        const std::uint32_t r = *buf.reuses;
        if (r >= b)
            return fault("'reuses' must name an earlier buffer, got " + std::to_string(r) +
                         (r == b ? " (itself)" : std::string()));
        const ProgramBuffer& old = p.buffers[r];
        if (old.device != buf.device || old.nbytes != buf.nbytes)
            return fault("reuses " + named(p, r) + " of " + std::to_string(old.nbytes) + " bytes on " +
                         file.devices[old.device] + ", but has " + std::to_string(buf.nbytes) + " bytes on " +
                         file.devices[buf.device] + " (a reuse takes over the same device and size)");
    }

    enum class State : std::uint8_t { Unborn, Live, Freed, TakenOver };
    std::vector<State> state(n, State::Unborn);
    std::vector<std::uint32_t> taken_by(n, 0);
    for (std::uint32_t b = 0; b < n; ++b)
        if (p.buffers[b].input) state[b] = State::Live;
    for (std::uint32_t k = 0; k < p.kernels.size(); ++k) {
        const ProgramKernel& kernel = p.kernels[k];
        const auto fault = [&](std::string what) { return ProgramFault{ProgramFault::In::Kernel, k, std::move(what)}; };
        if (auto bad = nodes_fault(p.nodes(kernel))) return fault(std::move(*bad));
        const auto out_of_range = [&](const char* list, std::size_t j, std::uint32_t b) {
            return fault("'" + std::string(list) + "'[" + std::to_string(j) + "] is " + std::to_string(b) +
                         ", but the program has " + std::to_string(n) + (n == 1 ? " buffer" : " buffers"));
        };
        const std::span<const std::uint32_t> allocs = p.allocs(kernel), frees = p.frees(kernel);
        for (std::size_t j = 0; j < allocs.size(); ++j) {
            const std::uint32_t b = allocs[j];
            if (b >= n) return out_of_range("alloc", j, b);
            if (p.buffers[b].input) return fault(named(p, b) + " is an input, allocated by no kernel");
            if (state[b] != State::Unborn) return fault(named(p, b) + " becomes live twice");
            state[b] = State::Live;
            if (const std::optional<std::uint32_t> r = p.buffers[b].reuses) {
                if (state[*r] != State::Live)
                    return fault(named(p, b) + " reuses " + named(p, *r) + ", which is not live");
                state[*r] = State::TakenOver;
                taken_by[*r] = b;
            }
        }
        for (std::size_t j = 0; j < frees.size(); ++j) {
            const std::uint32_t b = frees[j];
            if (b >= n) return out_of_range("free", j, b);
            switch (state[b]) {
            case State::Live: state[b] = State::Freed; break;
            case State::Freed: return fault(named(p, b) + " freed twice");
            case State::Unborn: return fault(named(p, b) + " freed before it is live");
            case State::TakenOver:
                return fault(named(p, b) + " freed after " + named(p, taken_by[b]) +
                             " took its allocation over (the reuse frees it)");
            }
        }
    }
    return std::nullopt;
}

void set_program(GraphFile& file, GraphId graph, Program program) {
    if (!graph.valid() || graph.index() >= file.graphs.size())
        throw Error(file.source + ": no graph " + std::to_string(graph.value) + " to set a program on");
    Graph& g = file.graphs[graph.index()];
    if (const std::optional<ProgramFault> fault = check_program(file, graph, program))
        throw detail::PlacedError(file.source, "graph " + quote(g.name) + ", " + fault->place(), fault->what);
    g.program = std::make_shared<const Program>(std::move(program));
}

} // namespace fxmem
