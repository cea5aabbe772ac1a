// The reader's structure: the parse itself, objects, arrays and keys (looked up in the slot table,
// reader_slots.h), the slot each value fills, and containers the format does not define, which
// are skipped or re-serialised for "meta" and "producer". Scalars are in reader_values.cpp.
#include "fxmem/error.h"
#include "io/json_fast_sax.h"
#include "io/json_text.h"
#include "io/reader.h"
#include "model/quote.h"

#include <cstring>

namespace fxmem::reader {

using detail::quote;
using nlohmann::json;

Reader::Reader(std::string_view text, std::string source, const LoadControl& control)
    : text_(text), control_(control), cursor_(text.data()) {
    file_.source = std::move(source);
}

GraphFile Reader::run() {
    if (text_.find_first_not_of(" \t\r\n") == std::string_view::npos)
        fail_at(ReadError::kNoOffset, {}, "the file is empty (expected a JSON object)");
    json_text::CursorIter first{text_.data(), &cursor_}, last{text_.data() + text_.size(), &cursor_};
    json::sax_parse(first, last, this);
    // nlohmann's lexer takes a NUL byte for the end of the input, so a document followed by
    // a NUL and anything at all parses; nothing but whitespace may follow it.
    if (const void* nul = std::memchr(text_.data(), '\0', text_.size()))
        fail_at(static_cast<std::size_t>(static_cast<const char*>(nul) - text_.data()), {},
                "invalid JSON: unexpected NUL byte after the JSON document (nothing but whitespace may follow it)");
    report(1.0);
    return std::move(file_);
}

std::optional<GraphFile> Reader::run_fast() {
    if (!json_fast::sax_parse(text_, *this, cursor_)) return std::nullopt;
    report(1.0);
    return std::move(file_);
}

bool Reader::start_object(std::size_t) {
    enter();
    if (skip_depth_ > 0) return open_skipped('{');
    const Slot s = slot();
    switch (s) {
    case Slot::Root: frames_.push_back(Frame::Top); break;
    case Slot::Skip: skip_depth_ = 1; break;
    case Slot::TopProducer: start_capture(file_.producer_json, '{'); break;
    case Slot::TopDistributed:
        distributed_offset_ = cursor_offset();
        start_capture(distributed_json_, '{');
        break;
    case Slot::NodeMeta: start_capture(rec_.meta, '{'); break;
    case Slot::Storage:
        storage_seen_ = 0;
        storage_id_known_ = false;
        storage_has_role_ = false;
        storage_label_.clear();
        storage_nbytes_expr_.clear();
        frames_.push_back(Frame::Storage);
        break;
    case Slot::Graph: begin_graph(); break;
    case Slot::GraphProgram: begin_program(); break;
    case Slot::Buffer:
        buffer_ = StagedProgram::Buffer{};
        buffer_seen_ = 0;
        frames_.push_back(Frame::Buffer);
        break;
    case Slot::Kernel:
        kernel_ = StagedProgram::Kernel{};
        kernel_seen_ = 0;
        frames_.push_back(Frame::Kernel);
        break;
    case Slot::Node:
        rec_.reset();
        frames_.push_back(Frame::Node);
        break;
    case Slot::NodeVal:
        val_seen_ = 0;
        frames_.push_back(Frame::ValObject);
        break;
    case Slot::Pair:
        pair_seen_ = 0;
        pair_ = StagedPair{};
        pair_.index = pair_count_;
        frames_.push_back(Frame::Pair);
        break;
    case Slot::StepEntry:
        step_seen_ = 0;
        step_ = StagedStep{};
        step_.index = step_count_;
        frames_.push_back(Frame::Step);
        break;
    case Slot::SymbolEntry:
        symbol_ = StagedSymbol{};
        frames_.push_back(Frame::Symbol);
        break;
    case Slot::Schedule:
        schedule_seen_ = 0;
        schedule_ = StagedSchedule{};
        schedule_graph_ = nullptr;
        schedule_.index = schedule_count_;
        frames_.push_back(Frame::Schedule);
        break;
    default: wrong(s, "an object");
    }
    return true;
}

bool Reader::key_view(std::string_view k) {
    if (skip_depth_ > 0) {
        if (capture_) {
            if (!capture_first_) capture_->push_back(',');
            json_text::append_string(*capture_, k);
            capture_->push_back(':');
            capture_first_ = false;
            capture_after_key_ = true;
        }
        return true;
    }
    const Frame f = frames_.back();
    std::uint64_t* seen = nullptr;
    switch (f) {
    case Frame::Top: seen = &top_seen_; break;
    case Frame::Storage: seen = &storage_seen_; break;
    case Frame::Graph: seen = &graph_seen_; break;
    case Frame::Node: seen = &rec_.seen; break;
    case Frame::ValObject: seen = &val_seen_; break;
    case Frame::Pair: seen = &pair_seen_; break;
    case Frame::Step: seen = &step_seen_; break;
    case Frame::Schedule: seen = &schedule_seen_; break;
    case Frame::Symbol: seen = &symbol_.seen; break;
    case Frame::Program: seen = &program_seen_; break;
    case Frame::Buffer: seen = &buffer_seen_; break;
    case Frame::Kernel: seen = &kernel_seen_; break;
    default: fail("internal error: key in an array");
    }
    key_slot_ = slot_of_key(f, k);
    if (key_slot_ != Slot::Skip) {
        if (*seen & bit(key_slot_)) fail("duplicate key " + quote(k));
        *seen |= bit(key_slot_);
    }
    check_progress();
    return true;
}

bool Reader::end_object() {
    --depth_;
    if (skip_depth_ > 0) return close_skipped('}');
    const Frame f = frames_.back();
    frames_.pop_back();
    switch (f) {
    case Frame::Top: end_top(); break;
    case Frame::Storage: end_storage(); break;
    case Frame::Graph: end_graph(); break;
    case Frame::Node: end_node(); break;
    case Frame::ValObject: end_val_object(); break;
    case Frame::Pair: end_pair(); break;
    case Frame::Schedule: end_schedule(); break;
    case Frame::Step: end_step(); break;
    case Frame::Symbol: end_symbol(); break;
    case Frame::Program: end_program(); break;
    case Frame::Buffer: end_buffer(); break;
    case Frame::Kernel: end_kernel(); break;
    default: fail("internal error: unbalanced object");
    }
    check_progress();
    return true;
}

bool Reader::start_array(std::size_t) {
    enter();
    if (skip_depth_ > 0) return open_skipped('[');
    const Slot s = slot();
    switch (s) {
    case Slot::Skip: skip_depth_ = 1; break;
    case Slot::TopProducer: start_capture(file_.producer_json, '['); break;
    case Slot::TopStorages: frames_.push_back(Frame::Storages); break;
    case Slot::TopGraphs: frames_.push_back(Frame::Graphs); break;
    case Slot::TopPairs: frames_.push_back(Frame::Pairs); break;
    case Slot::TopSchedules: frames_.push_back(Frame::Schedules); break;
    case Slot::TopStep: frames_.push_back(Frame::Steps); break;
    case Slot::TopSymbols: frames_.push_back(Frame::Symbols); break;
    case Slot::TensorShapeExpr:
    case Slot::TensorStrideExpr:
        entries_are_shape_ = s == Slot::TensorShapeExpr;
        entries_begin_ = static_cast<std::uint32_t>(rec_.entries.size());
        frames_.push_back(Frame::DimExprs);
        break;
    case Slot::ScheduleOrder:
        schedule_.resolved = schedule_graph_ != nullptr;
        if (schedule_.resolved) schedule_position_.assign(schedule_graph_->size(), kNotScheduled);
        frames_.push_back(Frame::ScheduleOrder);
        break;
    case Slot::GraphNodes: begin_nodes(); break;
    case Slot::ProgramBuffers: frames_.push_back(Frame::Buffers); break;
    case Slot::ProgramKernels: frames_.push_back(Frame::Kernels); break;
    case Slot::BufferNodes:
    case Slot::KernelNodes:
        program_list_begin_ = static_cast<std::uint32_t>(program_.name_ends.size());
        frames_.push_back(s == Slot::BufferNodes ? Frame::BufferNodes : Frame::KernelNodes);
        break;
    case Slot::KernelAlloc:
    case Slot::KernelFree:
        if (program_.ids.size() >= 0xffffffffu) fail("a program's 'alloc' and 'free' lists exceed 2^32 entries");
        program_list_begin_ = static_cast<std::uint32_t>(program_.ids.size());
        frames_.push_back(s == Slot::KernelAlloc ? Frame::KernelAlloc : Frame::KernelFree);
        break;
    case Slot::NodeInputs:
        rec_.n_inputs = 0;
        frames_.push_back(Frame::Inputs);
        break;
    case Slot::NodeVal:
        if (++val_depth_ > kMaxValDepth)
            fail("'val' nests lists deeper than " + std::to_string(kMaxValDepth) + " levels");
        rec_.vals.emplace_back().kind = StagedVal::Kind::Begin;
        frames_.push_back(Frame::ValList);
        break;
    case Slot::TensorShape:
    case Slot::TensorStride:
        dims_are_shape_ = s == Slot::TensorShape;
        dims_begin_ = rec_.dims.size();
        frames_.push_back(Frame::Dims);
        break;
    default: wrong(s, "an array");
    }
    return true;
}

bool Reader::end_array() {
    --depth_;
    if (skip_depth_ > 0) return close_skipped(']');
    const Frame f = frames_.back();
    frames_.pop_back();
    switch (f) {
    case Frame::Storages: storages_done_ = true; break;
    case Frame::Graphs: graphs_done_ = true; break;
    case Frame::Pairs: break;
    case Frame::Schedules: break;
    case Frame::Steps: break;
    case Frame::Symbols: break;
    case Frame::Buffers: break;
    case Frame::Kernels: break;
    case Frame::BufferNodes:
    case Frame::KernelNodes:
    case Frame::KernelAlloc:
    case Frame::KernelFree: end_program_list(f); break;
    case Frame::DimExprs: end_dim_exprs(); break;
    case Frame::ScheduleOrder: break;
    case Frame::Nodes: break;
    case Frame::Inputs: break;
    case Frame::ValList:
        --val_depth_;
        rec_.vals.emplace_back().kind = StagedVal::Kind::End;
        break;
    case Frame::Dims: {
        const auto begin = static_cast<std::uint32_t>(dims_begin_);
        const auto size = static_cast<std::uint32_t>(rec_.dims.size() - dims_begin_);
        (dims_are_shape_ ? shape_ : stride_) = {begin, begin + size};
        break;
    }
    default: fail("internal error: unbalanced array");
    }
    check_progress();
    return true;
}

bool Reader::parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) {
    const bool at_end = position >= text_.size();
    // nlohmann reads a NUL byte as the end of the input; say what it really is.
    if (position > 0 && position <= text_.size() && text_[position - 1] == '\0')
        fail_at(position - 1, {}, "invalid JSON: unexpected NUL byte");
    fail_at(position > 0 ? position - 1 : 0, {},
            "invalid JSON: " + json_text::parser_detail(ex.what()) +
                (at_end ? " (the file ends too early: truncated?)" : ""));
}

// ---- containers we do not interpret: skipped, or re-serialised for meta/producer ----

void Reader::enter() {
    if (++depth_ > kMaxDepth) fail("JSON nesting deeper than " + std::to_string(kMaxDepth) + " levels");
}

void Reader::start_capture(std::string& dest, char open) {
    dest.clear();
    capture_ = &dest;
    capture_first_ = true;
    capture_after_key_ = false;
    dest.push_back(open);
    skip_depth_ = 1;
}

// Separator before a value inside a captured container.
void Reader::value_prefix() {
    if (capture_after_key_) {
        capture_after_key_ = false;
    } else {
        if (!capture_first_) capture_->push_back(',');
    }
    capture_first_ = false;
}

bool Reader::capture_scalar(std::string_view text) {
    if (capture_) value_prefix(), capture_->append(text);
    return true;
}

bool Reader::open_skipped(char open) {
    ++skip_depth_;
    if (capture_) {
        value_prefix();
        capture_->push_back(open);
        capture_first_ = true;
    }
    return true;
}

bool Reader::close_skipped(char close) {
    if (capture_) {
        capture_->push_back(close);
        capture_first_ = false;
    }
    if (--skip_depth_ == 0) capture_ = nullptr;
    return true;
}

bool Reader::scalar_producer(std::string_view text) {
    file_.producer_json.assign(text);
    return true;
}

// ---- dispatch ----

Slot Reader::slot() const {
    if (frames_.empty()) return Slot::Root;
    const Slot entry = kEntrySlots[static_cast<std::size_t>(frames_.back())];
    return entry != Slot::Count ? entry : key_slot_;
}

// The cancel check is asked, and progress reported, about once per megabyte read.
void Reader::check_progress() {
    const auto read = static_cast<std::size_t>(cursor_ - text_.data());
    if (read < next_progress_) return;
    next_progress_ = read + kProgressStep;
    report(static_cast<double>(read) / static_cast<double>(text_.size()));
}

void Reader::report(double fraction) const {
    throw_if_cancelled(control_.cancelled);
    if (control_.progress) control_.progress(fraction);
}

} // namespace fxmem::reader
