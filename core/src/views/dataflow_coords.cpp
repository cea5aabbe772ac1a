// Coordinates: each row's centres are the closest, in least squares, to what the item's
// neighbours in the row before ask (their mean centre), keeping the row's order and gaps. With
// offsets o_i (the sum of the gaps up to item i) that is isotonic regression of (wish_i - o_i),
// solved exactly by pool adjacent violators in O(row). Sweeps alternate down and up. A dummy
// weighs more than a box, so long edges run straight and boxes move to meet them.
#include "views/dataflow_level.h"

#include <algorithm>
#include <limits>

namespace fxmem::detail {

double separation(const Level& level, std::uint32_t a, std::uint32_t b, const Spacing& spacing) {
    const bool dummy = level.kind[a] == ItemKind::Dummy || level.kind[b] == ItemKind::Dummy;
    return (level.w[a] + level.w[b]) / 2 + (dummy ? spacing.edge_gap : spacing.node_gap);
}

namespace {

struct Block {
    double sum = 0, weight = 0; // weighted sum and weight of the pooled values
    std::size_t end = 0;        // one past its last item
    double mean = 0;            // sum / weight, kept (the pooling compares it at every step)
};

// Centres of `row` (its items' offsets and weights at row[p]'s place) for wishes `wish`, order and
// gaps kept. Sets x and the centre cx = x + w / 2 (computed as Level::cx does).
void place_row(Level& level, const std::uint32_t* row, std::size_t k, const double* offset, const double* weights,
               const std::vector<double>& wish, std::vector<double>& centre, std::vector<Block>& blocks) {
    blocks.clear();
    for (std::size_t p = 0; p < k; ++p) {
        const double weight = weights[p];
        const double sum = (wish[p] - offset[p]) * weight;
        blocks.push_back({sum, weight, p + 1, sum / weight});
        while (blocks.size() > 1 && blocks[blocks.size() - 2].mean >= blocks.back().mean) {
            const Block last = blocks.back();
            blocks.pop_back();
            Block& b = blocks.back();
            b.sum += last.sum;
            b.weight += last.weight;
            b.end = last.end;
            b.mean = b.sum / b.weight;
        }
    }
    std::size_t p = 0;
    for (const Block& b : blocks)
        for (const double m = b.mean; p < b.end; ++p) {
            const std::uint32_t a = row[p];
            level.x[a] = m + offset[p] - level.w[a] / 2;
            centre[a] = level.x[a] + level.w[a] / 2;
        }
}

} // namespace

void assign_coordinates(Level& level, const Spacing& spacing, int sweeps) {
    std::vector<double> wish;
    std::vector<Block> blocks;
    // The rows' order is fixed here: each item's offset (the gaps up to it in its row) and
    // weight, in row order (row_start: where each row begins), computed once.
    const std::size_t rows = level.rows.size();
    std::vector<std::size_t> row_start(rows + 1, 0);
    for (std::size_t r = 0; r < rows; ++r) row_start[r + 1] = row_start[r] + level.rows[r].size();
    std::vector<double> offset(row_start[rows]), weights(row_start[rows]), centre(level.x.size());
    for (std::size_t r = 0; r < rows; ++r) {
        const std::vector<std::uint32_t>& row = level.rows[r];
        double* o = offset.data() + row_start[r];
        for (std::size_t p = 0; p < row.size(); ++p) {
            o[p] = p == 0 ? 0 : o[p - 1] + separation(level, row[p - 1], row[p], spacing);
            weights[row_start[r] + p] = level.kind[row[p]] == ItemKind::Dummy ? 4.0 : 1.0;
        }
    }
    // Packed from the left to begin with.
    for (const auto& row : level.rows) {
        double at = 0;
        for (std::size_t p = 0; p < row.size(); ++p) {
            if (p > 0) at += separation(level, row[p - 1], row[p], spacing);
            level.x[row[p]] = at - level.w[row[p]] / 2;
        }
    }
    for (std::size_t i = 0; i < centre.size(); ++i) centre[i] = level.cx(static_cast<std::uint32_t>(i));
    for (int s = 0; s < sweeps; ++s) {
        const bool downward = s % 2 == 0;
        const std::vector<std::uint32_t>& start = downward ? level.up_start : level.down_start;
        const std::vector<std::uint32_t>& adj = downward ? level.up : level.down;
        for (std::size_t i = 1; i < rows; ++i) {
            const std::size_t r = downward ? i : rows - 1 - i;
            const std::vector<std::uint32_t>& row = level.rows[r];
            wish.resize(row.size());
            for (std::size_t p = 0; p < row.size(); ++p) {
                const std::uint32_t a = row[p];
                if (start[a] == start[a + 1]) {
                    wish[p] = centre[a];
                    continue;
                }
                double sum = 0;
                for (std::uint32_t e = start[a]; e < start[a + 1]; ++e) sum += centre[adj[e]];
                wish[p] = sum / (start[a + 1] - start[a]);
            }
            place_row(level, row.data(), row.size(), offset.data() + row_start[r], weights.data() + row_start[r], wish,
                      centre, blocks);
        }
    }
    double left = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < level.x.size(); ++i) left = std::min(left, level.x[i]);
    if (level.x.empty()) left = 0;
    level.width = 0;
    for (std::size_t i = 0; i < level.x.size(); ++i) {
        level.x[i] -= left;
        level.width = std::max(level.width, level.x[i] + level.w[i]);
    }
    level.row_top.assign(level.rows.size(), 0);
    level.row_height.assign(level.rows.size(), 0);
    double top = 0;
    for (std::size_t r = 0; r < level.rows.size(); ++r) {
        double height = 0;
        for (const std::uint32_t a : level.rows[r]) height = std::max(height, level.h[a]);
        level.row_top[r] = top;
        level.row_height[r] = height;
        top += height + spacing.layer_gap;
    }
    level.height = level.rows.empty() ? 0 : level.row_top.back() + level.row_height.back();
}

} // namespace fxmem::detail
