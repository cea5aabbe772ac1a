// diff OLD NEW [--max-increase P% | --max-increase-bytes B] [--whole-step | --pair K] [--depth D]
// [--json]: two captures' peaks compared (core's peak_place and diff_peaks). Exit 3 when the new
// peak grew by more than the limit (default: by anything), the verdict on the first line.
#include "commands.h"
#include "table.h"
#include "view_arg.h"

#include "fxmem/analysis.h"
#include "fxmem/display_text.h"
#include "fxmem/error.h"
#include "fxmem/io.h"
#include "fxmem/peak_diff.h"
#include "fxmem/units.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>
#include <ostream>

namespace fxmem::cli {

namespace {

constexpr int kRegression = 3;
__extension__ typedef __int128 Wide; // old peak x percent, exact

// The allowed increase: a percentage of the old peak (in millionths of a percent, exact) or bytes.
struct Limit {
    enum class Kind { None, Percent, Bytes } kind = Kind::None;
    std::int64_t micro_percent = 0; // Percent: P * 10^6
    std::int64_t bytes = 0;         // Bytes
    std::string text;               // as given

    // The largest increase within the limit, for an old peak of `old_peak` bytes.
    std::int64_t allowed(std::int64_t old_peak) const {
        if (kind == Kind::Bytes) return bytes;
        if (kind == Kind::None) return 0;
        const Wide a = static_cast<Wide>(old_peak) * micro_percent / 100'000'000;
        return a > INT64_MAX ? INT64_MAX : static_cast<std::int64_t>(a);
    }
};

// "5", "5%", "2.5%": at most six decimals, at most 10^9 percent.
std::int64_t parse_percent(const std::string& text) {
    std::string_view s = text;
    if (s.ends_with('%')) s.remove_suffix(1);
    std::int64_t whole = 0, frac = 0;
    int frac_digits = -1; // -1: no '.' yet
    bool digits = false;
    for (char c : s) {
        if (c == '.' && frac_digits < 0) {
            frac_digits = 0;
            continue;
        }
        if (c < '0' || c > '9' || frac_digits >= 6 || whole > 1'000'000'000)
            throw UsageError("diff: --max-increase needs a percentage such as 5% or 2.5 (at most six decimals), got '" +
                             text + "'");
        digits = true;
        if (frac_digits < 0) {
            whole = whole * 10 + (c - '0');
        } else {
            frac = frac * 10 + (c - '0');
            ++frac_digits;
        }
    }
    if (!digits) throw UsageError("diff: --max-increase needs a percentage such as 5% or 2.5, got '" + text + "'");
    for (int d = frac_digits < 0 ? 0 : frac_digits; d < 6; ++d) frac *= 10;
    return whole * 1'000'000 + frac;
}

Limit read_limit(const Args& args) {
    Limit l;
    const auto percent = args.value("--max-increase");
    const auto bytes = args.value("--max-increase-bytes");
    if (percent && bytes) throw UsageError("diff: give --max-increase or --max-increase-bytes, not both");
    if (percent) {
        l.kind = Limit::Kind::Percent;
        l.micro_percent = parse_percent(*percent);
        l.text = "+" + *percent + (percent->ends_with('%') ? "" : "%");
    } else if (bytes) {
        const std::size_t b = parse_index("--max-increase-bytes", *bytes);
        if (b > static_cast<std::size_t>(INT64_MAX))
            throw UsageError("diff: --max-increase-bytes is above 2^63-1, got '" + *bytes + "'");
        l.kind = Limit::Kind::Bytes;
        l.bytes = static_cast<std::int64_t>(b);
        l.text = "+" + *bytes + " bytes";
    }
    return l;
}

std::string signed_bytes(std::int64_t v) { return (v > 0 ? "+" : "") + format_bytes(v); }

// "+12.3 %", or "" when the old peak is 0.
std::string percent_text(std::int64_t delta, std::int64_t old_peak) {
    if (old_peak == 0) return "";
    char buf[48];
    std::snprintf(buf, sizeof buf, "%+.1f %%", 100.0 * static_cast<double>(delta) / static_cast<double>(old_peak));
    return buf;
}

std::string where(const PeakPlace& p) {
    std::string s = "'" + elide(p.graph) + "' (" + std::string(to_string(p.kind)) + ")";
    s += p.node.empty() ? ", at its start" : ", node '" + elide(p.node) + "'";
    return s + " (step " + std::to_string(p.step) + ", graph step " + std::to_string(p.graph_step) + ")";
}

nlohmann::ordered_json place_json(const std::string& path, const PeakPlace& p) {
    nlohmann::ordered_json j;
    j["file"] = utf8_or_escaped(path); // a path need not be UTF-8; JSON must be
    j["peak"] = p.peak;
    if (p.scope == PeakScope::Pair) j["pair"] = p.pair;
    j["step"] = p.step;
    j["graph"] = p.graph;
    j["kind"] = std::string(to_string(p.kind));
    j["graph_step"] = p.graph_step;
    j["node"] = p.node.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(p.node);
    j["storages"] = p.live.size();
    return j;
}

nlohmann::ordered_json rows_json(const std::vector<DiffRow>& rows) {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const DiffRow& r : rows)
        a.push_back({{"key", r.key}, {"old", r.old_bytes}, {"new", r.new_bytes}, {"delta", r.delta()}});
    return a;
}

nlohmann::ordered_json storages_json(const GraphFile& file, const PeakPlace& p, const std::vector<std::size_t>& only) {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (std::size_t i : only) {
        const PeakStorage& s = p.live[i];
        a.push_back({{"storage", file.storages[s.storage.index()].file_id},
                     {"bytes", s.bytes},
                     {"role", std::string(to_string(s.role))},
                     {"module", s.module},
                     {"op", s.op},
                     {"shape", s.shape},
                     {"label", s.label}});
    }
    return a;
}

void write_rows(std::ostream& out, const std::vector<DiffRow>& rows, bool modules) {
    std::vector<std::vector<std::string>> t = {{"old", "new", "change", modules ? "module" : "role"}};
    constexpr std::size_t kShown = 20; // rows come largest change first
    std::size_t unchanged = 0, more = 0;
    for (const DiffRow& r : rows) {
        if (r.delta() == 0) {
            ++unchanged;
        } else if (t.size() > kShown) {
            ++more;
        } else {
            t.push_back({format_bytes(r.old_bytes), format_bytes(r.new_bytes), signed_bytes(r.delta()),
                         modules && r.key.empty() ? "(root)" : r.key});
        }
    }
    if (t.size() > 1) write_table(out, t, {true, true, true, false});
    if (more) out << "  ... and " << more << " more changed (--json lists them all)\n";
    if (unchanged) out << "  (" << unchanged << " unchanged not shown)\n";
}

void write_only(std::ostream& out, const PeakPlace& p, const std::vector<std::size_t>& only, const char* what) {
    std::int64_t total = 0;
    for (std::size_t i : only) total += p.live[i].bytes;
    out << what << ": " << only.size() << (only.size() == 1 ? " storage, " : " storages, ") << format_bytes(total)
        << '\n';
    constexpr std::size_t kShown = 20;
    std::vector<std::vector<std::string>> t = {{"size", "role", "module", "op", "shape"}};
    for (std::size_t k = 0; k < only.size() && k < kShown; ++k) {
        const PeakStorage& s = p.live[only[k]];
        t.push_back({format_bytes(s.bytes), std::string(to_string(s.role)), s.module.empty() ? "(root)" : s.module,
                     s.op, s.shape});
    }
    if (t.size() > 1) write_table(out, t, {true, false, false, false, false});
    if (only.size() > kShown) out << "  ... and " << only.size() - kShown << " more (--json lists them all)\n";
}

} // namespace

int run_diff(const Args& args, std::ostream& out) {
    const Limit limit = read_limit(args);
    const bool step = args.has("--whole-step");
    if (step && args.has("--pair")) throw UsageError("diff: give --pair or --whole-step, not both");
    std::uint32_t depth = 0;
    if (const auto d = args.value("--depth")) {
        const std::size_t v = parse_index("--depth", *d);
        if (v > 0xffffffffu) throw UsageError("diff: --depth is above 4294967295, got '" + *d + "'");
        depth = static_cast<std::uint32_t>(v);
    }
    const DeviceFilter filter = device_filter(args);
    const PeakScope scope = step ? PeakScope::WholeStep : PeakScope::Pair;
    const auto old_file = std::make_shared<const GraphFile>(load_file(args.files[0]));
    const auto new_file = std::make_shared<const GraphFile>(load_file(args.files[1]));
    // A capture traced on the CPU counts nothing: against one that counts, any limit would pass
    // (or fail) on an empty side. Both on the CPU compare, with the note.
    const std::string old_note = cpu_only_note(*old_file, counted_for(*old_file, filter));
    const std::string new_note = cpu_only_note(*new_file, counted_for(*new_file, filter));
    if (old_note.empty() != new_note.empty()) {
        const std::string& cpu = old_note.empty() ? args.files[1] : args.files[0];
        const std::string& other = old_note.empty() ? args.files[0] : args.files[1];
        throw Error(cpu + ": every storage is on the CPU, which fxmem does not count (as PyTorch does not), while " +
                    other +
                    " has storages that count: the peaks cannot be compared; trace both on the same "
                    "device (the meta device, docs/exporter.md), or give --devices all");
    }
    // --pair by names finds the pair in each capture by its graphs' names.
    const auto pair_in = [&](const GraphFile& f) {
        return args.has("--pair") ? pair_option(f, *args.value("--pair")) : std::size_t{0};
    };
    const PeakDiff d = diff_peaks(peak_place(old_file, scope, pair_in(*old_file), filter),
                                  peak_place(new_file, scope, pair_in(*new_file), filter), depth);
    const std::int64_t allowed = limit.allowed(d.old_side.peak);
    const bool regression = d.delta > allowed;
    const std::string what = step ? "whole-step peak" : "pair peak";

    if (args.has("--json")) {
        nlohmann::ordered_json j;
        j["verdict"] = regression ? "regression" : "ok";
        j["scope"] = step ? "whole_step" : "pair";
        j["delta"] = d.delta;
        j["limit"] = limit.kind == Limit::Kind::None      ? "none"
                     : limit.kind == Limit::Kind::Percent ? "percent"
                                                          : "bytes";
        j["allowed_increase"] = allowed;
        j["moved"] = d.moved;
        j["old"] = place_json(args.files[0], d.old_side);
        j["new"] = place_json(args.files[1], d.new_side);
        j["by_role"] = rows_json(d.by_role);
        j["by_module"] = rows_json(d.by_module);
        j["only_old"] = storages_json(*old_file, d.old_side, d.only_old);
        j["only_new"] = storages_json(*new_file, d.new_side, d.only_new);
        out << j.dump() << '\n';
        return regression ? kRegression : 0;
    }
    if (!old_note.empty()) out << old_note << '\n' << new_note << '\n';
    const std::string pct = percent_text(d.delta, d.old_side.peak);
    const std::string change =
        d.delta == 0 ? "is unchanged at " + format_bytes(d.new_side.peak)
                     : std::string(d.delta > 0 ? "grew" : "shrank") + " by " +
                           format_bytes(d.delta < 0 ? -d.delta : d.delta) + (pct.empty() ? "" : " (" + pct + ")") +
                           ", from " + format_bytes(d.old_side.peak) + " to " + format_bytes(d.new_side.peak);
    const std::string limit_text =
        limit.kind == Limit::Kind::None
            ? "any increase"
            : limit.text + (limit.kind == Limit::Kind::Percent ? " (" + format_bytes(allowed) + ")" : std::string());
    out << "fxmem-cli diff: " << (regression ? "REGRESSION: " : "ok: ") << "the " << what << ' ' << change
        << (regression ? ", over the limit of " : ", within the limit of ") << limit_text << '\n';
    out << "old: " << elide(args.files[0]) << ": " << format_bytes(d.old_side.peak) << " (" << d.old_side.peak
        << " bytes) in " << where(d.old_side) << '\n';
    out << "new: " << elide(args.files[1]) << ": " << format_bytes(d.new_side.peak) << " (" << d.new_side.peak
        << " bytes) in " << where(d.new_side) << '\n';
    const auto at = [](const PeakPlace& p) {
        return "'" + elide(p.graph) + "'" + (p.node.empty() ? " at its start" : " node '" + elide(p.node) + "'");
    };
    out << (d.moved ? "the peak moved from " + at(d.old_side) + " to " + at(d.new_side)
                    : "the peak stayed at " + at(d.new_side))
        << '\n';
    out << "by role:\n";
    write_rows(out, d.by_role, false);
    out << "by module" << (depth ? " at depth " + std::to_string(depth) : std::string()) << ":\n";
    write_rows(out, d.by_module, true);
    write_only(out, d.old_side, d.only_old, "at the old peak, not at the new (matched by module, op and shape)");
    write_only(out, d.new_side, d.only_new, "at the new peak, not at the old");
    return regression ? kRegression : 0;
}

} // namespace fxmem::cli
