// What the reader keeps of an entity while it reads it: a node's fields until its object closes,
// a graph's nodes when they must wait for what they refer to, and the pairs, steps and named
// schedules until the whole file has been read.
#pragma once
#include "fxmem/model.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fxmem::reader {

// One entry of a tensor's shape_expr, stride_expr or offset_expr as read: a constant, or an
// expression's text (parsed once the file's symbols are known).
struct StagedEntry {
    bool is_text = false;
    std::int64_t constant = 0;
    std::string text;
    std::size_t offset = 0; // where it was read, for messages
};

// One staged val token; Tensor and Other carry their fields, Begin/End bracket a list.
struct StagedVal {
    enum class Kind : std::uint8_t { Null, Tensor, Begin, End, Other } kind = Kind::Null;
    std::int64_t storage = 0; // the file's storage id
    StorageId resolved;       // its dense id, once emit has looked it up
    std::uint32_t shape_begin = 0, shape_size = 0, stride_begin = 0, stride_size = 0; // into NodeRecord::dims
    std::int64_t offset = 0;
    std::string text; // dtype for Tensor, the text for Other
    // Symbolic entries (into NodeRecord::entries): shape_expr, stride_expr, offset_expr when given.
    bool has_shape_expr = false, has_stride_expr = false, has_offset_expr = false;
    std::uint32_t shape_expr_begin = 0, stride_expr_begin = 0, offset_expr = 0;
    bool symbolic() const { return has_shape_expr || has_stride_expr || has_offset_expr; }
};

// A node's fields as read, kept until the node's object closes.
struct NodeRecord {
    std::string name, target, stack_trace, meta, module, module_type;
    bool has_module = false, has_module_type = false;
    OpKind op = OpKind::CallFunction;
    NodePhase phase = NodePhase::Unknown;
    std::int64_t flops = -1; // -1: absent
    std::string flops_expr;  // empty: absent
    std::size_t flops_expr_offset = 0;
    std::vector<StagedEntry> entries;      // the vals' symbolic entries
    std::vector<std::string> inputs;       // first n_inputs are used; the rest keep their capacity
    std::vector<std::uint32_t> input_tags; // NameIndex::tag_of each input, computed as it is read
    std::size_t n_inputs = 0;
    std::uint32_t name_tag = 0;
    std::vector<StagedVal> vals;
    std::vector<std::int64_t> dims;
    std::uint64_t seen = 0;
    std::size_t end_offset = 0; // where the node's object ended, for messages

    void reset() {
        n_inputs = 0;
        vals.clear();
        dims.clear();
        entries.clear();
        flops_expr.clear();
        name.clear();
        stack_trace.clear();
        meta.clear();
        has_module = has_module_type = false;
        phase = NodePhase::Unknown;
        flops = -1;
        seen = 0;
    }
    void add_input(std::string_view s, std::uint32_t tag) {
        if (n_inputs == inputs.size()) inputs.emplace_back(), input_tags.emplace_back();
        input_tags[n_inputs] = tag;
        inputs[n_inputs++].assign(s);
    }
    NodeRecord compact() const {
        NodeRecord r = *this;
        r.inputs.resize(n_inputs);
        r.input_tags.resize(n_inputs);
        return r;
    }
};

// An expression met while reading, parsed and checked against its hinted int once the whole file
// (and so its "symbols") has been read. Nbytes: of storage `owner`; Tensor: entry `dim` of the
// `tensor`-th tensor of node `node` of graph `owner`; Flops: of node `node` of graph `owner`;
// BufferNbytes: of buffer `tensor` of graph `owner`'s program.
struct StagedExpr {
    enum class Kind : std::uint8_t { Nbytes, Tensor, Flops, BufferNbytes } kind = Kind::Nbytes;
    std::uint32_t owner = 0;
    NodeId node;
    std::uint32_t tensor = 0, dim = 0;
    bool is_text = true;
    std::int64_t constant = 0;
    std::uint32_t text_begin = 0, text_end = 0; // into the reader's expression texts
    std::size_t offset = 0;
};

struct StagedSymbol {
    Symbol symbol;
    std::uint64_t seen = 0;
    bool max_given = false;
    std::size_t end_offset = 0;
};

struct PendingGraph {
    std::string name;
    GraphKind kind = GraphKind::Other;
    std::optional<std::int64_t> num_fwd_outputs;
    std::vector<NodeRecord> nodes;
    std::size_t end_offset = 0;
};

// A named schedule as read; resolved against the graphs once the whole file is read (the
// "schedules" array may come before "graphs").
// Its order is held compactly: resolved to node ids while it is read when the graphs are already
// read and "graph" came first (the usual layout; a repeat stops the read there), else as one
// buffer of names and their ends, resolved at the end of the file. Either way a long order costs
// about its own text, not a std::string per entry.
struct StagedSchedule {
    std::string name, graph, source;
    bool resolved = false; // order read as ids (order_ids), else as names
    std::vector<NodeId> order_ids;
    std::string order_names;               // names one after another ...
    std::vector<std::uint32_t> order_ends; // ... each ending here
    std::size_t order_size() const { return resolved ? order_ids.size() : order_ends.size(); }
    std::string_view order_name(std::size_t p) const {
        const std::uint32_t from = p == 0 ? 0 : order_ends[p - 1];
        return std::string_view(order_names).substr(from, order_ends[p] - from);
    }
    std::size_t index = 0;
    std::size_t end_offset = 0;
};

// A graph's "program" as read, resolved once every graph is built (its node names need the graph,
// whose nodes may come after it). Node names are one buffer of names and their ends; buffer
// indices are kept as read and checked when resolved.
struct StagedProgram {
    struct Buffer {
        std::string name, device, kind, nbytes_expr;
        std::int64_t nbytes = 0, stream = 0;
        std::optional<std::int64_t> reuses;
        bool input = false, has_expr = false;
        Range nodes; // into name_ends
        std::size_t expr_offset = 0, end_offset = 0;
    };
    struct Kernel {
        std::string name;
        Range nodes, alloc, free; // into name_ends, ids, ids
        std::size_t end_offset = 0;
    };
    std::uint32_t graph = 0; // the graph's index in the file's "graphs"
    std::string target, source;
    std::vector<Buffer> buffers;
    std::vector<Kernel> kernels;
    std::string names;
    std::vector<std::uint32_t> name_ends;
    std::vector<std::int64_t> ids;
    std::size_t end_offset = 0;
    std::string_view name(std::size_t i) const {
        const std::uint32_t from = i == 0 ? 0 : name_ends[i - 1];
        return std::string_view(names).substr(from, name_ends[i] - from);
    }
};

struct StagedStep {
    std::string graph, module_prefix;
    std::int64_t call = 0;
    std::size_t index = 0;
    std::size_t end_offset = 0;
};

struct StagedPair {
    std::string forward, backward, joint;
    bool joint_given = false;
    std::optional<double> budget;
    std::size_t index = 0;
    std::size_t end_offset = 0;
};

} // namespace fxmem::reader
