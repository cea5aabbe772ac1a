#include "fxmem/model.h"

#include "fxmem/error.h"
#include "model/placed_error.h"
#include "model/quote.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <limits>
#include <random>

namespace fxmem {

using detail::PlacedError;
using detail::quote;

namespace {

constexpr std::array<std::string_view, 6> kOpNames = {"placeholder", "get_attr",    "call_function",
                                                      "call_method", "call_module", "output"};
constexpr std::array<std::string_view, 5> kKindNames = {"forward", "backward", "inference", "other", "joint"};
constexpr std::array<std::string_view, 3> kPhaseNames = {"", "forward", "backward"};
constexpr std::array<std::string_view, 11> kRoleNames = {
    "",        "parameter", "buffer",    "input",           "activation",         "output",
    "tangent", "gradient",  "temporary", "optimizer_state", "unsharded_parameter"};

// The enum value whose name is `text`, searched from `first` (1 where index 0 means "none" and
// is never written).
template <class Enum, std::size_t N>
bool parse_name(const std::array<std::string_view, N>& names, std::string_view text, Enum& out, std::size_t first) {
    for (std::size_t i = first; i < N; ++i)
        if (names[i] == text) {
            out = static_cast<Enum>(i);
            return true;
        }
    return false;
}

} // namespace

std::string_view to_string(OpKind op) { return kOpNames[static_cast<std::size_t>(op)]; }
std::string_view to_string(GraphKind kind) { return kKindNames[static_cast<std::size_t>(kind)]; }

std::string_view to_string(StorageRole role) { return kRoleNames[static_cast<std::size_t>(role)]; }

bool parse_storage_role(std::string_view text, StorageRole& out) { return parse_name(kRoleNames, text, out, 1); }

bool parse_op_kind(std::string_view text, OpKind& out) { return parse_name(kOpNames, text, out, 0); }

std::string_view to_string(NodePhase phase) { return kPhaseNames[static_cast<std::size_t>(phase)]; }

bool parse_node_phase(std::string_view text, NodePhase& out) { return parse_name(kPhaseNames, text, out, 1); }

bool parse_graph_kind(std::string_view text, GraphKind& out) { return parse_name(kKindNames, text, out, 0); }

std::uint64_t draw_name_hash_seed() noexcept {
    std::uint64_t seed = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    try {
        std::random_device rd;
        seed ^= (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    } catch (...) {
        // No entropy source: the clock alone still differs from run to run.
    }
    seed ^= reinterpret_cast<std::uintptr_t>(&seed); // address-space randomisation adds bits
    return hash_name("fxmem", seed);
}

NodeId Graph::find(std::string_view node_name) const { return find_index(node_name, NameIndex::tag_of(node_name)); }

StorageId GraphFile::add_storage(std::int64_t file_id, std::string_view device, std::int64_t nbytes) {
    const std::string where = "storage id " + std::to_string(file_id);
    if (file_id < 0) throw PlacedError(source, where, "id must be >= 0");
    if (nbytes < 0) throw PlacedError(source, where, "nbytes must be >= 0, got " + std::to_string(nbytes));
    if (device.empty()) throw PlacedError(source, where, "device must not be empty");
    if (nbytes > std::numeric_limits<std::int64_t>::max() - total_bytes_)
        throw PlacedError(source, where, "the storages' sizes add up to more than 2^63-1 bytes");
    StorageId id(static_cast<std::int32_t>(storages.size()));
    if (find_storage(file_id).valid()) throw PlacedError(source, where, "duplicate storage id");
    const auto dense_limit = static_cast<std::int64_t>(2 * storages.size() + 1024);
    if (file_id < static_cast<std::int64_t>(dense_by_file_id_.size())) {
        dense_by_file_id_[static_cast<std::size_t>(file_id)] = id.value;
    } else if (file_id < dense_limit) {
        dense_by_file_id_.resize(static_cast<std::size_t>(file_id) + 1, -1);
        dense_by_file_id_[static_cast<std::size_t>(file_id)] = id.value;
    } else {
        sparse_by_file_id_.emplace(file_id, id);
    }
    const std::uint32_t dev = intern_device(device);
    storages.push_back(Storage{file_id, dev, nbytes});
    total_bytes_ += nbytes;
    return id;
}

std::uint32_t GraphFile::intern_device(std::string_view device) {
    const auto dev = static_cast<std::uint32_t>(devices.size());
    const std::uint32_t known =
        device_index_.insert(device, dev, [this](std::uint32_t i) { return std::string_view(devices[i]); });
    if (known != NameIndex::npos) return known;
    devices.emplace_back(device);
    device_is_cpu.push_back(device.substr(0, device.find(':')) == "cpu" ? 1 : 0);
    return dev;
}

void GraphFile::set_role(StorageId s, StorageRole role, std::string_view label) {
    Storage& st = storages[s.index()];
    st.role = role;
    if (label.empty()) {
        st.label = 0;
    } else {
        labels.emplace_back(label);
        st.label = static_cast<std::uint32_t>(labels.size());
    }
}

StorageId GraphFile::find_storage(std::int64_t file_id) const {
    if (file_id >= 0 && file_id < static_cast<std::int64_t>(dense_by_file_id_.size())) {
        const std::int32_t at = dense_by_file_id_[static_cast<std::size_t>(file_id)];
        if (at >= 0) return StorageId(at);
    }
    if (sparse_by_file_id_.empty()) return StorageId{};
    auto it = sparse_by_file_id_.find(file_id);
    return it == sparse_by_file_id_.end() ? StorageId{} : it->second;
}

std::uint32_t GraphFile::intern_dtype(std::string_view dtype) {
    const auto next = static_cast<std::uint32_t>(dtypes.size());
    const std::uint32_t known =
        dtype_index_.insert(dtype, next, [this](std::uint32_t i) { return std::string_view(dtypes[i]); });
    if (known != NameIndex::npos) return known;
    dtypes.emplace_back(dtype);
    return next;
}

std::optional<GraphId> GraphFile::find_graph(std::string_view graph_name) const {
    const std::uint32_t at =
        graph_index_.find(graph_name, [this](std::uint32_t i) { return std::string_view(graphs[i].name); });
    if (at == NameIndex::npos) return std::nullopt;
    return GraphId(static_cast<std::int32_t>(at));
}

void GraphFile::add_pair(std::string_view forward, std::string_view backward) {
    const std::optional<GraphId> f = find_graph(forward), b = find_graph(backward);
    if (!f) throw PlacedError(source, "pair", "unknown forward graph " + quote(forward));
    if (!b) throw PlacedError(source, "pair", "unknown backward graph " + quote(backward));
    if (*f == *b) throw PlacedError(source, "pair", "graph " + quote(forward) + " cannot be its own backward");
    pairs.push_back(Pair{*f, *b, std::nullopt, std::nullopt});
}

GraphBuilder::GraphBuilder(GraphFile& file, std::string name, GraphKind kind) : file_(file) {
    if (name.empty()) throw PlacedError(file_.source, "", "a graph has an empty name");
    if (file_.find_graph(name)) throw PlacedError(file_.source, "", "duplicate graph name " + quote(name));
    graph_.name = std::move(name);
    graph_.kind = kind;
}

std::string GraphBuilder::where() const {
    std::string w = "graph " + quote(graph_.name);
    if (in_node_) w += ", node " + quote(graph_.nodes.back().name);
    return w;
}

NodeId GraphBuilder::begin_node(std::string name, OpKind op, std::string_view target) {
    const std::uint32_t tag = NameIndex::tag_of(name);
    return begin_node(std::move(name), tag, op, target);
}

NodeId GraphBuilder::begin_node(std::string name, std::uint32_t name_tag, OpKind op, std::string_view target) {
    if (in_node_) throw PlacedError(file_.source, where(), "node not finished");
    if (graph_.nodes.size() >= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
        throw PlacedError(file_.source, where(), "too many nodes");
    if (name.empty())
        throw PlacedError(file_.source, where(), "node " + std::to_string(graph_.nodes.size()) + " has an empty name");
    NodeId id(static_cast<std::int32_t>(graph_.nodes.size()));
    if (graph_.by_name_.insert(name, name_tag, static_cast<std::uint32_t>(id.index()), graph_.name_of()) !=
        NameIndex::npos)
        throw PlacedError(file_.source, where(), "duplicate node name " + quote(name));
    Node n;
    n.name = std::move(name);
    n.op = op;
    const auto target_of = [this](std::uint32_t i) -> std::string_view { return graph_.targets[i]; };
    const auto next_target = static_cast<std::uint32_t>(graph_.targets.size());
    n.target = target_index_.insert(target, next_target, target_of);
    if (n.target == NameIndex::npos) {
        n.target = next_target;
        graph_.targets.emplace_back(target);
    }
    const auto inputs_at = static_cast<std::uint32_t>(graph_.input_ids.size());
    const auto val_at = static_cast<std::uint32_t>(graph_.val_tokens.size());
    const auto tensors_at = static_cast<std::uint32_t>(graph_.tensors.size());
    n.inputs = {inputs_at, inputs_at};
    n.val = {val_at, val_at};
    n.tensors = {tensors_at, tensors_at};
    graph_.nodes.push_back(std::move(n));
    listed_by_.push_back(-1);
    in_node_ = true;
    return id;
}

void GraphBuilder::add_input(std::string_view input_name) { add_input(input_name, NameIndex::tag_of(input_name)); }

void GraphBuilder::add_input(std::string_view input_name, std::uint32_t name_tag) {
    if (!in_node_) throw PlacedError(file_.source, where(), "input outside a node");
    const NodeId input = graph_.find_index(input_name, name_tag);
    if (!input.valid())
        throw PlacedError(file_.source, where(), "unknown input " + quote(input_name),
                          PlacedError::Reason::UnknownName);
    if (input.index() + 1 == graph_.nodes.size())
        throw PlacedError(file_.source, where(), "node lists itself as an input");
    add_input(input);
}

void GraphBuilder::add_input(NodeId input) {
    if (!in_node_) throw PlacedError(file_.source, where(), "input outside a node");
    Node& n = graph_.nodes.back();
    // FX placeholders and get_attr nodes read nothing from the graph; an order would have to
    // put them after their "inputs" while every scheduler puts them first.
    if ((n.op == OpKind::Placeholder || n.op == OpKind::GetAttr) && input.valid() &&
        input.index() + 1 < graph_.nodes.size())
        throw PlacedError(file_.source, where(),
                          "a " + std::string(to_string(n.op)) + " node takes no inputs, but it lists " +
                              quote(graph_.nodes[input.index()].name));
    if (!input.valid() || input.index() + 1 >= graph_.nodes.size())
        throw PlacedError(file_.source, where(),
                          "input must be an earlier node of the same graph (a later one would make a cycle)");
    const auto current = static_cast<std::int32_t>(graph_.nodes.size() - 1);
    if (listed_by_[input.index()] == current)
        throw PlacedError(file_.source, where(),
                          "input " + quote(graph_.nodes[input.index()].name) + " is listed twice");
    listed_by_[input.index()] = current;
    graph_.input_ids.push_back(input);
    n.inputs.end = static_cast<std::uint32_t>(graph_.input_ids.size());
}

Range GraphBuilder::append_text(std::string_view text) {
    if (graph_.texts.size() + text.size() > std::numeric_limits<std::uint32_t>::max())
        throw PlacedError(file_.source, where(), "stack traces and meta of one graph exceed 4 GiB");
    const auto at = static_cast<std::uint32_t>(graph_.texts.size());
    graph_.texts.append(text);
    return {at, static_cast<std::uint32_t>(graph_.texts.size())};
}

void GraphBuilder::set_stack_trace(std::string_view trace) {
    if (!in_node_) throw PlacedError(file_.source, where(), "stack trace outside a node");
    graph_.nodes.back().stack_trace = append_text(trace);
}

void GraphBuilder::set_meta_json(std::string_view meta) {
    if (!in_node_) throw PlacedError(file_.source, where(), "meta outside a node");
    graph_.nodes.back().meta_json = append_text(meta);
}

void GraphBuilder::set_module(std::string_view name, std::string_view type) {
    if (!in_node_) throw PlacedError(file_.source, where(), "module outside a node");
    // Interned per graph by (name, type): a 32-layer model has a few hundred modules for
    // thousands of nodes. The key is "<name length>:<name><type>", unambiguous for any bytes.
    module_key_ = std::to_string(name.size());
    module_key_ += ':';
    module_key_ += name;
    module_key_ += type;
    const auto next = static_cast<std::uint32_t>(graph_.modules.size());
    std::uint32_t at = module_index_.insert(module_key_, NameIndex::tag_of(module_key_), next,
                                            [this](std::uint32_t i) { return std::string_view(module_keys_[i]); });
    if (at == NameIndex::npos) {
        at = next;
        graph_.modules.push_back(ModuleInfo{std::string(name), std::string(type)});
        module_keys_.push_back(module_key_);
    }
    graph_.nodes.back().module = at;
}

void GraphBuilder::set_flops(std::int64_t flops) {
    if (!in_node_) throw PlacedError(file_.source, where(), "flops outside a node");
    if (flops < 0) throw PlacedError(file_.source, where(), "negative flops");
    if (flops > GraphFile::kMaxTotalFlops - file_.total_flops_)
        throw PlacedError(file_.source, where(),
                          "the nodes' flops add up to more than 2^61 (fxmem adds FLOPs in 64-bit integers)");
    file_.total_flops_ += flops;
    // Grown on use: earlier nodes without flops read -1; finish() sizes it to the graph.
    graph_.node_flops.resize(graph_.nodes.size(), -1);
    graph_.node_flops.back() = flops;
}

void GraphBuilder::set_phase(NodePhase phase) {
    if (!in_node_) throw PlacedError(file_.source, where(), "phase outside a node");
    graph_.node_phases.resize(graph_.nodes.size(), NodePhase::Unknown);
    graph_.node_phases.back() = phase;
}

void GraphBuilder::val_null() {
    if (!in_node_) throw PlacedError(file_.source, where(), "val outside a node");
    graph_.val_tokens.push_back({ValToken::Kind::Null, 0});
}

void GraphBuilder::val_tensor(StorageId storage, std::string_view dtype, std::span<const std::int64_t> shape,
                              std::span<const std::int64_t> stride, std::int64_t offset) {
    if (!in_node_) throw PlacedError(file_.source, where(), "val outside a node");
    if (!storage.valid() || storage.index() >= file_.storages.size())
        throw PlacedError(file_.source, where(), "tensor refers to an unknown storage");
    if (shape.size() != stride.size())
        throw PlacedError(file_.source, where(),
                          "tensor has " + std::to_string(shape.size()) + " sizes but " + std::to_string(stride.size()) +
                              " strides");
    Tensor t;
    t.storage = storage;
    t.dtype = file_.intern_dtype(dtype);
    t.dims_begin = static_cast<std::uint32_t>(graph_.dims.size());
    t.rank = static_cast<std::uint32_t>(shape.size());
    t.offset = offset;
    graph_.dims.insert(graph_.dims.end(), shape.begin(), shape.end());
    graph_.dims.insert(graph_.dims.end(), stride.begin(), stride.end());
    graph_.val_tokens.push_back({ValToken::Kind::Tensor, static_cast<std::uint32_t>(graph_.tensors.size())});
    graph_.tensors.push_back(t);
    graph_.nodes.back().tensors.end = static_cast<std::uint32_t>(graph_.tensors.size());
}

void GraphBuilder::val_other(std::string text) {
    if (!in_node_) throw PlacedError(file_.source, where(), "val outside a node");
    graph_.val_tokens.push_back({ValToken::Kind::Other, static_cast<std::uint32_t>(graph_.others.size())});
    graph_.others.push_back(std::move(text));
}

void GraphBuilder::val_begin_list() {
    if (!in_node_) throw PlacedError(file_.source, where(), "val outside a node");
    open_lists_.push_back(static_cast<std::uint32_t>(graph_.val_tokens.size()));
    graph_.val_tokens.push_back({ValToken::Kind::List, 0});
}

void GraphBuilder::val_end_list() {
    if (open_lists_.empty()) throw PlacedError(file_.source, where(), "val list closed but never opened");
    const std::uint32_t at = open_lists_.back();
    open_lists_.pop_back();
    // Count direct children: walk the tokens after the list, skipping nested subtrees.
    std::uint32_t children = 0;
    std::uint32_t i = at + 1;
    const auto end = static_cast<std::uint32_t>(graph_.val_tokens.size());
    while (i < end) {
        ++children;
        std::uint32_t pending = 1;
        while (pending > 0) {
            const ValToken& t = graph_.val_tokens[i++];
            --pending;
            if (t.kind == ValToken::Kind::List) pending += t.payload;
        }
    }
    graph_.val_tokens[at].payload = children;
}

void GraphBuilder::end_node() {
    if (!in_node_) throw PlacedError(file_.source, where(), "no node to finish");
    if (!open_lists_.empty()) throw PlacedError(file_.source, where(), "val has an unclosed list");
    Node& n = graph_.nodes.back();
    n.val.end = static_cast<std::uint32_t>(graph_.val_tokens.size());
    if (n.val.size() == 0) graph_.val_tokens.push_back({ValToken::Kind::Null, 0}), n.val.end++;
    in_node_ = false;
}

NodeId GraphBuilder::add(std::string name, OpKind op, std::string_view target,
                         std::initializer_list<std::string_view> inputs, std::initializer_list<StorageId> outputs) {
    std::vector<NodeId> ids;
    for (std::string_view in : inputs) {
        const NodeId id = graph_.find(in);
        if (!id.valid())
            throw PlacedError(file_.source, where(), "unknown input " + quote(in) + " for node " + quote(name));
        ids.push_back(id);
    }
    return add(std::move(name), op, target, std::span<const NodeId>(ids),
               std::span<const StorageId>(outputs.begin(), outputs.size()));
}

NodeId GraphBuilder::add(std::string name, OpKind op, std::string_view target, std::span<const NodeId> inputs,
                         std::span<const StorageId> outputs) {
    const NodeId id = begin_node(std::move(name), op, target);
    for (NodeId in : inputs) add_input(in);
    auto tensor = [&](StorageId s) {
        const std::int64_t elems = file_.nbytes(s) / 4;
        const std::int64_t shape[1] = {elems};
        const std::int64_t stride[1] = {1};
        val_tensor(s, "float32", shape, stride, 0);
    };
    if (outputs.size() == 1) {
        tensor(outputs[0]);
    } else if (outputs.size() > 1) {
        val_begin_list();
        for (StorageId s : outputs) tensor(s);
        val_end_list();
    }
    end_node();
    return id;
}

Graph& GraphBuilder::finish() {
    if (in_node_) throw PlacedError(file_.source, where(), "node not finished");
    Graph& g = graph_;
    const std::size_t n = g.nodes.size();

    // Output storages: each node's tensors' storages without repeats, O(tensors) with the file's
    // stamp array (one stamp per node of the whole file; grown, never cleared, per graph).
    std::vector<std::uint32_t>& stamp = file_.output_stamp_;
    if (stamp.size() < file_.storages.size()) stamp.resize(file_.storages.size(), 0);
    if (file_.next_stamp_ > std::numeric_limits<std::uint32_t>::max() - n - 1) {
        std::fill(stamp.begin(), stamp.end(), 0);
        file_.next_stamp_ = 0;
    }
    g.output_storages.clear();
    for (std::size_t i = 0; i < n; ++i) {
        Node& node = g.nodes[i];
        const std::uint32_t mark = ++file_.next_stamp_;
        node.outputs.begin = static_cast<std::uint32_t>(g.output_storages.size());
        for (std::uint32_t t = node.tensors.begin; t < node.tensors.end; ++t) {
            const StorageId s = g.tensors[t].storage;
            if (stamp[s.index()] != mark) {
                stamp[s.index()] = mark;
                g.output_storages.push_back(s);
            }
        }
        node.outputs.end = static_cast<std::uint32_t>(g.output_storages.size());
    }

    // Users: CSR by counting sort over the input lists; graph order falls out of the scan order.
    std::vector<std::uint32_t> count(n + 1, 0);
    for (NodeId in : g.input_ids) ++count[in.index() + 1];
    for (std::size_t i = 0; i < n; ++i) count[i + 1] += count[i];
    g.user_ids.assign(g.input_ids.size(), NodeId{});
    std::vector<std::uint32_t> fill(count.begin(), count.end() - 1);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::uint32_t k = g.nodes[i].inputs.begin; k < g.nodes[i].inputs.end; ++k)
            g.user_ids[fill[g.input_ids[k].index()]++] = NodeId(static_cast<std::int32_t>(i));
    }
    for (std::size_t i = 0; i < n; ++i) g.nodes[i].users = {count[i], count[i + 1]};

    if (!g.node_flops.empty()) g.node_flops.resize(n, -1);
    if (!g.node_phases.empty()) g.node_phases.resize(n, NodePhase::Unknown);

    const auto index = static_cast<std::uint32_t>(file_.graphs.size());
    file_.graph_index_.insert(graph_.name, index,
                              [this](std::uint32_t i) { return std::string_view(file_.graphs[i].name); });
    file_.graphs.push_back(std::move(graph_));
    graph_ = Graph{};
    listed_by_.clear();
    target_index_.clear();
    module_index_.clear();
    module_keys_.clear();
    return file_.graphs.back();
}

} // namespace fxmem
