// Symbolic sizes (docs/format.md, "Symbolic sizes"): a capture made with dynamic shapes gives its
// byte counts, tensor shapes, strides, offsets and FLOPs as expressions over the capture's symbols
// (s17 = the batch, ...) beside the ints they had at the traced size (the hints). Every analysis
// runs on the ints; bind_sizes rewrites them for another binding of the symbols, in place, in
// O(storages + symbolic tensor entries + symbolic FLOPs), so every analysis works unchanged.
//
// Expressions are parsed once, when the file is read, into postfix code over symbol indices and
// int64 constants; evaluation is in int64 with overflow checks, FloorDiv towards -inf, CeilDiv
// towards +inf, Mod with the divisor's sign (Python's), Max/Min, and powers with an int exponent.
//
// Lifetime and threading: a GraphFile's SymbolicSizes lives and is copied with it. bind_sizes
// writes the file's ints, so no other thread may read that GraphFile while it runs (the app binds
// a copy, or binds before it hands the file to its jobs); the parse and evaluate functions are
// pure and may run on any thread.
#pragma once
#include "fxmem/ids.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fxmem {

class GraphFile;

// One symbol of the capture, as PyTorch's ShapeEnv knows it.
struct Symbol {
    std::string name; // "s17": unique, [A-Za-z_][A-Za-z0-9_]*
    std::int64_t hint = 0;
    std::string source; // Dynamo's source ("L['tok'].size()[0]"); may be empty
    std::int64_t min = 0;
    std::optional<std::int64_t> max; // nullopt: unbounded above
    bool contains(std::int64_t v) const { return v >= min && (!max || v <= *max); }
    std::string range_text() const; // "[2, 4096]", "[2, inf)"
};

enum class ExprOp : std::uint8_t { Const, Sym, Add, Sub, Mul, Neg, Pow, FloorDiv, CeilDiv, Mod, Max, Min };

// One instruction of an expression's postfix code. Const pushes `value`; Sym pushes the value of
// symbol `value`; Pow raises the top to the exponent `value`; Max and Min pop `value` operands;
// the others pop one (Neg) or two operands.
struct ExprInstr {
    ExprOp op = ExprOp::Const;
    std::int64_t value = 0;
};

// Why an expression could not be parsed: what, and the 0-based column in its text.
struct ExprSyntaxError {
    std::size_t column = 0;
    std::string what;
};

inline constexpr int kMaxExprDepth = 64;         // nesting of parentheses and calls
inline constexpr std::int64_t kMaxExponent = 63; // any base but 0, 1, -1 overflows beyond it

// Parses `text` (the grammar of docs/format.md) and appends its postfix code to `code`; a name is
// looked up in `symbols`. On error, returns it and leaves `code` as it was.
std::optional<ExprSyntaxError> parse_expr(std::string_view text, std::span<const Symbol> symbols,
                                          std::vector<ExprInstr>& code);
// The same with the names looked up by `lookup` (a symbol's index, or nullopt), for a caller with
// many symbols and an index of them (the reader: a linear search per name would make a file of
// many symbols and many expressions quadratic).
using SymbolLookup = std::function<std::optional<std::size_t>(std::string_view)>;
std::optional<ExprSyntaxError> parse_expr(std::string_view text, const SymbolLookup& lookup,
                                          std::vector<ExprInstr>& code);

enum class EvalFault : std::uint8_t { Overflow, DivisionByZero };
std::string_view to_string(EvalFault fault); // "overflows int64", "divides by zero"

// The value of `code` with symbol i bound to values[i]; nullopt on overflow or a zero divisor
// (the reason in *fault when given). An intermediate value past int64 is not an overflow when the
// result does not depend on it (Min(s0**3, 5) is 5, 0*s0**3 is 0): only a result past int64, or
// such a value divided, taken modulo, or added to one past int64 of the other sign.
std::optional<std::int64_t> evaluate(std::span<const ExprInstr> code, std::span<const std::int64_t> values,
                                     EvalFault* fault = nullptr);

// What a file holds of symbolic sizes. Each expression is its code and its text (written back as
// read); the ints it rewrites are listed per kind, each with the expression that gives it.
struct SymbolicSizes {
    struct Expr {
        std::uint32_t code_begin = 0, code_end = 0; // into code
        std::uint32_t text_begin = 0, text_end = 0; // into texts
    };
    // A storage's nbytes.
    struct StorageSize {
        StorageId storage;
        std::uint32_t expr = 0;
    };
    // One symbolic entry of a tensor: dim = shape[i] (i < rank), stride[i - rank] (rank <= i <
    // 2 rank), or the offset (i == 2 rank). Listed per tensor in dim order; constant entries are
    // not listed (their ints never change).
    struct TensorEntry {
        GraphId graph;
        std::uint32_t tensor = 0; // index into Graph::tensors
        std::uint32_t dim = 0;
        std::uint32_t expr = 0;
    };
    struct NodeFlops {
        GraphId graph;
        NodeId node;
        std::uint32_t expr = 0;
    };
    // A program buffer's nbytes (fxmem/program.h).
    struct BufferSize {
        GraphId graph;
        std::uint32_t buffer = 0; // index into the graph's Program::buffers
        std::uint32_t expr = 0;
    };

    std::vector<Symbol> symbols;
    std::vector<ExprInstr> code;
    std::string texts;
    std::vector<Expr> exprs; // each distinct text once (the same size recurs across storages and tensors)
    std::vector<StorageSize> storage_sizes;  // in storage order
    std::vector<TensorEntry> tensor_entries; // grouped by (graph, tensor), in order
    std::vector<NodeFlops> node_flops;       // in (graph, node) order
    std::vector<BufferSize> buffer_sizes;    // in (graph, buffer) order
    std::vector<std::int64_t> bound;         // the binding the file's ints hold now (the hints on load)
    // What the binding `bound` left unknown, for a warning: the FLOPs of the nodes whose
    // 'flops_expr' overflows there or passes the file's cap (memory never depends on them); ""
    // when nothing.
    std::string bind_warning;

    bool empty() const { return symbols.empty(); }
    std::span<const ExprInstr> expr_code(std::uint32_t e) const {
        return {code.data() + exprs[e].code_begin, exprs[e].code_end - exprs[e].code_begin};
    }
    std::string_view expr_text(std::uint32_t e) const {
        return std::string_view(texts).substr(exprs[e].text_begin, exprs[e].text_end - exprs[e].text_begin);
    }
    bool is_constant(std::uint32_t e) const { return expr_code(e).size() == 1 && expr_code(e)[0].op == ExprOp::Const; }
    // Symbol index by name, or by Dynamo source when no name matches; nullopt when neither does.
    std::optional<std::size_t> find_symbol(std::string_view name_or_source) const;
    // The expression of `text` when one was added, else nullopt.
    std::optional<std::uint32_t> find_expr(std::string_view text) const;
    // Adds an expression (its parsed code and its text), or finds the one of the same text;
    // returns its index.
    std::uint32_t add_expr(std::span<const ExprInstr> expr_code, std::string_view text);

private:
    std::unordered_map<std::string, std::uint32_t> by_text_;
};

// A value per symbol, by symbol index.
struct SizeBinding {
    std::vector<std::int64_t> values;
};

// The binding at the hints.
SizeBinding hint_binding(const SymbolicSizes& sizes);

// Rewrites every symbolic int of `file` (storage nbytes and the total, tensor shapes, strides,
// offsets, node FLOPs, program buffers' nbytes: a graph's program is replaced by a bound copy) to
// its value at `binding`. FLOPs that overflow int64 or pass the file's cap
// (GraphFile::kMaxTotalFlops) at the binding become unknown, with SymbolicSizes::bind_warning
// saying so: they are no part of the memory. Throws Error, leaving `file` unchanged, when the
// binding has the wrong length or a value outside its symbol's range (naming the symbol and the
// range), or when an expression overflows, divides by zero or gives a negative size at it
// (naming the storage, or the graph and node or buffer), or when a program's reuse joins two
// buffers of different sizes there. At the hints the file's ints are the ones it was read with.
// O(storages + symbolic tensor entries + symbolic FLOPs + the bound programs).
void bind_sizes(GraphFile& file, const SizeBinding& binding);

// The same without throwing: what failed, or nullopt when `file` now holds the binding. Overflow:
// an expression or the total of the storages' sizes overflows int64 at the binding (fxmem-cli
// fit: that size does not fit); Invalid: anything else bind_sizes refuses.
struct BindError {
    enum class Kind : std::uint8_t { Overflow, Invalid } kind = Kind::Invalid;
    std::string message; // as bind_sizes throws it
};
// What a binding for the counted memory alone (fit) leaves unknown instead of failing: memory is
// the counted storages' sizes, so an overflow elsewhere does not decide.
//   - layout: a stride or storage offset expression that overflows int64 keeps the entry's
//     previous value (no tensor's entries decide a storage's size);
//   - uncounted_cpu: a CPU storage whose size overflows int64, or would take the storages' total
//     past it, is bound to 0 bytes (the memory counts no CPU storage, as PyTorch's device filter).
// Anything else still fails as bind_sizes says. The file then holds a binding only a measure of
// that memory may read.
struct BindLeniency {
    bool layout = false;
    bool uncounted_cpu = false;
};
std::optional<BindError> try_bind_sizes(GraphFile& file, const SizeBinding& binding, const BindLeniency& lenient = {});

} // namespace fxmem
