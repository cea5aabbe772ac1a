#include "fxmem/symbol_words.h"

#include <charconv>

namespace fxmem {

namespace {

struct SourceDim {
    std::string input; // the input's name in L['...']
    std::string word;  // "batch", "sequence", "x dim 2"; empty when the source has another form
};

// A quoted key at the start of `s` ('tokens' or "x"), without quotes inside; its length with the
// quotes, 0 when there is none.
std::size_t quoted_key(std::string_view s) {
    if (s.size() < 3 || (s[0] != '\'' && s[0] != '"')) return 0;
    const std::size_t close = s.find(s[0], 1);
    if (close == std::string_view::npos || close == 1) return 0;
    const std::string_view key = s.substr(1, close - 1);
    return key.find_first_of("'\"") == std::string_view::npos ? close + 1 : 0;
}

// Digits at the start of `s`: their count.
std::size_t digits(std::string_view s) {
    std::size_t n = 0;
    while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n;
    return n;
}

// L['tokens'].size()[0], L["x"].shape[1], L['args'][0].size()[0], L['batch']['ids'].size()[1]:
// the input (tokens, x, args[0], batch['ids']) and the dimension's word; any other form gives an
// empty word.
SourceDim parse_source(std::string_view s) {
    if (!s.starts_with("L[")) return {};
    std::size_t k = quoted_key(s.substr(2));
    if (k == 0 || s.size() <= 2 + k || s[2 + k] != ']') return {};
    std::string input(s.substr(3, k - 2));
    std::string_view rest = s.substr(3 + k);
    // Indexing into the input: [0] or ['key'], any number of times.
    while (rest.starts_with("[")) {
        const std::string_view inner = rest.substr(1);
        std::size_t n = digits(inner);
        if (n == 0) n = quoted_key(inner);
        if (n == 0 || inner.size() <= n || inner[n] != ']') return {};
        input += std::string(rest.substr(0, n + 2));
        rest.remove_prefix(n + 2);
    }
    if (rest.starts_with(".size()["))
        rest.remove_prefix(8);
    else if (rest.starts_with(".shape["))
        rest.remove_prefix(7);
    else
        return {};
    if (rest.size() < 2 || rest.back() != ']') return {};
    rest.remove_suffix(1);
    int dim = 0;
    const auto r = std::from_chars(rest.data(), rest.data() + rest.size(), dim);
    if (r.ec != std::errc() || r.ptr != rest.data() + rest.size() || dim < 0) return {};
    std::string word = dim == 0 ? "batch" : dim == 1 ? "sequence" : input + " dim " + std::to_string(dim);
    return {std::move(input), std::move(word)};
}

} // namespace

std::vector<std::string> symbol_words(std::span<const Symbol> symbols) {
    std::vector<SourceDim> parsed;
    parsed.reserve(symbols.size());
    for (const Symbol& s : symbols) parsed.push_back(parse_source(s.source));
    std::vector<std::string> out;
    out.reserve(symbols.size());
    for (std::size_t i = 0; i < symbols.size(); ++i) {
        if (parsed[i].word.empty()) {
            out.push_back(symbols[i].source.empty() ? symbols[i].name : symbols[i].source);
            continue;
        }
        std::size_t same = 0;
        for (const SourceDim& p : parsed) same += p.word == parsed[i].word ? 1 : 0;
        out.push_back(same > 1 ? parsed[i].word + " (" + parsed[i].input + ")" : parsed[i].word);
    }
    return out;
}

std::optional<std::size_t> find_symbol_by_word(const SymbolicSizes& sizes, std::string_view text) {
    if (const std::optional<std::size_t> i = sizes.find_symbol(text)) return i;
    const std::vector<std::string> words = symbol_words(sizes.symbols);
    for (std::size_t i = 0; i < words.size(); ++i)
        if (words[i] == text) return i;
    return std::nullopt;
}

} // namespace fxmem
