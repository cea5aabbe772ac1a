// load_buffer: a SAX reader for format v1 (docs/format.md). nlohmann's parser is iterative and
// hands us events; we keep an explicit stack of what each open container is and build the
// GraphFile directly through GraphFile::add_storage and GraphBuilder, without a DOM.
//
// Keys may come in any order. Each node's fields are staged in a reusable record and the node is
// built when its object closes. In the usual order (storages before graphs, a graph's name and
// kind before its nodes) every node goes straight into the builder; otherwise the graph's records
// are kept and replayed once what they need is known (at the graph's end, or the file's end when
// the storages come last), so any order gives the same result.
//
// The same callbacks are first driven by json_fast::sax_parse (json_fast_sax.h), which hands
// strings over as views of the text (key_view, string_value); nlohmann re-reads the text whenever
// that path declines it or the file has an error, so every message is nlohmann's.
#include "fxmem/error.h"
#include "fxmem/io.h"
#include "fxmem/schedule.h"
#include "json_fast_sax.h"
#include "json_text.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace fxmem {

namespace {

using nlohmann::json;

constexpr int kMaxDepth = 128;   // any JSON nesting; graph files need about 10
constexpr int kMaxValDepth = 64; // nested lists inside one val
constexpr std::size_t kProgressStep = std::size_t{1} << 20;

using json_text::CursorIter;

// What the next value is for: set by a key in objects, implied by the container in arrays.
enum class Slot : std::uint8_t {
    Root,
    Skip,
    TopFormat,
    TopVersion,
    TopProducer,
    TopStorages,
    TopGraphs,
    TopPairs,
    TopSchedules,
    Storage,
    StorageId,
    StorageDevice,
    StorageNbytes,
    StorageRole,
    StorageLabel,
    Graph,
    GraphName,
    GraphKind,
    GraphNodes,
    GraphNumFwdOutputs,
    Node,
    NodeName,
    NodeOp,
    NodeTarget,
    NodeInputs,
    NodeInput,
    NodeVal,
    NodeStackTrace,
    NodeMeta,
    NodeModule,
    NodeModuleType,
    NodePhase,
    NodeFlops,
    TensorStorage,
    TensorDtype,
    TensorShape,
    TensorStride,
    TensorOffset,
    Dim,
    OtherText,
    Pair,
    PairForward,
    PairBackward,
    PairJoint,
    PairBudget,
    Schedule,
    ScheduleName,
    ScheduleGraph,
    ScheduleOrder,
    ScheduleNode,
    ScheduleSource,
    TopStep,
    StepEntry,
    StepGraph,
    StepCall,
    StepPrefix,
};
static_assert(static_cast<unsigned>(Slot::StepPrefix) < 64, "the seen masks are 64 bits");

enum class Frame : std::uint8_t {
    Top,
    Storages,
    Storage,
    Graphs,
    Graph,
    Nodes,
    Node,
    Inputs,
    ValList,
    ValObject,
    Dims,
    Pairs,
    Pair,
    Schedules,
    Schedule,
    ScheduleOrder,
    Steps,
    Step,
};

constexpr std::uint64_t bit(Slot s) { return std::uint64_t{1} << static_cast<unsigned>(s); }

// Field name and expected type, for "'nbytes' must be an integer >= 0, got -3".
struct SlotInfo {
    const char* field;
    const char* expected;
};

SlotInfo slot_info(Slot s) {
    switch (s) {
    case Slot::Root: return {"the top level", "a JSON object"};
    case Slot::Skip: return {"value", "anything"};
    case Slot::TopFormat: return {"'format'", "the string \"fxmem\""};
    case Slot::TopVersion: return {"'version'", "the integer 1"};
    case Slot::TopProducer: return {"'producer'", "any JSON value"};
    case Slot::TopStorages: return {"'storages'", "an array"};
    case Slot::TopGraphs: return {"'graphs'", "an array"};
    case Slot::TopPairs: return {"'pairs'", "an array"};
    case Slot::TopSchedules: return {"'schedules'", "an array"};
    case Slot::Storage: return {"each entry of 'storages'", "an object"};
    case Slot::StorageId: return {"'id'", "an integer >= 0"};
    case Slot::StorageDevice: return {"'device'", "a non-empty string"};
    case Slot::StorageNbytes: return {"'nbytes'", "an integer >= 0"};
    case Slot::StorageRole: return {"'role'", "a string"};
    case Slot::StorageLabel: return {"'label'", "a string"};
    case Slot::Graph: return {"each entry of 'graphs'", "an object"};
    case Slot::GraphName: return {"'name'", "a non-empty string"};
    case Slot::GraphKind: return {"'kind'", "one of \"forward\", \"backward\", \"inference\", \"other\", \"joint\""};
    case Slot::GraphNodes: return {"'nodes'", "an array"};
    case Slot::GraphNumFwdOutputs: return {"'num_fwd_outputs'", "an integer >= 0"};
    case Slot::Node: return {"each entry of 'nodes'", "an object"};
    case Slot::NodeName: return {"'name'", "a non-empty string"};
    case Slot::NodeOp: return {"'op'", "a string"};
    case Slot::NodeTarget: return {"'target'", "a string"};
    case Slot::NodeInputs: return {"'inputs'", "an array of node names"};
    case Slot::NodeInput: return {"each entry of 'inputs'", "a node name (a string)"};
    case Slot::NodeVal: return {"'val'", "null, a tensor object, a list or {\"other\": <string>}"};
    case Slot::NodeStackTrace: return {"'stack_trace'", "a string"};
    case Slot::NodeMeta: return {"'meta'", "an object"};
    case Slot::NodeModule: return {"'module'", "a string"};
    case Slot::NodeModuleType: return {"'module_type'", "a string"};
    case Slot::NodePhase: return {"'phase'", "\"forward\" or \"backward\""};
    case Slot::NodeFlops: return {"'flops'", "an integer >= 0"};
    case Slot::TensorStorage: return {"tensor 'storage'", "an integer (a storage id)"};
    case Slot::TensorDtype: return {"tensor 'dtype'", "a string"};
    case Slot::TensorShape: return {"tensor 'shape'", "an array of integers"};
    case Slot::TensorStride: return {"tensor 'stride'", "an array of integers"};
    case Slot::TensorOffset: return {"tensor 'offset'", "an integer"};
    case Slot::Dim: return {"each entry of tensor 'shape' and 'stride'", "an integer"};
    case Slot::OtherText: return {"'other'", "a string"};
    case Slot::Pair: return {"each entry of 'pairs'", "an object"};
    case Slot::PairForward: return {"'forward'", "a graph name (a string)"};
    case Slot::PairBackward: return {"'backward'", "a graph name (a string)"};
    case Slot::PairJoint: return {"'joint'", "a graph name (a string)"};
    case Slot::PairBudget: return {"'budget'", "a number from 0 to 1"};
    case Slot::Schedule: return {"each entry of 'schedules'", "an object"};
    case Slot::ScheduleName: return {"'name'", "a non-empty string"};
    case Slot::ScheduleGraph: return {"'graph'", "a graph name (a string)"};
    case Slot::ScheduleOrder: return {"'order'", "an array of node names"};
    case Slot::ScheduleNode: return {"each entry of 'order'", "a node name (a string)"};
    case Slot::ScheduleSource: return {"'source'", "a string"};
    case Slot::TopStep: return {"'step'", "an array"};
    case Slot::StepEntry: return {"each entry of 'step'", "an object"};
    case Slot::StepGraph: return {"'graph'", "a graph name (a string)"};
    case Slot::StepCall: return {"'call'", "an integer >= 0"};
    case Slot::StepPrefix: return {"'module_prefix'", "a string"};
    }
    return {"value", "valid"};
}

std::string squote(std::string_view s) {
    constexpr std::size_t kMax = 80; // keep messages readable when a value is huge
    if (s.size() > kMax) return "'" + std::string(s.substr(0, kMax)) + "...'";
    return "'" + std::string(s) + "'";
}

// One staged val token; Tensor and Other carry their fields, Begin/End bracket a list.
struct StagedVal {
    enum class Kind : std::uint8_t { Null, Tensor, Begin, End, Other } kind = Kind::Null;
    std::int64_t storage = 0; // the file's storage id
    StorageId resolved;       // its dense id, once emit has looked it up
    std::uint32_t shape_begin = 0, shape_size = 0, stride_begin = 0, stride_size = 0; // into NodeRecord::dims
    std::int64_t offset = 0;
    std::string text; // dtype for Tensor, the text for Other
};

// A node's fields as read, kept until the node's object closes.
struct NodeRecord {
    std::string name, target, stack_trace, meta, module, module_type;
    bool has_module = false, has_module_type = false;
    OpKind op = OpKind::CallFunction;
    NodePhase phase = NodePhase::Unknown;
    std::int64_t flops = -1;               // -1: absent
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

struct PendingGraph {
    std::string name;
    GraphKind kind = GraphKind::Other;
    std::int64_t num_fwd_outputs = -1;
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

struct StagedStep {
    std::string graph, module_prefix;
    std::int64_t call = 0;
    std::size_t index = 0;
    std::size_t end_offset = 0;
};

struct StagedPair {
    std::string forward, backward, joint;
    bool joint_given = false;
    double budget = -1.0;
    std::size_t index = 0;
    std::size_t end_offset = 0;
};

class Reader {
public:
    Reader(std::string_view text, std::string source, const ProgressFn& progress)
        : text_(text), progress_(progress), cursor_(text.data()) {
        file_.source = std::move(source);
        next_progress_ = kProgressStep;
    }

    GraphFile run() {
        if (text_.find_first_not_of(" \t\r\n") == std::string_view::npos)
            throw Error(file_.source + ": the file is empty (expected a JSON object)");
        CursorIter first{text_.data(), &cursor_}, last{text_.data() + text_.size(), &cursor_};
        json::sax_parse(first, last, this);
        // nlohmann's lexer takes a NUL byte for the end of the input, so a document followed by
        // a NUL and anything at all parses; nothing but whitespace may follow it.
        if (const void* nul = std::memchr(text_.data(), '\0', text_.size()))
            throw Error(
                location_at(static_cast<std::size_t>(static_cast<const char*>(nul) - text_.data())) +
                "invalid JSON: unexpected NUL byte after the JSON document (nothing but whitespace may follow it)");
        if (progress_ && !progress_(1.0)) throw Cancelled();
        return std::move(file_);
    }

    // The fast tokenizer over the same callbacks; nullopt when it leaves the text to run().
    std::optional<GraphFile> run_fast() {
        if (!json_fast::sax_parse(text_, *this, cursor_)) return std::nullopt;
        if (progress_ && !progress_(1.0)) throw Cancelled();
        return std::move(file_);
    }

    // ---- nlohmann SAX interface ----
    bool null() {
        if (skip_depth_ > 0) return capture_scalar("null");
        const Slot s = slot();
        switch (s) {
        case Slot::Skip: break;
        case Slot::TopProducer: break; // null: absent
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
        case Slot::TopStep: break;    // null: absent
        case Slot::StepPrefix: break; // null: none
        case Slot::NodeVal: rec_.vals.push_back({}); break;
        default: wrong(s, "null");
        }
        return true;
    }

    bool boolean(bool v) {
        if (skip_depth_ > 0) return capture_scalar(v ? "true" : "false");
        const Slot s = slot();
        if (s == Slot::TopProducer) return scalar_producer(v ? "true" : "false");
        if (s != Slot::Skip) wrong(s, v ? "true" : "false");
        return true;
    }

    bool number_integer(std::int64_t v) {
        if (skip_depth_ > 0) {
            if (capture_) value_prefix(), json_text::append_int(*capture_, v);
            return true;
        }
        integer(v);
        return true;
    }

    bool number_unsigned(std::uint64_t v) {
        if (skip_depth_ > 0) {
            if (capture_) value_prefix(), json_text::append_uint(*capture_, v);
            return true;
        }
        if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
            const Slot s = slot();
            if (s == Slot::Skip) return true;
            if (s == Slot::TopProducer) return scalar_producer(std::to_string(v));
            fail(std::string(slot_info(s).field) + " is out of range (more than 2^63-1): " + std::to_string(v));
        }
        integer(static_cast<std::int64_t>(v));
        return true;
    }

    bool number_float(double v, const std::string& token) {
        if (skip_depth_ > 0) return capture_scalar(token);
        const Slot s = slot();
        if (s == Slot::Skip) return true;
        if (s == Slot::TopProducer) return scalar_producer(token);
        if (s == Slot::PairBudget) {
            budget(v, token);
            return true;
        }
        const bool digits_only = token.find_first_not_of("-0123456789") == std::string::npos;
        if (digits_only && is_integer_slot(s))
            fail(std::string(slot_info(s).field) + " is out of range (beyond 64-bit integers): " + token);
        wrong(s, token);
    }

    bool string(std::string& v) { return string_value(v); }

    // The fast path's entry: v views the file's text (or its decoding buffer) during the call.
    bool string_value(std::string_view v) {
        if (skip_depth_ > 0) {
            if (capture_) value_prefix(), json_text::append_string(*capture_, v);
            return true;
        }
        const Slot s = slot();
        switch (s) {
        case Slot::Skip: break;
        case Slot::TopFormat:
            if (v != "fxmem") fail("not an fxmem file: 'format' is " + squote(v) + ", expected 'fxmem'");
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
                fail("unknown graph kind " + squote(v) + " (expected forward, backward, inference, other or joint)");
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
                fail("unknown op " + squote(v) +
                     " (expected placeholder, get_attr, call_function, call_method, call_module or output)");
            break;
        case Slot::NodeTarget: rec_.target.assign(v); break;
        case Slot::NodePhase:
            if (!parse_node_phase(v, rec_.phase))
                fail("unknown phase " + squote(v) + " (expected forward or backward)");
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
        case Slot::ScheduleName:
            if (v.empty()) wrong(s, "an empty string");
            schedule_.name.assign(v);
            break;
        case Slot::ScheduleGraph:
            schedule_.graph.assign(v);
            if (graphs_done_) {
                const int g = file_.find_graph(v);
                schedule_graph_ = g < 0 ? nullptr : &file_.graphs[static_cast<std::size_t>(g)];
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
        default: wrong(s, "a string");
        }
        return true;
    }

    bool binary(json::binary_t&) { fail("unexpected binary value"); }

    bool start_object(std::size_t) {
        enter();
        if (skip_depth_ > 0) return open_skipped('{');
        const Slot s = slot();
        switch (s) {
        case Slot::Root: frames_.push_back(Frame::Top); break;
        case Slot::Skip: skip_depth_ = 1; break;
        case Slot::TopProducer: start_capture(file_.producer_json, '{'); break;
        case Slot::NodeMeta: start_capture(rec_.meta, '{'); break;
        case Slot::Storage:
            storage_seen_ = 0;
            storage_id_known_ = false;
            storage_has_role_ = false;
            storage_label_.clear();
            frames_.push_back(Frame::Storage);
            break;
        case Slot::Graph: begin_graph(); break;
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

    bool key(std::string& key_text) { return key_view(key_text); }

    bool key_view(std::string_view k) {
        // string_view comparisons check the length first: most keys are rejected in one compare.
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
        std::uint64_t* seen = nullptr;
        switch (frames_.back()) {
        case Frame::Top:
            seen = &top_seen_;
            key_slot_ = k == "format"      ? Slot::TopFormat
                        : k == "version"   ? Slot::TopVersion
                        : k == "storages"  ? Slot::TopStorages
                        : k == "graphs"    ? Slot::TopGraphs
                        : k == "pairs"     ? Slot::TopPairs
                        : k == "producer"  ? Slot::TopProducer
                        : k == "schedules" ? Slot::TopSchedules
                        : k == "step"      ? Slot::TopStep
                                           : Slot::Skip;
            break;
        case Frame::Storage:
            seen = &storage_seen_;
            key_slot_ = k == "id"       ? Slot::StorageId
                        : k == "device" ? Slot::StorageDevice
                        : k == "nbytes" ? Slot::StorageNbytes
                        : k == "role"   ? Slot::StorageRole
                        : k == "label"  ? Slot::StorageLabel
                                        : Slot::Skip;
            break;
        case Frame::Graph:
            seen = &graph_seen_;
            key_slot_ = k == "name"              ? Slot::GraphName
                        : k == "kind"            ? Slot::GraphKind
                        : k == "nodes"           ? Slot::GraphNodes
                        : k == "num_fwd_outputs" ? Slot::GraphNumFwdOutputs
                                                 : Slot::Skip;
            break;
        case Frame::Node:
            seen = &rec_.seen;
            key_slot_ = k == "name"          ? Slot::NodeName
                        : k == "op"          ? Slot::NodeOp
                        : k == "target"      ? Slot::NodeTarget
                        : k == "inputs"      ? Slot::NodeInputs
                        : k == "val"         ? Slot::NodeVal
                        : k == "stack_trace" ? Slot::NodeStackTrace
                        : k == "meta"        ? Slot::NodeMeta
                        : k == "module"      ? Slot::NodeModule
                        : k == "module_type" ? Slot::NodeModuleType
                        : k == "phase"       ? Slot::NodePhase
                        : k == "flops"       ? Slot::NodeFlops
                                             : Slot::Skip;
            break;
        case Frame::ValObject:
            seen = &val_seen_;
            key_slot_ = k == "storage"  ? Slot::TensorStorage
                        : k == "dtype"  ? Slot::TensorDtype
                        : k == "shape"  ? Slot::TensorShape
                        : k == "stride" ? Slot::TensorStride
                        : k == "offset" ? Slot::TensorOffset
                        : k == "other"  ? Slot::OtherText
                                        : Slot::Skip;
            break;
        case Frame::Pair:
            seen = &pair_seen_;
            key_slot_ = k == "forward"    ? Slot::PairForward
                        : k == "backward" ? Slot::PairBackward
                        : k == "joint"    ? Slot::PairJoint
                        : k == "budget"   ? Slot::PairBudget
                                          : Slot::Skip;
            break;
        case Frame::Step:
            seen = &step_seen_;
            key_slot_ = k == "graph"           ? Slot::StepGraph
                        : k == "call"          ? Slot::StepCall
                        : k == "module_prefix" ? Slot::StepPrefix
                                               : Slot::Skip;
            break;
        case Frame::Schedule:
            seen = &schedule_seen_;
            key_slot_ = k == "name"     ? Slot::ScheduleName
                        : k == "graph"  ? Slot::ScheduleGraph
                        : k == "order"  ? Slot::ScheduleOrder
                        : k == "source" ? Slot::ScheduleSource
                                        : Slot::Skip;
            break;
        default: fail("internal error: key in an array");
        }
        if (key_slot_ != Slot::Skip) {
            if (*seen & bit(key_slot_)) fail("duplicate key " + squote(k));
            *seen |= bit(key_slot_);
        }
        check_progress();
        return true;
    }

    bool end_object() {
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
        default: fail("internal error: unbalanced object");
        }
        check_progress();
        return true;
    }

    bool start_array(std::size_t) {
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
        case Slot::ScheduleOrder:
            schedule_.resolved = schedule_graph_ != nullptr;
            if (schedule_.resolved) schedule_position_.assign(schedule_graph_->size(), kNotScheduled);
            frames_.push_back(Frame::ScheduleOrder);
            break;
        case Slot::GraphNodes: begin_nodes(); break;
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

    bool end_array() {
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

    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) {
        std::string what = ex.what();
        // "[json.exception.parse_error.101] parse error at line 1, column 2: <detail>": keep <detail>.
        if (auto at = what.find("] "); at != std::string::npos) what.erase(0, at + 2);
        if (what.rfind("parse error", 0) == 0)
            if (auto colon = what.find(": "); colon != std::string::npos) what.erase(0, colon + 2);
        const bool at_end = position >= text_.size();
        // nlohmann reads a NUL byte as the end of the input; say what it really is.
        if (position > 0 && position <= text_.size() && text_[position - 1] == '\0')
            throw Error(location_at(position - 1) + "invalid JSON: unexpected NUL byte");
        throw Error(location_at(position > 0 ? position - 1 : 0) + "invalid JSON: " + what +
                    (at_end ? " (the file ends too early: truncated?)" : ""));
    }

private:
    // ---- containers we do not interpret: skipped, or re-serialised for meta/producer ----
    void enter() {
        if (++depth_ > kMaxDepth) fail("JSON nesting deeper than " + std::to_string(kMaxDepth) + " levels");
    }

    void start_capture(std::string& dest, char open) {
        dest.clear();
        capture_ = &dest;
        capture_first_ = true;
        capture_after_key_ = false;
        dest.push_back(open);
        skip_depth_ = 1;
    }

    // Separator before a value inside a captured container.
    void value_prefix() {
        if (capture_after_key_) {
            capture_after_key_ = false;
        } else {
            if (!capture_first_) capture_->push_back(',');
        }
        capture_first_ = false;
    }

    bool capture_scalar(std::string_view text) {
        if (capture_) value_prefix(), capture_->append(text);
        return true;
    }

    bool open_skipped(char open) {
        ++skip_depth_;
        if (capture_) {
            value_prefix();
            capture_->push_back(open);
            capture_first_ = true;
        }
        return true;
    }

    bool close_skipped(char close) {
        if (capture_) {
            capture_->push_back(close);
            capture_first_ = false;
        }
        if (--skip_depth_ == 0) capture_ = nullptr;
        return true;
    }

    bool scalar_producer(std::string_view text) {
        file_.producer_json.assign(text);
        return true;
    }

    // ---- dispatch ----
    Slot slot() const {
        if (frames_.empty()) return Slot::Root;
        switch (frames_.back()) {
        case Frame::Storages: return Slot::Storage;
        case Frame::Graphs: return Slot::Graph;
        case Frame::Nodes: return Slot::Node;
        case Frame::Inputs: return Slot::NodeInput;
        case Frame::ValList: return Slot::NodeVal;
        case Frame::Dims: return Slot::Dim;
        case Frame::Pairs: return Slot::Pair;
        case Frame::Schedules: return Slot::Schedule;
        case Frame::Steps: return Slot::StepEntry;
        case Frame::ScheduleOrder: return Slot::ScheduleNode;
        default: return key_slot_;
        }
    }

    static bool is_integer_slot(Slot s) {
        return s == Slot::TopVersion || s == Slot::StorageId || s == Slot::StorageNbytes || s == Slot::TensorStorage ||
               s == Slot::TensorOffset || s == Slot::Dim || s == Slot::GraphNumFwdOutputs || s == Slot::NodeFlops ||
               s == Slot::StepCall;
    }

    void integer(std::int64_t v) {
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
        case Slot::StepCall:
            if (v < 0 || v > 0x7fffffff) wrong(s, std::to_string(v));
            step_.call = v;
            break;
        default: wrong(s, std::to_string(v));
        }
    }

    void budget(double v, const std::string& token) {
        if (!(v >= 0.0 && v <= 1.0)) fail("'budget' must be a number from 0 to 1, got " + token);
        pair_.budget = v;
    }

    // ---- entities ----
    void end_storage() {
        for (Slot k : {Slot::StorageId, Slot::StorageDevice, Slot::StorageNbytes})
            if (!(storage_seen_ & bit(k))) fail("missing " + std::string(slot_info(k).field));
        StorageRole role = StorageRole::Unknown;
        if (storage_has_role_ && !parse_storage_role(storage_role_text_, role))
            throw Error(location_at(cursor_offset()) + "storages[" + std::to_string(storage_count_) + "] (id " +
                        std::to_string(storage_id_) + "): unknown role " + squote(storage_role_text_) +
                        " (expected parameter, buffer, input, activation, output, tangent, gradient, temporary, "
                        "optimizer_state or unsharded_parameter)");
        StorageId id;
        try {
            id = file_.add_storage(storage_id_, storage_device_, storage_nbytes_);
        } catch (const Error& e) {
            rethrow_at(e, cursor_offset());
        }
        if (role != StorageRole::Unknown || !storage_label_.empty()) file_.set_role(id, role, storage_label_);
        if (file_.storages.size() >= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
            fail("too many storages");
        ++storage_count_;
    }

    void begin_graph() {
        graph_seen_ = 0;
        graph_name_.clear();
        graph_kind_ = GraphKind::Other;
        graph_num_fwd_ = -1;
        node_count_ = 0;
        pending_.nodes.clear();
        builder_.reset();
        frames_.push_back(Frame::Graph);
    }

    // Nodes go straight into a builder when everything they refer to is known.
    void begin_nodes() {
        const bool direct = (graph_seen_ & bit(Slot::GraphName)) && (graph_seen_ & bit(Slot::GraphKind)) &&
                            storages_done_ && deferred_.empty();
        if (direct) {
            if (file_.find_graph(graph_name_) >= 0) fail("duplicate graph name " + squote(graph_name_));
            builder_.emplace(file_, graph_name_, graph_kind_);
        }
        frames_.push_back(Frame::Nodes);
    }

    void end_node() {
        rec_.end_offset = cursor_offset();
        for (Slot k : {Slot::NodeName, Slot::NodeOp, Slot::NodeTarget, Slot::NodeInputs, Slot::NodeVal})
            if (!(rec_.seen & bit(k))) fail("missing " + std::string(slot_info(k).field));
        if (builder_) {
            emit(*builder_, graph_name_, rec_);
        } else {
            pending_.nodes.push_back(rec_.compact());
        }
        ++node_count_;
    }

    void end_graph() {
        for (Slot k : {Slot::GraphName, Slot::GraphKind, Slot::GraphNodes})
            if (!(graph_seen_ & bit(k))) fail("missing " + std::string(slot_info(k).field));
        if (node_count_ == 0) fail("the graph has no nodes (an FX graph always has at least its output node)");
        if (graph_kind_ == GraphKind::Joint && !(graph_seen_ & bit(Slot::GraphNumFwdOutputs)))
            throw Error(location_at(cursor_offset()) + "graph " + squote(graph_name_) +
                        ": a joint graph needs 'num_fwd_outputs'");
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

    void replay(PendingGraph& g) {
        if (file_.find_graph(g.name) >= 0)
            throw Error(location_at(g.end_offset) + "graph " + squote(g.name) + ": duplicate graph name " +
                        squote(g.name));
        std::optional<GraphBuilder> builder;
        builder.emplace(file_, g.name, g.kind);
        for (NodeRecord& r : g.nodes) emit(*builder, g.name, r);
        builder->set_num_fwd_outputs(g.num_fwd_outputs);
        check_joint(builder->finish(), g.end_offset);
    }

    // A joint graph ends with its output node, whose first num_fwd_outputs inputs are the forward's.
    void check_joint(const Graph& g, std::size_t offset) const {
        if (g.kind != GraphKind::Joint) return;
        const Node& last = g.nodes.back();
        const auto where = [&] { return location_at(offset) + "graph " + squote(g.name) + ": "; };
        if (last.op != OpKind::Output)
            throw Error(where() + "a joint graph must end with its output node, not " + squote(last.name));
        if (static_cast<std::uint64_t>(g.num_fwd_outputs) > last.inputs.size())
            throw Error(where() + "'num_fwd_outputs' is " + std::to_string(g.num_fwd_outputs) +
                        " but the output node has " + std::to_string(last.inputs.size()) + " inputs");
    }

    void end_val_object() {
        const bool tensor = val_seen_ & bit(Slot::TensorStorage);
        const bool other = val_seen_ & bit(Slot::OtherText);
        if (tensor && other) fail("a val object has both 'storage' and 'other'");
        if (!tensor && !other) fail("a val object must be a tensor (with 'storage') or {\"other\": <string>}");
        StagedVal v;
        if (other) {
            v.kind = StagedVal::Kind::Other;
        } else {
            for (Slot k : {Slot::TensorDtype, Slot::TensorShape, Slot::TensorStride, Slot::TensorOffset})
                if (!(val_seen_ & bit(k))) fail("missing " + std::string(slot_info(k).field));
            v.kind = StagedVal::Kind::Tensor;
            v.storage = val_storage_;
            v.shape_begin = shape_.begin;
            v.shape_size = shape_.size();
            v.stride_begin = stride_.begin;
            v.stride_size = stride_.size();
            v.offset = val_offset_;
        }
        v.text = val_text_;
        rec_.vals.push_back(std::move(v));
    }

    void end_pair() {
        for (Slot k : {Slot::PairForward, Slot::PairBackward})
            if (!(pair_seen_ & bit(k))) fail("missing " + std::string(slot_info(k).field));
        pair_.end_offset = cursor_offset();
        pairs_.push_back(std::move(pair_));
        ++pair_count_;
    }

    void end_step() {
        for (Slot k : {Slot::StepGraph, Slot::StepCall})
            if (!(step_seen_ & bit(k))) fail("missing " + std::string(slot_info(k).field));
        step_.end_offset = cursor_offset();
        steps_.push_back(std::move(step_));
        ++step_count_;
    }

    // One entry of a schedule's "order": checked against the graph at once when it is known (an
    // unknown or repeated node ends the read there), else kept as a name.
    void add_schedule_node(std::string_view v) {
        if (!schedule_.resolved) {
            if (schedule_.order_names.size() + v.size() > std::numeric_limits<std::uint32_t>::max())
                fail("the node names of one schedule's order exceed 4 GiB");
            schedule_.order_names.append(v);
            schedule_.order_ends.push_back(static_cast<std::uint32_t>(schedule_.order_names.size()));
            return;
        }
        const Graph& graph = *schedule_graph_;
        const std::size_t p = schedule_.order_ids.size();
        const auto where = [&] {
            return location_at(cursor_offset()) + "schedules[" + std::to_string(schedule_.index) + "]: schedule " +
                   (schedule_.name.empty() ? std::string() : squote(schedule_.name) + " ") + "of graph " +
                   squote(graph.name) + ": ";
        };
        const NodeId id = graph.find(v);
        if (!id.valid())
            throw Error(where() + "order[" + std::to_string(p) + "] names unknown node " + squote(std::string(v)));
        std::uint32_t& first = schedule_position_[id.index()];
        if (first != kNotScheduled)
            throw Error(where() + "repeats node " + squote(std::string(v)) + " (positions " + std::to_string(first) +
                        " and " + std::to_string(p) + ")");
        first = static_cast<std::uint32_t>(p);
        schedule_.order_ids.push_back(id);
    }

    void end_schedule() {
        for (Slot k : {Slot::ScheduleName, Slot::ScheduleGraph, Slot::ScheduleOrder})
            if (!(schedule_seen_ & bit(k))) fail("missing " + std::string(slot_info(k).field));
        schedule_.end_offset = cursor_offset();
        schedules_.push_back(std::move(schedule_));
        ++schedule_count_;
    }

    // Every named schedule is checked like a SCHED file: known graph, known nodes, every node once,
    // inputs first, output last; names unique per graph.
    void resolve_schedules() {
        NameIndex by_key; // "<graph index>:<name>" -> index into file_.schedules
        std::vector<std::string> keys;
        for (StagedSchedule& st : schedules_) {
            // The place is only spelled out on an error: line_column scans the text up to it, so
            // computing it for every schedule made a file of many schedules quadratic.
            const auto at = [&] {
                return location_at(st.end_offset) + "schedules[" + std::to_string(st.index) + "]: ";
            };
            const int g = file_.find_graph(st.graph);
            if (g < 0) throw Error(at() + "schedule " + squote(st.name) + ": unknown graph " + squote(st.graph));
            const Graph& graph = file_.graphs[static_cast<std::size_t>(g)];
            const auto where = [&] {
                return at() + "schedule " + squote(st.name) + " of graph " + squote(graph.name) + ": ";
            };
            std::string key = std::to_string(g) + ":" + st.name;
            const auto next = static_cast<std::uint32_t>(keys.size());
            const std::uint32_t earlier =
                by_key.insert(key, next, [&](std::uint32_t i) { return std::string_view(keys[i]); });
            if (earlier != NameIndex::npos) // keys are pushed in schedules_ order
                throw Error(where() + "duplicate schedule name (schedules[" + std::to_string(earlier) +
                            "] has it too)");
            keys.push_back(std::move(key));
            NamedSchedule named; // its name and source are moved in once where() can no longer be needed
            named.graph = static_cast<std::uint32_t>(g);
            if (st.resolved) {
                named.order = std::move(st.order_ids);
            } else {
                named.order.reserve(st.order_size());
                for (std::size_t p = 0; p < st.order_size(); ++p) {
                    const NodeId id = graph.find(st.order_name(p));
                    if (!id.valid())
                        throw Error(where() + "order[" + std::to_string(p) + "] names unknown node " +
                                    squote(std::string(st.order_name(p))));
                    named.order.push_back(id);
                }
                std::string().swap(st.order_names);
            }
            try {
                check_schedule(graph, named.order);
            } catch (const Error& e) {
                // "schedule for graph 'g': <what>": keep <what>, the place is ours.
                std::string what = e.what();
                const std::string prefix = "schedule for graph '" + graph.name + "': ";
                if (what.rfind(prefix, 0) == 0) what.erase(0, prefix.size());
                throw Error(where() + what);
            }
            named.name = std::move(st.name);
            named.source = std::move(st.source);
            file_.schedules.push_back(std::move(named));
        }
    }

    void end_top() {
        for (Slot k : {Slot::TopFormat, Slot::TopVersion, Slot::TopStorages, Slot::TopGraphs})
            if (!(top_seen_ & bit(k)))
                throw Error(file_.source + ": missing " + slot_info(k).field +
                            (k == Slot::TopFormat ? " (not an fxmem graph file?)" : " in the top-level object"));
        for (PendingGraph& g : deferred_) replay(g);
        deferred_.clear();
        for (const StagedPair& p : pairs_) {
            const std::string place = "pairs[" + std::to_string(p.index) + "]: ";
            if (file_.find_graph(p.forward) < 0)
                throw Error(location_at(p.end_offset) + place + "unknown forward graph " + squote(p.forward));
            if (file_.find_graph(p.backward) < 0)
                throw Error(location_at(p.end_offset) + place + "unknown backward graph " + squote(p.backward));
            if (p.forward == p.backward)
                throw Error(location_at(p.end_offset) + place + "graph " + squote(p.forward) +
                            " cannot be its own backward");
            file_.add_pair(p.forward, p.backward);
            Pair& added = file_.pairs.back();
            added.budget = p.budget;
            if (p.joint_given) {
                const int j = file_.find_graph(p.joint);
                if (j < 0) throw Error(location_at(p.end_offset) + place + "unknown joint graph " + squote(p.joint));
                if (file_.graphs[static_cast<std::size_t>(j)].kind != GraphKind::Joint)
                    throw Error(location_at(p.end_offset) + place + "graph " + squote(p.joint) +
                                " is not a joint graph (kind '" +
                                std::string(to_string(file_.graphs[static_cast<std::size_t>(j)].kind)) + "')");
                added.joint = j;
            }
        }
        for (StagedStep& st : steps_) {
            const int g = file_.find_graph(st.graph);
            if (g < 0)
                throw Error(location_at(st.end_offset) + "step[" + std::to_string(st.index) + "]: unknown graph " +
                            squote(st.graph));
            file_.step.push_back(
                {static_cast<std::uint32_t>(g), static_cast<std::uint32_t>(st.call), std::move(st.module_prefix)});
        }
        resolve_schedules();
    }

    // Builds one node from its record. Messages name the graph and node; builder errors get the
    // node's position inserted after the source.
    // The builder copies what it keeps, so the record's buffers stay allocated for the next node.
    void emit(GraphBuilder& b, const std::string& graph, NodeRecord& r) {
        const auto place = [&] { return "graph " + squote(graph) + ", node " + squote(r.name) + ": "; };
        // Resolve storages first so that our message, not the builder's, names the id.
        for (StagedVal& v : r.vals) {
            if (v.kind != StagedVal::Kind::Tensor) continue;
            v.resolved = file_.find_storage(v.storage);
            if (!v.resolved.valid())
                throw Error(location_at(r.end_offset) + place() + "tensor refers to unknown storage id " +
                            std::to_string(v.storage));
        }
        if (r.has_module_type && !r.has_module)
            throw Error(location_at(r.end_offset) + place() + "'module_type' without 'module'");
        try {
            b.begin_node(r.name, r.name_tag, r.op, r.target);
        } catch (const Error& e) {
            rethrow_at(e, r.end_offset);
        }
        for (std::size_t i = 0; i < r.n_inputs; ++i) {
            const std::string& in = r.inputs[i];
            try {
                b.add_input(in, r.input_tags[i]);
            } catch (const Error& e) {
                bool repeated = false;
                for (std::size_t j = 0; j < i; ++j) repeated = repeated || r.inputs[j] == in;
                // A placeholder or get_attr node listing an earlier node: the builder says so.
                const bool reads_nothing =
                    (r.op == OpKind::Placeholder || r.op == OpKind::GetAttr) &&
                    std::string_view(e.what()).find(" node takes no inputs") != std::string_view::npos;
                if (in == r.name || repeated || reads_nothing) rethrow_at(e, r.end_offset);
                throw Error(location_at(r.end_offset) + place() + "input " + squote(in) +
                            " is defined later (or unknown)");
            }
        }
        try {
            for (const StagedVal& v : r.vals) {
                switch (v.kind) {
                case StagedVal::Kind::Null: b.val_null(); break;
                case StagedVal::Kind::Begin: b.val_begin_list(); break;
                case StagedVal::Kind::End: b.val_end_list(); break;
                case StagedVal::Kind::Other: b.val_other(v.text); break;
                case StagedVal::Kind::Tensor:
                    b.val_tensor(
                        v.resolved, v.text, std::span<const std::int64_t>(r.dims.data() + v.shape_begin, v.shape_size),
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
        } catch (const Error& e) {
            rethrow_at(e, r.end_offset);
        }
    }

    // ---- messages ----
    std::size_t cursor_offset() const {
        const auto read = static_cast<std::size_t>(cursor_ - text_.data());
        return read > 0 ? read - 1 : 0;
    }

    std::string location_at(std::size_t offset) const {
        const auto lc = json_text::line_column(text_, offset);
        return file_.source + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.column) + ": ";
    }

    // The innermost entity being read: "graph 'g', node 'n'", "storages[3] (id 7)", "pairs[0]"...
    std::string place() const {
        std::string p = "top level";
        for (Frame f : frames_) {
            switch (f) {
            case Frame::Storages: p = "storages[" + std::to_string(storage_count_) + "]"; break;
            case Frame::Storage:
                if (storage_id_known_) p += " (id " + std::to_string(storage_id_) + ")";
                break;
            case Frame::Graphs: p = "graphs[" + std::to_string(graph_count_) + "]"; break;
            case Frame::Graph:
                if (!graph_name_.empty()) p = "graph " + squote(graph_name_);
                break;
            case Frame::Nodes: p += ", nodes[" + std::to_string(node_count_) + "]"; break;
            case Frame::Node:
                if (!rec_.name.empty()) p = p.substr(0, p.rfind(", nodes[")) + ", node " + squote(rec_.name);
                break;
            case Frame::Pairs: p = "pairs[" + std::to_string(pair_count_) + "]"; break;
            case Frame::Schedules: p = "schedules[" + std::to_string(schedule_count_) + "]"; break;
            case Frame::Steps: p = "step[" + std::to_string(step_count_) + "]"; break;
            case Frame::Schedule:
                if (!schedule_.name.empty()) p += " (" + squote(schedule_.name) + ")";
                break;
            default: break;
            }
        }
        return p;
    }

    [[noreturn]] void fail(const std::string& what) const {
        throw Error(location_at(cursor_offset()) + place() + ": " + what);
    }

    [[noreturn]] void wrong(Slot s, const std::string& got) const {
        const SlotInfo info = slot_info(s);
        if (s == Slot::Root)
            throw Error(location_at(cursor_offset()) + "the top level must be a JSON object, got " + got);
        fail(std::string(info.field) + " must be " + info.expected + ", got " + got);
    }

    // Inserts "line:column: " after the source in a message from the model.
    [[noreturn]] void rethrow_at(const Error& e, std::size_t offset) const {
        const std::string msg = e.what();
        const std::string prefix = file_.source + ": ";
        if (msg.rfind(prefix, 0) == 0) throw Error(location_at(offset) + msg.substr(prefix.size()));
        throw Error(location_at(offset) + msg);
    }

    void check_progress() {
        const auto read = static_cast<std::size_t>(cursor_ - text_.data());
        if (read < next_progress_) return;
        next_progress_ = read + kProgressStep;
        if (progress_ && !progress_(static_cast<double>(read) / static_cast<double>(text_.size()))) throw Cancelled();
    }

    std::string_view text_;
    const ProgressFn& progress_;
    const char* cursor_;
    std::size_t next_progress_ = 0;
    GraphFile file_;

    std::vector<Frame> frames_;
    Slot key_slot_ = Slot::Skip;
    int depth_ = 0;
    int skip_depth_ = 0; // > 0 while inside a container we skip or capture
    std::string* capture_ = nullptr;
    bool capture_first_ = true, capture_after_key_ = false;

    std::uint64_t top_seen_ = 0, storage_seen_ = 0, graph_seen_ = 0, val_seen_ = 0, pair_seen_ = 0, schedule_seen_ = 0;

    std::int64_t storage_id_ = 0, storage_nbytes_ = 0;
    bool storage_id_known_ = false;
    std::string storage_device_;
    std::string storage_role_text_, storage_label_;
    bool storage_has_role_ = false;
    std::size_t storage_count_ = 0;

    std::string graph_name_;
    GraphKind graph_kind_ = GraphKind::Other;
    std::int64_t graph_num_fwd_ = -1;
    std::size_t graph_count_ = 0, node_count_ = 0;
    std::optional<GraphBuilder> builder_;
    PendingGraph pending_;
    std::vector<PendingGraph> deferred_;
    bool storages_done_ = false;

    NodeRecord rec_;
    int val_depth_ = 0;
    std::int64_t val_storage_ = 0, val_offset_ = 0;
    std::string val_text_;
    Range shape_, stride_;
    bool dims_are_shape_ = true;
    std::size_t dims_begin_ = 0;

    StagedPair pair_;
    StagedStep step_;
    std::vector<StagedStep> steps_;
    std::size_t step_count_ = 0;
    std::uint64_t step_seen_ = 0;
    std::vector<StagedPair> pairs_;
    std::size_t pair_count_ = 0;

    StagedSchedule schedule_;
    std::vector<StagedSchedule> schedules_;
    bool graphs_done_ = false;              // the "graphs" array has been read
    const Graph* schedule_graph_ = nullptr; // the graph of the schedule being read, when known
    static constexpr std::uint32_t kNotScheduled = 0xffffffffu;
    std::vector<std::uint32_t> schedule_position_; // per node of schedule_graph_: its position
    std::size_t schedule_count_ = 0;
};

} // namespace

// The fast path first; on anything it declines, and on any Error (whose message needs nlohmann's
// positions), nlohmann reads the text again from the start so every message is unchanged.
GraphFile load_buffer(std::string_view json, std::string source, const ProgressFn& progress) {
    {
        Reader fast(json, source, progress);
        try {
            if (std::optional<GraphFile> file = fast.run_fast()) return std::move(*file);
        } catch (const Error&) {}
    }
    Reader reader(json, std::move(source), progress);
    return reader.run();
}

// Each path alone, for the tests that compare them (declared there, not in a header). The fast
// one gives nullopt where it declines the text.
std::optional<GraphFile> load_buffer_fast(std::string_view json, std::string source, const ProgressFn& progress) {
    Reader reader(json, std::move(source), progress);
    return reader.run_fast();
}

GraphFile load_buffer_nlohmann(std::string_view json, std::string source, const ProgressFn& progress) {
    Reader reader(json, std::move(source), progress);
    return reader.run();
}

} // namespace fxmem
