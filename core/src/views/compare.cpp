#include "fxmem/compare.h"

#include "fxmem/incremental.h"

#include <algorithm>
#include <cstdint>

namespace fxmem {
namespace {

std::size_t first_max(const std::vector<std::int64_t>& v) {
    return v.empty() ? 0 : static_cast<std::size_t>(std::max_element(v.begin(), v.end()) - v.begin());
}

// Marks the elements of a longest strictly increasing subsequence of `seq` (patience sorting).
std::vector<std::uint8_t> longest_increasing(const std::vector<std::size_t>& seq) {
    std::vector<std::size_t> tails; // indices into seq: the smallest tail of each length
    std::vector<std::size_t> previous(seq.size(), SIZE_MAX);
    for (std::size_t i = 0; i < seq.size(); ++i) {
        const auto it = std::lower_bound(tails.begin(), tails.end(), seq[i],
                                         [&](std::size_t t, std::size_t v) { return seq[t] < v; });
        if (it != tails.begin()) previous[i] = *(it - 1);
        if (it == tails.end())
            tails.push_back(i);
        else
            *it = i;
    }
    std::vector<std::uint8_t> in(seq.size(), 0);
    for (std::size_t i = tails.empty() ? SIZE_MAX : tails.back(); i != SIZE_MAX; i = previous[i]) in[i] = 1;
    return in;
}

} // namespace

OrderComparison compare_orders(const GraphAnalysis& a, const std::vector<NodeId>& orderA,
                               const std::vector<NodeId>& orderB, std::size_t max_effects, std::size_t max_work) {
    IncrementalSchedule sa(a.file(), a.graph(), a.alias(), a.releasable(), a.counted(), orderA);
    const IncrementalSchedule sb(a.file(), a.graph(), a.alias(), a.releasable(), a.counted(), orderB);
    OrderComparison out;
    out.profile_a = sa.profile();
    out.profile_b = sb.profile();
    out.peak_a = sa.peak();
    out.peak_b = sb.peak();
    out.peak_step_a = first_max(out.profile_a);
    out.peak_step_b = first_max(out.profile_b);

    // B's positions read in A's order; the nodes on a longest increasing run kept their order.
    const std::size_t n = orderA.size();
    std::vector<std::size_t> seq(n);
    for (std::size_t i = 0; i < n; ++i) seq[i] = sb.position_of(orderA[i]);
    const std::vector<std::uint8_t> kept = longest_increasing(seq);
    std::vector<std::uint8_t> kept_node(n, 0);
    for (std::size_t i = 0; i < n; ++i) kept_node[orderA[i].index()] = kept[i];

    // The nearest unmoved node before each position of B (its anchor in A).
    std::vector<NodeId> anchor(n);
    NodeId last;
    for (std::size_t p = 0; p < n; ++p) {
        anchor[p] = last;
        if (kept_node[orderB[p].index()]) last = orderB[p];
    }
    std::size_t work = 0; // positions shifted by the scoring moves so far
    for (std::size_t i = 0; i < n; ++i) {
        if (kept[i]) continue;
        const NodeId node = orderA[i];
        OrderComparison::Moved m{node, i, seq[i], sa.alloc_of(node), std::nullopt};
        if (out.moved.size() < max_effects && work < max_work) {
            const std::size_t from = sa.position_of(node);
            const NodeId before = anchor[seq[i]];
            std::size_t to = 0;
            if (before.valid()) {
                const std::size_t pa = sa.position_of(before);
                to = pa < from ? pa + 1 : pa;
            }
            const auto range = sa.legal_range(from);
            to = std::clamp(to, range.lo, range.hi);
            work += 2 * (to > from ? to - from : from - to) + 1;
            if (to == from) {
                m.effect = 0;
            } else if (sa.check_move(from, to).ok) {
                sa.move(from, to);
                m.effect = sa.peak() - out.peak_a;
                sa.move(to, from); // back to A exactly: the others kept their relative order
            }
        }
        out.moved.push_back(m);
    }
    std::stable_sort(out.moved.begin(), out.moved.end(), [](const auto& x, const auto& y) {
        if (x.effect.has_value() != y.effect.has_value()) return x.effect.has_value();
        if (x.effect && *x.effect != *y.effect) return *x.effect < *y.effect;
        return x.allocates > y.allocates;
    });
    return out;
}

} // namespace fxmem
