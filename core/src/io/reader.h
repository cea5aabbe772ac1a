// The reader of format v1 (docs/format.md): a SAX handler that builds the GraphFile directly
// through GraphFile::add_storage and GraphBuilder, without a DOM. nlohmann's parser is iterative
// and hands it events; it keeps an explicit stack of what each open container is (frames_) and
// what the next value is for (slot(), from the table in reader_slots.h).
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
//
// Its parts: reader_sax.cpp (the events, values checked against their slot), reader_entities.cpp
// (storages, graphs, nodes, vals, pairs, steps as their objects close), reader_file_end.cpp
// (named schedules, and what is resolved once the whole file is read), reader_distributed.cpp
// (the "distributed" object, kept as text while reading and checked at the end), reader_messages.cpp (the
// place being read, for errors). Errors are thrown as ReadError (read_error.h).
#pragma once
#include "fxmem/cancel.h"
#include "fxmem/model.h"
#include "io/read_error.h"
#include "io/reader_records.h"
#include "io/reader_slots.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fxmem::reader {

class Reader {
public:
    Reader(std::string_view text, std::string source, const LoadControl& control);

    // nlohmann's parser over the whole text; throws ReadError (or Cancelled).
    GraphFile run();
    // The fast tokenizer over the same callbacks; nullopt when it leaves the text to run().
    std::optional<GraphFile> run_fast();

    // ---- SAX interface (nlohmann's, and json_fast's key_view/string_value) ----
    bool null();
    bool boolean(bool v);
    bool number_integer(std::int64_t v);
    bool number_unsigned(std::uint64_t v);
    bool number_float(double v, const std::string& token);
    bool string(std::string& v) { return string_value(v); }
    // The fast path's entry: v views the file's text (or its decoding buffer) during the call.
    bool string_value(std::string_view v);
    bool binary(nlohmann::json::binary_t&);
    bool start_object(std::size_t);
    bool key(std::string& key_text) { return key_view(key_text); }
    bool key_view(std::string_view k);
    bool end_object();
    bool start_array(std::size_t);
    bool end_array();
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex);

private:
    static constexpr int kMaxDepth = 128;   // any JSON nesting; graph files need about 10
    static constexpr int kMaxValDepth = 64; // nested lists inside one val
    static constexpr std::size_t kProgressStep = std::size_t{1} << 20;
    static constexpr std::uint32_t kNotScheduled = 0xffffffffu;

    // ---- reader_sax.cpp: containers skipped or re-serialised (meta, producer), dispatch ----
    void enter();
    void start_capture(std::string& dest, char open);
    void value_prefix();
    bool capture_scalar(std::string_view text);
    bool open_skipped(char open);
    bool close_skipped(char close);
    bool scalar_producer(std::string_view text);
    Slot slot() const;
    void integer(std::int64_t v);
    void budget(double v, const std::string& token);
    void check_progress();
    void report(double fraction) const;

    // ---- reader_entities.cpp ----
    void end_storage();
    void begin_graph();
    void begin_nodes();
    void end_node();
    void end_graph();
    void replay(PendingGraph& g);
    void check_joint(const fxmem::Graph& g, std::size_t offset) const;
    void end_val_object();
    void end_pair();
    void end_step();
    void emit(GraphBuilder& b, const std::string& graph, NodeRecord& r);

    // ---- reader_symbolic.cpp ----
    void end_symbol();
    void end_dim_exprs();
    void add_entry(bool is_text, std::int64_t constant, std::string_view text);
    void stage_expr(StagedExpr e, std::string_view text);
    void stage_tensor_exprs(const NodeRecord& r, NodeId node);
    void resolve_symbolic();

    // ---- reader_program.cpp ----
    void begin_program();
    void add_program_name(std::string_view v);
    void add_program_id(std::int64_t v);
    void end_program_list(Frame f);
    void end_buffer();
    void end_kernel();
    void end_program();
    void resolve_programs();

    // ---- reader_file_end.cpp ----
    void add_schedule_node(std::string_view v);
    void end_schedule();
    void resolve_schedules();
    void check_step();
    void end_top();

    // ---- reader_distributed.cpp ----
    void resolve_distributed();

    // ---- reader_messages.cpp ----
    std::size_t cursor_offset() const;
    std::string place() const;
    [[noreturn]] void fail(std::string what) const;
    [[noreturn]] void fail_at(std::size_t offset, std::string place, std::string what) const;
    [[noreturn]] void wrong(Slot s, const std::string& got) const;
    [[noreturn]] void missing(Slot s) const;

    std::string_view text_;
    std::string distributed_json_;                          // the captured "distributed" object
    std::size_t distributed_offset_ = ReadError::kNoOffset; // where it starts
    const LoadControl& control_;
    const char* cursor_;
    std::size_t next_progress_ = kProgressStep;
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
    std::string storage_nbytes_expr_;
    std::size_t storage_nbytes_expr_offset_ = 0;
    bool storage_has_role_ = false;
    std::size_t storage_count_ = 0;

    std::string graph_name_;
    GraphKind graph_kind_ = GraphKind::Other;
    std::optional<std::int64_t> graph_num_fwd_;
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
    // A tensor's symbolic entries being read (into rec_.entries).
    bool entries_are_shape_ = true;
    std::uint32_t entries_begin_ = 0;
    Range shape_expr_, stride_expr_;
    std::uint32_t offset_expr_ = 0;

    // Symbols and expressions, resolved at the end of the file (reader_symbolic.cpp).
    StagedSymbol symbol_;
    std::vector<StagedSymbol> symbols_;
    std::size_t symbol_count_ = 0;
    std::vector<StagedExpr> exprs_;
    std::string expr_texts_;

    // The graph's program being read (reader_program.cpp), and those read, resolved at the end.
    StagedProgram program_;
    StagedProgram::Buffer buffer_;
    StagedProgram::Kernel kernel_;
    std::vector<StagedProgram> programs_;
    std::uint64_t program_seen_ = 0, buffer_seen_ = 0, kernel_seen_ = 0;
    std::size_t buffer_count_ = 0, kernel_count_ = 0;
    std::uint32_t program_list_begin_ = 0; // where the list being read starts in its pool

    StagedPair pair_;
    StagedStep step_;
    std::vector<StagedStep> steps_;
    std::size_t step_count_ = 0;
    std::uint64_t step_seen_ = 0;
    std::vector<StagedPair> pairs_;
    std::size_t pair_count_ = 0;

    StagedSchedule schedule_;
    std::vector<StagedSchedule> schedules_;
    bool graphs_done_ = false;                     // the "graphs" array has been read
    const fxmem::Graph* schedule_graph_ = nullptr; // the graph of the schedule being read, when known
    std::vector<std::uint32_t> schedule_position_; // per node of schedule_graph_: its position
    std::size_t schedule_count_ = 0;
};

} // namespace fxmem::reader
