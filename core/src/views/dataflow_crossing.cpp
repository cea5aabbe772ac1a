// Crossing reduction: barycenter sweeps, alternately down (each row sorted by the mean place
// of its neighbours above) and up; an item without neighbours on that side keeps its place.
// Counted after each sweep; the order with the fewest crossings is kept, so a sweep never makes
// the drawing worse than the one before it.
#include "views/dataflow_level.h"

#include <algorithm>
#include <numeric>

namespace fxmem::detail {

namespace {

// Crossings between row r and row r + 1: pairs of segments whose ends are in opposite orders,
// counted as inversions of the lower ends (sorted by upper end) with a Fenwick tree.
std::uint64_t count_between(const Level& level, std::size_t r, std::vector<std::uint32_t>& lower,
                            std::vector<std::uint32_t>& tree) {
    lower.clear();
    for (const std::uint32_t a : level.rows[r]) { // in row order: sorted by upper end
        const std::size_t first = lower.size();
        for (std::uint32_t k = level.down_start[a]; k < level.down_start[a + 1]; ++k)
            lower.push_back(level.pos[level.down[k]]);
        if (lower.size() - first > 1) std::sort(lower.begin() + static_cast<std::ptrdiff_t>(first), lower.end());
    }
    const std::size_t m = level.rows[r + 1].size();
    tree.assign(m + 1, 0);
    std::uint64_t crossings = 0, seen = 0;
    for (const std::uint32_t p : lower) {
        // Segments seen so far whose lower end lies right of p cross this one.
        std::uint64_t at_most = 0;
        for (std::size_t i = p + 1; i > 0; i -= i & (~i + 1)) at_most += tree[i];
        crossings += seen - at_most;
        for (std::size_t i = p + 1; i <= m; i += i & (~i + 1)) ++tree[i];
        ++seen;
    }
    return crossings;
}

// Buffers one sweep reuses from row to row.
struct SweepBuffers {
    std::vector<std::pair<double, std::uint32_t>> bary; // (barycenter, place)
    std::vector<std::uint32_t> sorted;
};

// Sorts row r by barycenter; false when it stays as it was.
bool sweep_row(Level& level, std::size_t r, bool downward, SweepBuffers& buf) {
    std::vector<std::uint32_t>& row = level.rows[r];
    const std::vector<std::uint32_t>& start = downward ? level.up_start : level.down_start;
    const std::vector<std::uint32_t>& adj = downward ? level.up : level.down;
    // Places in the other row, scaled to this row's width so that keepers interleave.
    const std::size_t other = downward ? level.rows[r - 1].size() : level.rows[r + 1].size();
    const double scale = static_cast<double>(row.size()) / static_cast<double>(std::max<std::size_t>(other, 1));
    buf.bary.resize(row.size());
    bool in_order = true;
    for (std::size_t p = 0; p < row.size(); ++p) {
        const std::uint32_t a = row[p];
        const std::uint32_t k0 = start[a], k1 = start[a + 1];
        double b = static_cast<double>(p);
        if (k0 != k1) {
            double sum = 0;
            for (std::uint32_t k = k0; k < k1; ++k) sum += level.pos[adj[k]];
            b = sum / (k1 - k0) * scale;
        }
        buf.bary[p] = {b, static_cast<std::uint32_t>(p)};
        in_order = in_order && (p == 0 || !(b < buf.bary[p - 1].first));
    }
    if (in_order) return false; // a stable sort would keep the row as it is
    // Ties keep their order: the place breaks them (a stable sort by barycenter).
    std::sort(buf.bary.begin(), buf.bary.end());
    buf.sorted.resize(row.size());
    for (std::size_t p = 0; p < row.size(); ++p) buf.sorted[p] = row[buf.bary[p].second];
    row.swap(buf.sorted);
    for (std::size_t p = 0; p < row.size(); ++p) level.pos[row[p]] = static_cast<std::uint32_t>(p);
    return true;
}

} // namespace

std::uint64_t count_crossings(const Level& level) {
    std::vector<std::uint32_t> lower, tree;
    std::uint64_t total = 0;
    for (std::size_t r = 0; r + 1 < level.rows.size(); ++r) total += count_between(level, r, lower, tree);
    return total;
}

// Crossings are kept per pair of adjacent rows and recounted only where a sweep moved one of
// the two rows; the best order is kept as copies of the rows that changed since it.
std::uint64_t reduce_crossings(Level& level, int sweeps, const CancelCheck& cancelled) {
    const std::size_t rows = level.rows.size();
    std::vector<std::uint32_t> lower, tree;
    std::vector<std::uint64_t> between(rows > 0 ? rows - 1 : 0);
    std::uint64_t best = 0;
    for (std::size_t r = 0; r + 1 < rows; ++r) best += between[r] = count_between(level, r, lower, tree);
    std::uint64_t now = best;
    std::vector<std::vector<std::uint32_t>> best_rows = level.rows;
    std::vector<std::uint8_t> moved(rows, 0), off_best(rows, 0); // in this sweep; since the best
    SweepBuffers bary;
    for (int s = 0; s < sweeps && best > 0; ++s) {
        throw_if_cancelled(cancelled);
        std::fill(moved.begin(), moved.end(), 0);
        if (s % 2 == 0)
            for (std::size_t r = 1; r < rows; ++r) moved[r] = sweep_row(level, r, true, bary) ? 1 : 0;
        else
            for (std::size_t r = rows; r-- > 1;) moved[r - 1] = sweep_row(level, r - 1, false, bary) ? 1 : 0;
        now = 0;
        for (std::size_t r = 0; r + 1 < rows; ++r) {
            if (moved[r] || moved[r + 1]) between[r] = count_between(level, r, lower, tree);
            now += between[r];
        }
        for (std::size_t r = 0; r < rows; ++r) off_best[r] = off_best[r] || moved[r];
        if (now < best) {
            best = now;
            for (std::size_t r = 0; r < rows; ++r)
                if (off_best[r]) best_rows[r] = level.rows[r], off_best[r] = 0;
        }
    }
    if (now != best) {
        for (std::size_t r = 0; r < rows; ++r) {
            if (!off_best[r]) continue;
            level.rows[r].swap(best_rows[r]);
            const std::vector<std::uint32_t>& row = level.rows[r];
            for (std::size_t p = 0; p < row.size(); ++p) level.pos[row[p]] = static_cast<std::uint32_t>(p);
        }
    }
    level.crossings = best;
    return best;
}

} // namespace fxmem::detail
