// The in-memory graph model: one GraphFile holds the storage table, the graphs and the
// forward/backward pairs of a file. Everything per node lives in contiguous arrays indexed by
// NodeId; variable-length lists (inputs, users, tensors, storages) are CSR ranges into pools.
// Build graphs with GraphBuilder (the loader, the tests and the bench generator all do).
//
// Lifetime and threads: a GraphFile is a plain value that owns everything it holds (a node's
// lists are index ranges into its graph's own arrays), so a copy is independent; once built it is
// read-only, and its const methods may run on any number of threads (the app shares it as
// std::shared_ptr<const GraphFile>). A GraphBuilder keeps a reference to the GraphFile it fills:
// one thread, and the file outlives it.
#pragma once
#include "fxmem/ids.h"
#include "fxmem/name_index.h"
#include "fxmem/symbolic.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fxmem {

class Program; // fxmem/program.h

enum class OpKind : std::uint8_t { Placeholder, GetAttr, CallFunction, CallMethod, CallModule, Output };
// Joint: AOTAutograd's joint forward+backward graph, as handed to the partitioner
// (docs/format.md; fxmem/remat.h simulates its partitions).
enum class GraphKind : std::uint8_t { Forward, Backward, Inference, Other, Joint };
// Which side of a joint graph a node is on (docs/format.md, NODE "phase"); Unknown when not given.
enum class NodePhase : std::uint8_t { Unknown, Forward, Backward };
// What a storage is for (docs/format.md, STORAGE "role"). Unknown: the file does not say; the
// attribution derives a role from the graph's structure then (fxmem/attribution.h).
// OptimizerState: held by the optimizer for one parameter (exp_avg, ...); UnshardedParameter: a
// parameter all-gathered from its shards (FSDP).
enum class StorageRole : std::uint8_t {
    Unknown,
    Parameter,
    Buffer,
    Input,
    Activation,
    Output,
    Tangent,
    Gradient,
    Temporary,
    OptimizerState,
    UnshardedParameter
};

std::string_view to_string(OpKind op);
std::string_view to_string(GraphKind kind);
std::string_view to_string(StorageRole role);                     // "parameter", ...; "" for Unknown
bool parse_storage_role(std::string_view text, StorageRole& out); // the ten known names only
bool parse_op_kind(std::string_view text, OpKind& out);
bool parse_graph_kind(std::string_view text, GraphKind& out);
std::string_view to_string(NodePhase phase);                  // "forward", "backward"; "" for Unknown
bool parse_node_phase(std::string_view text, NodePhase& out); // "forward" or "backward" only

struct Storage {
    std::int64_t file_id = 0;                // the "id" written in the file
    std::uint32_t device = 0;                // index into GraphFile::devices
    std::int64_t nbytes = 0;                 // the whole storage's size, not a view's
    StorageRole role = StorageRole::Unknown; // as the file says
    std::uint32_t label = 0;                 // 1 + index into GraphFile::labels; 0 when the file gives none
};

// The module a node belongs to: qualified name as users write it ("blocks.0.attn", "" for the
// root) and its class name ("Linear"; may be empty).
struct ModuleInfo {
    std::string name;
    std::string type;
};
inline constexpr std::uint32_t kNoModule = 0xffffffffu;

struct Tensor {
    StorageId storage;
    std::uint32_t dtype = 0;      // index into GraphFile::dtypes
    std::uint32_t dims_begin = 0; // shape = dims[dims_begin, +rank), stride = dims[dims_begin+rank, +rank)
    std::uint32_t rank = 0;
    std::int64_t offset = 0;
};

// A node's val in preorder: List's payload is its child count, Tensor's an index into
// Graph::tensors, Other's an index into Graph::others.
struct ValToken {
    enum class Kind : std::uint8_t { Null, Tensor, List, Other };
    Kind kind = Kind::Null;
    std::uint32_t payload = 0;
};

struct Range {
    std::uint32_t begin = 0, end = 0;
    std::uint32_t size() const { return end - begin; }
};

// Kept small (a million of them are built per load): the target is interned per graph and the
// long, rarely read texts live in one pool; read them through Graph's accessors.
struct Node {
    std::string name;
    OpKind op = OpKind::CallFunction;
    std::uint32_t target = 0;         // Graph::targets
    Range stack_trace;                // Graph::texts; empty when absent
    Range meta_json;                  // Graph::texts: the "meta" object re-serialised, empty when absent
    Range inputs;                     // Graph::input_ids
    Range users;                      // Graph::user_ids (derived: nodes that list this one as input, in graph order)
    Range val;                        // Graph::val_tokens
    Range tensors;                    // Graph::tensors, in val order
    Range outputs;                    // Graph::output_storages: storages of the tensors, in order, without repeats
    std::uint32_t module = kNoModule; // Graph::modules; kNoModule when the file gives none
};

class Graph {
public:
    std::string name;
    GraphKind kind = GraphKind::Other;
    std::vector<Node> nodes;

    std::vector<NodeId> input_ids;
    std::vector<NodeId> user_ids;
    std::vector<ValToken> val_tokens;
    std::vector<Tensor> tensors;
    std::vector<std::int64_t> dims;
    std::vector<std::string> others;
    std::vector<StorageId> output_storages;
    std::vector<std::string> targets; // distinct targets, in order of first use
    std::string texts;                // stack traces and meta JSON, back to back
    std::vector<ModuleInfo> modules;  // distinct (module, module_type) pairs, in order of first use
    // Per node, each empty when no node of the graph has one: FLOPs and phase. A dense array read
    // in loops over every node, so an absent FLOP count is -1 here (flops() gives nullopt).
    std::vector<std::int64_t> node_flops;
    std::vector<NodePhase> node_phases;
    std::optional<std::int64_t> num_fwd_outputs; // joint graphs: how many output inputs are forward outputs
    // What the program Inductor generated from it allocates (fxmem/program.h); null when the file
    // has no program level for it. Shared: a copy of the graph shares it, and it is never changed
    // in place (bind_sizes replaces it).
    std::shared_ptr<const Program> program;

    std::size_t size() const { return nodes.size(); }
    const Node& node(NodeId id) const { return nodes[id.index()]; }
    std::string_view target(NodeId id) const { return targets[node(id).target]; }
    std::string_view stack_trace(NodeId id) const { return text(node(id).stack_trace); }
    std::string_view meta_json(NodeId id) const { return text(node(id).meta_json); }
    // The node's module, or nullptr when the file gives none.
    const ModuleInfo* module(NodeId id) const {
        const std::uint32_t m = node(id).module;
        return m == kNoModule ? nullptr : &modules[m];
    }
    std::span<const NodeId> inputs(NodeId id) const { return slice(input_ids, node(id).inputs); }
    std::span<const NodeId> users(NodeId id) const { return slice(user_ids, node(id).users); }
    std::span<const ValToken> val(NodeId id) const { return slice(val_tokens, node(id).val); }
    std::span<const Tensor> node_tensors(NodeId id) const { return slice(tensors, node(id).tensors); }
    std::span<const StorageId> outputs(NodeId id) const { return slice(output_storages, node(id).outputs); }
    std::span<const std::int64_t> shape(const Tensor& t) const { return {dims.data() + t.dims_begin, t.rank}; }
    std::span<const std::int64_t> stride(const Tensor& t) const {
        return {dims.data() + t.dims_begin + t.rank, t.rank};
    }

    // The node's FLOPs as the file gives them, nullopt when absent.
    std::optional<std::int64_t> flops(NodeId id) const {
        if (node_flops.empty() || node_flops[id.index()] < 0) return std::nullopt;
        return node_flops[id.index()];
    }
    NodePhase phase(NodeId id) const { return node_phases.empty() ? NodePhase::Unknown : node_phases[id.index()]; }

    // Invalid NodeId when absent. Not for hot loops.
    NodeId find(std::string_view node_name) const;

private:
    friend class GraphBuilder;
    std::string_view text(Range r) const { return std::string_view(texts).substr(r.begin, r.size()); }
    template <class T>
    static std::span<const T> slice(const std::vector<T>& v, Range r) {
        return {v.data() + r.begin, r.size()};
    }
    // by_name_ reads the stored names through this.
    auto name_of() const {
        return [this](std::uint32_t i) -> std::string_view { return nodes[i].name; };
    }
    // `tag` is NameIndex::tag_of(node_name).
    NodeId find_index(std::string_view node_name, std::uint32_t tag) const {
        const std::uint32_t at = by_name_.find(node_name, tag, name_of());
        return at == NameIndex::npos ? NodeId{} : NodeId(static_cast<std::int32_t>(at));
    }
    NameIndex by_name_; // node name -> position in nodes
};

struct Pair {
    GraphId forward; // index into GraphFile::graphs
    GraphId backward;
    std::optional<GraphId> joint; // the joint graph this pair partitions, when the file gives it
    std::optional<double> budget; // activation_memory_budget it was partitioned with, in [0, 1]
};

// A named complete order of one graph stored in the file ("schedules", docs/format.md), e.g.
// Inductor's overlap schedule. Checked like a SCHED file when read.
struct NamedSchedule {
    std::string name;          // unique per graph
    GraphId graph;             // index into GraphFile::graphs
    std::vector<NodeId> order; // every node once, a legal order
    std::string source;        // free-form provenance ("torch._inductor ... schedule_overlap_bucketing"); may be empty
};

// One entry of the file's "step": a graph that ran during the training iteration, in run order.
struct StepEntry {
    GraphId graph;             // index into GraphFile::graphs
    std::uint32_t call = 0;    // 0-based call of the graph in the step (a backward: its forward's)
    std::string module_prefix; // "blocks.1": the call ran in that submodule; empty at the root
};

// One device mesh of a sharded step (the file's "distributed", docs/format.md).
struct DeviceMeshInfo {
    std::string device_type;                             // "cuda", "cpu", ...
    std::vector<std::int64_t> shape;                     // ranks along each dimension, each >= 1
    std::optional<std::vector<std::string>> dim_names;   // one per dimension; nullopt: unnamed
    std::optional<std::vector<std::int64_t>> coordinate; // this rank's place; nullopt: not on the mesh
};

// One sharded (DTensor) parameter's part on the rank.
struct ParameterShard {
    std::string name;
    std::vector<std::int64_t> shape;       // the whole parameter's
    std::vector<std::int64_t> local_shape; // this rank's shard
    std::int64_t nbytes = 0;               // the shard's storage, padding included
};

// The rank of a sharded step (FSDP2, tensor parallel) a file was captured for.
struct DistributedInfo {
    std::int64_t rank = 0; // in [0, world_size)
    std::int64_t world_size = 1;
    std::vector<DeviceMeshInfo> meshes;
    std::vector<ParameterShard> parameters; // empty when the file lists none
};

class GraphFile {
public:
    std::string source;        // path or label used in error messages
    std::string producer_json; // re-serialised "producer", empty when absent
    std::vector<Storage> storages;
    std::vector<std::string> devices;        // interned device strings ("cuda:0", "cpu", ...)
    std::vector<std::uint8_t> device_is_cpu; // per device: its type (before ':') is "cpu"
    std::vector<std::string> dtypes;         // interned dtype strings
    std::vector<Graph> graphs;
    std::vector<Pair> pairs;
    std::vector<std::string> labels; // storage labels ("blocks.0.attn.qkv.weight"); Storage::label - 1
    std::vector<NamedSchedule> schedules;
    std::vector<StepEntry> step;                // empty when the file has no "step"
    std::optional<DistributedInfo> distributed; // nullopt when the file has no "distributed"
    // The symbols and the expressions behind the symbolic ints; empty when the file has none.
    // bind_sizes rewrites the ints for another binding (fxmem/symbolic.h).
    SymbolicSizes symbolic;

    // Adds a storage; throws Error on a duplicate id, a negative size, or a total over INT64_MAX.
    StorageId add_storage(std::int64_t file_id, std::string_view device, std::int64_t nbytes);
    StorageId find_storage(std::int64_t file_id) const; // invalid when absent
    bool is_cpu(StorageId s) const { return device_is_cpu[storages[s.index()].device] != 0; }
    std::int64_t nbytes(StorageId s) const { return storages[s.index()].nbytes; }
    std::string_view device(StorageId s) const { return devices[storages[s.index()].device]; }
    StorageRole role(StorageId s) const { return storages[s.index()].role; }
    // The storage's label, empty when the file gives none.
    std::string_view label(StorageId s) const {
        const std::uint32_t l = storages[s.index()].label;
        return l == 0 ? std::string_view{} : std::string_view(labels[l - 1]);
    }
    // Sets a storage's role and label (an empty label means none).
    void set_role(StorageId s, StorageRole role, std::string_view label);
    std::int64_t total_bytes() const { return total_bytes_; }
    // FLOPs are added in int64: a partition counts a recomputed node twice and differences of
    // partitions are taken, so the file's total is kept to a quarter of the range.
    static constexpr std::int64_t kMaxTotalFlops = std::int64_t{1} << 61;
    std::uint32_t intern_dtype(std::string_view dtype);
    // Index into devices (and device_is_cpu) of a device string, added when new.
    std::uint32_t intern_device(std::string_view device);
    const Graph& graph(GraphId g) const { return graphs[g.index()]; } // g must be one of graphs
    // Graph by name: its index, or nullopt.
    std::optional<GraphId> find_graph(std::string_view graph_name) const;
    // Adds a forward/backward pair by graph names; throws Error when a name is unknown.
    void add_pair(std::string_view forward, std::string_view backward);

private:
    friend class GraphBuilder;
    friend struct detail::WorkCounters;
    friend std::optional<BindError> try_bind_sizes(GraphFile& file, const SizeBinding& binding,
                                                   const BindLeniency& lenient); // keeps total_bytes_
    // Seeded (name_hash_seed) so that ids chosen as multiples of the bucket count spread.
    struct SeededIdHash {
        std::size_t operator()(std::int64_t id) const noexcept {
            std::uint64_t h = static_cast<std::uint64_t>(id) ^ name_hash_seed();
            h ^= h >> 33;
            h *= 0xFF51AFD7ED558CCDull;
            h ^= h >> 33;
            h *= 0xC4CEB9FE1A85EC53ull;
            h ^= h >> 33;
            return static_cast<std::size_t>(h);
        }
    };
    // Name -> index into graphs, dtypes and devices, kept by GraphBuilder::finish, intern_dtype
    // and add_storage (linear searches made a file with 100k graphs or dtypes quadratic).
    NameIndex graph_index_, dtype_index_, device_index_;
    // GraphBuilder::finish's per-storage stamps for "already listed by this node", shared by the
    // file's graphs so that each graph costs O(its size), not O(storages).
    std::vector<std::uint32_t> output_stamp_;
    std::uint32_t next_stamp_ = 0;
    // File id -> StorageId. Exporters number storages 0, 1, 2...: those ids index a dense array;
    // an id far beyond the count so far goes to the map instead.
    std::vector<std::int32_t> dense_by_file_id_;
    std::unordered_map<std::int64_t, StorageId, SeededIdHash> sparse_by_file_id_;
    std::int64_t total_bytes_ = 0;
    std::int64_t total_flops_ = 0; // every node's flops, capped at kMaxTotalFlops by the builder
};

// Builds one graph of a GraphFile node by node. Errors (duplicate node name, unknown input,
// unknown storage, unbalanced val lists) throw Error naming the graph and node.
class GraphBuilder {
public:
    GraphBuilder(GraphFile& file, std::string name, GraphKind kind);

    // Starts a node. Inputs must be earlier nodes of this graph, without repeats.
    NodeId begin_node(std::string name, OpKind op, std::string_view target);
    void add_input(std::string_view input_name); // by name, as the file lists them
    // The same with the name's NameIndex::tag_of computed ahead, for a reader that called
    // prefetch_name() when it first saw the name (the lookup's cache miss then overlaps parsing).
    NodeId begin_node(std::string name, std::uint32_t name_tag, OpKind op, std::string_view target);
    void add_input(std::string_view input_name, std::uint32_t name_tag);
    void prefetch_name(std::uint32_t name_tag) const { graph_.by_name_.prefetch(name_tag); }
    void add_input(NodeId input);
    void set_stack_trace(std::string_view trace);
    void set_meta_json(std::string_view meta);
    // The node's module (name as users write it, "" for the root) and its class name.
    void set_module(std::string_view name, std::string_view type);
    void set_flops(std::int64_t flops); // >= 0
    void set_phase(NodePhase phase);
    void set_num_fwd_outputs(std::optional<std::int64_t> n) { graph_.num_fwd_outputs = n; }
    // The node's val, in preorder. Without any val call the val is null.
    void val_null();
    void val_tensor(StorageId storage, std::string_view dtype, std::span<const std::int64_t> shape,
                    std::span<const std::int64_t> stride, std::int64_t offset);
    void val_other(std::string text);
    void val_begin_list();
    void val_end_list();
    void end_node();

    // Convenience for tests and generators: one call per node; val is null for no storage,
    // a contiguous float32 tensor for one, a list of such tensors for several.
    NodeId add(std::string name, OpKind op, std::string_view target, std::initializer_list<std::string_view> inputs,
               std::initializer_list<StorageId> outputs);
    NodeId add(std::string name, OpKind op, std::string_view target, std::span<const NodeId> inputs,
               std::span<const StorageId> outputs);

    // Derives users and output storages, appends the graph to the file and returns it.
    Graph& finish();

    std::string where() const; // "graph 'g', node 'n'" for messages

private:
    GraphFile& file_;
    Graph graph_;
    bool in_node_ = false;
    std::vector<std::uint32_t> open_lists_; // val_tokens index of each open List token
    std::vector<std::int32_t> listed_by_;   // per node: the last node that listed it as input (O(1) repeat check)
    NameIndex target_index_;                // target text -> index into Graph::targets
    NameIndex module_index_;                // "<len>:<name><type>" -> index into Graph::modules
    std::vector<std::string> module_keys_;  // the keys of module_index_, by module index
    std::string module_key_;                // scratch for a key
    Range append_text(std::string_view text);
};

} // namespace fxmem
