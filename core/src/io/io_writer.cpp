// to_json: writes format v1 by hand (one storage or node per line), so that load_buffer(to_json(f))
// gives back everything the model holds and files diff well.
#include "fxmem/io.h"
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

void append_tensor(std::string& out, const GraphFile& file, const Graph& g, const Tensor& t) {
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
    out.push_back('}');
}

// The val tokens are a preorder walk; lists are closed with an explicit stack (no recursion, so
// any nesting the builder accepted can be written).
void append_val(std::string& out, const GraphFile& file, const Graph& g, std::span<const ValToken> tokens) {
    std::vector<std::uint32_t> remaining; // children still to write, per open list
    bool first = true;
    for (const ValToken& t : tokens) {
        if (!remaining.empty() && !first) out += ", ";
        first = false;
        switch (t.kind) {
        case ValToken::Kind::Null: out += "null"; break;
        case ValToken::Kind::Tensor: append_tensor(out, file, g, g.tensors[t.payload]); break;
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

void append_node(std::string& out, const GraphFile& file, const Graph& g, NodeId id) {
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
    append_val(out, file, g, g.val(id));
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
    if (const std::int64_t flops = g.flops(id); flops >= 0) {
        out += ", \"flops\": ";
        append_int(out, flops);
    }
    out.push_back('}');
}

} // namespace

std::string to_json(const GraphFile& file) {
    std::string out;
    out += "{\n\"format\": \"fxmem\",\n\"version\": 1,\n";
    if (!file.producer_json.empty()) out += "\"producer\": " + file.producer_json + ",\n";
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
        if (g.num_fwd_outputs >= 0) {
            out += ", \"num_fwd_outputs\": ";
            append_int(out, g.num_fwd_outputs);
        }
        out += ", \"nodes\": [";
        for (std::size_t i = 0; i < g.size(); ++i) {
            out += i ? ",\n    " : "\n    ";
            append_node(out, file, g, NodeId(static_cast<std::int32_t>(i)));
        }
        out += g.size() ? "\n  ]}" : "]}";
    }
    out += file.graphs.empty() ? "]" : "\n]";
    if (!file.pairs.empty()) {
        out += ",\n\"pairs\": [";
        for (std::size_t i = 0; i < file.pairs.size(); ++i) {
            out += i ? ",\n  " : "\n  ";
            out += "{\"forward\": ";
            append_string(out, file.graphs[file.pairs[i].forward].name);
            out += ", \"backward\": ";
            append_string(out, file.graphs[file.pairs[i].backward].name);
            if (file.pairs[i].joint >= 0) {
                out += ", \"joint\": ";
                append_string(out, file.graphs[static_cast<std::size_t>(file.pairs[i].joint)].name);
            }
            if (file.pairs[i].budget >= 0) {
                out += ", \"budget\": ";
                append_double(out, file.pairs[i].budget);
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
            append_string(out, file.graphs[e.graph].name);
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
            const Graph& g = file.graphs[sc.graph];
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
