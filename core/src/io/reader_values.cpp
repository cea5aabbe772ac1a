// The reader's scalar values (null, booleans, numbers, strings), each checked against the slot it
// fills (reader_slots.h) and stored in the record being read.
#include "fxmem/error.h"
#include "io/json_text.h"
#include "io/reader.h"
#include "model/quote.h"

#include <limits>

namespace fxmem::reader {

using detail::quote;

bool Reader::null() {
    if (skip_depth_ > 0) return capture_scalar("null");
    const Slot s = slot();
    switch (s) {
    case Slot::Skip: break;
    case Slot::TopProducer: break;    // null: absent
    case Slot::TopDistributed: break; // null: absent
    case Slot::NodeStackTrace: break;
    case Slot::NodeMeta: break;
    case Slot::NodeModule: break; // null: absent
    case Slot::NodeModuleType: break;
    case Slot::NodePhase: break; // null: absent
    case Slot::NodeFlops: break;
    case Slot::PairJoint: break;
    case Slot::PairBudget: break;
    case Slot::StorageRole: break;
    case Slot::StorageLabel: break;
    case Slot::ScheduleSource: break;
    case Slot::TopSchedules: break;
    case Slot::TopStep: break;                               // null: absent
    case Slot::StepPrefix: break;                            // null: none
    case Slot::TopSymbols: break;                            // null: none
    case Slot::SymbolMax: symbol_.symbol.max.reset(); break; // null: unbounded above
    case Slot::SymbolSource: break;
    case Slot::GraphProgram: break; // null: no program level
    case Slot::ProgramSource: break;
    case Slot::BufferKind: break;
    case Slot::BufferReuses: break; // null: reuses nothing
    case Slot::NodeVal: rec_.vals.push_back({}); break;
    default: wrong(s, "null");
    }
    return true;
}

bool Reader::boolean(bool v) {
    if (skip_depth_ > 0) return capture_scalar(v ? "true" : "false");
    const Slot s = slot();
    if (s == Slot::TopProducer) return scalar_producer(v ? "true" : "false");
    if (s == Slot::BufferInput) {
        buffer_.input = v;
        return true;
    }
    if (s != Slot::Skip) wrong(s, v ? "true" : "false");
    return true;
}

bool Reader::number_integer(std::int64_t v) {
    if (skip_depth_ > 0) {
        if (capture_) value_prefix(), json_text::append_int(*capture_, v);
        return true;
    }
    integer(v);
    return true;
}

bool Reader::number_unsigned(std::uint64_t v) {
    if (skip_depth_ > 0) {
        if (capture_) value_prefix(), json_text::append_uint(*capture_, v);
        return true;
    }
    if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        const Slot s = slot();
        if (s == Slot::Skip) return true;
        if (s == Slot::TopProducer) return scalar_producer(std::to_string(v));
        fail(field_name(s) + " is out of range (more than 2^63-1): " + std::to_string(v));
    }
    integer(static_cast<std::int64_t>(v));
    return true;
}

bool Reader::number_float(double v, const std::string& token) {
    if (skip_depth_ > 0) return capture_scalar(token);
    const Slot s = slot();
    if (s == Slot::Skip) return true;
    if (s == Slot::TopProducer) return scalar_producer(token);
    if (s == Slot::PairBudget) {
        budget(v, token);
        return true;
    }
    const bool digits_only = token.find_first_not_of("-0123456789") == std::string::npos;
    if (digits_only && is_integer_slot(s)) fail(field_name(s) + " is out of range (beyond 64-bit integers): " + token);
    wrong(s, token);
}

bool Reader::string_value(std::string_view v) {
    if (skip_depth_ > 0) {
        if (capture_) value_prefix(), json_text::append_string(*capture_, v);
        return true;
    }
    const Slot s = slot();
    switch (s) {
    case Slot::Skip: break;
    case Slot::TopFormat:
        if (v != "fxmem") fail("not an fxmem file: 'format' is " + quote(v) + ", expected 'fxmem'");
        break;
    case Slot::TopProducer: {
        std::string text;
        json_text::append_string(text, v);
        scalar_producer(text);
        break;
    }
    case Slot::StorageDevice:
        if (v.empty()) wrong(s, "an empty string");
        storage_device_ = v;
        break;
    case Slot::GraphName:
        if (v.empty()) wrong(s, "an empty string");
        graph_name_ = v;
        break;
    case Slot::GraphKind:
        if (!parse_graph_kind(v, graph_kind_))
            fail("unknown graph kind " + quote(v) + " (expected forward, backward, inference, other or joint)");
        break;
    case Slot::NodeName:
        if (v.empty()) wrong(s, "an empty string");
        rec_.name = v;
        rec_.name_tag = NameIndex::tag_of(v);
        // Start loading the name's slot now; the builder needs it once the node has been read.
        if (builder_) builder_->prefetch_name(rec_.name_tag);
        break;
    case Slot::NodeOp:
        if (!parse_op_kind(v, rec_.op))
            fail("unknown op " + quote(v) +
                 " (expected placeholder, get_attr, call_function, call_method, call_module or output)");
        break;
    case Slot::NodeTarget: rec_.target.assign(v); break;
    case Slot::NodePhase:
        if (!parse_node_phase(v, rec_.phase)) fail("unknown phase " + quote(v) + " (expected forward or backward)");
        break;
    case Slot::NodeInput: {
        const std::uint32_t tag = NameIndex::tag_of(v);
        if (builder_) builder_->prefetch_name(tag);
        rec_.add_input(v, tag);
        break;
    }
    case Slot::NodeStackTrace: rec_.stack_trace.assign(v); break;
    case Slot::NodeModule:
        rec_.module.assign(v);
        rec_.has_module = true;
        break;
    case Slot::NodeModuleType:
        rec_.module_type.assign(v);
        rec_.has_module_type = true;
        break;
    case Slot::StorageRole:
        storage_role_text_.assign(v);
        storage_has_role_ = true;
        break;
    case Slot::StorageLabel: storage_label_.assign(v); break;
    case Slot::StorageNbytesExpr:
        storage_nbytes_expr_.assign(v);
        storage_nbytes_expr_offset_ = cursor_offset();
        break;
    case Slot::NodeFlopsExpr:
        rec_.flops_expr.assign(v);
        rec_.flops_expr_offset = cursor_offset();
        break;
    case Slot::DimExpr: add_entry(true, 0, v); break;
    case Slot::TensorOffsetExpr:
        offset_expr_ = static_cast<std::uint32_t>(rec_.entries.size());
        add_entry(true, 0, v);
        break;
    case Slot::SymbolName: symbol_.symbol.name.assign(v); break;
    case Slot::SymbolSource: symbol_.symbol.source.assign(v); break;
    case Slot::ScheduleName:
        if (v.empty()) wrong(s, "an empty string");
        schedule_.name.assign(v);
        break;
    case Slot::ScheduleGraph:
        schedule_.graph.assign(v);
        if (graphs_done_) {
            const std::optional<GraphId> g = file_.find_graph(v);
            schedule_graph_ = g ? &file_.graph(*g) : nullptr;
        }
        break;
    case Slot::ScheduleNode: add_schedule_node(v); break;
    case Slot::ScheduleSource: schedule_.source.assign(v); break;
    case Slot::TensorDtype: val_text_ = v; break;
    case Slot::OtherText: val_text_ = v; break;
    case Slot::PairForward: pair_.forward = v; break;
    case Slot::PairBackward: pair_.backward = v; break;
    case Slot::StepGraph: step_.graph = v; break;
    case Slot::StepPrefix: step_.module_prefix = v; break;
    case Slot::PairJoint:
        pair_.joint = v;
        pair_.joint_given = true;
        break;
    case Slot::ProgramTarget:
        if (v != "cpu" && v != "cuda") fail("unknown program 'target' " + quote(v) + " (expected cpu or cuda)");
        program_.target.assign(v);
        break;
    case Slot::ProgramSource: program_.source.assign(v); break;
    case Slot::BufferName:
        if (v.empty()) wrong(s, "an empty string");
        buffer_.name.assign(v);
        break;
    case Slot::BufferDevice:
        if (v.empty()) wrong(s, "an empty string");
        buffer_.device.assign(v);
        break;
    case Slot::BufferNbytesExpr:
        buffer_.nbytes_expr.assign(v);
        buffer_.has_expr = true;
        buffer_.expr_offset = cursor_offset();
        break;
    case Slot::BufferKind: buffer_.kind.assign(v); break;
    case Slot::KernelName: kernel_.name.assign(v); break;
    case Slot::BufferNode:
    case Slot::KernelNode: add_program_name(v); break;
    default: wrong(s, "a string");
    }
    return true;
}

bool Reader::binary(nlohmann::json::binary_t&) { fail("unexpected binary value"); }

void Reader::integer(std::int64_t v) {
    const Slot s = slot();
    switch (s) {
    case Slot::Skip: break;
    case Slot::TopProducer: scalar_producer(std::to_string(v)); break;
    case Slot::TopVersion:
        if (v != 1) fail("unsupported version " + std::to_string(v) + " (this build reads version 1)");
        break;
    case Slot::StorageId:
        if (v < 0) wrong(s, std::to_string(v));
        storage_id_ = v;
        storage_id_known_ = true;
        break;
    case Slot::StorageNbytes:
        if (v < 0) wrong(s, std::to_string(v));
        storage_nbytes_ = v;
        break;
    case Slot::TensorStorage: val_storage_ = v; break;
    case Slot::TensorOffset: val_offset_ = v; break;
    case Slot::GraphNumFwdOutputs:
        if (v < 0) wrong(s, std::to_string(v));
        graph_num_fwd_ = v;
        break;
    case Slot::NodeFlops:
        if (v < 0) wrong(s, std::to_string(v));
        rec_.flops = v;
        break;
    case Slot::PairBudget: budget(static_cast<double>(v), std::to_string(v)); break;
    case Slot::Dim: rec_.dims.push_back(v); break;
    case Slot::DimExpr: add_entry(false, v, {}); break;
    case Slot::TensorOffsetExpr:
        offset_expr_ = static_cast<std::uint32_t>(rec_.entries.size());
        add_entry(false, v, {});
        break;
    case Slot::SymbolHint: symbol_.symbol.hint = v; break;
    case Slot::SymbolMin: symbol_.symbol.min = v; break;
    case Slot::SymbolMax: symbol_.symbol.max = v; break;
    case Slot::StepCall:
        if (v < 0 || v > 0x7fffffff) wrong(s, std::to_string(v));
        step_.call = v;
        break;
    case Slot::BufferNbytes:
        if (v < 0) wrong(s, std::to_string(v));
        buffer_.nbytes = v;
        break;
    case Slot::BufferReuses:
        if (v < 0) wrong(s, std::to_string(v));
        buffer_.reuses = v;
        break;
    case Slot::BufferStream:
        if (v < 0 || v > 0x7fffffff) wrong(s, std::to_string(v));
        buffer_.stream = v;
        break;
    case Slot::KernelAllocEntry:
    case Slot::KernelFreeEntry:
        if (v < 0) wrong(s, std::to_string(v));
        add_program_id(v);
        break;
    default: wrong(s, std::to_string(v));
    }
}

void Reader::budget(double v, const std::string& token) {
    if (!(v >= 0.0 && v <= 1.0)) fail("'budget' must be a number from 0 to 1, got " + token);
    pair_.budget = v == 0.0 ? 0.0 : v; // -0.0 is PyTorch's 0: read and shown as 0.0
}

} // namespace fxmem::reader
