// What users call a symbol (fxmem/symbol_words.h), and fxmem-cli taking those words wherever it
// takes a symbol's name: worked out by hand from the Dynamo sources.
#include "cli_run.h"

#include "fxmem/symbol_words.h"

#include <gtest/gtest.h>

using namespace fxmem;
using fxmem_test::cli;

namespace {
Symbol sym(std::string name, std::string source) {
    Symbol s;
    s.name = std::move(name);
    s.source = std::move(source);
    s.min = 2;
    s.hint = 8;
    return s;
}
const std::string kLlamaDynamic = std::string(FXMEM_TEST_DATA) + "/../../resources/examples/llama_dynamic.fxmem.json";
} // namespace

TEST(SymbolWords, BatchAndSequenceFromTheSourcesDimension) {
    const std::vector<Symbol> s = {sym("s52", "L['tokens'].size()[0]"),
                                   sym("s27", "L['tokens'].size()[1]"),
                                   sym("s3", "L[\"img\"].shape[2]"),
                                   sym("s4", "L['x'].stride()[0]"),
                                   sym("s5", ""),
                                   sym("s6", "L['tokens'].size()[-1]"),
                                   sym("s7", "L['args'][0].shape[3]"),
                                   sym("s8", "L['b']['ids'].size()[4]"),
                                   sym("s9", "L['args'][x].size()[0]")};
    EXPECT_EQ(symbol_words(s), (std::vector<std::string>{"batch", "sequence", "img dim 2", "L['x'].stride()[0]", "s5",
                                                         "L['tokens'].size()[-1]", "args[0] dim 3", "b['ids'] dim 4",
                                                         "L['args'][x].size()[0]"}));
}

TEST(SymbolWords, TwoBatchesAreToldApartByTheirInput) {
    const std::vector<Symbol> s = {sym("s0", "L['a'].size()[0]"), sym("s1", "L['args'][1].size()[0]"),
                                   sym("s2", "L['a'].size()[1]")};
    EXPECT_EQ(symbol_words(s), (std::vector<std::string>{"batch (a)", "batch (args[1])", "sequence"}));
}

TEST(SymbolWords, FoundByNameThenSourceThenWord) {
    SymbolicSizes sizes;
    sizes.symbols = {sym("s0", "L['a'].size()[0]"), sym("batch", "L['b'].size()[1]")};
    // A symbol literally named "batch" wins over the word of another symbol.
    EXPECT_EQ(find_symbol_by_word(sizes, "batch"), 1u);
    EXPECT_EQ(find_symbol_by_word(sizes, "L['a'].size()[0]"), 0u);
    EXPECT_EQ(find_symbol_by_word(sizes, "sequence"), 1u);
    EXPECT_EQ(find_symbol_by_word(sizes, "s0"), 0u);
    EXPECT_EQ(find_symbol_by_word(sizes, "width"), std::nullopt);
}

TEST(SymbolWords, EveryCommandTakesTheWordsTheAppShows) {
    // llama_dynamic: s52 = L['tokens'].size()[0], s27 = L['tokens'].size()[1].
    const auto by_word = cli({"peak", kLlamaDynamic, "--set", "batch=4,sequence=128", "--json"});
    const auto by_name = cli({"peak", kLlamaDynamic, "--set", "s52=4,s27=128", "--json"});
    ASSERT_EQ(by_word.status, 0) << by_word.err;
    ASSERT_EQ(by_name.status, 0) << by_name.err;
    EXPECT_EQ(by_word.out, by_name.out);
    const auto fit_word =
        cli({"fit", kLlamaDynamic, "--memory", "1GiB", "--vary", "sequence", "--set", "batch=4", "--json"});
    const auto fit_name = cli({"fit", kLlamaDynamic, "--memory", "1GiB", "--vary", "s27", "--set", "s52=4", "--json"});
    ASSERT_EQ(fit_word.status, 0) << fit_word.err;
    EXPECT_EQ(fit_word.out, fit_name.out);
    // An unknown name lists the words beside the names and sources.
    const auto bad = cli({"fit", kLlamaDynamic, "--memory", "1GiB", "--vary", "width"});
    EXPECT_EQ(bad.status, 1);
    EXPECT_TRUE(fxmem_test::contains(bad.err, "s52 (L['tokens'].size()[0]), 'batch'")) << bad.err;
    EXPECT_TRUE(fxmem_test::contains(bad.err, "s27 (L['tokens'].size()[1]), 'sequence'")) << bad.err;
}
