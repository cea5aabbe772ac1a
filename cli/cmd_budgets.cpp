// budgets FILE [--json]: PyTorch's partitions at several activation memory budgets (pairs with a
// "budget"), each scored: pair peak, where it is, saved-activation bytes, extra FLOPs, and which
// rows are Pareto-optimal.
#include "cmd_remat.h"
#include "commands.h"
#include "text.h"

#include "fxmem/error.h"
#include "fxmem/io.h"
#include "fxmem/remat.h"
#include "fxmem/units.h"
#include "table.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <ostream>

namespace fxmem::cli {

// Python's repr of the budget as the exporter names the pairs ("1.0", "0.6").
std::string budget_text(double b) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, b);
    std::string s(buf, r.ptr);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
}

namespace {

std::string signed_percent(std::int64_t extra, std::int64_t base) {
    if (base <= 0) return "";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.1f %%", 100.0 * static_cast<double>(extra) / static_cast<double>(base));
    return buf;
}

} // namespace

nlohmann::ordered_json budget_rows_json(const GraphFile& file, const std::vector<BudgetRow>& rows) {
    auto a = nlohmann::ordered_json::array();
    for (const BudgetRow& r : rows)
        a.push_back({{"budget", r.budget},
                     {"forward", file.graph(file.pairs[r.pair].forward).name},
                     {"backward", file.graph(file.pairs[r.pair].backward).name},
                     {"peak", r.peak.peak},
                     {"step", r.step},
                     {"node", r.step == 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.node)},
                     {"graph", r.in_backward ? "backward" : "forward"},
                     {"saved_bytes", r.saved_bytes},
                     {"extra_flops", r.extra_flops},
                     {"extra_flops_against", r.base_budget},
                     {"pareto", r.pareto},
                     {"lowest", r.lowest}});
    return a;
}

int run_budgets(const Args& args, std::ostream& out) {
    if (device_filter(args) != DeviceFilter::NonCpu)
        throw UsageError("budgets: --devices all is not supported: the budget rows count non-CPU storages, as "
                         "PyTorch's partitioner does");
    const GraphFile file = load_file(args.file);
    const std::vector<BudgetRow> rows = budget_rows(file);
    if (rows.empty()) throw Error(args.file + ": no pair has a 'budget' (write the file with fxmem_export.sweep)");
    if (args.has("--json")) {
        nlohmann::ordered_json j;
        j["rows"] = budget_rows_json(file, rows);
        out << j.dump() << '\n';
        return 0;
    }
    std::vector<std::vector<std::string>> table = {{"budget", "pair peak", "at", "saved", "extra FLOPs", ""}};
    for (const BudgetRow& r : rows) {
        std::string mark = r.lowest ? "lowest peak" : "";
        if (r.pareto) mark += mark.empty() ? "pareto" : ", pareto";
        const std::string at = (r.in_backward ? "backward" : "forward") + std::string(" step ") +
                               std::to_string(r.step) + (r.node.empty() ? "" : " (" + r.node + ")");
        std::string extra = std::to_string(r.extra_flops);
        if (const std::string pct = signed_percent(r.extra_flops, r.base_flops); !pct.empty())
            extra += " (" + pct + ")";
        table.push_back(
            {budget_text(r.budget), format_bytes(r.peak.peak), at, format_bytes(r.saved_bytes), extra, mark});
    }
    if (const std::string note = cpu_only_note(file, default_counted(file)); !note.empty()) out << note << '\n';
    out << escape_control(args.file) << ": " << rows.size() << " budget" << (rows.size() == 1 ? "" : "s") << '\n';
    write_table(out, table, {true, true, false, true, true, false});
    // A sweep without a budget-1.0 pair: extra FLOPs are against its highest budget, said once.
    for (const BudgetRow& r : rows)
        if (r.base_budget != 1.0) {
            out << "extra FLOPs are against budget " << budget_text(r.base_budget)
                << ", the highest in the sweep (it has no budget-1.0 pair)\n";
            break;
        }
    return 0;
}

} // namespace fxmem::cli
