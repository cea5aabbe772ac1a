// Symbolic sizes in core (fxmem/symbolic.h, fxmem/fit.h): the expressions on values worked out by
// hand (Python's floor division and modulo, overflow, powers), the reader's round trip, bind_sizes
// on tests/data/good/symbolic.json against a hand-computed profile and pair peak, bind_sizes at the
// hints on every bundled example, and fit against a brute-force scan.
#include "fxmem/error.h"
#include "fxmem/estimator.h"
#include "fxmem/fit.h"
#include "fxmem/io.h"
#include "fxmem/symbolic.h"
#include "io/load_paths.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <limits>

using namespace fxmem;

namespace {

std::vector<Symbol> symbols(std::initializer_list<const char*> names) {
    std::vector<Symbol> out;
    for (const char* n : names) out.push_back({n, 1, "", 0, std::nullopt});
    return out;
}

// The value of `text` with s0, s1 bound to `values`; nullopt on an evaluation fault.
std::optional<std::int64_t> eval(std::string_view text, std::vector<std::int64_t> values = {3, 5},
                                 EvalFault* fault = nullptr) {
    std::vector<ExprInstr> code;
    const auto bad = parse_expr(text, symbols({"s0", "s1"}), code);
    EXPECT_FALSE(bad) << text << ": " << (bad ? bad->what : "");
    return evaluate(code, values, fault);
}

std::optional<ExprSyntaxError> syntax_error(std::string_view text) {
    std::vector<ExprInstr> code;
    return parse_expr(text, symbols({"s0", "s1"}), code);
}

std::int64_t pair_peak(const GraphFile& f) {
    const Pair& p = f.pairs[0];
    return analyze_pair(f, f.graph(p.forward), f.graph(p.backward), default_counted(f)).peak.peak;
}

// symbolic.json's pair peak with s1 = 10 (p = s0 * s1), from its expressions by hand (see
// BindsTheHandComputedFile): the backward's peak 16 s0 s1^2 + 200 + 40p + 12 (p // 2) + 100 ceil(p / 4).
std::int64_t hand_pair_peak(std::int64_t s0, std::int64_t s1) {
    const std::int64_t p = s0 * s1;
    return 16 * s0 * s1 * s1 + 200 + 40 * p + 12 * (p / 2) + 100 * ((p + 3) / 4);
}

} // namespace

TEST(SymbolicExpr, EvaluatesTheGrammarsForms) {
    EXPECT_EQ(eval("4*s0*s1"), 60);
    EXPECT_EQ(eval("2*s0 + 8"), 14);
    EXPECT_EQ(eval("s0 - 1"), 2);
    EXPECT_EQ(eval("4*s0**2 + 2*s0"), 42);
    EXPECT_EQ(eval("Max(1, s0)"), 3);
    EXPECT_EQ(eval("Max(1, s1, 4)"), 5);
    EXPECT_EQ(eval("Min(4, s0, 9)"), 3);
    EXPECT_EQ(eval("(s1//2)"), 2);
    EXPECT_EQ(eval("((s0 + 6)//4)"), 2);
    EXPECT_EQ(eval("  s0  *  2 "), 6);
    // Precedence: * over + and -, ** over unary minus and *.
    EXPECT_EQ(eval("2 + 3*4"), 14);
    EXPECT_EQ(eval("(2 + 3)*4"), 20);
    EXPECT_EQ(eval("2*s0**2"), 18);
    EXPECT_EQ(eval("-s0**2"), -9);
    EXPECT_EQ(eval("7 - 3*s0*s1"), -38);
    EXPECT_EQ(eval("--s0"), 3);
    EXPECT_EQ(eval("s0**0"), 1);
    EXPECT_EQ(eval("0**0"), 1);
}

TEST(SymbolicExpr, DividesAsPythonDoes) {
    // Python: -7 // 2 == -4, 7 // -2 == -4, -7 % 3 == 2, 7 % -3 == -2; ceil(-7 / 2) == -3.
    EXPECT_EQ(eval("FloorDiv(s0, 2)", {-7, 0}), -4);
    EXPECT_EQ(eval("(s0//2)", {-7, 0}), -4);
    EXPECT_EQ(eval("FloorDiv(7, s0)", {-2, 0}), -4);
    EXPECT_EQ(eval("FloorDiv(s0, 2)", {-8, 0}), -4);
    EXPECT_EQ(eval("FloorDiv(s0, 2)", {7, 0}), 3);
    EXPECT_EQ(eval("CeilDiv(s0, 2)", {-7, 0}), -3);
    EXPECT_EQ(eval("CeilDiv(s0, 2)", {7, 0}), 4);
    EXPECT_EQ(eval("CeilDiv(s0, 2)", {8, 0}), 4);
    EXPECT_EQ(eval("CeilDiv(7, s0)", {-2, 0}), -3);
    EXPECT_EQ(eval("Mod(s0, 3)", {-7, 0}), 2);
    EXPECT_EQ(eval("Mod(7, s0)", {-3, 0}), -2);
    EXPECT_EQ(eval("Mod(s0, 3)", {-9, 0}), 0);
    EXPECT_EQ(eval("Mod(s0, 4)", {10, 0}), 2);
    // The one quotient int64 cannot hold, and the remainder C++ leaves undefined.
    EvalFault fault{};
    EXPECT_EQ(eval("FloorDiv(-9223372036854775807 - 1, s0)", {-1, 0}, &fault), std::nullopt);
    EXPECT_EQ(fault, EvalFault::Overflow);
    EXPECT_EQ(eval("Mod(-9223372036854775807 - 1, s0)", {-1, 0}), 0);
    EXPECT_EQ(eval("FloorDiv(s0, s1)", {3, 0}, &fault), std::nullopt);
    EXPECT_EQ(fault, EvalFault::DivisionByZero);
    EXPECT_EQ(eval("Mod(s0, s1)", {3, 0}, &fault), std::nullopt);
    EXPECT_EQ(fault, EvalFault::DivisionByZero);
}

TEST(SymbolicExpr, OverflowIsAFaultNotAWrongNumber) {
    EvalFault fault{};
    EXPECT_EQ(eval("2**62"), std::int64_t{1} << 62);
    EXPECT_EQ(eval("2**63", {3, 5}, &fault), std::nullopt);
    EXPECT_EQ(fault, EvalFault::Overflow);
    EXPECT_EQ(eval("-2**63", {3, 5}), std::nullopt); // 2**63 overflows before the minus
    EXPECT_EQ(eval("(-2)**63"), std::numeric_limits<std::int64_t>::min());
    EXPECT_EQ(eval("s0**63", {1, 0}), 1);
    EXPECT_EQ(eval("s0**63", {-1, 0}), -1);
    EXPECT_EQ(eval("s0**40", {3, 0}), std::nullopt); // 3^40 > 2^63
    EXPECT_EQ(eval("s0**39", {3, 0}), 4052555153018976267);
    EXPECT_EQ(eval("s0*s1", {std::int64_t{1} << 32, std::int64_t{1} << 31}), std::nullopt);
    EXPECT_EQ(eval("s0*s1", {std::int64_t{1} << 32, (std::int64_t{1} << 31) - 1}),
              std::numeric_limits<std::int64_t>::max() - (std::int64_t{1} << 32) + 1);
    EXPECT_EQ(eval("s0 + s1", {std::numeric_limits<std::int64_t>::max(), 1}), std::nullopt);
    EXPECT_EQ(eval("s0 - s1", {std::numeric_limits<std::int64_t>::min(), 1}), std::nullopt);
    EXPECT_EQ(eval("-s0", {std::numeric_limits<std::int64_t>::min(), 0}), std::nullopt);
    EXPECT_EQ(eval("9223372036854775807"), std::numeric_limits<std::int64_t>::max());
}

// An intermediate value past int64 made the whole expression an overflow, so fit stopped at
// s0 = 2,097,151 on Min(s0**3, 5), whose value is 5 throughout.
TEST(SymbolicExpr, AnIntermediateOverflowTheResultDoesNotNeedIsNoFault) {
    const std::int64_t big = std::int64_t{1} << 21; // big**3 = 2^63
    EXPECT_EQ(eval("Min(s0**3, 5)", {big, 0}), 5);
    EXPECT_EQ(eval("Min(5, s0**3, 7)", {big * 1000, 0}), 5);
    EXPECT_EQ(eval("Max(-s0**3, 0)", {big, 0}), 0);
    EXPECT_EQ(eval("Max((-s0)**3, -4)", {big, 0}), -4);
    EXPECT_EQ(eval("0*s0**3 + 8", {big, 0}), 8);
    EXPECT_EQ(eval("s1*s0*s0*s0 + 1", {big, 0}), 1);
    EXPECT_EQ(eval("Min(s0*s0*s0, s1)", {big, 9}), 9);
    EXPECT_EQ(eval("Min(s0 + s1, 3)", {std::numeric_limits<std::int64_t>::max(), 1}), 3);
    EXPECT_EQ(eval("Max(s0 - s1, 3)", {std::numeric_limits<std::int64_t>::min(), 1}), 3);
    // Still faults: a result past int64, a quotient, remainder or opposite sum of such a value.
    EvalFault fault{};
    EXPECT_EQ(eval("Max(s0**3, 5)", {big, 0}, &fault), std::nullopt);
    EXPECT_EQ(fault, EvalFault::Overflow);
    EXPECT_EQ(eval("FloorDiv(s0**3, 2)", {big, 0}), std::nullopt);
    EXPECT_EQ(eval("Mod(s0**3, 7)", {big, 0}), std::nullopt);
    EXPECT_EQ(eval("Min(s0**3 - s0**3, 1)", {big, 0}), std::nullopt);
    EXPECT_EQ(eval("Min(FloorDiv(s0, 0), 1)", {big, 0}, &fault), std::nullopt);
    EXPECT_EQ(fault, EvalFault::DivisionByZero);
}

TEST(SymbolicExpr, SyntaxErrorsNameTheColumn) {
    const auto expect_error = [](std::string_view text, std::size_t column, std::string_view what) {
        const auto e = syntax_error(text);
        ASSERT_TRUE(e) << text;
        EXPECT_EQ(e->column, column) << text << ": " << e->what;
        EXPECT_NE(e->what.find(what), std::string::npos) << text << ": " << e->what;
    };
    expect_error("", 0, "empty expression");
    expect_error("s0 +", 4, "expected a number");
    expect_error("s0 * * 2", 5, "expected a number");
    expect_error("s0 / 2", 3, "unexpected '/'");
    expect_error("(s0", 3, "expected ')'");
    expect_error("s0)", 2, "unexpected ')'");
    expect_error("2*s9", 2, "unknown symbol 's9'");
    expect_error("Sqrt(s0)", 0, "unknown function 'Sqrt'");
    expect_error("FloorDiv(s0)", 0, "FloorDiv takes two arguments, got 1");
    expect_error("Mod(s0, 2, 3)", 0, "Mod takes two arguments, got 3");
    expect_error("Max(s0)", 0, "Max takes two or more arguments, got 1");
    expect_error("s0**s1", 4, "the exponent must be a non-negative integer");
    expect_error("s0**64", 4, "exponent 64 is too large");
    expect_error("99999999999999999999", 0, "does not fit in 64 bits");
    expect_error("s0 2", 3, "unexpected '2'");
    expect_error("s0\n", 2, "unexpected character 10");
    // Nesting: 64 levels read, 65 refused, whatever nests (parentheses, calls, minus signs).
    EXPECT_FALSE(syntax_error(std::string(64, '(') + "s0" + std::string(64, ')')));
    expect_error(std::string(65, '(') + "s0" + std::string(65, ')'), 64, "nests deeper than 64 levels");
    EXPECT_FALSE(syntax_error(std::string(64, '-') + "s0"));
    expect_error(std::string(65, '-') + "s0", 64, "nests deeper than 64 levels");
    std::string calls = "s0";
    for (int i = 0; i < 65; ++i) calls = "Max(1, " + calls + ")";
    expect_error(calls, 7 * 64, "nests deeper");
    // A failed parse leaves the code as it was.
    std::vector<ExprInstr> code = {{ExprOp::Const, 7}};
    EXPECT_TRUE(parse_expr("1 + s9", symbols({"s0"}), code));
    EXPECT_EQ(code.size(), 1u);
}

TEST(SymbolicExpr, MonotoneByForm) {
    const auto up = [](std::string_view text, std::size_t symbol, std::vector<std::int64_t> at_min) {
        std::vector<ExprInstr> code;
        EXPECT_FALSE(parse_expr(text, symbols({"s0", "s1"}), code)) << text;
        return non_decreasing_in(code, symbol, at_min);
    };
    EXPECT_TRUE(up("4*s0*s1", 0, {1, 8}));
    EXPECT_TRUE(up("s0 - 1", 0, {1, 8}));
    EXPECT_TRUE(up("(s0 - 10)*4", 0, {1, 8}));          // a positive constant times a rising term
    EXPECT_FALSE(up("(s0 - 10)*(s0 - 10)", 0, {1, 8})); // negative at the minimum: falls, then rises
    EXPECT_TRUE(up("(s0 - 1)*(s0 - 1)", 0, {1, 8}));
    EXPECT_FALSE(up("1 - s0", 0, {1, 8}));
    EXPECT_FALSE(up("-s0", 0, {1, 8}));
    EXPECT_FALSE(up("-4*s0", 0, {1, 8}));
    EXPECT_TRUE(up("s0**2", 0, {0, 8}));
    EXPECT_FALSE(up("s0**2", 0, {-3, 8}));
    EXPECT_TRUE(up("Max(1, s0)", 0, {1, 8}));
    EXPECT_TRUE(up("Min(s1, 2*s0)", 0, {1, 8}));
    EXPECT_TRUE(up("(s0//4)", 0, {1, 8}));
    EXPECT_TRUE(up("32*CeilDiv(s0, 32)", 0, {1, 8}));
    EXPECT_TRUE(up("FloorDiv(s0, s1)", 0, {1, 8})); // s1 is a positive constant while s0 varies
    EXPECT_FALSE(up("FloorDiv(s0, s1)", 1, {1, 8}));
    EXPECT_FALSE(up("FloorDiv(s0, -2)", 0, {1, 8}));
    EXPECT_FALSE(up("Mod(s0, 4)", 0, {1, 8}));
    EXPECT_TRUE(up("Mod(s1, 4) + s0", 0, {1, 8})); // constant while s0 varies
    EXPECT_TRUE(up("s1*s1*3", 0, {1, -8}));        // does not depend on s0
    EXPECT_FALSE(up("s0*s1", 0, {1, -8}));         // a negative constant times s0
}

TEST(SymbolicRead, ReadsAndWritesBackTheExpressions) {
    const GraphFile f = load_file(kGood + "/symbolic.json");
    const SymbolicSizes& sy = f.symbolic;
    ASSERT_EQ(sy.symbols.size(), 2u);
    EXPECT_EQ(sy.symbols[0].name, "s0");
    EXPECT_EQ(sy.symbols[0].hint, 2);
    EXPECT_EQ(sy.symbols[0].source, "L['x'].size()[0]");
    EXPECT_EQ(sy.symbols[0].min, 1);
    EXPECT_EQ(sy.symbols[0].max, 64);
    EXPECT_EQ(sy.symbols[1].max, std::nullopt);
    EXPECT_EQ(sy.storage_sizes.size(), 6u);
    EXPECT_EQ(sy.node_flops.size(), 1u);
    EXPECT_EQ(sy.tensor_entries.size(), 2u); // mm's and relu's shape[0]; constant entries are not listed
    EXPECT_EQ(sy.bound, (std::vector<std::int64_t>{2, 5}));
    const std::string text = to_json(f);
    EXPECT_NE(text.find(R"("nbytes_expr": "CeilDiv(s0*s1, 4)*100")"), std::string::npos) << text;
    EXPECT_NE(text.find(R"("shape_expr": ["4*s0*s1**2"])"), std::string::npos) << text;
    EXPECT_EQ(text.find("stride_expr"), std::string::npos); // constant strides are not written
    EXPECT_NE(text.find(R"("flops": 2000, "flops_expr": "200*s0*s1")"), std::string::npos) << text;
    EXPECT_NE(text.find(R"({"name": "s1", "hint": 5, "source": "L['x'].size()[1]", "min": 2, "max": null})"),
              std::string::npos)
        << text;
    EXPECT_EQ(to_json(load_buffer(text, "again")), text);
    // The fast path and nlohmann's read the same.
    const std::string raw = read_regular_file(kGood + "/symbolic.json");
    EXPECT_EQ(to_json(*load_buffer_fast(raw, "x")), to_json(load_buffer_nlohmann(raw, "x")));
}

TEST(SymbolicRead, SymbolsMayComeLast) {
    // "symbols" after everything that uses it: the expressions wait for the end of the file.
    std::string text = read_regular_file(kGood + "/symbolic_small.json");
    const auto at = text.find("\"symbols\"");
    const auto end = text.find("],\n", at) + 3;
    const std::string symbols = text.substr(at, end - at - 2);
    text.erase(at, end - at);
    text.insert(text.rfind('}'), ",\n" + symbols);
    const GraphFile f = load_buffer(text, "last");
    ASSERT_EQ(f.symbolic.symbols.size(), 1u);
    EXPECT_EQ(f.symbolic.storage_sizes.size(), 1u);
    EXPECT_EQ(to_json(f), to_json(load_file(kGood + "/symbolic_small.json")));
}

// symbolic.json is pair.json (its hand-computed numbers are in test_cli.cpp's ProfilesOfAPair and
// PeakOfAPair) with sizes in s0, s1 (hints 2, 5): s12 40 s0 s1, s13 16 s0 s1^2, s15 5 s0 s1,
// s20 12 (s0 s1 // 2), s21 100 CeilDiv(s0 s1, 4), s22 Min(120, 12 s0 s1); s10 100, s11 200 and the
// CPU s14 1000 fixed.
TEST(SymbolicBind, BindsTheHandComputedFile) {
    GraphFile f = load_file(kGood + "/symbolic.json");
    bind_sizes(f, SizeBinding{{4, 10}});
    // p = 40: s12 1600, s13 6400, s15 200, s20 240, s21 1000, s22 120.
    const auto bytes = [&](std::int64_t id) { return f.nbytes(f.find_storage(id)); };
    EXPECT_EQ(bytes(12), 1600);
    EXPECT_EQ(bytes(13), 6400);
    EXPECT_EQ(bytes(15), 200);
    EXPECT_EQ(bytes(20), 240);
    EXPECT_EQ(bytes(21), 1000);
    EXPECT_EQ(bytes(22), 120);
    EXPECT_EQ(bytes(10), 100);
    EXPECT_EQ(f.total_bytes(), 100 + 200 + 1600 + 6400 + 1000 + 200 + 240 + 1000 + 120);
    // Forward profile: start s10 + s11 = 300; t: 300, 300; tmp: + 200 -> 500, 500; mm: + 1600 ->
    // 2100, frees tmp -> 1900; relu: + 6400 -> 8300, 8300.
    const Graph& fwd = f.graphs[0];
    const AliasInfo alias = build_alias_info(f, fwd);
    EXPECT_EQ(build_memory_profile(f, fwd, alias, default_releasable(fwd), default_counted(f)),
              (std::vector<std::int64_t>{300, 300, 300, 500, 500, 2100, 1900, 8300, 8300}));
    // Backward in its pair: start s11 + s12 + s20 = 2040; mul + 1000 = 3040; baseline s13 6400:
    // 9440 (hand_pair_peak).
    const PeakMemory peak = analyze_pair(f, f.graphs[0], f.graphs[1], default_counted(f)).peak;
    EXPECT_EQ(peak.forward_peak, 8300);
    EXPECT_EQ(peak.backward_baseline, 6400);
    EXPECT_EQ(peak.backward_peak, 9440);
    EXPECT_EQ(hand_pair_peak(4, 10), 9440);
    // Shapes and FLOPs: mm [10 s0 s1] = [400], relu [4 s0 s1^2] = [1600], mm's FLOPs 200 s0 s1.
    const NodeId mm = fwd.find("mm"), relu = fwd.find("relu");
    EXPECT_EQ(fwd.shape(fwd.node_tensors(mm)[0])[0], 400);
    EXPECT_EQ(fwd.shape(fwd.node_tensors(relu)[0])[0], 1600);
    EXPECT_EQ(fwd.flops(mm), 8000);
    EXPECT_EQ(f.symbolic.bound, (std::vector<std::int64_t>{4, 10}));
    // Written at that binding, the file reads back there: its hints are the bound values.
    const GraphFile back = load_buffer(to_json(f), "bound");
    EXPECT_EQ(back.symbolic.symbols[0].hint, 4);
    EXPECT_EQ(pair_peak(back), 9440);
    // And back at the hints, every number is the file's again.
    bind_sizes(f, hint_binding(f.symbolic));
    EXPECT_EQ(to_json(f), to_json(load_file(kGood + "/symbolic.json")));
}

TEST(SymbolicBind, RefusesWithoutChangingTheFile) {
    GraphFile f = load_file(kGood + "/symbolic.json");
    const std::string before = to_json(f);
    const auto message = [&](SizeBinding b) {
        try {
            bind_sizes(f, b);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(message({{65, 5}}).find("symbol 's0' (L['x'].size()[0]) = 65 is outside its range [1, 64]"),
              std::string::npos);
    EXPECT_NE(message({{2, 1}}).find("symbol 's1' (L['x'].size()[1]) = 1 is outside its range [2, inf)"),
              std::string::npos);
    EXPECT_NE(message({{2}}).find("a binding of 1 values for 2 symbols"), std::string::npos);
    // s1 = 2^30: 16 s0 s1^2 = 2^65 s0 overflows; the message names the storage and the binding.
    const std::string overflow = message({{2, std::int64_t{1} << 30}});
    EXPECT_NE(overflow.find("storage id 13: 'nbytes_expr' '16*s0*s1**2' overflows int64 at s0=2, s1=1073741824"),
              std::string::npos)
        << overflow;
    EXPECT_EQ(to_json(f), before);
    const auto e = try_bind_sizes(f, SizeBinding{{2, std::int64_t{1} << 30}});
    ASSERT_TRUE(e);
    EXPECT_EQ(e->kind, BindError::Kind::Overflow);
    EXPECT_EQ(try_bind_sizes(f, SizeBinding{{0, 5}})->kind, BindError::Kind::Invalid);
}

TEST(SymbolicBind, NegativeSizeAtABindingIsAnError) {
    std::string text = read_regular_file(kGood + "/symbolic_small.json");
    const std::string from = R"("nbytes": 64, "nbytes_expr": "16*s0")";
    text.replace(text.find(from), from.size(), R"("nbytes": 64, "nbytes_expr": "128 - 16*s0")");
    GraphFile f = load_buffer(text, "neg");
    EXPECT_THROW(bind_sizes(f, SizeBinding{{9}}), Error);
    try {
        bind_sizes(f, SizeBinding{{9}});
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("storage id 0: 'nbytes_expr' '128 - 16*s0' is -16 (negative) at s0=9"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_EQ(f.nbytes(StorageId(0)), 64);
}

TEST(SymbolicBind, KeepsTheFileFlopsUnderTheCap) {
    // symbolic_small.json with x's FLOPs 2 s0, s0 unbounded and its storage 16 Min(s0, 4) bytes.
    std::string text = read_regular_file(kGood + "/symbolic_small.json");
    const auto put = [&](const std::string& from, const std::string& to) {
        text.replace(text.find(from), from.size(), to);
    };
    put(R"("nbytes_expr": "16*s0")", R"x("nbytes_expr": "16*Min(s0, 4)")x");
    put(R"("max": 64)", R"("max": null)");
    put(R"("stride_expr": [4, 1]})", R"("stride_expr": [4, 1]}, "flops": 8, "flops_expr": "2*s0")");
    GraphFile f = load_buffer(text, "flops");
    const std::int64_t at_cap = GraphFile::kMaxTotalFlops / 2;
    bind_sizes(f, SizeBinding{{at_cap}});
    EXPECT_EQ(f.graphs[0].flops(NodeId(0)), GraphFile::kMaxTotalFlops);
    EXPECT_EQ(f.symbolic.bind_warning, "");
    // Past the cap the binding held (the memory does not depend on FLOPs): x's FLOPs are unknown,
    // with a warning, where the whole binding was refused as an overflow (fit: "does not fit").
    EXPECT_FALSE(try_bind_sizes(f, SizeBinding{{at_cap + 1}}));
    EXPECT_EQ(f.graphs[0].flops(NodeId(0)), std::nullopt);
    EXPECT_EQ(f.storages[0].nbytes, 64); // 16 Min(s0, 4)
    EXPECT_EQ(f.symbolic.bind_warning,
              "flops: at s0=1152921504606846977 the FLOPs of 1 node (first graph 'g', node 'x') overflow or pass 2^61 "
              "in all, and are left unknown; the memory is exact");
    EXPECT_FALSE(try_bind_sizes(f, SizeBinding{{std::numeric_limits<std::int64_t>::max()}})); // 2 s0 overflows
    EXPECT_EQ(f.graphs[0].flops(NodeId(0)), std::nullopt);
    bind_sizes(f, SizeBinding{{4}});
    EXPECT_EQ(f.graphs[0].flops(NodeId(0)), 8);
    EXPECT_EQ(f.symbolic.bind_warning, "");
}

TEST(SymbolicBind, AtTheHintsEveryBundledExampleIsUnchanged) {
    std::size_t files = 0, symbolic = 0;
    for (const auto& e : std::filesystem::directory_iterator(kExamples)) {
        if (!e.path().string().ends_with(".fxmem.json")) continue;
        SCOPED_TRACE(e.path().filename().string());
        GraphFile f = load_file(e.path().string());
        const std::string before = to_json(f);
        const std::int64_t total = f.total_bytes();
        const std::int64_t peak = f.pairs.empty() ? 0 : pair_peak(f);
        bind_sizes(f, hint_binding(f.symbolic));
        EXPECT_EQ(to_json(f), before);
        EXPECT_EQ(to_json(load_buffer(before, "again")), before); // the expressions read back as written
        EXPECT_EQ(f.total_bytes(), total);
        if (!f.pairs.empty()) {
            EXPECT_EQ(pair_peak(f), peak);
        }
        ++files;
        symbolic += f.symbolic.empty() ? 0 : 1;
    }
    EXPECT_GE(files, 10u);
    EXPECT_GE(symbolic, 1u); // llama_dynamic
}

TEST(SymbolicFit, EqualsABruteForceScan) {
    const GraphFile f = load_file(kGood + "/symbolic.json");
    const FitMeasure measure = [](const GraphFile& g) { return pair_peak(g); };
    for (const std::int64_t limit : {std::int64_t{100}, std::int64_t{9440}, std::int64_t{9439}, std::int64_t{100000},
                                     std::int64_t{1000000}, std::int64_t{1} << 40}) {
        SCOPED_TRACE(limit);
        // The scan: s0 from its minimum 1 up while the hand-computed peak fits (range [1, 64]).
        std::optional<std::int64_t> expected;
        for (std::int64_t v = 1; v <= 64 && hand_pair_peak(v, 10) <= limit; ++v) expected = v;
        FitQuery q;
        q.symbol = 0;
        q.binding = SizeBinding{{2, 10}};
        q.limit = limit;
        const FitResult r = fit_symbol(f, q, measure);
        EXPECT_TRUE(r.monotone);
        EXPECT_EQ(r.max_value, expected);
        if (expected) {
            EXPECT_EQ(r.peak_at_max, hand_pair_peak(*expected, 10));
        }
        if (!expected) {
            EXPECT_EQ(r.next_value, 1);
            EXPECT_EQ(r.peak_at_next, hand_pair_peak(1, 10));
        } else if (*expected < 64) {
            EXPECT_EQ(r.next_value, *expected + 1);
            EXPECT_EQ(r.peak_at_next, hand_pair_peak(*expected + 1, 10));
        } else {
            EXPECT_EQ(r.next_value, std::nullopt);
            EXPECT_EQ(r.peak_at_next, std::nullopt);
        }
        EXPECT_LE(r.probes, 2u * 7u + 2u); // a gallop and a bisection over 64 values
    }
    // s1 is unbounded above: galloping ends where the peak passes the limit, or where the sizes
    // overflow int64 (that size does not fit).
    FitQuery q;
    q.symbol = 1;
    q.binding = SizeBinding{{4, 2}};
    q.limit = std::numeric_limits<std::int64_t>::max();
    const FitResult huge = fit_symbol(f, q, measure);
    ASSERT_TRUE(huge.max_value);
    EXPECT_EQ(huge.peak_at_next, std::nullopt); // the next value overflows
    q.limit = 1000000;
    const FitResult r = fit_symbol(f, q, measure);
    std::int64_t expected = 1;
    while (hand_pair_peak(4, expected + 1) <= q.limit) ++expected;
    EXPECT_EQ(r.max_value, expected);
}

TEST(SymbolicFit, ScansWhenTheSizesAreNotMonotone) {
    // s22 becomes Mod(s0 s1, 3) 40 + 80 (120 at the hints): not monotone by its form.
    std::string text = read_regular_file(kGood + "/symbolic.json");
    const std::string from = R"x("Min(120, 12*s0*s1)")x";
    text.replace(text.find(from), from.size(), R"("Mod(s0*s1, 3)*40 + 80")");
    const GraphFile f = load_buffer(text, "mod");
    const FitMeasure measure = [](const GraphFile& g) { return pair_peak(g); };
    FitQuery q;
    q.symbol = 0;
    q.binding = SizeBinding{{2, 10}};
    q.limit = 50000;
    const FitResult r = fit_symbol(f, q, measure);
    EXPECT_FALSE(r.monotone);
    std::int64_t expected = 0;
    for (std::int64_t v = 1; v <= 64; ++v) {
        GraphFile g = f;
        bind_sizes(g, SizeBinding{{v, 10}});
        if (pair_peak(g) > q.limit) break;
        expected = v;
    }
    EXPECT_EQ(r.max_value, expected);
    EXPECT_EQ(r.probes, static_cast<std::size_t>(expected) + 1);
    // s1's range is unbounded: a scan is refused, naming the storage's expression.
    q.symbol = 1;
    try {
        fit_symbol(f, q, measure);
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("storage id 22's size 'Mod(s0*s1, 3)*40 + 80' is not non-decreasing in "
                                             "'s1'"),
                  std::string::npos)
            << e.what();
    }
}

// The reader refuses a negative minimum (tests/data/bad/symbolic_negative_min.json), but fit_symbol
// takes any SymbolicSizes: galloping from a negative minimum computed hi - good past int64 and
// answered -1 (or -2^63) where 884 is right.
TEST(SymbolicFit, GallopsFromANegativeMinimum) {
    std::string text = read_regular_file(std::string(FXMEM_TEST_DATA) + "/bad/symbolic_negative_min.json");
    const auto put = [&](const std::string& from, const std::string& to) {
        ASSERT_NE(text.find(from), std::string::npos) << from;
        text.replace(text.find(from), from.size(), to);
    };
    put(R"("min": -1)", R"("min": 0)");
    put(R"("nbytes": 64, "nbytes_expr": "16*s0")", R"x("nbytes": 4, "nbytes_expr": "Max(s0, 0)")x");
    put(R"("shape_expr": ["s0", 4])", R"x("shape_expr": ["Max(s0, 0)", 4])x"); // no negative dimension
    GraphFile f = load_buffer(text, "max.json");
    const FitMeasure measure = [](const GraphFile& g) { // 116 bytes besides, the sum capped at 2^63-1
        return std::min(g.storages[0].nbytes, std::numeric_limits<std::int64_t>::max() - 116) + 116;
    };
    for (const std::int64_t min : {std::int64_t{-1}, std::numeric_limits<std::int64_t>::min()}) {
        SCOPED_TRACE(min);
        f.symbolic.symbols[0].min = min;
        FitQuery q;
        q.binding = SizeBinding{{0}};
        q.limit = 1000;
        const FitResult r = fit_symbol(f, q, measure);
        EXPECT_TRUE(r.monotone);
        EXPECT_EQ(r.max_value, 884); // Max(884, 0) + 116 = 1000
        EXPECT_EQ(r.peak_at_max, 1000);
        EXPECT_EQ(r.next_value, 885);
        EXPECT_EQ(r.peak_at_next, 1001);
    }
}

namespace {

// symbolic_small.json (one storage of 16 s0 bytes, s0 in [2, 64]) with `edits` applied; the measure
// is that storage's size, what a graph holding only it peaks at.
GraphFile small_with(std::initializer_list<std::pair<std::string, std::string>> edits) {
    std::string text = read_regular_file(kGood + "/symbolic_small.json");
    for (const auto& [from, to] : edits) {
        EXPECT_NE(text.find(from), std::string::npos) << from;
        if (text.find(from) != std::string::npos) text.replace(text.find(from), from.size(), to);
    }
    return load_buffer(text, "small");
}

const FitMeasure kStorageSize = [](const GraphFile& g) { return g.storages[0].nbytes; };

} // namespace

// (s0-50)**2 at 500 bytes: the minimum 2 needs 2304, so "nothing fits", though every s0 from 28 to
// 64 (the range's end) fits. The scan says so now.
TEST(SymbolicFit, SaysWhatFitsWhenTheMinimumDoesNot) {
    const GraphFile f =
        small_with({{R"("nbytes": 64, "nbytes_expr": "16*s0")", R"x("nbytes": 2116, "nbytes_expr": "(s0 - 50)**2")x"}});
    FitQuery q;
    q.binding = SizeBinding{{4}};
    q.limit = 500;
    const FitResult r = fit_symbol(f, q, kStorageSize);
    EXPECT_FALSE(r.monotone);
    EXPECT_EQ(r.max_value, std::nullopt);
    EXPECT_EQ(r.next_value, 2);
    EXPECT_EQ(r.peak_at_next, 48 * 48);
    // By hand: (v - 50)^2 <= 500 for |v - 50| <= 22.
    EXPECT_EQ(r.fits_first, 28);
    EXPECT_EQ(r.fits_last, 64);
    EXPECT_EQ(r.probes, 63u); // 2 to 64
    q.limit = 100;            // |v - 50| <= 10: 40 to 60, then 61 does not fit and the scan ends
    const FitResult narrow = fit_symbol(f, q, kStorageSize);
    EXPECT_EQ(narrow.fits_first, 40);
    EXPECT_EQ(narrow.fits_last, 60);
    EXPECT_EQ(narrow.probes, 60u); // 2 to 61
    q.limit = 10;                  // only 47 to 53
    EXPECT_EQ(fit_symbol(f, q, kStorageSize).fits_first, 47);
}

// FLOPs over 2^61 at large s0 made every such s0 "not fit" (answer about 1.3 million); the memory,
// 16 s0 bytes, fits up to s0 = 62,500,000 in 10^9 bytes.
TEST(SymbolicFit, OverflowOutsideTheMemoryDoesNotDecide) {
    const GraphFile f =
        small_with({{R"("max": 64)", R"("max": null)"},
                    {R"("stride_expr": [4, 1]})", R"("stride_expr": [4, 1]}, "flops": 64, "flops_expr": "s0**3")"}});
    FitQuery q;
    q.binding = SizeBinding{{4}};
    q.limit = 1'000'000'000;
    const FitResult r = fit_symbol(f, q, kStorageSize);
    EXPECT_TRUE(r.monotone);
    EXPECT_EQ(r.max_value, 62'500'000);
    EXPECT_EQ(r.peak_at_next, 1'000'000'016);
    // Min(s0**3, 5) is 5 bytes throughout: s0**3 past int64 stopped the gallop at 2,097,151.
    const GraphFile m =
        small_with({{R"("max": 64)", R"("max": null)"},
                    {R"("nbytes": 64, "nbytes_expr": "16*s0")", R"x("nbytes": 5, "nbytes_expr": "Min(s0**3, 5)")x"}});
    const FitResult all = fit_symbol(m, q, kStorageSize);
    EXPECT_EQ(all.max_value, std::numeric_limits<std::int64_t>::max());
    EXPECT_EQ(all.peak_at_max, 5);
    EXPECT_EQ(all.next_value, std::nullopt);
}

// Issue 39, item 5: a stride or storage offset that overflows int64 at large s0 (s0**3 - 60 is
// 2^63 - 60 at s0 = 2^21 and past 2^63-1 from 2^21 + 1 = 2,097,153; 4 and 0 at the hint 4, as the
// file's stride and offset) decided "does not fit" there; no stride or offset is memory,
// so the answer is the storage's 16 s0 bytes alone: 10^9 / 16 = 62,500,000 fits, and 62,500,001
// needs 1,000,000,016 bytes.
TEST(SymbolicFit, StridesAndOffsetsThatOverflowDoNotDecide) {
    for (const char* layout :
         {R"("stride_expr": ["s0**3 - 60", 1]})", R"("stride_expr": [4, 1], "offset_expr": "s0**3 - 64"})"}) {
        SCOPED_TRACE(layout);
        const GraphFile f = small_with({{R"("max": 64)", R"("max": null)"}, {R"("stride_expr": [4, 1]})", layout}});
        FitQuery q;
        q.binding = SizeBinding{{4}};
        q.limit = 1'000'000'000;
        const FitResult r = fit_symbol(f, q, kStorageSize);
        EXPECT_TRUE(r.monotone);
        EXPECT_EQ(r.max_value, 62'500'000);
        EXPECT_EQ(r.peak_at_max, 1'000'000'000);
        EXPECT_EQ(r.next_value, 62'500'001);
        EXPECT_EQ(r.peak_at_next, 1'000'000'016);
        // bind_sizes itself still refuses the overflow, naming the tensor's place.
        GraphFile g = f;
        const std::optional<BindError> e = try_bind_sizes(g, SizeBinding{{2'097'153}});
        ASSERT_TRUE(e);
        EXPECT_EQ(e->kind, BindError::Kind::Overflow);
        EXPECT_NE(e->message.find("graph 'g', node 'x', tensor 0"), std::string::npos) << e->message;
    }
}

// A CPU storage of 64 s0**3 bytes overflows int64 from s0 = 2^19 = 524,288 (64 * 2^57 = 2^63). The
// memory counts no CPU storage: the answer is the GPU storage's 16 s0 bytes, 62,500,000 in 10^9.
// Counted (--devices all), the CPU storage's overflow decides again: 524,287 is the last value
// whose sizes are defined (the measure here reads the GPU storage only, so only the overflow stops it).
TEST(SymbolicFit, AnUncountedCpuStorageThatOverflowsDoesNotDecide) {
    const GraphFile f = small_with(
        {{R"("max": 64)", R"("max": null)"},
         {R"({"id": 0, "device": "cuda:0", "nbytes": 64, "nbytes_expr": "16*s0"})",
          R"({"id": 0, "device": "cuda:0", "nbytes": 64, "nbytes_expr": "16*s0"},
  {"id": 1, "device": "cpu", "nbytes": 4096, "nbytes_expr": "64*s0**3"})"},
         {R"({"name": "output")",
          R"({"name": "y", "op": "placeholder", "target": "y", "inputs": [], "val": {"storage": 1, "dtype": "torch.float32", "shape": [4, 4], "stride": [4, 1], "offset": 0}},
    {"name": "output")"}});
    ASSERT_EQ(f.storages.size(), 2u);
    ASSERT_TRUE(f.is_cpu(StorageId(1)));
    FitQuery q;
    q.binding = SizeBinding{{4}};
    q.limit = 1'000'000'000;
    const FitResult r = fit_symbol(f, q, kStorageSize);
    EXPECT_TRUE(r.monotone);
    EXPECT_EQ(r.max_value, 62'500'000);
    EXPECT_EQ(r.peak_at_next, 1'000'000'016);
    q.count_cpu = true;
    const FitResult counted = fit_symbol(f, q, kStorageSize);
    EXPECT_EQ(counted.max_value, 524'287);
    EXPECT_EQ(counted.next_value, 524'288);
    EXPECT_EQ(counted.peak_at_next, std::nullopt);
}

// The app's "Largest that fits" job checked for cancellation only before the search: a scan
// polls before every evaluation, reports progress, and stops at its time limit.
TEST(SymbolicFit, PollsCancelReportsProgressAndStopsAtTheTimeLimit) {
    const GraphFile f =
        small_with({{R"("nbytes": 64, "nbytes_expr": "16*s0")", R"x("nbytes": 5, "nbytes_expr": "Mod(s0, 7) + 1")x"}});
    FitQuery q;
    q.binding = SizeBinding{{4}};
    q.limit = 1000; // every value fits: the scan runs to 64
    std::size_t polls = 0;
    q.cancelled = [&] { return ++polls > 10; };
    EXPECT_THROW(fit_symbol(f, q, kStorageSize), Cancelled);
    EXPECT_EQ(polls, 11u); // 10 evaluations, then the 11th poll stops it
    q.cancelled = {};
    std::vector<std::pair<std::int64_t, std::size_t>> reports;
    q.progress = [&](std::int64_t v, std::size_t probes) { reports.emplace_back(v, probes); };
    q.progress_every = 20;
    const FitResult r = fit_symbol(f, q, kStorageSize);
    EXPECT_FALSE(r.monotone);
    EXPECT_EQ(r.max_value, 64);
    EXPECT_EQ(r.probes, 63u);
    EXPECT_EQ(reports, (std::vector<std::pair<std::int64_t, std::size_t>>{{21, 20}, {41, 40}, {61, 60}}));
    q.progress = {};
    q.time_limit_s = 1e-9; // past after the first evaluation: the answer so far
    const FitResult stopped = fit_symbol(f, q, kStorageSize);
    EXPECT_TRUE(stopped.stopped);
    EXPECT_EQ(stopped.max_value, 2);
    EXPECT_EQ(stopped.next_value, std::nullopt);
    EXPECT_EQ(stopped.probes, 1u);
}
