#include "args.h"

#include <charconv>
#include <cmath>

namespace fxmem::cli {

std::optional<std::string> Args::value(std::string_view name) const {
    auto it = options.find(name);
    if (it == options.end()) return std::nullopt;
    return it->second;
}

Args parse_args(std::string command, std::span<char* const> argv, std::span<const OptionSpec> specs,
                std::span<const std::string_view> file_names) {
    static constexpr std::string_view kFile[] = {"FILE"};
    if (file_names.empty()) file_names = kFile;
    Args args;
    args.command = std::move(command);
    std::vector<std::string> positional;
    bool options_done = false;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const std::string_view arg = argv[i];
        if (options_done || arg.size() < 2 || arg[0] != '-') {
            positional.emplace_back(arg);
            continue;
        }
        if (arg == "--") {
            options_done = true;
            continue;
        }
        const auto eq = arg.find('=');
        const std::string_view name = arg.substr(0, eq);
        const OptionSpec* spec = nullptr;
        for (const OptionSpec& s : specs)
            if (s.name == name) spec = &s;
        if (!spec) throw UsageError(args.command + ": unknown option '" + std::string(name) + "'");
        std::string value;
        if (spec->takes_value) {
            if (eq != std::string_view::npos) {
                value = arg.substr(eq + 1);
            } else {
                if (i + 1 >= argv.size()) throw UsageError(args.command + ": " + std::string(name) + " needs a value");
                value = argv[++i];
            }
        } else if (eq != std::string_view::npos) {
            throw UsageError(args.command + ": " + std::string(name) + " takes no value");
        }
        if (!args.options.emplace(std::string(name), std::move(value)).second)
            throw UsageError(args.command + ": " + std::string(name) + " given twice");
    }
    if (positional.size() < file_names.size())
        throw UsageError(args.command + ": missing " + std::string(file_names[positional.size()]));
    if (positional.size() > file_names.size())
        throw UsageError(args.command + ": unexpected argument '" + positional[file_names.size()] + "'");
    args.file = positional[0];
    args.files = std::move(positional);
    return args;
}

void refuse_in_mode(const Args& args, std::string_view mode, std::initializer_list<std::string_view> options,
                    std::string_view why) {
    for (std::string_view o : options)
        if (args.has(o))
            throw UsageError(args.command + ": " + std::string(o) + " does not apply to " + std::string(mode) + " (" +
                             std::string(why) + ")");
}

std::size_t parse_index(std::string_view option, const std::string& text) {
    std::size_t v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size())
        throw UsageError(std::string(option) + " needs a non-negative integer, got '" + text + "'");
    return v;
}

double parse_number(std::string_view option, const std::string& text, std::string_view what) {
    double v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size() || !std::isfinite(v) || v < 0)
        throw UsageError(std::string(option) + " needs a non-negative number" +
                         (what.empty() ? std::string() : " of " + std::string(what)) + ", got '" + text + "'");
    return v;
}

std::int64_t parse_count(std::string_view option, const std::string& text) {
    std::int64_t v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size() || v < 0)
        throw UsageError(std::string(option) + " needs a non-negative integer, got '" + text + "'");
    return v;
}

} // namespace fxmem::cli
