// Format-v1 JSON text of a GraphFile by plain appends into one reserved string: fast enough to
// write files of millions of nodes, and independent of the core's writer so that the loader
// benchmark and the round-trip test do not measure or test the core against itself.
#include "synth.h"

#include <charconv>

namespace fxmem::synth {

namespace {

class Writer {
public:
    explicit Writer(std::string& out) : out_(out) {}

    void raw(std::string_view s) { out_.append(s); }
    void ch(char c) { out_.push_back(c); }
    void num(std::int64_t v) {
        char buf[24];
        const auto r = std::to_chars(buf, buf + sizeof buf, v);
        out_.append(buf, r.ptr);
    }
    void str(std::string_view s) {
        out_.push_back('"');
        std::size_t plain = 0; // start of the run of characters that need no escape
        for (std::size_t i = 0; i < s.size(); ++i) {
            const auto c = static_cast<unsigned char>(s[i]);
            if (c >= 0x20 && c != '"' && c != '\\') continue;
            out_.append(s.substr(plain, i - plain));
            plain = i + 1;
            switch (c) {
            case '"': out_.append("\\\""); break;
            case '\\': out_.append("\\\\"); break;
            case '\n': out_.append("\\n"); break;
            case '\t': out_.append("\\t"); break;
            case '\r': out_.append("\\r"); break;
            default: {
                static constexpr char kHex[] = "0123456789abcdef";
                const char esc[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
                out_.append(esc, 6);
            }
            }
        }
        out_.append(s.substr(plain));
        out_.push_back('"');
    }
    void key(std::string_view k) {
        str(k);
        out_.push_back(':');
    }

private:
    std::string& out_;
};

void write_dims(Writer& w, std::span<const std::int64_t> dims) {
    w.ch('[');
    for (std::size_t i = 0; i < dims.size(); ++i) {
        if (i) w.ch(',');
        w.num(dims[i]);
    }
    w.ch(']');
}

// Writes the val subtree starting at tokens[at] and returns the index after it.
std::size_t write_val(Writer& w, const GraphFile& file, const Graph& g, std::span<const ValToken> tokens,
                      std::size_t at) {
    const ValToken& t = tokens[at++];
    switch (t.kind) {
    case ValToken::Kind::Null: w.raw("null"); break;
    case ValToken::Kind::Other:
        w.raw("{\"other\":");
        w.str(g.others[t.payload]);
        w.ch('}');
        break;
    case ValToken::Kind::Tensor: {
        const Tensor& tensor = g.tensors[t.payload];
        w.raw("{\"storage\":");
        w.num(file.storages[tensor.storage.index()].file_id);
        w.raw(",\"dtype\":");
        w.str(file.dtypes[tensor.dtype]);
        w.raw(",\"shape\":");
        write_dims(w, g.shape(tensor));
        w.raw(",\"stride\":");
        write_dims(w, g.stride(tensor));
        w.raw(",\"offset\":");
        w.num(tensor.offset);
        w.ch('}');
        break;
    }
    case ValToken::Kind::List:
        w.ch('[');
        for (std::uint32_t c = 0; c < t.payload; ++c) {
            if (c) w.ch(',');
            at = write_val(w, file, g, tokens, at);
        }
        w.ch(']');
        break;
    }
    return at;
}

void write_graph(Writer& w, const GraphFile& file, const Graph& g) {
    w.raw("{\"name\":");
    w.str(g.name);
    w.raw(",\"kind\":");
    w.str(to_string(g.kind));
    w.raw(",\"nodes\":[");
    for (std::size_t i = 0; i < g.size(); ++i) {
        const NodeId id(static_cast<std::int32_t>(i));
        const Node& n = g.node(id);
        w.raw(i ? ",\n{\"name\":" : "\n{\"name\":");
        w.str(n.name);
        w.raw(",\"op\":");
        w.str(to_string(n.op));
        w.raw(",\"target\":");
        w.str(g.target(id));
        w.raw(",\"inputs\":[");
        const auto inputs = g.inputs(id);
        for (std::size_t k = 0; k < inputs.size(); ++k) {
            if (k) w.ch(',');
            w.str(g.node(inputs[k]).name);
        }
        w.raw("],\"val\":");
        write_val(w, file, g, g.val(id), 0);
        if (const std::string_view trace = g.stack_trace(id); !trace.empty()) {
            w.raw(",\"stack_trace\":");
            w.str(trace);
        }
        if (const std::string_view meta = g.meta_json(id); !meta.empty()) {
            w.raw(",\"meta\":");
            w.raw(meta);
        }
        w.ch('}');
    }
    w.raw("]}");
}

} // namespace

std::string write_json(const GraphFile& file) {
    std::string out;
    std::size_t nodes = 0;
    for (const Graph& g : file.graphs) nodes += g.size();
    out.reserve(256 + file.storages.size() * 48 + nodes * 200);
    Writer w(out);
    w.raw("{\"format\":\"fxmem\",\"version\":1");
    if (!file.producer_json.empty()) {
        w.raw(",\"producer\":");
        w.raw(file.producer_json);
    }
    w.raw(",\"storages\":[");
    for (std::size_t i = 0; i < file.storages.size(); ++i) {
        const Storage& s = file.storages[i];
        w.raw(i ? ",\n{\"id\":" : "\n{\"id\":");
        w.num(s.file_id);
        w.raw(",\"device\":");
        w.str(file.devices[s.device]);
        w.raw(",\"nbytes\":");
        w.num(s.nbytes);
        w.ch('}');
    }
    w.raw("],\"graphs\":[");
    for (std::size_t i = 0; i < file.graphs.size(); ++i) {
        if (i) w.ch(',');
        write_graph(w, file, file.graphs[i]);
    }
    w.raw("],\"pairs\":[");
    for (std::size_t i = 0; i < file.pairs.size(); ++i) {
        if (i) w.ch(',');
        w.raw("{\"forward\":");
        w.str(file.graph(file.pairs[i].forward).name);
        w.raw(",\"backward\":");
        w.str(file.graph(file.pairs[i].backward).name);
        w.ch('}');
    }
    w.raw("]}\n");
    return out;
}

} // namespace fxmem::synth
