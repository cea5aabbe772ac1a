// peak FILE --ranks: the peak of every rank's capture of a sharded step (fxmem_export.capture_ranks
// writes one file per rank, named by a pattern with {rank} in it), and the worst rank: the one
// whose out-of-memory error decides whether the step runs.
#include "commands.h"
#include "table.h"
#include "text.h"
#include "view_arg.h"

#include "fxmem/display_text.h"
#include "fxmem/error.h"
#include "fxmem/estimator.h"
#include "fxmem/io.h"
#include "fxmem/units.h"
#include "fxmem/whole_step.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <ostream>

namespace fxmem::cli {

namespace {

struct RankPeak {
    std::int64_t rank = 0;
    std::string path;
    std::int64_t peak = 0;
};

// The files FILE's pattern names: in its directory, each name that is the pattern with {rank}
// replaced by a decimal number, with that number, in rank order.
std::vector<std::pair<std::int64_t, std::string>> rank_files(const std::string& pattern) {
    const std::size_t at = pattern.find("{rank}");
    const std::filesystem::path dir = std::filesystem::path(pattern.substr(0, at)).parent_path();
    const std::string head = pattern.substr(0, at), tail = pattern.substr(at + 6);
    if (tail.find("{rank}") != std::string::npos) throw UsageError("--ranks: FILE has {rank} twice");
    std::vector<std::pair<std::int64_t, std::string>> out;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(dir.empty() ? "." : dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string path = dir.empty() ? it->path().filename().string() : it->path().string();
        if (path.size() <= head.size() + tail.size() || !path.starts_with(head) || !path.ends_with(tail)) continue;
        const std::string_view digits(path.data() + head.size(), path.size() - head.size() - tail.size());
        std::int64_t rank = 0;
        const auto [end_at, err] = std::from_chars(digits.data(), digits.data() + digits.size(), rank);
        if (err != std::errc() || end_at != digits.data() + digits.size() || rank < 0) continue;
        if (digits.size() > 1 && digits[0] == '0') continue; // "01" is not how capture_ranks names rank 1
        out.emplace_back(rank, path);
    }
    if (ec)
        throw Error(pattern + ": cannot list " + (dir.empty() ? std::string(".") : dir.string()) + ": " + ec.message());
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

int run_peak_ranks(const Args& args, std::ostream& out) {
    refuse_in_mode(args, "--ranks", {"--measure", "--alloc-conf"},
                   "each rank is measured with the estimator; run peak on one rank's file for the other measures");
    if (args.file.find("{rank}") == std::string::npos)
        throw UsageError(
            "--ranks needs FILE with {rank} in it, the pattern capture_ranks wrote (model.rank{rank}.fxmem.json)");
    const bool whole = args.has("--whole-step");
    if (whole)
        refuse_in_mode(args, "--whole-step", {"--pair"},
                       "the whole step runs every graph of each rank's step, each in its recorded order");
    const auto files = rank_files(args.file);
    if (files.empty()) throw Error(args.file + ": no file matches (the pattern's {rank} stands for a rank number)");

    std::vector<RankPeak> ranks;
    std::int64_t world = 0;
    std::size_t pair = 0; // rank 0's index of --pair (an index or FWD,BWD, as in every command)
    for (const auto& [rank, path] : files) {
        Args one = args;
        one.file = path;
        const GraphFile file = load_bound(one);
        if (!file.distributed)
            throw Error(path +
                        ": no \"distributed\" object: not one rank's capture (fxmem_export.capture_ranks writes it)");
        if (file.distributed->rank != rank)
            throw Error(path + ": distributed.rank is " + std::to_string(file.distributed->rank) +
                        ", but the file's name says rank " + std::to_string(rank));
        if (world != 0 && file.distributed->world_size != world)
            throw Error(path + ": distributed.world_size is " + std::to_string(file.distributed->world_size) +
                        ", but " + files.front().second + " says " + std::to_string(world));
        world = file.distributed->world_size;
        const StorageMask counted = devices_counted(file, one);
        std::int64_t peak = 0;
        if (whole) {
            if (file.step.empty()) throw Error(path + ": no step: --whole-step needs the file's \"step\"");
            peak = whole_step(file, counted).peak;
        } else {
            pair = args.has("--pair") ? pair_option(file, *args.value("--pair")) : 0;
            (void)pair_at(file, pair, "--ranks measures a pair or the whole step");
            peak =
                analyze_pair(file, file.graph(file.pairs[pair].forward), file.graph(file.pairs[pair].backward), counted)
                    .peak.peak;
        }
        ranks.push_back({rank, path, peak});
    }
    // The worst rank: the highest peak, the lowest rank among equals.
    const RankPeak& worst = *std::max_element(ranks.begin(), ranks.end(), [](const RankPeak& a, const RankPeak& b) {
        return a.peak < b.peak || (a.peak == b.peak && a.rank > b.rank);
    });
    const std::optional<std::int64_t> memory = memory_option(args);
    const std::string measure = whole ? "whole_step" : "pair " + std::to_string(pair);

    if (args.has("--json")) {
        nlohmann::ordered_json j;
        j["world_size"] = world;
        j["measure"] = measure;
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const RankPeak& r : ranks)
            list.push_back({{"rank", r.rank}, {"file", utf8_or_escaped(r.path)}, {"peak", r.peak}});
        j["ranks"] = std::move(list);
        j["worst_rank"] = worst.rank;
        j["peak"] = worst.peak;
        if (memory) {
            j["memory"] = *memory;
            j["fits"] = worst.peak <= *memory;
        }
        out << j.dump() << '\n';
        return 0;
    }
    out << ranks.size() << " of " << world << " ranks captured (" << escape_control(args.file) << "), each measured as "
        << (whole ? "the whole step" : measure) << '\n';
    std::vector<std::vector<std::string>> rows{{"rank", "peak", "file"}};
    for (const RankPeak& r : ranks)
        rows.push_back({std::to_string(r.rank), bytes_text(r.peak), escape_control(r.path)});
    write_table(out, rows, {true, true, false});
    out << "worst: rank " << worst.rank << ", " << bytes_text(worst.peak) << '\n';
    if (memory) out << "rank " << worst.rank << " " << memory_verdict(worst.peak, *memory) << '\n';
    if (static_cast<std::int64_t>(ranks.size()) < world)
        out << "ranks without a file were not captured: capture_ranks' representative ranks stand for the others "
               "(ranks=\"all\" captures each)\n";
    return 0;
}

} // namespace fxmem::cli
