// Layering of one module's items: edges oriented by a topological order of the items (cycles
// that lifting makes broken at the item with the smallest first node), longest path from the
// sources, sources moved down to just above their first user, an entry alone on layer 0 and an
// exit alone on the last; then a dummy per layer crossed by a long edge (within a budget), and
// the rows in that order.
#include "views/dataflow_level.h"

#include "fxmem/error.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <queue>
#include <string>

namespace fxmem::detail {

namespace {

// CSR of `count` lists from (list, value) pairs (swapped: (value, list) pairs), each list in
// the pairs' order.
void build_csr(std::size_t count, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs,
               std::vector<std::uint32_t>& start, std::vector<std::uint32_t>& values, bool swapped = false) {
    start.assign(count + 1, 0);
    for (const auto& [a, b] : pairs) ++start[(swapped ? b : a) + 1];
    std::partial_sum(start.begin(), start.end(), start.begin());
    values.assign(pairs.size(), 0);
    std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
    for (const auto& [a, b] : pairs) {
        if (swapped)
            values[fill[b]++] = a;
        else
            values[fill[a]++] = b;
    }
}

// Items in a topological order of the lifted edges, the smallest key first among those ready
// (Kahn's algorithm with a heap). Lifting can make cycles (module A feeds B which feeds A again):
// when nothing is ready, the item with the smallest key left goes next, and the edges into it
// from items not yet placed are the ones drawn reversed. Without cycles no edge is reversed.
// O((items + edges) log items).
std::vector<std::uint32_t> topological_rank(const LevelInput& input) {
    const std::size_t n = input.size_items();
    std::vector<std::uint32_t> start, succ, indegree(n, 0);
    build_csr(n, input.edges, start, succ);
    for (const auto& [a, b] : input.edges) ++indegree[b];
    std::vector<std::uint32_t> by_key(n);
    std::iota(by_key.begin(), by_key.end(), 0u);
    std::sort(by_key.begin(), by_key.end(), [&](std::uint32_t a, std::uint32_t b) {
        return input.key[a] != input.key[b] ? input.key[a] < input.key[b] : a < b;
    });
    const auto later = [&](std::uint32_t a, std::uint32_t b) {
        return input.key[a] != input.key[b] ? input.key[a] > input.key[b] : a > b;
    };
    std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, decltype(later)> ready(later);
    for (std::uint32_t i = 0; i < n; ++i)
        if (indegree[i] == 0) ready.push(i);
    std::vector<std::uint8_t> placed(n, 0);
    std::vector<std::uint32_t> order;
    order.reserve(n);
    std::size_t next_forced = 0;
    while (order.size() < n) {
        std::uint32_t a = 0;
        if (!ready.empty()) {
            a = ready.top();
            ready.pop();
            if (placed[a]) continue; // forced earlier, then became ready
        } else {
            while (placed[by_key[next_forced]]) ++next_forced;
            a = by_key[next_forced];
        }
        placed[a] = 1;
        order.push_back(a);
        for (std::uint32_t k = start[a]; k < start[a + 1]; ++k)
            if (!placed[succ[k]] && --indegree[succ[k]] == 0) ready.push(succ[k]);
    }
    return order;
}

constexpr std::size_t kDummyBudgetPerItem = 8;
// And at most this many in one module's level, whatever its size: every sweep of the crossing
// reduction and of the coordinates visits each dummy (a flat 100k-node graph had 2M of them, 0.6 s
// of its 0.9 s layout), while past a few thousand boxes in a row the extra bends are not seen.
constexpr std::size_t kDummyBudgetPerLevel = 1000000;

// The longest span (in layers) an edge may have and still get dummies, so that the dummies stay
// within `budget`: by a counting sort of the spans. Spans equal to the limit all keep theirs.
std::int32_t straight_from(const std::vector<std::int32_t>& layer,
                           const std::vector<std::pair<std::uint32_t, std::uint32_t>>& edges, std::size_t budget) {
    std::size_t max_span = 0, total = 0;
    for (const auto& [a, b] : edges) {
        const auto span = static_cast<std::size_t>(layer[b] - layer[a]);
        max_span = std::max(max_span, span);
        total += span - 1;
    }
    if (total <= budget) return std::numeric_limits<std::int32_t>::max();
    std::vector<std::size_t> count(max_span + 1, 0);
    for (const auto& [a, b] : edges) ++count[static_cast<std::size_t>(layer[b] - layer[a])];
    std::size_t used = 0;
    for (std::size_t span = 1; span <= max_span; ++span) {
        if (used + count[span] * (span - 1) > budget) return static_cast<std::int32_t>(span - 1);
        used += count[span] * (span - 1);
    }
    return static_cast<std::int32_t>(max_span);
}

} // namespace

void assign_layers(const LevelInput& input, Level& level) {
    const std::size_t n = input.size_items();
    level.kind = input.kind;
    level.ref = input.ref;
    level.real_items = n;
    level.w.resize(n);
    level.h.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        level.w[i] = input.size[i].w;
        level.h[i] = input.size[i].h;
    }

    // Oriented edges (upper, lower) and the items in a topological order of them.
    const std::vector<std::uint32_t> by_key = topological_rank(input);
    std::vector<std::uint32_t> rank(n);
    for (std::uint32_t r = 0; r < n; ++r) rank[by_key[r]] = r;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> oriented;
    oriented.reserve(input.edges.size());
    for (const auto& [a, b] : input.edges) oriented.push_back(rank[a] < rank[b] ? std::pair{a, b} : std::pair{b, a});
    std::vector<std::uint32_t> out_start, out, in_start, in;
    build_csr(n, oriented, out_start, out);
    build_csr(n, oriented, in_start, in, true);

    bool has_in = false;
    std::uint32_t exit = std::numeric_limits<std::uint32_t>::max();
    for (std::size_t i = 0; i < n; ++i) {
        has_in = has_in || input.kind[i] == ItemKind::In;
        if (input.kind[i] == ItemKind::Out) exit = static_cast<std::uint32_t>(i);
    }
    const std::int32_t lowest = has_in ? 1 : 0; // layer 0 is the entry's alone
    std::vector<std::int32_t>& layer = level.layer;
    layer.assign(n, lowest);
    for (const std::uint32_t a : by_key) {
        if (input.kind[a] == ItemKind::In) layer[a] = 0;
        for (std::uint32_t k = out_start[a]; k < out_start[a + 1]; ++k)
            layer[out[k]] = std::max(layer[out[k]], layer[a] + 1);
    }
    // Sources sink to just above their first user, latest first so that a chain of sources
    // follows (each sees its users' final layers).
    for (auto it = by_key.rbegin(); it != by_key.rend(); ++it) {
        const std::uint32_t a = *it;
        if (input.kind[a] != ItemKind::Node && input.kind[a] != ItemKind::Module) continue;
        if (in_start[a] != in_start[a + 1] || out_start[a] == out_start[a + 1]) continue;
        std::int32_t first_user = std::numeric_limits<std::int32_t>::max();
        for (std::uint32_t k = out_start[a]; k < out_start[a + 1]; ++k)
            if (input.kind[out[k]] != ItemKind::Out) first_user = std::min(first_user, layer[out[k]]);
        if (first_user != std::numeric_limits<std::int32_t>::max()) layer[a] = std::max(layer[a], first_user - 1);
    }
    std::int32_t layers = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (i != exit) layers = std::max(layers, layer[i] + 1);
    if (exit != std::numeric_limits<std::uint32_t>::max()) layer[exit] = layers++;
    if (n == 0) layers = 0;

    // Dummies and routes. A route's items run top to bottom through its dummies.
    // Dummies are bounded: a flat graph's output node (or a long skip) would otherwise cost
    // edges x layers. Past the budget the longest edges go straight, without dummies.
    const std::int32_t longest = straight_from(
        layer, oriented, std::min(kDummyBudgetPerItem * (n + oriented.size()) + 1024, kDummyBudgetPerLevel));
    const std::size_t m = input.edges.size();
    const auto has_dummies = [&](std::size_t e) {
        return layer[oriented[e].second] - layer[oriented[e].first] <= longest;
    };
    // Per layer: its real items and its dummies.
    std::vector<std::uint32_t> real_in(static_cast<std::size_t>(layers) + 1, 0), dummy_in(real_in.size(), 0);
    for (std::size_t i = 0; i < n; ++i) ++real_in[static_cast<std::size_t>(layer[i])];
    std::vector<std::uint32_t> route_begin(m + 1, 0);
    for (std::size_t e = 0; e < m; ++e) {
        route_begin[e + 1] = route_begin[e];
        if (!has_dummies(e)) continue;
        const auto [upper, lower] = oriented[e];
        for (std::int32_t l = layer[upper] + 1; l < layer[lower]; ++l) ++dummy_in[static_cast<std::size_t>(l)];
        route_begin[e + 1] += static_cast<std::uint32_t>(layer[lower] - layer[upper] - 1);
    }
    const std::size_t dummy_count = route_begin[m];
    const std::size_t total = n + dummy_count;
    // A row's dummies get consecutive numbers in the row's initial order, so that each sweep
    // over a row reads neighbouring memory (2M dummies on a flat 100k graph).
    std::vector<std::uint32_t> next_dummy(static_cast<std::size_t>(layers) + 1, static_cast<std::uint32_t>(n));
    for (std::size_t l = 1; l < next_dummy.size(); ++l) next_dummy[l] = next_dummy[l - 1] + dummy_in[l - 1];
    level.kind.resize(total, ItemKind::Dummy);
    level.ref.resize(total, 0);
    level.w.resize(total, 0);
    level.h.resize(total, 0);
    layer.resize(total);
    level.dummies.assign(dummy_count, 0);
    level.rows.assign(static_cast<std::size_t>(layers), {});
    for (std::size_t l = 0; l < level.rows.size(); ++l) level.rows[l].reserve(real_in[l] + dummy_in[l]);
    // Rows in key order: a real item by its rank, a dummy by its route's upper item's rank, ties
    // in edge order. Going through the ranks, each item then the dummies of its edges down.
    std::vector<std::uint32_t> edge_start, edge_of;
    {
        std::vector<std::pair<std::uint32_t, std::uint32_t>> by_upper(m);
        for (std::size_t e = 0; e < m; ++e) by_upper[e] = {oriented[e].first, static_cast<std::uint32_t>(e)};
        build_csr(n, by_upper, edge_start, edge_of);
    }
    for (const std::uint32_t a : by_key) {
        level.rows[static_cast<std::size_t>(layer[a])].push_back(a);
        for (std::uint32_t k = edge_start[a]; k < edge_start[a + 1]; ++k) {
            const std::uint32_t e = edge_of[k];
            if (!has_dummies(e)) continue;
            std::uint32_t at = route_begin[e];
            for (std::int32_t l = layer[a] + 1; l < layer[oriented[e].second]; ++l) {
                const std::uint32_t d = next_dummy[static_cast<std::size_t>(l)]++;
                layer[d] = l;
                level.dummies[at++] = d;
                level.rows[static_cast<std::size_t>(l)].push_back(d);
            }
        }
    }
    level.routes.clear();
    level.routes.reserve(m);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> segments; // (upper, lower), in edge order
    segments.reserve(m + dummy_count);
    for (std::size_t e = 0; e < m; ++e) {
        const auto [upper, lower] = oriented[e];
        Level::Route r;
        r.src = input.edges[e].first;
        r.dst = input.edges[e].second;
        r.reversed = upper != r.src;
        r.begin = route_begin[e];
        r.end = route_begin[e + 1];
        r.straight = !has_dummies(e);
        level.routes.push_back(r);
        if (r.straight) continue; // no segment: it takes no part in the crossing reduction or the coordinates
        std::uint32_t prev = upper;
        for (std::uint32_t k = r.begin; k < r.end; ++k) {
            segments.emplace_back(prev, level.dummies[k]);
            prev = level.dummies[k];
        }
        segments.emplace_back(prev, lower);
    }
    std::sort(level.routes.begin(), level.routes.end(), [](const Level::Route& a, const Level::Route& b) {
        return a.src != b.src ? a.src < b.src : a.dst < b.dst;
    });
    level.pos.assign(total, 0);
    for (const auto& row : level.rows)
        for (std::size_t p = 0; p < row.size(); ++p) level.pos[row[p]] = static_cast<std::uint32_t>(p);

    build_csr(total, segments, level.down_start, level.down);
    build_csr(total, segments, level.up_start, level.up, true);
    level.x.assign(total, 0);
}

const Level::Route& Level::route(std::uint32_t src, std::uint32_t dst) const {
    const auto it = std::lower_bound(routes.begin(), routes.end(), std::pair{src, dst},
                                     [](const Route& r, const std::pair<std::uint32_t, std::uint32_t>& k) {
                                         return r.src != k.first ? r.src < k.first : r.dst < k.second;
                                     });
    if (it == routes.end() || it->src != src || it->dst != dst)
        throw PreconditionError("dataflow layout: no route between items " + std::to_string(src) + " and " +
                                std::to_string(dst));
    return *it;
}

} // namespace fxmem::detail
