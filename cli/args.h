// Command-line parsing for fxmem-cli: one command, one FILE, and the options the command allows.
#pragma once
#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fxmem::cli {

// Bad usage: main prints the message and the usage, and exits 2.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct OptionSpec {
    std::string_view name; // "--graph"
    bool takes_value = false;
};

struct Args {
    std::string command;
    std::string file;                                        // the first positional argument
    std::vector<std::string> files;                          // every positional argument (diff: OLD NEW)
    std::map<std::string, std::string, std::less<>> options; // flags map to ""

    bool has(std::string_view name) const { return options.find(name) != options.end(); }
    std::optional<std::string> value(std::string_view name) const;
};

// Parses `argv` after the command: exactly `files` positional arguments (named in messages by
// `file_names`, "FILE" by default), options from `specs` given at most once, as "--opt VALUE"
// or "--opt=VALUE"; "--" ends the options. Throws UsageError.
Args parse_args(std::string command, std::span<char* const> argv, std::span<const OptionSpec> specs,
                std::span<const std::string_view> file_names = {});

// Options that a mode does not use are refused rather than ignored: UsageError "COMMAND: OPTION
// does not apply to MODE (WHY)" for the first of `options` that `args` has.
void refuse_in_mode(const Args& args, std::string_view mode, std::initializer_list<std::string_view> options,
                    std::string_view why);

// A non-negative integer option value, or UsageError naming the option.
std::size_t parse_index(std::string_view option, const std::string& text);
// A non-negative finite number (`what` says what it counts, for the message: "seconds").
double parse_number(std::string_view option, const std::string& text, std::string_view what = {});
// A non-negative integer that fits in int64.
std::int64_t parse_count(std::string_view option, const std::string& text);

} // namespace fxmem::cli
