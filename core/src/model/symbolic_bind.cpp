// bind_sizes (fxmem/symbolic.h): every symbolic int of a file evaluated at a binding, checked,
// then written, so that a failed binding leaves the file as it was.
#include "fxmem/error.h"
#include "fxmem/model.h"
#include "fxmem/program.h"
#include "fxmem/symbolic.h"
#include "model/quote.h"

#include <algorithm>
#include <limits>

namespace fxmem {

namespace {

using detail::quote;

std::string binding_text(const SymbolicSizes& sy, std::span<const std::int64_t> values) {
    std::string out;
    for (std::size_t i = 0; i < sy.symbols.size(); ++i)
        out += (i ? ", " : "") + sy.symbols[i].name + "=" + std::to_string(values[i]);
    return out;
}

std::string symbol_label(const Symbol& s) {
    return "symbol " + quote(s.name) + (s.source.empty() ? std::string() : " (" + s.source + ")");
}

// The node whose val holds tensor `t` of graph `g`, for messages.
std::string tensor_place(const GraphFile& file, GraphId g, std::uint32_t t) {
    const Graph& graph = file.graph(g);
    for (const Node& n : graph.nodes)
        if (t >= n.tensors.begin && t < n.tensors.end)
            return "graph " + quote(graph.name) + ", node " + quote(n.name) + ", tensor " +
                   std::to_string(t - n.tensors.begin);
    return "graph " + quote(graph.name);
}

std::string entry_name(std::uint32_t dim, std::uint32_t rank) {
    if (dim < rank) return "'shape_expr'[" + std::to_string(dim) + "]";
    if (dim < 2 * rank) return "'stride_expr'[" + std::to_string(dim - rank) + "]";
    return "'offset_expr'";
}

} // namespace

void bind_sizes(GraphFile& file, const SizeBinding& binding) {
    if (std::optional<BindError> e = try_bind_sizes(file, binding)) throw Error(std::move(e->message));
}

std::optional<BindError> try_bind_sizes(GraphFile& file, const SizeBinding& binding, const BindLeniency& lenient) try {
    using Kind = BindError::Kind;
    SymbolicSizes& sy = file.symbolic;
    const std::span<const std::int64_t> values = binding.values;
    if (values.size() != sy.symbols.size())
        throw BindError{Kind::Invalid, file.source + ": a binding of " + std::to_string(values.size()) +
                                           " values for " + std::to_string(sy.symbols.size()) + " symbols"};
    for (std::size_t i = 0; i < values.size(); ++i)
        if (!sy.symbols[i].contains(values[i]))
            throw BindError{Kind::Invalid, file.source + ": " + symbol_label(sy.symbols[i]) + " = " +
                                               std::to_string(values[i]) + " is outside its range " +
                                               sy.symbols[i].range_text()};
    // Each distinct expression evaluated once; the ints that share it read its value.
    std::vector<std::int64_t> at(sy.exprs.size());
    std::vector<std::optional<EvalFault>> faults(sy.exprs.size());
    for (std::uint32_t e = 0; e < at.size(); ++e) {
        EvalFault fault{};
        if (const std::optional<std::int64_t> v = evaluate(sy.expr_code(e), values, &fault)) {
            at[e] = *v;
        } else {
            faults[e] = fault;
        }
    }
    const auto value_of = [&](std::uint32_t expr, const auto& place, std::string_view what, bool non_negative) {
        const std::optional<std::int64_t> v =
            faults[expr] ? std::optional<std::int64_t>() : std::optional<std::int64_t>(at[expr]);
        const EvalFault fault = faults[expr].value_or(EvalFault::Overflow);
        if (!v)
            throw BindError{fault == EvalFault::Overflow ? Kind::Overflow : Kind::Invalid,
                            file.source + ": " + place() + ": " + std::string(what) + " " + quote(sy.expr_text(expr)) +
                                " " + std::string(to_string(fault)) + " at " + binding_text(sy, values)};
        if (non_negative && *v < 0)
            throw BindError{Kind::Invalid, file.source + ": " + place() + ": " + std::string(what) + " " +
                                               quote(sy.expr_text(expr)) + " is " + std::to_string(*v) +
                                               " (negative) at " + binding_text(sy, values)};
        return *v;
    };

    std::vector<std::int64_t> nbytes(sy.storage_sizes.size());
    std::int64_t total = file.total_bytes_;
    for (const SymbolicSizes::StorageSize& s : sy.storage_sizes)
        total -= file.storages[s.storage.index()].nbytes; // the old total fits, and so does this
    // The storages that count first, so that a lenient CPU storage never takes the room of one.
    const auto uncounted = [&](std::size_t i) {
        return lenient.uncounted_cpu && file.is_cpu(sy.storage_sizes[i].storage);
    };
    for (const bool second : {false, true})
        for (std::size_t i = 0; i < nbytes.size(); ++i) {
            if (uncounted(i) != second) continue;
            const SymbolicSizes::StorageSize& s = sy.storage_sizes[i];
            const auto place = [&] { return "storage id " + std::to_string(file.storages[s.storage.index()].file_id); };
            if (second && faults[s.expr] == EvalFault::Overflow) {
                nbytes[i] = 0;
                continue;
            }
            nbytes[i] = value_of(s.expr, place, "'nbytes_expr'", true);
            if (__builtin_add_overflow(total, nbytes[i], &total)) {
                if (second) {
                    nbytes[i] = 0;
                    continue;
                }
                throw BindError{Kind::Overflow, file.source +
                                                    ": the storages' sizes add up to more than 2^63-1 bytes at " +
                                                    binding_text(sy, values) + " (at storage id " +
                                                    std::to_string(file.storages[s.storage.index()].file_id) + ")"};
            }
        }
    // A symbolic tensor lists its constant entries too (most of its strides): they never change.
    std::vector<std::int64_t> entries(sy.tensor_entries.size());
    std::vector<std::uint8_t> kept(sy.tensor_entries.size(), 0); // lenient.layout: an overflow keeps the entry
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const SymbolicSizes::TensorEntry& e = sy.tensor_entries[i];
        if (sy.is_constant(e.expr)) continue;
        const std::uint32_t rank = file.graph(e.graph).tensors[e.tensor].rank;
        if (lenient.layout && e.dim >= rank && faults[e.expr] == EvalFault::Overflow) {
            kept[i] = 1;
            continue;
        }
        const auto place = [&] { return tensor_place(file, e.graph, e.tensor); };
        entries[i] = value_of(e.expr, place, entry_name(e.dim, rank), e.dim < rank);
    }
    // FLOPs are no part of the memory: one that overflows, or would pass the file's cap, is left
    // unknown (-1) with a warning, not a refused binding (fit would read it as "does not fit").
    std::vector<std::int64_t> flops(sy.node_flops.size());
    std::int64_t total_flops = file.total_flops_; // kept under GraphFile::kMaxTotalFlops, as the builder keeps it
    for (const SymbolicSizes::NodeFlops& f : sy.node_flops)
        total_flops -= std::max<std::int64_t>(0, file.graph(f.graph).flops(f.node).value_or(0));
    std::size_t unknown = 0;
    std::string first_unknown;
    for (std::size_t i = 0; i < flops.size(); ++i) {
        const SymbolicSizes::NodeFlops& f = sy.node_flops[i];
        const auto place = [&] {
            const Graph& g = file.graph(f.graph);
            return "graph " + quote(g.name) + ", node " + quote(g.node(f.node).name);
        };
        if (faults[f.expr] && *faults[f.expr] == EvalFault::Overflow) {
            flops[i] = -1;
        } else {
            flops[i] = value_of(f.expr, place, "'flops_expr'", true);
            if (flops[i] > GraphFile::kMaxTotalFlops - total_flops) flops[i] = -1;
        }
        if (flops[i] < 0) {
            if (unknown++ == 0) first_unknown = place();
            continue;
        }
        total_flops += flops[i];
    }
    // Programs are shared between copies of the file: each one with a symbolic buffer is bound in
    // a copy, checked (a reuse must still join buffers of one size), and swapped in below.
    std::vector<std::pair<GraphId, std::shared_ptr<Program>>> programs;
    for (const SymbolicSizes::BufferSize& b : sy.buffer_sizes) {
        const Graph& g = file.graph(b.graph);
        const auto place = [&] {
            return "graph " + quote(g.name) + ", program.buffers[" + std::to_string(b.buffer) + "]";
        };
        const std::int64_t v = value_of(b.expr, place, "'nbytes_expr'", true);
        if (programs.empty() || programs.back().first != b.graph)
            programs.emplace_back(b.graph, std::make_shared<Program>(*g.program));
        programs.back().second->buffers[b.buffer].nbytes = v;
    }
    for (const auto& [graph, program] : programs)
        if (const std::optional<ProgramFault> fault = check_program(file, graph, *program))
            throw BindError{Kind::Invalid, file.source + ": graph " + quote(file.graph(graph).name) + ", " +
                                               fault->place() + ": " + fault->what + " at " + binding_text(sy, values)};

    for (std::size_t i = 0; i < nbytes.size(); ++i)
        file.storages[sy.storage_sizes[i].storage.index()].nbytes = nbytes[i];
    file.total_bytes_ = total;
    file.total_flops_ = total_flops;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const SymbolicSizes::TensorEntry& e = sy.tensor_entries[i];
        if (sy.is_constant(e.expr) || kept[i]) continue;
        Graph& g = file.graphs[e.graph.index()];
        Tensor& t = g.tensors[e.tensor];
        if (e.dim == 2 * t.rank) {
            t.offset = entries[i];
        } else {
            g.dims[t.dims_begin + e.dim] = entries[i];
        }
    }
    for (std::size_t i = 0; i < flops.size(); ++i) {
        const SymbolicSizes::NodeFlops& f = sy.node_flops[i];
        file.graphs[f.graph.index()].node_flops[f.node.index()] = flops[i];
    }
    for (auto& [graph, program] : programs) file.graphs[graph.index()].program = std::move(program);
    sy.bound.assign(values.begin(), values.end());
    sy.bind_warning = unknown == 0 ? std::string()
                                   : file.source + ": at " + binding_text(sy, values) + " the FLOPs of " +
                                         std::to_string(unknown) + (unknown == 1 ? " node" : " nodes") + " (first " +
                                         first_unknown +
                                         ") overflow or pass 2^61 in all, and are left unknown; the memory is exact";
    return std::nullopt;
} catch (BindError& e) {
    return std::move(e);
}

} // namespace fxmem
