// --set SYM=V[,SYM=V]: the symbols of a file with symbolic sizes bound to other values than the
// hints it was traced at (fxmem/symbolic.h); every number a command prints is then at that size.
#include "commands.h"
#include "table.h"
#include "text.h"

#include "fxmem/error.h"
#include "fxmem/io.h"
#include "fxmem/symbol_words.h"

#include <charconv>
#include <iostream>

namespace fxmem::cli {

namespace {

std::string symbol_list(const SymbolicSizes& sy) {
    if (sy.symbols.empty()) return "the file has no symbols: its sizes are not symbolic";
    std::string out = "the file's symbols: ";
    const std::vector<std::string> words = symbol_words(sy.symbols);
    for (std::size_t i = 0; i < sy.symbols.size() && i < 10; ++i) {
        const Symbol& s = sy.symbols[i];
        out += (i ? ", " : "") + elide(s.name);
        if (!s.source.empty()) out += " (" + elide(s.source) + ")";
        if (words[i] != s.name && words[i] != s.source) out += ", '" + elide(words[i]) + "'";
    }
    if (sy.symbols.size() > 10) out += ", ...";
    return out;
}

} // namespace

std::size_t symbol_option(const GraphFile& file, std::string_view option, std::string_view name) {
    // By name, source or the word the app shows ("batch", "sequence").
    if (const std::optional<std::size_t> i = find_symbol_by_word(file.symbolic, name)) return *i;
    throw Error(file.source + ": " + std::string(option) + ": no symbol '" + elide(std::string(name)) + "' (" +
                symbol_list(file.symbolic) + ")");
}

std::int64_t parse_int64(std::string_view option, std::string_view text) {
    std::int64_t v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size())
        throw UsageError(std::string(option) + " needs an integer value, got '" + std::string(text) + "'");
    return v;
}

SizeBinding binding_option(const GraphFile& file, const Args& args, std::vector<std::uint8_t>* given_out) {
    SizeBinding b = hint_binding(file.symbolic);
    std::vector<std::uint8_t> given(b.values.size(), 0);
    const std::optional<std::string> text = args.value("--set");
    if (!text) {
        if (given_out) *given_out = std::move(given);
        return b;
    }
    std::string_view rest = *text;
    while (true) {
        const std::size_t comma = rest.find(',');
        const std::string_view item = rest.substr(0, comma);
        const std::size_t eq = item.find('=');
        if (eq == std::string_view::npos || eq == 0)
            throw UsageError("--set needs SYM=VALUE[,SYM=VALUE...], got '" + std::string(item) + "'");
        const std::size_t i = symbol_option(file, "--set", item.substr(0, eq));
        if (given[i]) throw UsageError("--set gives symbol '" + file.symbolic.symbols[i].name + "' twice");
        given[i] = 1;
        b.values[i] = parse_int64("--set " + std::string(item.substr(0, eq)) + "=", item.substr(eq + 1));
        if (comma == std::string_view::npos) break;
        rest = rest.substr(comma + 1);
    }
    if (given_out) *given_out = std::move(given);
    return b;
}

GraphFile load_bound(const Args& args) {
    GraphFile file = load_file(args.file);
    if (args.has("--set")) bind_sizes(file, binding_option(file, args));
    // FLOPs past 2^61 at the binding: the memory is exact, what reports FLOPs is not.
    if (!file.symbolic.bind_warning.empty())
        std::cerr << "fxmem-cli: warning: " << escape_control(file.symbolic.bind_warning) << '\n';
    return file;
}

} // namespace fxmem::cli
