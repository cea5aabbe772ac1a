// to_json: writes format v1 by hand (one storage or node per line), so that load_buffer(to_json(f))
// gives back everything the model holds and files diff well.
#include "fxmem/io.h"
#include "fxmem/program.h"
#include "json_text.h"

#include <charconv>

#include <vector>

namespace fxmem {

namespace {

using json_text::append_int;
using json_text::append_string;

void append_dims(std::string& out, std::span<const std::int64_t> dims) {
    out.push_back('[');
    for (std::size_t i = 0; i < dims.size(); ++i) {
        if (i) out += ", ";
        append_int(out, dims[i]);
    }
    out.push_back(']');
}

// Where each symbolic int's expression is, by the int's owner: -1 where the int is not symbolic.
struct SymbolicIndex {
    std::vector<std::int32_t> storage;                 // per storage: its nbytes expression
    std::vector<std::vector<std::int32_t>> tensor;     // per graph, per tensor: its first entry in tensor_entries
    std::vector<std::vector<std::int32_t>> node_flops; // per graph, per node: its FLOPs expression
    std::vector<std::vector<std::int32_t>> buffer;     // per graph, per program buffer: its nbytes expression

    explicit SymbolicIndex(const GraphFile& file) {
        const SymbolicSizes& sy = file.symbolic;
        if (sy.storage_sizes.empty() && sy.tensor_entries.empty() && sy.node_flops.empty() && sy.buffer_sizes.empty())
            return;
        storage.assign(file.storages.size(), -1);
        for (const auto& s : sy.storage_sizes) storage[s.storage.index()] = static_cast<std::int32_t>(s.expr);
        tensor.resize(file.graphs.size());
        node_flops.resize(file.graphs.size());
        for (std::size_t i = 0; i < sy.tensor_entries.size(); ++i) {
            const auto& e = sy.tensor_entries[i];
            auto& v = tensor[e.graph.index()];
            if (v.empty()) v.assign(file.graph(e.graph).tensors.size(), -1);
            if (v[e.tensor] < 0) v[e.tensor] = static_cast<std::int32_t>(i); // entries are grouped per tensor
        }
        for (const auto& f : sy.node_flops) {
            auto& v = node_flops[f.graph.index()];
            if (v.empty()) v.assign(file.graph(f.graph).size(), -1);
            v[f.node.index()] = static_cast<std::int32_t>(f.expr);
        }
        buffer.resize(file.graphs.size());
        for (const auto& b : sy.buffer_sizes) {
            auto& v = buffer[b.graph.index()];
            if (v.empty()) v.assign(file.graph(b.graph).program->buffers.size(), -1);
            v[b.buffer] = static_cast<std::int32_t>(b.expr);
        }
    }
    std::int32_t of_storage(std::size_t s) const { return storage.empty() ? -1 : storage[s]; }
    std::int32_t of_tensor(std::size_t g, std::size_t t) const {
        return tensor.empty() || tensor[g].empty() ? -1 : tensor[g][t];
    }
    std::int32_t of_flops(std::size_t g, std::size_t n) const {
        return node_flops.empty() || node_flops[g].empty() ? -1 : node_flops[g][n];
    }
    std::int32_t of_buffer(std::size_t g, std::size_t b) const {
        return buffer.empty() || buffer[g].empty() ? -1 : buffer[g][b];
    }
};

// Entries [from, to) of a tensor (its dims, then its offset) as `key` when any is symbolic: the
// expression's text where one is listed (tensor_entries from `next` on, in dim order), else the
// tensor's int. Advances `next` past the entries it wrote.
void append_entries(std::string& out, const SymbolicSizes& sy, std::size_t& next, std::uint32_t graph,
                    std::uint32_t tensor, const char* key, std::uint32_t from, std::uint32_t to,
                    const std::int64_t* ints, bool array) {
    const auto listed = [&](std::uint32_t dim) {
        return next < sy.tensor_entries.size() && sy.tensor_entries[next].graph.index() == graph &&
               sy.tensor_entries[next].tensor == tensor && sy.tensor_entries[next].dim == dim;
    };
    bool any = false;
    for (std::size_t i = next; i < sy.tensor_entries.size() && sy.tensor_entries[i].graph.index() == graph &&
                               sy.tensor_entries[i].tensor == tensor;
         ++i)
        any = any || (sy.tensor_entries[i].dim >= from && sy.tensor_entries[i].dim < to);
    if (!any) return;
    out += ", \"";
    out += key;
    out += "\": ";
    if (array) out.push_back('[');
    for (std::uint32_t d = from; d < to; ++d) {
        if (d > from) out += ", ";
        if (listed(d)) {
            append_string(out, sy.expr_text(sy.tensor_entries[next++].expr));
        } else {
            append_int(out, ints[d - from]);
        }
    }
    if (array) out.push_back(']');
}

void append_tensor(std::string& out, const GraphFile& file, const Graph& g, std::uint32_t graph, std::uint32_t tensor,
                   std::int32_t entries) {
    const Tensor& t = g.tensors[tensor];
    out += "{\"storage\": ";
    append_int(out, file.storages[t.storage.index()].file_id);
    out += ", \"dtype\": ";
    append_string(out, file.dtypes[t.dtype]);
    out += ", \"shape\": ";
    append_dims(out, g.shape(t));
    out += ", \"stride\": ";
    append_dims(out, g.stride(t));
    out += ", \"offset\": ";
    append_int(out, t.offset);
    if (entries >= 0) {
        auto next = static_cast<std::size_t>(entries);
        const SymbolicSizes& sy = file.symbolic;
        append_entries(out, sy, next, graph, tensor, "shape_expr", 0, t.rank, g.shape(t).data(), true);
        append_entries(out, sy, next, graph, tensor, "stride_expr", t.rank, 2 * t.rank, g.stride(t).data(), true);
        append_entries(out, sy, next, graph, tensor, "offset_expr", 2 * t.rank, 2 * t.rank + 1, &t.offset, false);
    }
    out.push_back('}');
}

// The val tokens are a preorder walk; lists are closed with an explicit stack (no recursion, so
// any nesting the builder accepted can be written).
void append_val(std::string& out, const GraphFile& file, const Graph& g, std::span<const ValToken> tokens,
                const SymbolicIndex& index, std::size_t graph_index) {
    std::vector<std::uint32_t> remaining; // children still to write, per open list
    bool first = true;
    for (const ValToken& t : tokens) {
        if (!remaining.empty() && !first) out += ", ";
        first = false;
        switch (t.kind) {
        case ValToken::Kind::Null: out += "null"; break;
        case ValToken::Kind::Tensor:
            append_tensor(out, file, g, static_cast<std::uint32_t>(graph_index), t.payload,
                          index.of_tensor(graph_index, t.payload));
            break;
        case ValToken::Kind::Other:
            out += "{\"other\": ";
            append_string(out, g.others[t.payload]);
            out.push_back('}');
            break;
        case ValToken::Kind::List:
            out.push_back('[');
            if (t.payload > 0) {
                remaining.push_back(t.payload);
                first = true;
                continue;
            }
            out.push_back(']');
            break;
        }
        // A finished element may complete its list, and that list its parent.
        while (!remaining.empty() && --remaining.back() == 0) {
            out.push_back(']');
            remaining.pop_back();
        }
    }
}

// The shortest text that reads back as the same double, with ".0" on whole numbers as Python
// writes them ("1.0", "0.6").
void append_double(std::string& out, double v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    const std::string_view text(buf, static_cast<std::size_t>(r.ptr - buf));
    out += text;
    if (text.find_first_of(".e") == std::string_view::npos) out += ".0";
}

void append_node(std::string& out, const GraphFile& file, const Graph& g, NodeId id, const SymbolicIndex& index,
                 std::size_t graph_index) {
    const Node& n = g.node(id);
    out += "{\"name\": ";
    append_string(out, n.name);
    out += ", \"op\": ";
    append_string(out, to_string(n.op));
    out += ", \"target\": ";
    append_string(out, g.target(id));
    out += ", \"inputs\": [";
    bool first = true;
    for (NodeId in : g.inputs(id)) {
        if (!first) out += ", ";
        first = false;
        append_string(out, g.node(in).name);
    }
    out += "], \"val\": ";
    append_val(out, file, g, g.val(id), index, graph_index);
    if (const std::string_view trace = g.stack_trace(id); !trace.empty()) {
        out += ", \"stack_trace\": ";
        append_string(out, trace);
    }
    if (const std::string_view meta = g.meta_json(id); !meta.empty()) {
        out += ", \"meta\": ";
        out += meta;
    }
    if (const ModuleInfo* m = g.module(id)) {
        out += ", \"module\": ";
        append_string(out, m->name);
        if (!m->type.empty()) {
            out += ", \"module_type\": ";
            append_string(out, m->type);
        }
    }
    if (const NodePhase phase = g.phase(id); phase != NodePhase::Unknown) {
        out += ", \"phase\": ";
        append_string(out, to_string(phase));
    }
    if (const std::optional<std::int64_t> flops = g.flops(id)) {
        out += ", \"flops\": ";
        append_int(out, *flops);
        if (const std::int32_t e = index.of_flops(graph_index, id.index()); e >= 0) {
            out += ", \"flops_expr\": ";
            append_string(out, file.symbolic.expr_text(static_cast<std::uint32_t>(e)));
        }
    }
    out.push_back('}');
}

void append_names(std::string& out, const Graph& g, std::span<const NodeId> nodes) {
    out.push_back('[');
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (i) out += ", ";
        append_string(out, g.node(nodes[i]).name);
    }
    out.push_back(']');
}

void append_ids(std::string& out, std::span<const std::uint32_t> ids) {
    out.push_back('[');
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (i) out += ", ";
        append_int(out, ids[i]);
    }
    out.push_back(']');
}

// The graph's PROGRAM level, one buffer or kernel per line.
void append_program(std::string& out, const GraphFile& file, const Graph& g, const Program& p,
                    const SymbolicIndex& index, std::size_t graph_index) {
    out += ",\n   \"program\": {\"target\": ";
    append_string(out, p.target);
    if (!p.source.empty()) {
        out += ", \"source\": ";
        append_string(out, p.source);
    }
    out += ", \"buffers\": [";
    for (std::size_t i = 0; i < p.buffers.size(); ++i) {
        const ProgramBuffer& b = p.buffers[i];
        out += i ? ",\n    " : "\n    ";
        out += "{\"name\": ";
        append_string(out, b.name);
        out += ", \"device\": ";
        append_string(out, file.devices[b.device]);
        out += ", \"nbytes\": ";
        append_int(out, b.nbytes);
        if (const std::int32_t e = index.of_buffer(graph_index, i); e >= 0) {
            out += ", \"nbytes_expr\": ";
            append_string(out, file.symbolic.expr_text(static_cast<std::uint32_t>(e)));
        }
        if (b.input) out += ", \"input\": true";
        if (!b.kind.empty()) {
            out += ", \"kind\": ";
            append_string(out, b.kind);
        }
        if (b.nodes.size()) {
            out += ", \"nodes\": ";
            append_names(out, g, p.nodes(b));
        }
        if (b.reuses) {
            out += ", \"reuses\": ";
            append_int(out, *b.reuses);
        }
        if (b.stream) {
            out += ", \"stream\": ";
            append_int(out, b.stream);
        }
        out.push_back('}');
    }
    out += p.buffers.empty() ? "]" : "\n   ]";
    out += ", \"kernels\": [";
    for (std::size_t k = 0; k < p.kernels.size(); ++k) {
        const ProgramKernel& kernel = p.kernels[k];
        out += k ? ",\n    " : "\n    ";
        out += "{\"name\": ";
        append_string(out, kernel.name);
        if (kernel.nodes.size()) {
            out += ", \"nodes\": ";
            append_names(out, g, p.nodes(kernel));
        }
        out += ", \"alloc\": ";
        append_ids(out, p.allocs(kernel));
        out += ", \"free\": ";
        append_ids(out, p.frees(kernel));
        out.push_back('}');
    }
    out += p.kernels.empty() ? "]}" : "\n   ]}";
}

void append_int_list(std::string& out, const std::vector<std::int64_t>& values) {
    out.push_back('[');
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i) out += ", ";
        append_int(out, values[i]);
    }
    out.push_back(']');
}

void append_distributed(std::string& out, const DistributedInfo& d) {
    out += "\"distributed\": {\"rank\": ";
    append_int(out, d.rank);
    out += ", \"world_size\": ";
    append_int(out, d.world_size);
    out += ", \"meshes\": [";
    for (std::size_t m = 0; m < d.meshes.size(); ++m) {
        const DeviceMeshInfo& mesh = d.meshes[m];
        out += m ? ", " : "";
        out += "{\"device_type\": ";
        append_string(out, mesh.device_type);
        out += ", \"shape\": ";
        append_int_list(out, mesh.shape);
        out += ", \"dim_names\": ";
        if (mesh.dim_names) {
            out.push_back('[');
            for (std::size_t i = 0; i < mesh.dim_names->size(); ++i) {
                if (i) out += ", ";
                append_string(out, (*mesh.dim_names)[i]);
            }
            out.push_back(']');
        } else {
            out += "null";
        }
        out += ", \"coordinate\": ";
        if (mesh.coordinate)
            append_int_list(out, *mesh.coordinate);
        else
            out += "null";
        out.push_back('}');
    }
    out.push_back(']');
    if (!d.parameters.empty()) {
        out += ", \"parameters\": [";
        for (std::size_t i = 0; i < d.parameters.size(); ++i) {
            const ParameterShard& p = d.parameters[i];
            out += i ? ",\n  " : "\n  ";
            out += "{\"name\": ";
            append_string(out, p.name);
            out += ", \"shape\": ";
            append_int_list(out, p.shape);
            out += ", \"local_shape\": ";
            append_int_list(out, p.local_shape);
            out += ", \"nbytes\": ";
            append_int(out, p.nbytes);
            out.push_back('}');
        }
        out.push_back(']');
    }
    out += "},\n";
}

} // namespace

std::string to_json(const GraphFile& file) {
    std::string out;
    out += "{\n\"format\": \"fxmem\",\n\"version\": 1,\n";
    if (!file.producer_json.empty()) out += "\"producer\": " + file.producer_json + ",\n";
    if (file.distributed) append_distributed(out, *file.distributed);
    const SymbolicIndex index(file);
    const SymbolicSizes& sy = file.symbolic;
    if (!sy.symbols.empty()) {
        // The hints are the binding the file's ints hold now (after bind_sizes, its values).
        out += "\"symbols\": [";
        for (std::size_t i = 0; i < sy.symbols.size(); ++i) {
            const Symbol& s = sy.symbols[i];
            out += i ? ",\n  " : "\n  ";
            out += "{\"name\": ";
            append_string(out, s.name);
            out += ", \"hint\": ";
            append_int(out, i < sy.bound.size() ? sy.bound[i] : s.hint);
            out += ", \"source\": ";
            append_string(out, s.source);
            out += ", \"min\": ";
            append_int(out, s.min);
            out += ", \"max\": ";
            if (s.max) {
                append_int(out, *s.max);
            } else {
                out += "null";
            }
            out.push_back('}');
        }
        out += "\n],\n";
    }
    out += "\"storages\": [";
    for (std::size_t i = 0; i < file.storages.size(); ++i) {
        const Storage& s = file.storages[i];
        out += i ? ",\n  " : "\n  ";
        out += "{\"id\": ";
        append_int(out, s.file_id);
        out += ", \"device\": ";
        append_string(out, file.devices[s.device]);
        out += ", \"nbytes\": ";
        append_int(out, s.nbytes);
        if (const std::int32_t e = index.of_storage(i); e >= 0) {
            out += ", \"nbytes_expr\": ";
            append_string(out, sy.expr_text(static_cast<std::uint32_t>(e)));
        }
        if (s.role != StorageRole::Unknown) {
            out += ", \"role\": ";
            append_string(out, to_string(s.role));
        }
        if (const std::string_view label = file.label(StorageId(static_cast<std::int32_t>(i))); !label.empty()) {
            out += ", \"label\": ";
            append_string(out, label);
        }
        out.push_back('}');
    }
    out += file.storages.empty() ? "],\n" : "\n],\n";
    out += "\"graphs\": [";
    for (std::size_t gi = 0; gi < file.graphs.size(); ++gi) {
        const Graph& g = file.graphs[gi];
        out += gi ? ",\n  " : "\n  ";
        out += "{\"name\": ";
        append_string(out, g.name);
        out += ", \"kind\": ";
        append_string(out, to_string(g.kind));
        if (g.num_fwd_outputs) {
            out += ", \"num_fwd_outputs\": ";
            append_int(out, *g.num_fwd_outputs);
        }
        out += ", \"nodes\": [";
        for (std::size_t i = 0; i < g.size(); ++i) {
            out += i ? ",\n    " : "\n    ";
            append_node(out, file, g, NodeId(static_cast<std::int32_t>(i)), index, gi);
        }
        out += g.size() ? "\n  ]" : "]";
        if (g.program) append_program(out, file, g, *g.program, index, gi);
        out.push_back('}');
    }
    out += file.graphs.empty() ? "]" : "\n]";
    if (!file.pairs.empty()) {
        out += ",\n\"pairs\": [";
        for (std::size_t i = 0; i < file.pairs.size(); ++i) {
            out += i ? ",\n  " : "\n  ";
            out += "{\"forward\": ";
            append_string(out, file.graph(file.pairs[i].forward).name);
            out += ", \"backward\": ";
            append_string(out, file.graph(file.pairs[i].backward).name);
            if (file.pairs[i].joint) {
                out += ", \"joint\": ";
                append_string(out, file.graph(*file.pairs[i].joint).name);
            }
            if (file.pairs[i].budget) {
                out += ", \"budget\": ";
                append_double(out, *file.pairs[i].budget);
            }
            out.push_back('}');
        }
        out += "\n]";
    }
    if (!file.step.empty()) {
        out += ",\n\"step\": [";
        for (std::size_t i = 0; i < file.step.size(); ++i) {
            const StepEntry& e = file.step[i];
            out += i ? ",\n  " : "\n  ";
            out += "{\"graph\": ";
            append_string(out, file.graph(e.graph).name);
            out += ", \"call\": " + std::to_string(e.call);
            if (!e.module_prefix.empty()) {
                out += ", \"module_prefix\": ";
                append_string(out, e.module_prefix);
            }
            out.push_back('}');
        }
        out += "\n]";
    }
    if (!file.schedules.empty()) {
        out += ",\n\"schedules\": [";
        for (std::size_t i = 0; i < file.schedules.size(); ++i) {
            const NamedSchedule& sc = file.schedules[i];
            const Graph& g = file.graph(sc.graph);
            out += i ? ",\n  " : "\n  ";
            out += "{\"name\": ";
            append_string(out, sc.name);
            out += ", \"graph\": ";
            append_string(out, g.name);
            if (!sc.source.empty()) {
                out += ", \"source\": ";
                append_string(out, sc.source);
            }
            out += ", \"order\": [";
            for (std::size_t p = 0; p < sc.order.size(); ++p) {
                if (p) out += ", ";
                append_string(out, g.node(sc.order[p]).name);
            }
            out += "]}";
        }
        out += "\n]";
    }
    out += "\n}\n";
    return out;
}

void save_file(const GraphFile& file, const std::string& path) { write_file_atomically(path, to_json(file)); }

} // namespace fxmem
