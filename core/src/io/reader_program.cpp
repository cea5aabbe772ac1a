// The reader's PROGRAM level (docs/format.md): a graph's "program" staged as it is read, then,
// once every graph is built, its node names resolved, its indices checked (check_program, each
// fault placed at the end of its buffer's or kernel's object) and the program set on its graph.
#include "fxmem/error.h"
#include "fxmem/program.h"
#include "io/reader.h"
#include "model/quote.h"

#include <limits>

namespace fxmem::reader {

using detail::quote;

void Reader::begin_program() {
    program_ = StagedProgram{};
    program_.graph = static_cast<std::uint32_t>(graph_count_);
    program_seen_ = 0;
    buffer_count_ = kernel_count_ = 0;
    frames_.push_back(Frame::Program);
}

void Reader::add_program_name(std::string_view v) {
    if (program_.names.size() + v.size() > std::numeric_limits<std::uint32_t>::max())
        fail("the node names of one program exceed 4 GiB");
    program_.names.append(v);
    program_.name_ends.push_back(static_cast<std::uint32_t>(program_.names.size()));
}

void Reader::add_program_id(std::int64_t v) {
    if (program_.ids.size() >= std::numeric_limits<std::uint32_t>::max())
        fail("a program's 'alloc' and 'free' lists exceed 2^32 entries");
    program_.ids.push_back(v);
}

void Reader::end_program_list(Frame f) {
    const bool names = f == Frame::BufferNodes || f == Frame::KernelNodes;
    const Range r{program_list_begin_,
                  static_cast<std::uint32_t>(names ? program_.name_ends.size() : program_.ids.size())};
    switch (f) {
    case Frame::BufferNodes: buffer_.nodes = r; break;
    case Frame::KernelNodes: kernel_.nodes = r; break;
    case Frame::KernelAlloc: kernel_.alloc = r; break;
    default: kernel_.free = r; break;
    }
}

void Reader::end_buffer() {
    for (Slot k : {Slot::BufferName, Slot::BufferDevice, Slot::BufferNbytes})
        if (!(buffer_seen_ & bit(k))) missing(k);
    buffer_.end_offset = cursor_offset();
    program_.buffers.push_back(std::move(buffer_));
    ++buffer_count_;
}

void Reader::end_kernel() {
    for (Slot k : {Slot::KernelName, Slot::KernelAlloc, Slot::KernelFree})
        if (!(kernel_seen_ & bit(k))) missing(k);
    kernel_.end_offset = cursor_offset();
    program_.kernels.push_back(std::move(kernel_));
    ++kernel_count_;
}

void Reader::end_program() {
    // The program's frame is closed: its place is spelled out.
    for (Slot k : {Slot::ProgramTarget, Slot::ProgramBuffers, Slot::ProgramKernels})
        if (!(program_seen_ & bit(k))) fail_at(cursor_offset(), place() + ", program", "missing " + field_name(k));
    program_.end_offset = cursor_offset();
    programs_.push_back(std::move(program_));
}

void Reader::resolve_programs() {
    for (StagedProgram& sp : programs_) {
        fxmem::Graph& graph = file_.graphs[sp.graph];
        const auto place = [&](const char* list, std::size_t i) {
            return "graph " + quote(graph.name) + ", program." + list + "[" + std::to_string(i) + "]";
        };
        Program p;
        p.target = std::move(sp.target);
        p.source = std::move(sp.source);
        const auto n = static_cast<std::int64_t>(sp.buffers.size());
        std::vector<NodeId> nodes;
        const auto resolve_nodes = [&](Range r, std::size_t offset, const std::string& at) {
            nodes.clear();
            for (std::uint32_t i = r.begin; i < r.end; ++i) {
                const NodeId v = graph.find(sp.name(i));
                if (!v.valid()) fail_at(offset, at, "'nodes' names unknown node " + quote(sp.name(i)));
                nodes.push_back(v);
            }
            return p.add_nodes(nodes);
        };
        const auto index_of = [&](std::int64_t v, std::size_t offset, const std::string& at, const std::string& what) {
            if (v >= n)
                fail_at(offset, at,
                        what + " is " + std::to_string(v) + ", but the program has " + std::to_string(n) +
                            (n == 1 ? " buffer" : " buffers"));
            return static_cast<std::uint32_t>(v);
        };
        for (std::size_t i = 0; i < sp.buffers.size(); ++i) {
            StagedProgram::Buffer& sb = sp.buffers[i];
            ProgramBuffer& b = p.buffers.emplace_back();
            b.name = std::move(sb.name);
            b.device = file_.intern_device(sb.device);
            b.nbytes = sb.nbytes;
            b.input = sb.input;
            b.kind = std::move(sb.kind);
            b.nodes = resolve_nodes(sb.nodes, sb.end_offset, place("buffers", i));
            if (sb.reuses) b.reuses = index_of(*sb.reuses, sb.end_offset, place("buffers", i), "'reuses'");
            b.stream = static_cast<std::uint32_t>(sb.stream);
        }
        std::vector<std::uint32_t> ids;
        for (std::size_t k = 0; k < sp.kernels.size(); ++k) {
            StagedProgram::Kernel& sk = sp.kernels[k];
            ProgramKernel& kernel = p.kernels.emplace_back();
            kernel.name = std::move(sk.name);
            kernel.nodes = resolve_nodes(sk.nodes, sk.end_offset, place("kernels", k));
            for (const bool alloc : {true, false}) {
                const Range r = alloc ? sk.alloc : sk.free;
                ids.clear();
                for (std::uint32_t j = r.begin; j < r.end; ++j)
                    ids.push_back(
                        index_of(sp.ids[j], sk.end_offset, place("kernels", k),
                                 std::string(alloc ? "'alloc'" : "'free'") + "[" + std::to_string(j - r.begin) + "]"));
                (alloc ? kernel.alloc : kernel.free) = p.add_buffer_ids(ids);
            }
        }
        const GraphId g(static_cast<std::int32_t>(sp.graph));
        if (const std::optional<ProgramFault> fault = check_program(file_, g, p)) {
            const std::size_t offset = fault->in == ProgramFault::In::Buffer ? sp.buffers[fault->index].end_offset
                                                                             : sp.kernels[fault->index].end_offset;
            fail_at(offset, "graph " + quote(graph.name) + ", " + fault->place(), fault->what);
        }
        graph.program = std::make_shared<const Program>(std::move(p));
        for (std::size_t i = 0; i < sp.buffers.size(); ++i) {
            const StagedProgram::Buffer& sb = sp.buffers[i];
            if (!sb.has_expr) continue;
            StagedExpr e;
            e.kind = StagedExpr::Kind::BufferNbytes;
            e.owner = sp.graph;
            e.tensor = static_cast<std::uint32_t>(i);
            e.offset = sb.expr_offset;
            stage_expr(e, sb.nbytes_expr);
        }
    }
    std::vector<StagedProgram>().swap(programs_);
}

} // namespace fxmem::reader
