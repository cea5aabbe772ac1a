// The size expressions of fxmem/symbolic.h: a recursive-descent parser of docs/format.md's grammar
// to postfix code, and its evaluation in int64 with overflow checks.
#include "fxmem/symbolic.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>

namespace fxmem {

namespace {

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

bool is_name_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }

struct Function {
    std::string_view name;
    ExprOp op;
    bool variadic; // Max, Min: two or more arguments; the others exactly two
};
constexpr std::array<Function, 5> kFunctions = {{{"FloorDiv", ExprOp::FloorDiv, false},
                                                 {"CeilDiv", ExprOp::CeilDiv, false},
                                                 {"Mod", ExprOp::Mod, false},
                                                 {"Max", ExprOp::Max, true},
                                                 {"Min", ExprOp::Min, true}}};

// Thrown inside the parser only; parse_expr returns it.
struct SyntaxFailure {
    ExprSyntaxError error;
};

class Parser {
public:
    Parser(std::string_view text, const SymbolLookup& lookup, std::vector<ExprInstr>& code)
        : text_(text), lookup_(lookup), code_(code) {}

    void run() {
        skip_space();
        if (at_end()) fail(0, "empty expression");
        expr();
        if (!at_end()) fail(pos_, "unexpected " + describe_here());
    }

private:
    std::string_view text_;
    const SymbolLookup& lookup_;
    std::vector<ExprInstr>& code_;
    std::size_t pos_ = 0;
    int depth_ = 0;

    [[noreturn]] void fail(std::size_t column, std::string what) const {
        throw SyntaxFailure{{column, std::move(what)}};
    }
    bool at_end() const { return pos_ >= text_.size(); }
    char peek(std::size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }
    void skip_space() {
        while (!at_end() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
    }
    std::string describe_here() const {
        if (at_end()) return "end of expression";
        const char c = text_[pos_];
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f)
            return "character " + std::to_string(static_cast<unsigned char>(c));
        return "'" + std::string(1, c) + "'";
    }
    void expect(char c) {
        skip_space();
        if (peek() != c) fail(pos_, std::string("expected '") + c + "', got " + describe_here());
        ++pos_;
    }
    void emit(ExprOp op, std::int64_t value = 0) { code_.push_back({op, value}); }
    void enter(std::size_t at) {
        if (++depth_ > kMaxExprDepth) fail(at, "nests deeper than " + std::to_string(kMaxExprDepth) + " levels");
    }

    void expr() {
        term();
        for (;;) {
            skip_space();
            const char c = peek();
            if (c != '+' && c != '-') return;
            ++pos_;
            term();
            emit(c == '+' ? ExprOp::Add : ExprOp::Sub);
        }
    }
    void term() {
        factor();
        for (;;) {
            skip_space();
            if (peek() != '*' || peek(1) == '*') return;
            ++pos_;
            factor();
            emit(ExprOp::Mul);
        }
    }
    void factor() {
        skip_space();
        if (peek() == '-') {
            enter(pos_);
            ++pos_;
            factor();
            emit(ExprOp::Neg);
            --depth_;
            return;
        }
        power();
    }
    void power() {
        atom();
        skip_space();
        if (peek() != '*' || peek(1) != '*') return;
        pos_ += 2;
        skip_space();
        const std::size_t at = pos_;
        if (!is_digit(peek())) fail(at, "the exponent must be a non-negative integer, got " + describe_here());
        const std::int64_t e = integer();
        if (e > kMaxExponent)
            fail(at, "exponent " + std::to_string(e) + " is too large (at most " + std::to_string(kMaxExponent) + ")");
        emit(ExprOp::Pow, e);
    }
    std::int64_t integer() {
        const std::size_t at = pos_;
        while (is_digit(peek())) ++pos_;
        std::int64_t v = 0;
        const auto r = std::from_chars(text_.data() + at, text_.data() + pos_, v);
        if (r.ec != std::errc())
            fail(at, "integer " + std::string(text_.substr(at, pos_ - at)) + " does not fit in 64 bits");
        return v;
    }
    void atom() {
        skip_space();
        const std::size_t at = pos_;
        const char c = peek();
        if (is_digit(c)) {
            emit(ExprOp::Const, integer());
            return;
        }
        if (c == '(') {
            enter(at);
            ++pos_;
            expr();
            skip_space();
            if (peek() == '/' && peek(1) == '/') {
                pos_ += 2;
                expr();
                emit(ExprOp::FloorDiv);
            }
            expect(')');
            --depth_;
            return;
        }
        if (!is_name_start(c)) fail(at, "expected a number, a symbol, a function or '(', got " + describe_here());
        while (is_name_char(peek())) ++pos_;
        const std::string_view name = text_.substr(at, pos_ - at);
        skip_space();
        if (peek() == '(') {
            call(name, at);
            return;
        }
        if (const std::optional<std::size_t> i = lookup_(name)) {
            emit(ExprOp::Sym, static_cast<std::int64_t>(*i));
            return;
        }
        fail(at, "unknown symbol '" + std::string(name) + "' (not in 'symbols')");
    }
    void call(std::string_view name, std::size_t at) {
        const auto f =
            std::find_if(kFunctions.begin(), kFunctions.end(), [&](const Function& fn) { return fn.name == name; });
        if (f == kFunctions.end())
            fail(at, "unknown function '" + std::string(name) + "' (expected FloorDiv, CeilDiv, Mod, Max or Min)");
        enter(at);
        ++pos_; // '('
        std::int64_t args = 0;
        for (;;) {
            expr();
            ++args;
            skip_space();
            if (peek() != ',') break;
            ++pos_;
        }
        expect(')');
        --depth_;
        if (f->variadic ? args < 2 : args != 2)
            fail(at, std::string(name) + " takes " + (f->variadic ? "two or more arguments" : "two arguments") +
                         ", got " + std::to_string(args));
        emit(f->op, args);
    }
};

bool floor_div(std::int64_t a, std::int64_t b, std::int64_t& out, EvalFault& fault) {
    if (b == 0) return fault = EvalFault::DivisionByZero, false;
    if (a == kMin && b == -1) return fault = EvalFault::Overflow, false;
    std::int64_t q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0))) --q;
    out = q;
    return true;
}

bool ceil_div(std::int64_t a, std::int64_t b, std::int64_t& out, EvalFault& fault) {
    if (b == 0) return fault = EvalFault::DivisionByZero, false;
    if (a == kMin && b == -1) return fault = EvalFault::Overflow, false;
    std::int64_t q = a / b;
    if (a % b != 0 && ((a < 0) == (b < 0))) ++q;
    out = q;
    return true;
}

// Python's a % b: the result has the divisor's sign.
bool py_mod(std::int64_t a, std::int64_t b, std::int64_t& out, EvalFault& fault) {
    if (b == 0) return fault = EvalFault::DivisionByZero, false;
    if (b == -1) return out = 0, true; // kMin % -1 is undefined in C++
    std::int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    out = r;
    return true;
}

bool power(std::int64_t base, std::int64_t e, std::int64_t& out, EvalFault& fault) {
    std::int64_t r = 1;
    while (e > 0) {
        if ((e & 1) && __builtin_mul_overflow(r, base, &r)) return fault = EvalFault::Overflow, false;
        e >>= 1;
        if (e > 0 && __builtin_mul_overflow(base, base, &base)) return fault = EvalFault::Overflow, false;
    }
    out = r;
    return true;
}

} // namespace

std::string Symbol::range_text() const {
    return "[" + std::to_string(min) + ", " + (max ? std::to_string(*max) + "]" : std::string("inf)"));
}

std::optional<ExprSyntaxError> parse_expr(std::string_view text, std::span<const Symbol> symbols,
                                          std::vector<ExprInstr>& code) {
    return parse_expr(
        text,
        [&](std::string_view name) -> std::optional<std::size_t> {
            for (std::size_t i = 0; i < symbols.size(); ++i)
                if (symbols[i].name == name) return i;
            return std::nullopt;
        },
        code);
}

std::optional<ExprSyntaxError> parse_expr(std::string_view text, const SymbolLookup& lookup,
                                          std::vector<ExprInstr>& code) {
    const std::size_t before = code.size();
    try {
        Parser(text, lookup, code).run();
    } catch (const SyntaxFailure& f) {
        code.resize(before);
        return f.error;
    }
    return std::nullopt;
}

std::string_view to_string(EvalFault fault) {
    return fault == EvalFault::Overflow ? "overflows int64" : "divides by zero";
}

std::optional<std::int64_t> evaluate(std::span<const ExprInstr> code, std::span<const std::int64_t> values,
                                     EvalFault* fault_out) {
    // A value past int64 is carried as its sign (beyond[i] = +1 or -1, stack[i] unused), not a
    // fault yet: the exact value does not matter to Min(s0**3, 5), Max(-s0**3, 0) or 0 * s0**3,
    // which are exact. It is a fault when the result, or an operand of a division, a modulo or a
    // sum of opposite infinities, is one.
    std::array<std::int64_t, 32> small; // not zeroed: every slot is written before it is read
    std::array<std::int8_t, 32> small_beyond;
    std::vector<std::int64_t> large;
    std::vector<std::int8_t> large_beyond;
    std::int64_t* stack = small.data();
    std::int8_t* beyond = small_beyond.data();
    if (code.size() > small.size()) {
        large.resize(code.size());
        large_beyond.resize(code.size());
        stack = large.data();
        beyond = large_beyond.data();
    }
    std::size_t top = 0; // values on the stack
    EvalFault fault = EvalFault::Overflow;
    const auto failed = [&] {
        if (fault_out) *fault_out = fault;
        return std::optional<std::int64_t>();
    };
    const auto sign = [](std::int64_t v) -> int { return (v > 0) - (v < 0); };
    // -1, 0, +1 as a value compares: a beyond value below or above every int64.
    const auto less = [&](std::size_t i, std::size_t j) {
        if (beyond[i] != beyond[j]) return beyond[i] < beyond[j];
        return beyond[i] == 0 && stack[i] < stack[j];
    };
    for (const ExprInstr& in : code) {
        switch (in.op) {
        case ExprOp::Const:
            beyond[top] = 0;
            stack[top++] = in.value;
            break;
        case ExprOp::Sym:
            beyond[top] = 0;
            stack[top++] = values[static_cast<std::size_t>(in.value)];
            break;
        case ExprOp::Neg:
            if (beyond[top - 1] != 0)
                beyond[top - 1] = static_cast<std::int8_t>(-beyond[top - 1]);
            else if (stack[top - 1] == kMin)
                beyond[top - 1] = 1;
            else
                stack[top - 1] = -stack[top - 1];
            break;
        case ExprOp::Pow: {
            const std::size_t t = top - 1;
            const int negative_odd = (in.value & 1) ? -1 : 1; // the sign a negative base gets
            if (in.value == 0) {
                beyond[t] = 0;
                stack[t] = 1;
            } else if (beyond[t] != 0) {
                beyond[t] = static_cast<std::int8_t>(beyond[t] < 0 ? negative_odd : 1);
            } else {
                const std::int64_t base = stack[t];
                if (!power(base, in.value, stack[t], fault))
                    beyond[t] = static_cast<std::int8_t>(base < 0 ? negative_odd : 1);
            }
            break;
        }
        case ExprOp::Max:
        case ExprOp::Min: {
            const auto n = static_cast<std::size_t>(in.value);
            std::size_t best = top - n;
            for (std::size_t i = top - n + 1; i < top; ++i)
                if (in.op == ExprOp::Max ? less(best, i) : less(i, best)) best = i;
            const std::int64_t v = stack[best];
            const std::int8_t b = beyond[best];
            top -= n;
            beyond[top] = b;
            stack[top++] = v;
            break;
        }
        default: {
            const std::size_t i = top - 2, j = top - 1;
            const std::int64_t a = stack[i], b = stack[j];
            const int ba = beyond[i], bb = beyond[j];
            std::int64_t& r = stack[i];
            std::int8_t& rb = beyond[i];
            --top;
            switch (in.op) {
            case ExprOp::Add:
            case ExprOp::Sub: {
                const int sb = in.op == ExprOp::Sub ? -bb : bb;
                if (ba != 0 || sb != 0) {
                    if (ba != 0 && sb != 0 && ba != sb) return failed(); // opposite infinities
                    rb = static_cast<std::int8_t>(ba != 0 ? ba : sb);
                } else if (in.op == ExprOp::Add ? __builtin_add_overflow(a, b, &r) : __builtin_sub_overflow(a, b, &r)) {
                    rb = static_cast<std::int8_t>(in.op == ExprOp::Add ? sign(a) : sign(a) != 0 ? sign(a) : -sign(b));
                }
                break;
            }
            case ExprOp::Mul: {
                const int sa = ba != 0 ? ba : sign(a), sb = bb != 0 ? bb : sign(b);
                if (sa == 0 || sb == 0) {
                    rb = 0;
                    r = 0;
                } else if (ba != 0 || bb != 0 || __builtin_mul_overflow(a, b, &r)) {
                    rb = static_cast<std::int8_t>(sa * sb);
                }
                break;
            }
            default: {
                if (ba != 0 || bb != 0) return failed(); // a quotient or remainder of a value past int64
                bool ok = true;
                switch (in.op) {
                case ExprOp::FloorDiv: ok = floor_div(a, b, r, fault); break;
                case ExprOp::CeilDiv: ok = ceil_div(a, b, r, fault); break;
                case ExprOp::Mod: ok = py_mod(a, b, r, fault); break;
                default: break;
                }
                if (!ok) return failed();
            }
            }
        }
        }
    }
    fault = EvalFault::Overflow;
    if (beyond[0] != 0) return failed();
    return stack[0];
}

std::optional<std::size_t> SymbolicSizes::find_symbol(std::string_view name_or_source) const {
    for (std::size_t i = 0; i < symbols.size(); ++i)
        if (symbols[i].name == name_or_source) return i;
    for (std::size_t i = 0; i < symbols.size(); ++i)
        if (!symbols[i].source.empty() && symbols[i].source == name_or_source) return i;
    return std::nullopt;
}

std::optional<std::uint32_t> SymbolicSizes::find_expr(std::string_view text) const {
    const auto it = by_text_.find(std::string(text));
    if (it == by_text_.end()) return std::nullopt;
    return it->second;
}

std::uint32_t SymbolicSizes::add_expr(std::span<const ExprInstr> expr_code, std::string_view text) {
    const auto [it, fresh] = by_text_.emplace(std::string(text), static_cast<std::uint32_t>(exprs.size()));
    if (!fresh) return it->second;
    Expr e;
    e.code_begin = static_cast<std::uint32_t>(code.size());
    code.insert(code.end(), expr_code.begin(), expr_code.end());
    e.code_end = static_cast<std::uint32_t>(code.size());
    e.text_begin = static_cast<std::uint32_t>(texts.size());
    texts.append(text);
    e.text_end = static_cast<std::uint32_t>(texts.size());
    exprs.push_back(e);
    return static_cast<std::uint32_t>(exprs.size() - 1);
}

SizeBinding hint_binding(const SymbolicSizes& sizes) {
    SizeBinding b;
    b.values.reserve(sizes.symbols.size());
    for (const Symbol& s : sizes.symbols) b.values.push_back(s.hint);
    return b;
}

} // namespace fxmem
