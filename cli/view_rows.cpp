#include "view_rows.h"

#include "table.h"

#include "fxmem/units.h"

#include <ostream>

namespace fxmem::cli {

nlohmann::ordered_json groups_json(const std::vector<Attribution::Group>& groups) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const Attribution::Group& g : groups)
        rows.push_back({{"key", g.key}, {"bytes", g.bytes}, {"storages", g.storages}});
    return rows;
}

std::vector<std::string> group_cells(const Attribution::Group& group, GroupBy by) {
    return {format_bytes(group.bytes), std::to_string(group.storages),
            by == GroupBy::Module && group.key.empty() ? "(root)" : group.key};
}

nlohmann::ordered_json carry_json(const CarryRows& carry) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const auto& [key, bytes] : carry) rows.push_back({{"key", key}, {"bytes", bytes}});
    return rows;
}

void write_carry_table(std::ostream& out, const CarryRows& carry) {
    std::vector<std::vector<std::string>> rows = {{"size", "carried into the graph"}};
    for (const auto& [key, bytes] : carry) rows.push_back({format_bytes(bytes), key});
    write_table(out, rows, {true, false});
}

void write_live_table(std::ostream& out, const GraphFile& file, const std::vector<LiveStorage>& live,
                      const std::string& id_header) {
    std::vector<std::vector<std::string>> rows = {{"size", id_header, "role", "label"}};
    for (const LiveStorage& l : live)
        rows.push_back({format_bytes(l.nbytes), std::to_string(file.storages[l.storage.index()].file_id),
                        std::string(to_string(file.role(l.storage))), std::string(file.label(l.storage))});
    write_table(out, rows, {true, true, false, false});
}

} // namespace fxmem::cli
