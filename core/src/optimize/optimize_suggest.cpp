// suggest_moves: the single moves that lower the current peak most, tried with the incremental
// scorer on a copy of the schedule. Work is bounded: (2 * window + 1) nodes, up to four targets
// each, every try costs O(|from - to| + log N) twice (the move and its undo).
#include "fxmem/incremental.h"
#include "fxmem/optimize.h"

#include <algorithm>

namespace fxmem {

std::vector<MoveSuggestion> suggest_moves(const IncrementalSchedule& schedule, std::size_t max_count,
                                          std::size_t window) {
    std::vector<MoveSuggestion> found;
    const std::size_t n = schedule.size();
    if (n == 0 || max_count == 0) return found;
    IncrementalSchedule s = schedule;
    const std::int64_t peak = s.peak();
    const std::size_t at = s.peak_position();
    const std::size_t lo = at > window ? at - window : 0;
    const std::size_t hi = std::min(n - 1, at + window);
    for (std::size_t q = lo; q <= hi; ++q) {
        const auto r = s.legal_range(q);
        if (r.lo == r.hi) continue;
        // The ends of the legal range, and just across the peak: a node at or before the peak goes
        // right after the node now at the peak, a node after it goes right before.
        std::size_t targets[4] = {r.lo, r.hi, at, at};
        if (q < at) targets[3] = std::min(r.hi, at);
        if (q > at) targets[3] = std::max(r.lo, at);
        if (q == at) targets[2] = targets[3] = std::min(r.hi, at + 1);
        MoveSuggestion best{q, q, s.at(q), peak};
        for (std::size_t t : targets) {
            if (t == q || t < r.lo || t > r.hi) continue;
            s.move(q, t);
            const std::int64_t after = s.peak();
            s.move(t, q);
            const auto span = [&](const MoveSuggestion& m) { return m.from > m.to ? m.from - m.to : m.to - m.from; };
            const MoveSuggestion m{q, t, s.at(q), after};
            if (after < best.peak_after || (after == best.peak_after && best.from != best.to && span(m) < span(best)))
                best = m;
        }
        if (best.from != best.to && best.peak_after < peak) found.push_back(best);
    }
    std::sort(found.begin(), found.end(), [](const MoveSuggestion& a, const MoveSuggestion& b) {
        const std::size_t sa = a.from > a.to ? a.from - a.to : a.to - a.from;
        const std::size_t sb = b.from > b.to ? b.from - b.to : b.to - b.from;
        if (a.peak_after != b.peak_after) return a.peak_after < b.peak_after;
        if (sa != sb) return sa < sb;
        return a.from < b.from;
    });
    if (found.size() > max_count) found.resize(max_count);
    return found;
}

} // namespace fxmem
