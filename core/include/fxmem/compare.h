// Compare two complete orders of one graph: both memory curves, and the nodes that moved.
//
// "Moved" is the smallest set of nodes whose moves explain the difference: the nodes outside a
// longest common subsequence of the two orders (for permutations, a longest increasing
// subsequence of B's positions read in A's order, O(N log N)). A node that only shifted because
// another one jumped over it is not listed.
//
// Effect on the peak of a moved node: how A's MemoryTracker peak changes when that node alone
// moves in A to where B puts it, i.e. just after its nearest unmoved predecessor in B (the first
// position when it has none), clamped to its legal range in A; negative = the move alone lowers
// A's peak. Scored with the incremental scorer (move, read the peak, move back), so the cost is
// O(|distance| + log N) per node; past `max_effects` moved nodes, or once the moves scored so far
// have shifted `max_work` positions in all, the rest get no effect (so a comparison stays a few
// tens of milliseconds on any graph: the app redoes it after each edit while it is shown).
// The list is sorted by effect (most lowering first; nodes without an effect last), then by the
// bytes the node allocates (descending).
//
// Lifetime and threads: OrderComparison is a value; compare_orders reads its arguments during
// the call only. Any number of threads may compare on one shared analysis.
#pragma once
#include "fxmem/analysis.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace fxmem {

struct OrderComparison {
    struct Moved {
        NodeId node;
        std::size_t position_a = 0, position_b = 0;
        std::int64_t allocates = 0;         // counted bytes the node allocates
        std::optional<std::int64_t> effect; // peak change of A, see above
    };
    std::vector<std::int64_t> profile_a, profile_b; // build_memory_profile layout (1 + 2K points)
    std::int64_t peak_a = 0, peak_b = 0;
    std::size_t peak_step_a = 0, peak_step_b = 0; // first profile index at the peak
    std::vector<Moved> moved;
};

// Both orders must be complete legal orders of the analysed graph (Error otherwise).
OrderComparison compare_orders(const GraphAnalysis& analysis, const std::vector<NodeId>& a,
                               const std::vector<NodeId>& b, std::size_t max_effects = 5000,
                               std::size_t max_work = 4'000'000);

} // namespace fxmem
