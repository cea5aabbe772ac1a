// The reader's symbolic sizes (docs/format.md, "Symbolic sizes"): the "symbols" checked as each
// closes, every expression staged with where it was read, and all of them parsed once the whole
// file is read (a key order may put "symbols" last), each checked to give its hinted int.
#include "fxmem/error.h"
#include "fxmem/program.h"
#include "io/reader.h"
#include "model/quote.h"

#include <unordered_map>

namespace fxmem::reader {

using detail::quote;

namespace {

bool valid_symbol_name(std::string_view n) {
    if (n.empty()) return false;
    const auto start = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
    if (!start(n[0])) return false;
    for (char c : n)
        if (!start(c) && !(c >= '0' && c <= '9')) return false;
    return true;
}

std::string hints_text(const std::vector<Symbol>& symbols) {
    std::string out;
    for (std::size_t i = 0; i < symbols.size(); ++i)
        out += (i ? ", " : "") + symbols[i].name + "=" + std::to_string(symbols[i].hint);
    return out.empty() ? "no symbols" : out;
}

} // namespace

void Reader::end_symbol() {
    for (Slot k : {Slot::SymbolName, Slot::SymbolHint, Slot::SymbolMin})
        if (!(symbol_.seen & bit(k))) missing(k);
    const Symbol& s = symbol_.symbol;
    if (!valid_symbol_name(s.name)) fail("symbol 'name' must be a name ([A-Za-z_][A-Za-z0-9_]*), got " + quote(s.name));
    // PyTorch's ranges for sizes start at 0 (unbacked) or 2 (backed); a negative minimum is no
    // size's, and fit's arithmetic relies on the range starting at 0 or above.
    if (s.min < 0)
        fail("symbol " + quote(s.name) + ": 'min' " + std::to_string(s.min) + " is negative (a size is >= 0)");
    if (s.max && s.min > *s.max)
        fail("symbol " + quote(s.name) + ": 'min' " + std::to_string(s.min) + " is above 'max' " +
             std::to_string(*s.max));
    if (!s.contains(s.hint))
        fail("symbol " + quote(s.name) + ": 'hint' " + std::to_string(s.hint) + " is outside its range " +
             s.range_text());
    symbol_.end_offset = cursor_offset();
    symbols_.push_back(std::move(symbol_));
    ++symbol_count_;
}

void Reader::end_dim_exprs() {
    const auto begin = entries_begin_;
    const auto end = static_cast<std::uint32_t>(rec_.entries.size());
    (entries_are_shape_ ? shape_expr_ : stride_expr_) = {begin, end};
}

void Reader::add_entry(bool is_text, std::int64_t constant, std::string_view text) {
    StagedEntry& e = rec_.entries.emplace_back();
    e.is_text = is_text;
    e.constant = constant;
    e.text.assign(text);
    e.offset = cursor_offset();
}

void Reader::stage_expr(StagedExpr e, std::string_view text) {
    if (e.is_text) {
        if (expr_texts_.size() + text.size() > 0xffffffffu) fail("the size expressions exceed 4 GiB");
        e.text_begin = static_cast<std::uint32_t>(expr_texts_.size());
        expr_texts_.append(text);
        e.text_end = static_cast<std::uint32_t>(expr_texts_.size());
    }
    exprs_.push_back(e);
}

// A symbolic tensor's given entries; the others keep their ints (docs/format.md: an int entry is a
// constant, checked against its int like an expression).
void Reader::stage_tensor_exprs(const NodeRecord& r, NodeId node) {
    std::uint32_t k = 0; // the tensor's position among the node's tensors
    for (const StagedVal& v : r.vals) {
        if (v.kind != StagedVal::Kind::Tensor) continue;
        if (v.symbolic()) {
            StagedExpr e;
            e.kind = StagedExpr::Kind::Tensor;
            e.owner = static_cast<std::uint32_t>(file_.graphs.size());
            e.node = node;
            e.tensor = k;
            const auto put = [&](bool given, std::uint32_t entry) {
                if (given) {
                    const StagedEntry& se = r.entries[entry];
                    e.is_text = se.is_text;
                    e.constant = se.constant;
                    e.offset = se.offset;
                    stage_expr(e, se.text);
                }
                ++e.dim;
            };
            for (std::uint32_t i = 0; i < v.shape_size; ++i) put(v.has_shape_expr, v.shape_expr_begin + i);
            for (std::uint32_t i = 0; i < v.stride_size; ++i) put(v.has_stride_expr, v.stride_expr_begin + i);
            put(v.has_offset_expr, v.offset_expr);
        }
        ++k;
    }
}

// Every expression parsed against the symbols and evaluated at the hints, where it must give the
// int beside it; then kept in the file's SymbolicSizes.
void Reader::resolve_symbolic() {
    SymbolicSizes& sy = file_.symbolic;
    std::unordered_map<std::string_view, std::size_t> by_name;
    for (std::size_t i = 0; i < symbols_.size(); ++i) {
        const auto [at, fresh] = by_name.emplace(symbols_[i].symbol.name, i);
        if (!fresh)
            fail_at(symbols_[i].end_offset, "symbols[" + std::to_string(i) + "]",
                    "duplicate symbol " + quote(symbols_[i].symbol.name) + " (symbols[" + std::to_string(at->second) +
                        "] has it too)");
    }
    // --set and --vary take a source for its symbol: one source names one symbol.
    std::unordered_map<std::string_view, std::size_t> by_source;
    for (std::size_t i = 0; i < symbols_.size(); ++i) {
        const std::string& source = symbols_[i].symbol.source;
        if (source.empty()) continue; // unbacked symbols have none
        const auto [at, fresh] = by_source.emplace(source, i);
        if (!fresh)
            fail_at(symbols_[i].end_offset, "symbols[" + std::to_string(i) + "]",
                    "symbol " + quote(symbols_[i].symbol.name) + " has the source " + quote(source) + " of symbol " +
                        quote(symbols_[at->second].symbol.name) + " (symbols[" + std::to_string(at->second) + "])");
    }
    for (StagedSymbol& s : symbols_) sy.symbols.push_back(std::move(s.symbol));
    symbols_.clear();
    by_name.clear(); // its keys viewed the staged names: index the file's own
    for (std::size_t i = 0; i < sy.symbols.size(); ++i) by_name.emplace(sy.symbols[i].name, i);
    const SymbolLookup lookup = [&](std::string_view name) -> std::optional<std::size_t> {
        const auto it = by_name.find(name);
        return it == by_name.end() ? std::nullopt : std::optional<std::size_t>(it->second);
    };
    const SizeBinding hints = hint_binding(sy);
    sy.bound = hints.values;

    std::vector<ExprInstr> code;
    for (const StagedExpr& e : exprs_) {
        std::string place, field;
        std::int64_t hinted = 0;
        std::uint32_t tensor = 0;
        switch (e.kind) {
        case StagedExpr::Kind::Nbytes: {
            const Storage& st = file_.storages[e.owner];
            place = "storages[" + std::to_string(e.owner) + "] (id " + std::to_string(st.file_id) + ")";
            field = "'nbytes_expr'";
            hinted = st.nbytes;
            break;
        }
        case StagedExpr::Kind::Flops: {
            const fxmem::Graph& g = file_.graphs[e.owner];
            place = "graph " + quote(g.name) + ", node " + quote(g.node(e.node).name);
            field = "'flops_expr'";
            hinted = g.flops(e.node).value_or(-1);
            break;
        }
        case StagedExpr::Kind::BufferNbytes: {
            const fxmem::Graph& g = file_.graphs[e.owner];
            place = "graph " + quote(g.name) + ", program.buffers[" + std::to_string(e.tensor) + "]";
            field = "buffer 'nbytes_expr'";
            hinted = g.program->buffers[e.tensor].nbytes;
            break;
        }
        case StagedExpr::Kind::Tensor: {
            const fxmem::Graph& g = file_.graphs[e.owner];
            tensor = g.node(e.node).tensors.begin + e.tensor;
            const Tensor& t = g.tensors[tensor];
            place = "graph " + quote(g.name) + ", node " + quote(g.node(e.node).name) +
                    (g.node(e.node).tensors.size() > 1 ? ", tensor " + std::to_string(e.tensor) : std::string());
            if (e.dim < t.rank) {
                field = "tensor 'shape_expr'[" + std::to_string(e.dim) + "]";
                hinted = g.shape(t)[e.dim];
            } else if (e.dim < 2 * t.rank) {
                field = "tensor 'stride_expr'[" + std::to_string(e.dim - t.rank) + "]";
                hinted = g.stride(t)[e.dim - t.rank];
            } else {
                field = "tensor 'offset_expr'";
                hinted = t.offset;
            }
            break;
        }
        }
        const std::string_view text = std::string_view(expr_texts_).substr(e.text_begin, e.text_end - e.text_begin);
        code.clear();
        const std::string constant_text = e.is_text ? std::string() : std::to_string(e.constant);
        const std::optional<std::uint32_t> known = sy.find_expr(e.is_text ? text : std::string_view(constant_text));
        if (known) {
            const auto c = sy.expr_code(*known); // parsed and checked before: only its value differs
            code.assign(c.begin(), c.end());
        } else if (!e.is_text) {
            code.push_back({ExprOp::Const, e.constant});
        } else if (const std::optional<ExprSyntaxError> bad = parse_expr(text, lookup, code)) {
            fail_at(e.offset, place,
                    field + " " + quote(text) + ", column " + std::to_string(bad->column + 1) + ": " + bad->what);
        }
        EvalFault fault{};
        const std::optional<std::int64_t> v = evaluate(code, hints.values, &fault);
        const std::string shown = e.is_text ? quote(text) : std::to_string(e.constant);
        if (!v)
            fail_at(e.offset, place,
                    field + " " + shown + " " + std::string(to_string(fault)) + " at the hints (" +
                        hints_text(sy.symbols) + ")");
        if (*v != hinted)
            fail_at(e.offset, place,
                    field + " " + shown + " is " + std::to_string(*v) + " at the hints (" + hints_text(sy.symbols) +
                        ") but the int beside it is " + std::to_string(hinted));
        const std::uint32_t expr = sy.add_expr(code, e.is_text ? text : std::string_view(constant_text));
        switch (e.kind) {
        case StagedExpr::Kind::Nbytes:
            sy.storage_sizes.push_back({StorageId(static_cast<std::int32_t>(e.owner)), expr});
            break;
        case StagedExpr::Kind::Flops:
            sy.node_flops.push_back({GraphId(static_cast<std::int32_t>(e.owner)), e.node, expr});
            break;
        case StagedExpr::Kind::BufferNbytes:
            sy.buffer_sizes.push_back({GraphId(static_cast<std::int32_t>(e.owner)), e.tensor, expr});
            break;
        case StagedExpr::Kind::Tensor:
            if (!sy.is_constant(expr))
                sy.tensor_entries.push_back({GraphId(static_cast<std::int32_t>(e.owner)), tensor, e.dim, expr});
            break;
        }
    }
    std::vector<StagedExpr>().swap(exprs_);
    std::string().swap(expr_texts_);
}

} // namespace fxmem::reader
