#include "text.h"

#include <cstdint>

namespace fxmem::cli {

std::string capped_list(const std::vector<std::string>& items, std::size_t total, std::size_t max_items) {
    std::string out;
    for (std::size_t i = 0; i < items.size() && i < max_items; ++i) out += (i ? ", " : "") + items[i];
    const std::size_t shown = items.size() < max_items ? items.size() : max_items;
    if (total > shown) out += (shown ? ", and " : "") + std::to_string(total - shown) + " more";
    return out;
}

std::string command_help(std::string_view usage, std::string_view command) {
    // A command's block: "  NAME ..." at two spaces, then the lines indented deeper.
    const std::string head = "  " + std::string(command) + " ";
    std::string synopsis, text;
    std::size_t at = 0;
    bool in_block = false;
    while (at < usage.size()) {
        const std::size_t end = std::min(usage.find('\n', at), usage.size());
        const std::string_view line = usage.substr(at, end - at);
        at = end + 1;
        if (line.starts_with(head)) {
            in_block = true;
            synopsis = std::string(line.substr(2));
        } else if (in_block && text.empty() && line.starts_with("        [")) {
            synopsis += "\n" + std::string(line.substr(2)); // the synopsis goes on: no blank line inside it
        } else if (in_block && line.starts_with("    ")) {
            text += std::string(line.substr(2)) + "\n";
        } else if (in_block) {
            break;
        }
    }
    if (synopsis.empty()) return {};
    return "usage: fxmem-cli " + synopsis + "\n\n" + text +
           "\noptions of every command:\n  -h, --help    show this help\n\n"
           "Exit status: 0 success, 1 invalid input (message on stderr), 2 bad usage.\n";
}

} // namespace fxmem::cli
