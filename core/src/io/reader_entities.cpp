// The reader's entities, checked and built as their objects close: storages, graphs and their
// nodes (straight into a GraphBuilder, or staged and replayed when what they refer to comes later
// in the file), vals, pairs and steps.
#include "fxmem/error.h"
#include "io/reader.h"
#include "model/placed_error.h"
#include "model/quote.h"

#include <limits>

namespace fxmem::reader {

using detail::PlacedError;
using detail::quote;

void Reader::end_storage() {
    for (Slot k : {Slot::StorageId, Slot::StorageDevice, Slot::StorageNbytes})
        if (!(storage_seen_ & bit(k))) missing(k);
    StorageRole role = StorageRole::Unknown;
    // The storage's frame is closed: its place is spelled out with the id.
    if (storage_has_role_ && !parse_storage_role(storage_role_text_, role))
        fail_at(cursor_offset(),
                "storages[" + std::to_string(storage_count_) + "] (id " + std::to_string(storage_id_) + ")",
                "unknown role " + quote(storage_role_text_) +
                    " (expected parameter, buffer, input, activation, output, tangent, gradient, temporary, "
                    "optimizer_state or unsharded_parameter)");
    StorageId id;
    try {
        id = file_.add_storage(storage_id_, storage_device_, storage_nbytes_);
    } catch (const PlacedError& e) {
        fail_at(cursor_offset(), e.place(), e.detail());
    }
    if (role != StorageRole::Unknown || !storage_label_.empty()) file_.set_role(id, role, storage_label_);
    if (storage_seen_ & bit(Slot::StorageNbytesExpr)) {
        StagedExpr e;
        e.kind = StagedExpr::Kind::Nbytes;
        e.owner = static_cast<std::uint32_t>(id.index());
        e.offset = storage_nbytes_expr_offset_;
        stage_expr(e, storage_nbytes_expr_);
    }
    if (file_.storages.size() >= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
        fail("too many storages");
    ++storage_count_;
}

void Reader::begin_graph() {
    graph_seen_ = 0;
    graph_name_.clear();
    graph_kind_ = GraphKind::Other;
    graph_num_fwd_.reset();
    node_count_ = 0;
    pending_.nodes.clear();
    builder_.reset();
    frames_.push_back(Frame::Graph);
}

// Nodes go straight into a builder when everything they refer to is known.
void Reader::begin_nodes() {
    const bool direct = (graph_seen_ & bit(Slot::GraphName)) && (graph_seen_ & bit(Slot::GraphKind)) &&
                        storages_done_ && deferred_.empty();
    if (direct) {
        if (file_.find_graph(graph_name_)) fail("duplicate graph name " + quote(graph_name_));
        builder_.emplace(file_, graph_name_, graph_kind_);
    }
    frames_.push_back(Frame::Nodes);
}

void Reader::end_node() {
    rec_.end_offset = cursor_offset();
    for (Slot k : {Slot::NodeName, Slot::NodeOp, Slot::NodeTarget, Slot::NodeInputs, Slot::NodeVal})
        if (!(rec_.seen & bit(k))) missing(k);
    if (builder_) {
        emit(*builder_, graph_name_, rec_);
    } else {
        pending_.nodes.push_back(rec_.compact());
    }
    ++node_count_;
}

void Reader::end_graph() {
    for (Slot k : {Slot::GraphName, Slot::GraphKind, Slot::GraphNodes})
        if (!(graph_seen_ & bit(k))) missing(k);
    if (node_count_ == 0) fail("the graph has no nodes (an FX graph always has at least its output node)");
    if (graph_kind_ == GraphKind::Joint && !(graph_seen_ & bit(Slot::GraphNumFwdOutputs)))
        fail_at(cursor_offset(), "graph " + quote(graph_name_), "a joint graph needs 'num_fwd_outputs'");
    if (builder_) {
        builder_->set_num_fwd_outputs(graph_num_fwd_);
        check_joint(builder_->finish(), cursor_offset());
        builder_.reset();
    } else {
        pending_.name = graph_name_;
        pending_.kind = graph_kind_;
        pending_.num_fwd_outputs = graph_num_fwd_;
        pending_.end_offset = cursor_offset();
        if (storages_done_ && deferred_.empty()) {
            replay(pending_);
        } else {
            deferred_.push_back(std::move(pending_));
        }
        pending_ = PendingGraph{};
    }
    ++graph_count_;
}

void Reader::replay(PendingGraph& g) {
    if (file_.find_graph(g.name))
        fail_at(g.end_offset, "graph " + quote(g.name), "duplicate graph name " + quote(g.name));
    std::optional<GraphBuilder> builder;
    builder.emplace(file_, g.name, g.kind);
    for (NodeRecord& r : g.nodes) emit(*builder, g.name, r);
    builder->set_num_fwd_outputs(g.num_fwd_outputs);
    check_joint(builder->finish(), g.end_offset);
}

// A joint graph ends with its output node, whose first num_fwd_outputs inputs are the forward's.
void Reader::check_joint(const fxmem::Graph& g, std::size_t offset) const {
    if (g.kind != GraphKind::Joint) return;
    const Node& last = g.nodes.back();
    const std::string where = "graph " + quote(g.name);
    if (last.op != OpKind::Output)
        fail_at(offset, where, "a joint graph must end with its output node, not " + quote(last.name));
    if (static_cast<std::uint64_t>(*g.num_fwd_outputs) > last.inputs.size())
        fail_at(offset, where,
                "'num_fwd_outputs' is " + std::to_string(*g.num_fwd_outputs) + " but the output node has " +
                    std::to_string(last.inputs.size()) + " inputs");
}

void Reader::end_val_object() {
    const bool tensor = val_seen_ & bit(Slot::TensorStorage);
    const bool other = val_seen_ & bit(Slot::OtherText);
    if (tensor && other) fail("a val object has both 'storage' and 'other'");
    if (!tensor && !other) fail("a val object must be a tensor (with 'storage') or {\"other\": <string>}");
    StagedVal v;
    if (other) {
        v.kind = StagedVal::Kind::Other;
    } else {
        for (Slot k : {Slot::TensorDtype, Slot::TensorShape, Slot::TensorStride, Slot::TensorOffset})
            if (!(val_seen_ & bit(k))) missing(k);
        v.kind = StagedVal::Kind::Tensor;
        v.storage = val_storage_;
        v.shape_begin = shape_.begin;
        v.shape_size = shape_.size();
        v.stride_begin = stride_.begin;
        v.stride_size = stride_.size();
        v.offset = val_offset_;
        const auto entries_of = [&](Slot key, Range given, std::uint32_t size, std::uint32_t& begin) {
            if (!(val_seen_ & bit(key))) return false;
            if (given.size() != size)
                fail(field_name(key) + " has " + std::to_string(given.size()) + " entries but tensor '" +
                     (key == Slot::TensorShapeExpr ? "shape" : "stride") + "' has " + std::to_string(size));
            begin = given.begin;
            return true;
        };
        v.has_shape_expr = entries_of(Slot::TensorShapeExpr, shape_expr_, v.shape_size, v.shape_expr_begin);
        v.has_stride_expr = entries_of(Slot::TensorStrideExpr, stride_expr_, v.stride_size, v.stride_expr_begin);
        v.has_offset_expr = val_seen_ & bit(Slot::TensorOffsetExpr);
        v.offset_expr = offset_expr_;
    }
    v.text = val_text_;
    rec_.vals.push_back(std::move(v));
}

void Reader::end_pair() {
    for (Slot k : {Slot::PairForward, Slot::PairBackward})
        if (!(pair_seen_ & bit(k))) missing(k);
    pair_.end_offset = cursor_offset();
    pairs_.push_back(std::move(pair_));
    ++pair_count_;
}

void Reader::end_step() {
    for (Slot k : {Slot::StepGraph, Slot::StepCall})
        if (!(step_seen_ & bit(k))) missing(k);
    step_.end_offset = cursor_offset();
    steps_.push_back(std::move(step_));
    ++step_count_;
}

// Builds one node from its record. Messages name the graph and node, at the end of the node's
// object; the builder's own errors keep their place and wording.
// The builder copies what it keeps, so the record's buffers stay allocated for the next node.
void Reader::emit(GraphBuilder& b, const std::string& graph, NodeRecord& r) {
    const auto place = [&] { return "graph " + quote(graph) + ", node " + quote(r.name); };
    // Resolve storages first so that our message, not the builder's, names the id.
    for (StagedVal& v : r.vals) {
        if (v.kind != StagedVal::Kind::Tensor) continue;
        v.resolved = file_.find_storage(v.storage);
        if (!v.resolved.valid())
            fail_at(r.end_offset, place(), "tensor refers to unknown storage id " + std::to_string(v.storage));
    }
    if (r.has_module_type && !r.has_module) fail_at(r.end_offset, place(), "'module_type' without 'module'");
    try {
        const NodeId node = b.begin_node(r.name, r.name_tag, r.op, r.target);
        for (std::size_t i = 0; i < r.n_inputs; ++i) {
            const std::string& in = r.inputs[i];
            try {
                b.add_input(in, r.input_tags[i]);
            } catch (const PlacedError& e) {
                // Inputs are found by name among the nodes read so far: a later node is unknown yet.
                if (e.reason() != PlacedError::Reason::UnknownName) throw;
                fail_at(r.end_offset, place(), "input " + quote(in) + " is defined later (or unknown)");
            }
        }
        for (const StagedVal& v : r.vals) {
            switch (v.kind) {
            case StagedVal::Kind::Null: b.val_null(); break;
            case StagedVal::Kind::Begin: b.val_begin_list(); break;
            case StagedVal::Kind::End: b.val_end_list(); break;
            case StagedVal::Kind::Other: b.val_other(v.text); break;
            case StagedVal::Kind::Tensor:
                b.val_tensor(v.resolved, v.text,
                             std::span<const std::int64_t>(r.dims.data() + v.shape_begin, v.shape_size),
                             std::span<const std::int64_t>(r.dims.data() + v.stride_begin, v.stride_size), v.offset);
                break;
            }
        }
        if (!r.stack_trace.empty()) b.set_stack_trace(r.stack_trace);
        if (!r.meta.empty()) b.set_meta_json(r.meta);
        if (r.has_module)
            b.set_module(r.module, r.has_module_type ? std::string_view(r.module_type) : std::string_view{});
        if (r.flops >= 0) b.set_flops(r.flops);
        if (r.phase != NodePhase::Unknown) b.set_phase(r.phase);
        b.end_node();
        if (r.seen & bit(Slot::NodeFlopsExpr)) {
            if (r.flops < 0) fail_at(r.end_offset, place(), "'flops_expr' without 'flops' (its value at the hints)");
            StagedExpr e;
            e.kind = StagedExpr::Kind::Flops;
            e.owner = static_cast<std::uint32_t>(file_.graphs.size());
            e.node = node;
            e.offset = r.flops_expr_offset;
            stage_expr(e, r.flops_expr);
        }
        stage_tensor_exprs(r, node);
    } catch (const PlacedError& e) {
        fail_at(r.end_offset, e.place(), e.detail());
    }
}

} // namespace fxmem::reader
