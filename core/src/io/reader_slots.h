// What each value of a graph file is for (a Slot), what encloses it (a Frame), and the one table
// of slots: for each its frame, its key, what its value must be, and how messages name it. The
// reader looks keys up here and words "'nbytes' must be an integer >= 0, got -3" from here.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace fxmem::reader {

// The containers the reader interprets; None: the document itself (before the top-level object).
enum class Frame : std::uint8_t {
    None,
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
    Symbols,
    Symbol,
    DimExprs,
    Program,
    Buffers,
    Buffer,
    BufferNodes,
    Kernels,
    Kernel,
    KernelNodes,
    KernelAlloc,
    KernelFree,
};

// What the next value is for: set by a key in objects, implied by the container in arrays. The
// keyed slots of one frame are listed together (in the table's order), so a key is looked up in
// its frame's rows only.
enum class Slot : std::uint8_t {
    Root,
    Skip,
    TopFormat,
    TopVersion,
    TopStorages,
    TopGraphs,
    TopPairs,
    TopProducer,
    TopSchedules,
    TopStep,
    TopSymbols,
    TopDistributed,
    StorageId,
    StorageDevice,
    StorageNbytes,
    StorageRole,
    StorageLabel,
    StorageNbytesExpr,
    GraphName,
    GraphKind,
    GraphNodes,
    GraphNumFwdOutputs,
    GraphProgram,
    NodeName,
    NodeOp,
    NodeTarget,
    NodeInputs,
    NodeVal,
    NodeStackTrace,
    NodeMeta,
    NodeModule,
    NodeModuleType,
    NodePhase,
    NodeFlops,
    NodeFlopsExpr,
    TensorStorage,
    TensorDtype,
    TensorShape,
    TensorStride,
    TensorOffset,
    TensorShapeExpr,
    TensorStrideExpr,
    TensorOffsetExpr,
    OtherText,
    PairForward,
    PairBackward,
    PairJoint,
    PairBudget,
    StepGraph,
    StepCall,
    StepPrefix,
    ScheduleName,
    ScheduleGraph,
    ScheduleOrder,
    ScheduleSource,
    SymbolName,
    SymbolHint,
    SymbolSource,
    SymbolMin,
    SymbolMax,
    ProgramTarget,
    ProgramSource,
    ProgramBuffers,
    ProgramKernels,
    BufferName,
    BufferDevice,
    BufferNbytes,
    BufferNbytesExpr,
    BufferInput,
    BufferKind,
    BufferNodes,
    BufferReuses,
    BufferStream,
    KernelName,
    KernelNodes,
    KernelAlloc,
    KernelFree,
    // The entries of arrays (no key).
    Storage,
    Graph,
    Node,
    NodeInput,
    Dim,
    Pair,
    Schedule,
    ScheduleNode,
    StepEntry,
    SymbolEntry,
    DimExpr,
    Buffer,
    Kernel,
    BufferNode,
    KernelNode,
    KernelAllocEntry,
    KernelFreeEntry,
    Count
};

struct SlotSpec {
    Slot slot;
    Frame frame;          // the object whose key it is (keyed slots), else None
    std::string_view key; // empty for an array's entries, the root and skipped values
    // How messages name it: `noun` then the quoted key ("tensor " + "'dtype'"); without a key,
    // "each entry of " and the name of `entry_of` ("each entry of 'storages'"), or else `noun`.
    const char* noun;
    Slot entry_of;
    const char* expected; // what its value must be
    // The array frame whose entries this slot reads (Storages for Storage), else None: the slot
    // an array's next value is for (Reader::slot()).
    Frame container = Frame::None;
    // Its value must be an integer: a token of digits beyond 64 bits is said to be out of range.
    bool integer = false;
};

inline constexpr SlotSpec kSlots[] = {
    {Slot::Root, Frame::None, "", "the top level", Slot::Skip, "a JSON object"},
    {Slot::Skip, Frame::None, "", "value", Slot::Skip, "anything"},
    {Slot::TopFormat, Frame::Top, "format", "", Slot::Skip, "the string \"fxmem\""},
    {Slot::TopVersion, Frame::Top, "version", "", Slot::Skip, "the integer 1", Frame::None, true},
    {Slot::TopStorages, Frame::Top, "storages", "", Slot::Skip, "an array"},
    {Slot::TopGraphs, Frame::Top, "graphs", "", Slot::Skip, "an array"},
    {Slot::TopPairs, Frame::Top, "pairs", "", Slot::Skip, "an array"},
    {Slot::TopProducer, Frame::Top, "producer", "", Slot::Skip, "any JSON value"},
    {Slot::TopSchedules, Frame::Top, "schedules", "", Slot::Skip, "an array"},
    {Slot::TopStep, Frame::Top, "step", "", Slot::Skip, "an array"},
    {Slot::TopSymbols, Frame::Top, "symbols", "", Slot::Skip, "an array"},
    {Slot::TopDistributed, Frame::Top, "distributed", "", Slot::Skip, "an object or null"},
    {Slot::StorageId, Frame::Storage, "id", "", Slot::Skip, "an integer >= 0", Frame::None, true},
    {Slot::StorageDevice, Frame::Storage, "device", "", Slot::Skip, "a non-empty string"},
    {Slot::StorageNbytes, Frame::Storage, "nbytes", "", Slot::Skip, "an integer >= 0", Frame::None, true},
    {Slot::StorageRole, Frame::Storage, "role", "", Slot::Skip, "a string"},
    {Slot::StorageLabel, Frame::Storage, "label", "", Slot::Skip, "a string"},
    {Slot::StorageNbytesExpr, Frame::Storage, "nbytes_expr", "", Slot::Skip, "a size expression (a string)"},
    {Slot::GraphName, Frame::Graph, "name", "", Slot::Skip, "a non-empty string"},
    {Slot::GraphKind, Frame::Graph, "kind", "", Slot::Skip,
     "one of \"forward\", \"backward\", \"inference\", \"other\", \"joint\""},
    {Slot::GraphNodes, Frame::Graph, "nodes", "", Slot::Skip, "an array"},
    {Slot::GraphNumFwdOutputs, Frame::Graph, "num_fwd_outputs", "", Slot::Skip, "an integer >= 0", Frame::None, true},
    {Slot::GraphProgram, Frame::Graph, "program", "", Slot::Skip, "an object or null (no program level)"},
    {Slot::NodeName, Frame::Node, "name", "", Slot::Skip, "a non-empty string"},
    {Slot::NodeOp, Frame::Node, "op", "", Slot::Skip, "a string"},
    {Slot::NodeTarget, Frame::Node, "target", "", Slot::Skip, "a string"},
    {Slot::NodeInputs, Frame::Node, "inputs", "", Slot::Skip, "an array of node names"},
    {Slot::NodeVal, Frame::Node, "val", "", Slot::Skip, "null, a tensor object, a list or {\"other\": <string>}",
     Frame::ValList},
    {Slot::NodeStackTrace, Frame::Node, "stack_trace", "", Slot::Skip, "a string"},
    {Slot::NodeMeta, Frame::Node, "meta", "", Slot::Skip, "an object"},
    {Slot::NodeModule, Frame::Node, "module", "", Slot::Skip, "a string"},
    {Slot::NodeModuleType, Frame::Node, "module_type", "", Slot::Skip, "a string"},
    {Slot::NodePhase, Frame::Node, "phase", "", Slot::Skip, "\"forward\" or \"backward\""},
    {Slot::NodeFlops, Frame::Node, "flops", "", Slot::Skip, "an integer >= 0", Frame::None, true},
    {Slot::NodeFlopsExpr, Frame::Node, "flops_expr", "", Slot::Skip, "a size expression (a string)"},
    {Slot::TensorStorage, Frame::ValObject, "storage", "tensor ", Slot::Skip, "an integer (a storage id)", Frame::None,
     true},
    {Slot::TensorDtype, Frame::ValObject, "dtype", "tensor ", Slot::Skip, "a string"},
    {Slot::TensorShape, Frame::ValObject, "shape", "tensor ", Slot::Skip, "an array of integers"},
    {Slot::TensorStride, Frame::ValObject, "stride", "tensor ", Slot::Skip, "an array of integers"},
    {Slot::TensorOffset, Frame::ValObject, "offset", "tensor ", Slot::Skip, "an integer", Frame::None, true},
    {Slot::TensorShapeExpr, Frame::ValObject, "shape_expr", "tensor ", Slot::Skip,
     "an array of size expressions and integers"},
    {Slot::TensorStrideExpr, Frame::ValObject, "stride_expr", "tensor ", Slot::Skip,
     "an array of size expressions and integers"},
    {Slot::TensorOffsetExpr, Frame::ValObject, "offset_expr", "tensor ", Slot::Skip,
     "a size expression (a string) or an integer", Frame::None, true},
    {Slot::OtherText, Frame::ValObject, "other", "", Slot::Skip, "a string"},
    {Slot::PairForward, Frame::Pair, "forward", "", Slot::Skip, "a graph name (a string)"},
    {Slot::PairBackward, Frame::Pair, "backward", "", Slot::Skip, "a graph name (a string)"},
    {Slot::PairJoint, Frame::Pair, "joint", "", Slot::Skip, "a graph name (a string)"},
    {Slot::PairBudget, Frame::Pair, "budget", "", Slot::Skip, "a number from 0 to 1"},
    {Slot::StepGraph, Frame::Step, "graph", "", Slot::Skip, "a graph name (a string)"},
    {Slot::StepCall, Frame::Step, "call", "", Slot::Skip, "an integer from 0 to 2147483647", Frame::None, true},
    {Slot::StepPrefix, Frame::Step, "module_prefix", "", Slot::Skip, "a string"},
    {Slot::ScheduleName, Frame::Schedule, "name", "", Slot::Skip, "a non-empty string"},
    {Slot::ScheduleGraph, Frame::Schedule, "graph", "", Slot::Skip, "a graph name (a string)"},
    {Slot::ScheduleOrder, Frame::Schedule, "order", "", Slot::Skip, "an array of node names"},
    {Slot::ScheduleSource, Frame::Schedule, "source", "", Slot::Skip, "a string"},
    {Slot::SymbolName, Frame::Symbol, "name", "symbol ", Slot::Skip, "a symbol name (a string)"},
    {Slot::SymbolHint, Frame::Symbol, "hint", "symbol ", Slot::Skip, "an integer", Frame::None, true},
    {Slot::SymbolSource, Frame::Symbol, "source", "symbol ", Slot::Skip, "a string"},
    {Slot::SymbolMin, Frame::Symbol, "min", "symbol ", Slot::Skip, "an integer", Frame::None, true},
    {Slot::SymbolMax, Frame::Symbol, "max", "symbol ", Slot::Skip, "an integer or null (unbounded)", Frame::None, true},
    {Slot::ProgramTarget, Frame::Program, "target", "", Slot::Skip, "\"cpu\" or \"cuda\""},
    {Slot::ProgramSource, Frame::Program, "source", "", Slot::Skip, "a string"},
    {Slot::ProgramBuffers, Frame::Program, "buffers", "", Slot::Skip, "an array"},
    {Slot::ProgramKernels, Frame::Program, "kernels", "", Slot::Skip, "an array"},
    {Slot::BufferName, Frame::Buffer, "name", "buffer ", Slot::Skip, "a non-empty string"},
    {Slot::BufferDevice, Frame::Buffer, "device", "buffer ", Slot::Skip, "a non-empty string"},
    {Slot::BufferNbytes, Frame::Buffer, "nbytes", "buffer ", Slot::Skip, "an integer >= 0", Frame::None, true},
    {Slot::BufferNbytesExpr, Frame::Buffer, "nbytes_expr", "buffer ", Slot::Skip, "a size expression (a string)"},
    {Slot::BufferInput, Frame::Buffer, "input", "buffer ", Slot::Skip, "true or false"},
    {Slot::BufferKind, Frame::Buffer, "kind", "buffer ", Slot::Skip, "a string"},
    {Slot::BufferNodes, Frame::Buffer, "nodes", "buffer ", Slot::Skip, "an array of node names"},
    {Slot::BufferReuses, Frame::Buffer, "reuses", "buffer ", Slot::Skip, "an integer >= 0 (a buffer index)",
     Frame::None, true},
    {Slot::BufferStream, Frame::Buffer, "stream", "buffer ", Slot::Skip, "an integer from 0 to 2147483647", Frame::None,
     true},
    {Slot::KernelName, Frame::Kernel, "name", "kernel ", Slot::Skip, "a string"},
    {Slot::KernelNodes, Frame::Kernel, "nodes", "kernel ", Slot::Skip, "an array of node names"},
    {Slot::KernelAlloc, Frame::Kernel, "alloc", "kernel ", Slot::Skip, "an array of buffer indices"},
    {Slot::KernelFree, Frame::Kernel, "free", "kernel ", Slot::Skip, "an array of buffer indices"},
    {Slot::Storage, Frame::None, "", "", Slot::TopStorages, "an object", Frame::Storages},
    {Slot::Graph, Frame::None, "", "", Slot::TopGraphs, "an object", Frame::Graphs},
    {Slot::Node, Frame::None, "", "", Slot::GraphNodes, "an object", Frame::Nodes},
    {Slot::NodeInput, Frame::None, "", "", Slot::NodeInputs, "a node name (a string)", Frame::Inputs},
    {Slot::Dim, Frame::None, "", "each entry of tensor 'shape' and 'stride'", Slot::Skip, "an integer", Frame::Dims,
     true},
    {Slot::Pair, Frame::None, "", "", Slot::TopPairs, "an object", Frame::Pairs},
    {Slot::Schedule, Frame::None, "", "", Slot::TopSchedules, "an object", Frame::Schedules},
    {Slot::ScheduleNode, Frame::None, "", "", Slot::ScheduleOrder, "a node name (a string)", Frame::ScheduleOrder},
    {Slot::StepEntry, Frame::None, "", "", Slot::TopStep, "an object", Frame::Steps},
    {Slot::SymbolEntry, Frame::None, "", "", Slot::TopSymbols, "an object", Frame::Symbols},
    {Slot::DimExpr, Frame::None, "", "each entry of tensor 'shape_expr' and 'stride_expr'", Slot::Skip,
     "a size expression (a string) or an integer", Frame::DimExprs, true},
    {Slot::Buffer, Frame::None, "", "", Slot::ProgramBuffers, "an object", Frame::Buffers},
    {Slot::Kernel, Frame::None, "", "", Slot::ProgramKernels, "an object", Frame::Kernels},
    {Slot::BufferNode, Frame::None, "", "", Slot::BufferNodes, "a node name (a string)", Frame::BufferNodes},
    {Slot::KernelNode, Frame::None, "", "", Slot::KernelNodes, "a node name (a string)", Frame::KernelNodes},
    {Slot::KernelAllocEntry, Frame::None, "", "", Slot::KernelAlloc, "an integer >= 0 (a buffer index)",
     Frame::KernelAlloc, true},
    {Slot::KernelFreeEntry, Frame::None, "", "", Slot::KernelFree, "an integer >= 0 (a buffer index)",
     Frame::KernelFree, true},
};
static_assert(std::size(kSlots) == static_cast<std::size_t>(Slot::Count));

constexpr bool table_in_slot_order() {
    for (std::size_t i = 0; i < std::size(kSlots); ++i)
        if (static_cast<std::size_t>(kSlots[i].slot) != i) return false;
    return true;
}
static_assert(table_in_slot_order(), "kSlots is indexed by Slot");

constexpr const SlotSpec& spec(Slot s) { return kSlots[static_cast<std::size_t>(s)]; }

// The rows of each frame's keys: [first, end) in kSlots.
struct KeyRows {
    std::uint8_t first = 0, end = 0;
};
inline constexpr std::size_t kFrames = static_cast<std::size_t>(Frame::KernelFree) + 1;
constexpr std::array<KeyRows, kFrames> key_rows() {
    std::array<KeyRows, kFrames> rows{};
    for (std::size_t i = std::size(kSlots); i-- > 0;) {
        if (kSlots[i].key.empty()) continue;
        KeyRows& r = rows[static_cast<std::size_t>(kSlots[i].frame)];
        if (r.end == 0) r.end = static_cast<std::uint8_t>(i + 1);
        r.first = static_cast<std::uint8_t>(i);
    }
    return rows;
}
inline constexpr auto kKeyRows = key_rows();

constexpr bool keys_contiguous_per_frame() {
    for (std::size_t i = 0; i < std::size(kSlots); ++i) {
        if (kSlots[i].key.empty()) continue;
        const KeyRows r = kKeyRows[static_cast<std::size_t>(kSlots[i].frame)];
        for (std::size_t j = r.first; j < r.end; ++j)
            if (kSlots[j].frame != kSlots[i].frame || kSlots[j].key.empty()) return false;
    }
    return true;
}
static_assert(keys_contiguous_per_frame(), "a frame's keys are listed together in kSlots");

// A keyed slot's bit in its frame's mask of keys seen: numbered from the frame's first key.
constexpr std::uint64_t bit(Slot s) {
    const auto i = static_cast<std::size_t>(s);
    return std::uint64_t{1} << (i - kKeyRows[static_cast<std::size_t>(kSlots[i].frame)].first);
}
constexpr bool frames_fit_masks() {
    for (const KeyRows& r : kKeyRows)
        if (r.end - r.first > 64) return false;
    return true;
}
static_assert(frames_fit_masks(), "the seen masks are 64 bits");

// The slot a key sets in an object of frame `f`; Skip for keys the format does not define.
// string_view comparisons check the length first: most keys are rejected in one compare.
inline Slot slot_of_key(Frame f, std::string_view key) {
    const KeyRows r = kKeyRows[static_cast<std::size_t>(f)];
    for (std::size_t i = r.first; i < r.end; ++i)
        if (kSlots[i].key == key) return kSlots[i].slot;
    return Slot::Skip;
}

// How messages name a slot: "'nbytes'", "tensor 'dtype'", "each entry of 'storages'".
inline std::string field_name(Slot s) {
    const SlotSpec& sp = spec(s);
    if (!sp.key.empty()) return std::string(sp.noun) + "'" + std::string(sp.key) + "'";
    if (sp.entry_of != Slot::Skip) return "each entry of " + field_name(sp.entry_of);
    return sp.noun;
}

inline constexpr bool is_integer_slot(Slot s) { return spec(s).integer; }

// The slot of an array's entries, per array frame (Slot::Count: the frame is not an array of
// values with a slot of their own); read from the table's container column.
constexpr std::array<Slot, kFrames> entry_slots() {
    std::array<Slot, kFrames> out{};
    out.fill(Slot::Count);
    for (const SlotSpec& sp : kSlots)
        if (sp.container != Frame::None) out[static_cast<std::size_t>(sp.container)] = sp.slot;
    return out;
}
inline constexpr auto kEntrySlots = entry_slots();
constexpr bool one_slot_per_container() {
    std::array<int, kFrames> seen{};
    for (const SlotSpec& sp : kSlots)
        if (sp.container != Frame::None && ++seen[static_cast<std::size_t>(sp.container)] > 1) return false;
    return true;
}
static_assert(one_slot_per_container(), "an array frame's entries have one slot");

} // namespace fxmem::reader
