// The generator: one pass per graph, emitting through GraphBuilder. Per-node bookkeeping (the
// storage a node's first tensor lives on) is kept here because the builder exposes nothing of
// the graph until finish().
#include "synth.h"

#include "rng.h"

#include "fxmem/error.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>
#include <vector>

namespace fxmem::synth {

namespace {

// FX-style naming: the first node of a base is "mm", the next ones "mm_1", "mm_2", ...
enum Base : std::size_t {
    kMm,
    kAddmm,
    kRelu,
    kAdd,
    kMul,
    kSoftmax,
    kGelu,
    kClone,
    kView,
    kTranspose,
    kSlice,
    kSplit,
    kLayerNorm,
    kGetitem,
    kAddInplace,
    kCopyInplace,
    kSymSize,
    kAssert,
    kThresholdBwd,
    kSum,
    kLayerNormBwd,
    kSoftmaxBwd,
    kBaseCount
};

struct OpSpec {
    std::string_view base;
    std::string_view target;
};

constexpr std::array<OpSpec, kBaseCount> kOps = {{
    {"mm", "aten.mm.default"},
    {"addmm", "aten.addmm.default"},
    {"relu", "aten.relu.default"},
    {"add", "aten.add.Tensor"},
    {"mul", "aten.mul.Tensor"},
    {"_softmax", "aten._softmax.default"},
    {"gelu", "aten.gelu.default"},
    {"clone", "aten.clone.default"},
    {"view", "aten.view.default"},
    {"t", "aten.t.default"},
    {"slice", "aten.slice.Tensor"},
    {"split", "aten.split.Tensor"},
    {"native_layer_norm", "aten.native_layer_norm.default"},
    {"getitem", "operator.getitem"},
    {"add_", "aten.add_.Tensor"},
    {"copy_", "aten.copy_.default"},
    {"sym_size_int", "aten.sym_size.int"},
    {"_assert_async", "aten._assert_async.msg"},
    {"threshold_backward", "aten.threshold_backward.default"},
    {"sum", "aten.sum.dim_IntList"},
    {"native_layer_norm_backward", "aten.native_layer_norm_backward.default"},
    {"_softmax_backward_data", "aten._softmax_backward_data.default"},
}};

constexpr std::array<Base, 8> kForwardCompute = {kMm, kAddmm, kRelu, kAdd, kMul, kSoftmax, kGelu, kClone};
constexpr std::array<Base, 7> kBackwardCompute = {kMm, kThresholdBwd, kSum, kAdd, kMul, kSoftmaxBwd, kClone};

// Takes a second input (an activation or a weight).
bool binary(Base b) {
    return b == kMm || b == kAddmm || b == kAdd || b == kMul || b == kSoftmaxBwd || b == kThresholdBwd;
}

// prefix + k, appended (GCC 12 warns falsely, -Wrestrict, on "literal" + std::to_string(k)).
std::string numbered(std::string_view prefix, std::size_t k) {
    std::string s(prefix);
    s += std::to_string(k);
    return s;
}

constexpr std::array<std::string_view, 2> kDtypes = {"float32", "bfloat16"};
constexpr std::array<std::int64_t, 2> kElemSize = {4, 2};

enum class Layout { Contiguous, Transposed, Flat };

struct SavedTensor {
    std::string name;
    StorageId storage;
    NodeId node; // in the forward
};

class Generator {
public:
    Generator(GraphFile& file, const Options& options) : file_(file), options_(options), rng_(options.seed) {}

    void forward(std::size_t budget);
    void backward(std::size_t budget);

private:
    GraphFile& file_;
    const Options& options_;
    Rng rng_;
    std::array<std::size_t, kBaseCount> counters_{};
    std::vector<std::uint8_t> storage_dtype_; // per StorageId

    // Per graph being built.
    std::vector<StorageId> main_; // per NodeId: its first tensor's storage (invalid when none)
    std::vector<NodeId> acts_;    // activation-producing nodes, in graph order
    std::vector<NodeId> params_;  // weights: primal and get_attr placeholders
    std::size_t trace_line_ = 100;
    double progress_ = 0; // share of the current body emitted so far

    // Carried from the forward into the backward.
    std::vector<StorageId> primals_;      // storage of primals_1, primals_2, ...
    std::vector<SavedTensor> saved_;      // saved activations, in forward order
    std::vector<StorageId> user_outputs_; // the forward's user-visible outputs

    std::string name(Base b) {
        const std::size_t c = counters_[b]++;
        std::string n(kOps[b].base);
        if (c > 0) {
            n.push_back('_');
            n += std::to_string(c);
        }
        return n;
    }

    // Log-uniform between 2^lo and 2^hi bytes, a multiple of 512.
    StorageId fresh(int lo = 9, int hi = 26, bool may_be_cpu = true) {
        const double bits = lo + (hi - lo) * rng_.unit();
        const auto bytes = std::max<std::int64_t>(512, static_cast<std::int64_t>(std::exp2(bits)) / 512 * 512);
        return fresh_bytes(bytes, may_be_cpu);
    }
    StorageId fresh_bytes(std::int64_t bytes, bool may_be_cpu = true) {
        const bool cpu = may_be_cpu && rng_.chance(options_.cpu_fraction);
        const StorageId s =
            file_.add_storage(static_cast<std::int64_t>(file_.storages.size()), cpu ? "cpu" : "cuda:0", bytes);
        storage_dtype_.push_back(rng_.chance(0.2) ? 1 : 0);
        return s;
    }

    // A 2-D [rows, 128] view of the whole storage, or its transpose, or flat; `part`/`parts` takes
    // a slice of rows (split, slice).
    void tensor(GraphBuilder& b, StorageId s, Layout layout = Layout::Contiguous, std::int64_t part = 0,
                std::int64_t parts = 1) {
        const std::uint8_t dt = storage_dtype_[s.index()];
        const std::int64_t numel = file_.nbytes(s) / kElemSize[dt];
        const std::int64_t cols = 128, rows = numel / cols / parts;
        const std::int64_t offset = part * rows * cols;
        if (layout == Layout::Flat) {
            const std::int64_t shape[1] = {rows * cols}, stride[1] = {1};
            b.val_tensor(s, kDtypes[dt], shape, stride, offset);
        } else if (layout == Layout::Transposed) {
            const std::int64_t shape[2] = {cols, rows}, stride[2] = {1, cols};
            b.val_tensor(s, kDtypes[dt], shape, stride, offset);
        } else {
            const std::int64_t shape[2] = {rows, cols}, stride[2] = {cols, 1};
            b.val_tensor(s, kDtypes[dt], shape, stride, offset);
        }
    }

    NodeId begin(GraphBuilder& b, std::string node_name, OpKind op, std::string_view target, StorageId main) {
        const NodeId id = b.begin_node(std::move(node_name), op, target);
        main_.push_back(main);
        return id;
    }
    // A call_function node of `base`; its name lands in `node_name`.
    NodeId begin(GraphBuilder& b, Base base, StorageId main, std::string& node_name) {
        node_name = name(base);
        const NodeId id = begin(b, node_name, OpKind::CallFunction, kOps[base].target, main);
        if (options_.stack_traces && rng_.chance(0.5))
            b.set_stack_trace("File \"model.py\", line " + std::to_string(trace_line_++) +
                              ", in forward\n    x = self.layers[" + std::to_string(rng_.below(48)) + "](x)");
        return id;
    }

    void reset_graph() {
        main_.clear();
        acts_.clear();
        params_.clear();
    }

    // Mostly one of the last few activations; sometimes further back (skip connections).
    NodeId pick_act() {
        const std::size_t n = acts_.size();
        std::size_t back;
        if (rng_.chance(0.01))
            back = rng_.below(n);
        else if (rng_.chance(0.02))
            back = rng_.below(std::min<std::size_t>(n, 1024));
        else if (rng_.chance(0.8))
            back = rng_.below(std::min<std::size_t>(n, 6));
        else
            back = rng_.below(std::min<std::size_t>(n, 64));
        return acts_[n - 1 - back];
    }

    // Layers use their own weights: mostly one near the body's progress (walked backwards in the
    // backward graph), sometimes any (shared constants, tied embeddings).
    NodeId pick_param(bool fwd) {
        const std::size_t n = params_.size();
        if (rng_.chance(0.1)) return params_[rng_.below(n)];
        const double at = fwd ? progress_ : 1 - progress_;
        const std::size_t centre = std::min(n - 1, static_cast<std::size_t>(at * static_cast<double>(n)));
        const std::size_t lo = centre >= 8 ? centre - 8 : 0, hi = std::min(n, centre + 9);
        return params_[lo + rng_.below(hi - lo)];
    }

    static void push_unique(std::vector<NodeId>& v, NodeId id) {
        if (std::find(v.begin(), v.end(), id) == v.end()) v.push_back(id);
    }

    void maybe_save(NodeId id, double p, const std::string& node_name) {
        if (rng_.chance(p)) saved_.push_back({node_name, main_[id.index()], id});
    }

    // One body node (or a multi-output node and its getitems) with `extra` inputs appended to
    // compute nodes; returns how many nodes it emitted (at most `room`).
    std::size_t step(GraphBuilder& b, bool fwd, std::size_t room, std::vector<NodeId>& extra);
    std::size_t emit_compute(GraphBuilder& b, bool fwd, std::vector<NodeId>& extra);
    std::size_t emit_multi(GraphBuilder& b, bool fwd, std::size_t room);
};

std::size_t Generator::emit_compute(GraphBuilder& b, bool fwd, std::vector<NodeId>& extra) {
    const Base base = fwd ? kForwardCompute[rng_.below(kForwardCompute.size())]
                          : kBackwardCompute[rng_.below(kBackwardCompute.size())];
    std::vector<NodeId> inputs{pick_act()};
    if (binary(base)) {
        if (!params_.empty() && rng_.chance(fwd ? 0.6 : 0.4))
            push_unique(inputs, pick_param(fwd));
        else
            push_unique(inputs, pick_act());
    }
    if (base == kAddmm && !params_.empty()) push_unique(inputs, pick_param(fwd));
    for (NodeId e : extra) push_unique(inputs, e);
    extra.clear();
    // Reductions shrink; everything else is about the size of an input or freshly drawn.
    const StorageId s = base == kSum ? fresh(9, 16)
                        : rng_.chance(0.5) && main_[inputs[0].index()].valid()
                            ? fresh_bytes(file_.nbytes(main_[inputs[0].index()]))
                            : fresh();
    std::string n;
    const NodeId id = begin(b, base, s, n);
    for (NodeId in : inputs) b.add_input(in);
    tensor(b, s);
    b.end_node();
    acts_.push_back(id);
    if (fwd) maybe_save(id, options_.save_fraction, n);
    return 1;
}

std::size_t Generator::emit_multi(GraphBuilder& b, bool fwd, std::size_t room) {
    const NodeId src = pick_act();
    const StorageId src_storage = main_[src.index()];
    // split: views of the input's storage; layer norm (and its backward): three fresh storages.
    const bool split = rng_.chance(0.4) && src_storage.valid();
    std::vector<StorageId> parts;
    if (split) {
        parts.assign(2 + rng_.below(3), src_storage);
    } else {
        const std::int64_t like = src_storage.valid() ? file_.nbytes(src_storage) : 1 << 20;
        parts.push_back(fresh_bytes(like));
        if (fwd) {
            parts.push_back(fresh(9, 13));
            parts.push_back(fresh(9, 13));
        } else {
            parts.push_back(fresh(9, 18));
            parts.push_back(fresh(9, 18));
        }
    }
    const Base base = split ? kSplit : fwd ? kLayerNorm : kLayerNormBwd;
    std::string multi_name;
    const NodeId multi = begin(b, base, parts[0], multi_name);
    b.add_input(src);
    if (!split && !params_.empty()) b.add_input(pick_param(fwd));
    b.val_begin_list();
    const auto count = static_cast<std::int64_t>(parts.size());
    for (std::int64_t j = 0; j < count; ++j)
        tensor(b, parts[static_cast<std::size_t>(j)], Layout::Contiguous, split ? j : 0, split ? count : 1);
    b.val_end_list();
    b.end_node();
    std::size_t emitted = 1;

    // Getitems: always the first element, the others most of the time; each aliases its element.
    for (std::int64_t j = 0; j < count && emitted < room; ++j) {
        if (j > 0 && !rng_.chance(0.75)) continue;
        const StorageId s = parts[static_cast<std::size_t>(j)];
        std::string n;
        const NodeId g = begin(b, kGetitem, s, n);
        b.add_input(multi);
        tensor(b, s, Layout::Contiguous, split ? j : 0, split ? count : 1);
        b.end_node();
        ++emitted;
        if (split || j == 0) acts_.push_back(g);
        // Layer norm's mean and rstd are what the backward usually saves.
        const double mean_rstd = std::min(1.0, 4 * options_.save_fraction);
        if (fwd) maybe_save(g, split || j == 0 ? options_.save_fraction : mean_rstd, n);
    }
    return emitted;
}

std::size_t Generator::step(GraphBuilder& b, bool fwd, std::size_t room, std::vector<NodeId>& extra) {
    const double r = rng_.unit();
    if (!extra.empty() || r < 0.66) return emit_compute(b, fwd, extra);
    const NodeId src = pick_act();
    const StorageId src_storage = main_[src.index()];
    if (r < 0.80 && src_storage.valid()) {
        // A view: same storage, another layout.
        const double v = rng_.unit();
        const Base base = v < 0.5 ? kView : v < 0.8 ? kTranspose : kSlice;
        std::string n;
        const NodeId id = begin(b, base, src_storage, n);
        b.add_input(src);
        if (base == kView)
            tensor(b, src_storage, Layout::Flat);
        else if (base == kTranspose)
            tensor(b, src_storage, Layout::Transposed);
        else
            tensor(b, src_storage, Layout::Contiguous, 1, 2);
        b.end_node();
        acts_.push_back(id);
        if (fwd) maybe_save(id, options_.save_fraction, n);
        return 1;
    }
    if (r < 0.90 && room >= 2) return emit_multi(b, fwd, room);
    if (r < 0.97 && src_storage.valid()) {
        // In place: re-outputs the first input's storage.
        const Base base = rng_.chance(0.7) ? kAddInplace : kCopyInplace;
        std::string n;
        const NodeId id = begin(b, base, src_storage, n);
        b.add_input(src);
        const NodeId other = pick_act();
        if (other != src) b.add_input(other);
        tensor(b, src_storage);
        b.end_node();
        acts_.push_back(id);
        if (fwd) maybe_save(id, options_.save_fraction, n);
        return 1;
    }
    // No tensor: a symbolic size or an assertion.
    const bool sym = rng_.chance(0.5);
    const Base base = sym ? kSymSize : kAssert;
    std::string n;
    begin(b, base, StorageId{}, n);
    b.add_input(src);
    if (sym) b.val_other(numbered("s", rng_.below(8)));
    b.end_node();
    return 1;
}

void Generator::forward(std::size_t budget) {
    reset_graph();
    GraphBuilder b(file_, kForwardName, GraphKind::Forward);
    const std::size_t num_primals = std::clamp<std::size_t>(budget / 25, 2, 1u << 20);
    const std::size_t num_attrs = std::max<std::size_t>(1, budget / 400);

    // primals_1 is the batch input; the other primals and the get_attr constants are weights.
    for (std::size_t i = 1; i <= num_primals; ++i) {
        const StorageId s = i == 1 ? fresh(20, 26, false) : fresh(9, 24);
        const std::string n = numbered("primals_", i);
        const NodeId id = begin(b, n, OpKind::Placeholder, n, s);
        tensor(b, s);
        b.end_node();
        primals_.push_back(s);
        (i == 1 ? acts_ : params_).push_back(id);
    }
    for (std::size_t j = 0; j < num_attrs; ++j) {
        const std::string n = numbered("_tensor_constant", j);
        const StorageId s = fresh(9, 16);
        const NodeId id = begin(b, n, OpKind::GetAttr, n, s);
        tensor(b, s);
        b.end_node();
        params_.push_back(id);
    }

    std::vector<NodeId> extra;
    const std::size_t body_end = std::max(main_.size() + 1, budget - 1);
    const std::size_t start = main_.size();
    while (main_.size() < body_end) {
        progress_ = static_cast<double>(main_.size() - start) / static_cast<double>(body_end - start);
        step(b, true, body_end - main_.size(), extra);
    }

    // The output: the user-visible results first, then the saved tensors.
    std::vector<NodeId> outs;
    const std::size_t users = std::min<std::size_t>(acts_.size(), 1 + rng_.below(2));
    for (std::size_t k = 0; k < users; ++k) push_unique(outs, acts_[acts_.size() - 1 - k]);
    for (NodeId id : outs) user_outputs_.push_back(main_[id.index()]);
    begin(b, "output", OpKind::Output, "output", StorageId{});
    auto is_out = [&](NodeId id) { return std::find(outs.begin(), outs.end(), id) != outs.end(); };
    for (NodeId id : outs) b.add_input(id);
    for (const SavedTensor& t : saved_)
        if (!is_out(t.node)) b.add_input(t.node);
    b.val_begin_list();
    for (NodeId id : outs) tensor(b, main_[id.index()]);
    for (const SavedTensor& t : saved_)
        if (!is_out(t.node)) tensor(b, t.storage);
    b.val_end_list();
    b.end_node();
    b.finish();
}

void Generator::backward(std::size_t budget) {
    reset_graph();
    GraphBuilder b(file_, kBackwardName, GraphKind::Backward);

    // Placeholders: most primals (weights again), the saved activations under their forward
    // names, and one fresh tangent per user-visible forward output.
    for (std::size_t i = 0; i < primals_.size(); ++i) {
        if (i > 0 && !rng_.chance(0.6)) continue;
        const std::string n = numbered("primals_", i + 1);
        const NodeId id = begin(b, n, OpKind::Placeholder, n, primals_[i]);
        tensor(b, primals_[i]);
        b.end_node();
        params_.push_back(id);
    }
    std::vector<NodeId> saved_ph;
    for (const SavedTensor& t : saved_) {
        saved_ph.push_back(begin(b, t.name, OpKind::Placeholder, t.name, t.storage));
        tensor(b, t.storage);
        b.end_node();
    }
    for (std::size_t k = 0; k < user_outputs_.size(); ++k) {
        const std::string n = numbered("tangents_", k + 1);
        const StorageId s = fresh_bytes(file_.nbytes(user_outputs_[k]), false);
        acts_.push_back(begin(b, n, OpKind::Placeholder, n, s));
        tensor(b, s);
        b.end_node();
    }

    // The body consumes the saved tensors in reverse, spread evenly over it.
    const std::size_t start = main_.size();
    const std::size_t body_end = std::max(start + 1, budget > 1 ? budget - 1 : 0);
    const std::size_t body = body_end - start;
    std::size_t next_saved = 0; // counts saved_ph from the back
    std::vector<NodeId> extra;
    while (main_.size() < body_end) {
        const std::size_t done = main_.size() - start;
        progress_ = static_cast<double>(done) / static_cast<double>(body);
        while (next_saved < saved_ph.size() && extra.size() < 3 && next_saved * body / saved_ph.size() <= done)
            extra.push_back(saved_ph[saved_ph.size() - 1 - next_saved++]);
        step(b, false, body_end - main_.size(), extra);
    }

    // The output: one gradient per forward primal, null for the batch input and for primals
    // without a gradient node left.
    std::vector<NodeId> grads;
    for (std::size_t k = 0; k + 1 < primals_.size() && k < acts_.size(); ++k)
        grads.push_back(acts_[acts_.size() - 1 - k]); // acts_ holds each node once
    begin(b, "output", OpKind::Output, "output", StorageId{});
    for (NodeId g : grads) b.add_input(g);
    b.val_begin_list();
    b.val_null();
    for (std::size_t i = 1; i < primals_.size(); ++i) {
        if (i - 1 < grads.size())
            tensor(b, main_[grads[i - 1].index()]);
        else
            b.val_null();
    }
    b.val_end_list();
    b.end_node();
    b.finish();
}

} // namespace

GraphFile generate(const Options& options) {
    GraphFile file;
    file.source = "synth(nodes=" + std::to_string(options.nodes) + ", seed=" + std::to_string(options.seed) + ")";
    file.producer_json = "{\"name\":\"fxmem-synth\",\"nodes\":" + std::to_string(options.nodes) +
                         ",\"seed\":" + std::to_string(options.seed) + "}";
    const std::size_t total = std::max<std::size_t>(options.nodes, 32);
    Generator gen(file, options);
    if (options.pair) {
        const std::size_t fwd = total * 2 / 5;
        gen.forward(fwd);
        gen.backward(total - fwd);
        file.add_pair(kForwardName, kBackwardName);
    } else {
        gen.forward(total);
    }
    return file;
}

std::string generate_json(const Options& options) { return write_json(generate(options)); }

} // namespace fxmem::synth
