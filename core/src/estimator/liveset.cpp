// LiveSetIndex: each counted storage is live on a half-open interval [begin, end) of profile
// indices, kept in the implicit centred interval tree of estimator/centred_intervals.h.
// Preparation is counting sorts, O(N + E + P); a query is O(log P + live). The answer
// is ordered by a size rank computed once (radix sort), so ordering it is a radix sort too.
#include "fxmem/liveset.h"

#include "estimator/centred_intervals.h"
#include "estimator_checks.h"
#include "fxmem/schedule.h"

#include <algorithm>
#include <bit>

namespace fxmem {

namespace {

// Stable LSD radix sort of `items` by key(item) < 2^bits, `digit` bits per pass; passes in which
// every key has the same digit are skipped.
template <class T, class Key>
void radix_sort(std::vector<T>& items, unsigned bits, unsigned digit, const Key& key) {
    std::vector<T> tmp(items.size());
    std::vector<std::uint32_t> count((std::size_t{1} << digit) + 1);
    const std::uint64_t mask = (std::uint64_t{1} << digit) - 1;
    for (unsigned shift = 0; shift < bits; shift += digit) {
        std::fill(count.begin(), count.end(), 0);
        for (const T& item : items) ++count[((key(item) >> shift) & mask) + 1];
        if (std::find(count.begin(), count.end(), items.size()) != count.end()) continue;
        for (std::size_t d = 0; d + 1 < count.size(); ++d) count[d + 1] += count[d];
        for (const T& item : items) tmp[count[(key(item) >> shift) & mask]++] = item;
        items.swap(tmp);
    }
}

} // namespace

LiveSetIndex::LiveSetIndex(const GraphFile& file, const Graph& graph, const AliasInfo& alias,
                           const NodeMask& releasable, const StorageMask& counted, std::span<const NodeId> order)
    : file_(file), graph_(graph), alias_(alias), releasable_(releasable) {
    detail::check_inputs(file, graph, alias, releasable, counted, "LiveSetIndex");
    const std::size_t n = graph.size();
    reordered_ = !order.empty();
    if (reordered_) {
        check_schedule(graph, order);
        order_.assign(order.begin(), order.end());
        position_.resize(n);
        for (std::uint32_t p = 0; p < n; ++p) position_[order[p].index()] = p;
        // MemoryTracker asserts that every counted storage a running node uses is live: allocated
        // up front (placeholder, get_attr) or by a node that ran earlier. Refuse the orders it
        // refuses (a rogue producer allows them), with its message: their intervals would end
        // before they begin.
        for (std::uint32_t p = 0; p < n; ++p) {
            const NodeId v = order[p];
            if (!has_profile_points(graph.node(v).op)) continue;
            for (StorageId s : alias.uses_of(v)) {
                if (!counted[s.index()]) continue;
                const NodeId a = alias.allocator[s.index()];
                const OpKind aop = graph.node(a).op;
                const bool up_front = aop == OpKind::Placeholder || aop == OpKind::GetAttr;
                if (!up_front && !(has_profile_points(aop) && position_[a.index()] < p))
                    throw detail::not_live_error(graph, alias, file, v, s);
            }
        }
        // Users by position: a counting sort that visits the nodes in schedule order. The last
        // one of each storage is the user that frees it in MemoryTracker.
        const std::size_t n_storages = file.storages.size();
        users_begin_.assign(n_storages + 1, 0);
        for (std::uint32_t p = 0; p < n; ++p)
            for (StorageId s : alias.uses_of(order[p])) ++users_begin_[s.index() + 1];
        for (std::size_t s = 0; s < n_storages; ++s) users_begin_[s + 1] += users_begin_[s];
        user_positions_.resize(users_begin_.back());
        std::vector<std::uint32_t> fill(users_begin_.begin(), users_begin_.end() - 1);
        for (std::uint32_t p = 0; p < n; ++p)
            for (StorageId s : alias.uses_of(order[p])) user_positions_[fill[s.index()]++] = p;
        last_user_.assign(n_storages, NodeId{});
        for (std::size_t s = 0; s < n_storages; ++s)
            if (users_begin_[s + 1] > users_begin_[s]) last_user_[s] = order[user_positions_[users_begin_[s + 1] - 1]];
    }
    node_step_.assign(n, 0);
    step_node_.push_back(NodeId{});
    for (std::size_t p = 0; p < n; ++p) {
        const NodeId node = reordered_ ? order[p] : NodeId(static_cast<std::int32_t>(p));
        if (!has_profile_points(graph.node(node).op)) continue;
        node_step_[node.index()] = step_node_.size();
        step_node_.push_back(node);
        step_node_.push_back(node);
    }
    const auto profile_end = static_cast<std::int64_t>(step_node_.size());
    const std::vector<NodeId>& last_users = reordered_ ? last_user_ : alias.last_user;

    // One interval per counted storage this graph allocates, as build_memory_profile counts it.
    for (std::size_t s = 0; s < file.storages.size(); ++s) {
        const NodeId a = alias.allocator[s];
        if (!a.valid() || !counted[s]) continue;
        // node_step_ is 0 exactly for placeholder, get_attr and output nodes: reading it instead
        // of the (large, randomly placed) Node structs keeps this loop on small arrays.
        const auto begin = static_cast<std::int64_t>(node_step_[a.index()]);
        if (begin == 0 && graph.node(a).op == OpKind::Output) continue; // never allocated by the estimator
        std::int64_t end = profile_end;
        const NodeId last = last_users[s];
        if (last.valid() && releasable[a.index()] && node_step_[last.index()] != 0)
            end = static_cast<std::int64_t>(node_step_[last.index()]) + 1;
        intervals_.push_back({begin, end, StorageId(static_cast<std::int32_t>(s))});
    }

    detail::build_centred(
        {levels_, bucket_, by_begin_, by_end_}, static_cast<std::size_t>(profile_end),
        static_cast<std::uint32_t>(intervals_.size()), [&](std::uint32_t k) { return intervals_[k].begin; },
        [&](std::uint32_t k) { return intervals_[k].end; });

    // Size rank: intervals are in storage order, so a stable sort on descending size breaks ties
    // by storage. Key max - size: ascending keys are descending sizes, in as few bits as needed.
    std::int64_t largest = 0;
    for (const Interval& iv : intervals_) largest = std::max(largest, file_.nbytes(iv.storage));
    std::vector<std::pair<std::uint64_t, std::uint32_t>> keyed(intervals_.size());
    for (std::uint32_t k = 0; k < intervals_.size(); ++k)
        keyed[k] = {static_cast<std::uint64_t>(largest - file_.nbytes(intervals_[k].storage)), k};
    radix_sort(keyed, static_cast<unsigned>(std::bit_width(static_cast<std::uint64_t>(largest))), 11,
               [](const auto& p) { return p.first; });
    rank_.resize(intervals_.size());
    for (std::uint32_t r = 0; r < keyed.size(); ++r) rank_[keyed[r].second] = r;
}

std::vector<LiveStorage> LiveSetIndex::live_at(std::size_t profile_index) const {
    std::vector<LiveStorage> found;
    if (profile_index >= step_node_.size()) return found;
    // (size rank, place in `found`) per live storage; described in scan order, which follows
    // storage order closely and so reads the per-storage arrays almost sequentially.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> order;
    auto take = [&](std::uint32_t k) {
        order.emplace_back(rank_[k], static_cast<std::uint32_t>(found.size()));
        found.push_back(describe(intervals_[k], profile_index));
    };
    detail::stab_centred(
        {levels_, bucket_, by_begin_, by_end_}, profile_index, [&](std::uint32_t k) { return intervals_[k].begin; },
        [&](std::uint32_t k) { return intervals_[k].end; }, take);
    // Largest first, ties by storage: by rank, with a radix sort when there are many.
    if (order.size() < 256)
        std::sort(order.begin(), order.end());
    else
        radix_sort(order, static_cast<unsigned>(std::bit_width(rank_.size())), 11,
                   [](const auto& p) { return static_cast<std::uint64_t>(p.first); });
    std::vector<LiveStorage> out;
    out.reserve(found.size());
    for (const auto& p : order) out.push_back(found[p.second]);
    return out;
}

std::vector<std::int64_t> LiveSetIndex::profile() const {
    std::vector<std::int64_t> out(step_node_.size() + 1, 0);
    for (const Interval& iv : intervals_) {
        const std::int64_t bytes = file_.nbytes(iv.storage);
        out[static_cast<std::size_t>(iv.begin)] += bytes;
        out[static_cast<std::size_t>(iv.end)] -= bytes;
    }
    out.pop_back(); // the entry past the end only balances intervals that are never released
    for (std::size_t i = 1; i < out.size(); ++i) out[i] += out[i - 1];
    return out;
}

std::vector<std::int64_t> LiveSetIndex::profile_by(std::span<const std::uint32_t> group_of_storage,
                                                   std::size_t groups) const {
    if (group_of_storage.size() < file_.storages.size())
        throw PreconditionError("LiveSetIndex::profile_by: " + std::to_string(group_of_storage.size()) +
                                " group ids for " + std::to_string(file_.storages.size()) + " storages");
    // Difference rows, one per profile index (plus one past the end), then a running sum per group.
    const std::size_t rows = step_node_.size();
    std::vector<std::int64_t> out((rows + 1) * groups, 0);
    for (const Interval& iv : intervals_) {
        const std::uint32_t g = group_of_storage[iv.storage.index()];
        if (g >= groups)
            throw PreconditionError("LiveSetIndex::profile_by: storage id " +
                                    std::to_string(file_.storages[iv.storage.index()].file_id) + " is in group " +
                                    std::to_string(g) + " of " + std::to_string(groups));
        const std::int64_t bytes = file_.nbytes(iv.storage);
        out[static_cast<std::size_t>(iv.begin) * groups + g] += bytes;
        out[static_cast<std::size_t>(iv.end) * groups + g] -= bytes;
    }
    out.resize(rows * groups);
    for (std::size_t i = 1; i < rows; ++i) {
        std::int64_t* row = out.data() + i * groups;
        const std::int64_t* prev = row - groups;
        for (std::size_t g = 0; g < groups; ++g) row[g] += prev[g];
    }
    return out;
}

std::vector<LiveSetIndex::Range> LiveSetIndex::ranges() const {
    std::vector<Range> out;
    out.reserve(intervals_.size());
    for (const Interval& iv : intervals_)
        out.push_back({iv.storage, alias_.allocator[iv.storage.index()], iv.begin, iv.end});
    return out;
}

LiveStorage LiveSetIndex::describe(const Interval& iv, std::size_t profile_index) const {
    const std::size_t s = iv.storage.index();
    LiveStorage r;
    r.storage = iv.storage;
    r.nbytes = file_.nbytes(iv.storage);
    r.allocator = alias_.allocator[s];
    r.last_user = reordered_ ? last_user_[s] : alias_.last_user[s];
    r.alloc_step = iv.begin;
    const bool released = iv.end < static_cast<std::int64_t>(step_node_.size());
    if (released) r.free_step = iv.end;
    if (released)
        r.reason = LiveReason::WaitingForUse;
    else if (!releasable_[r.allocator.index()])
        r.reason = LiveReason::NotReleasable;
    else if (r.last_user.valid() && graph_.node(r.last_user).op == OpKind::Output)
        r.reason = LiveReason::GraphOutput;
    else
        r.reason = LiveReason::NeverUsed; // no user, or only placeholder/get_attr ones, which never run
    // The first user at or after the queried step's node, in the order.
    const NodeId from = profile_index == 0 ? NodeId{} : step_node_[profile_index];
    if (reordered_) {
        const std::uint32_t at = from.valid() ? position_[from.index()] : 0;
        const auto* first = user_positions_.data() + users_begin_[s];
        const auto* last = user_positions_.data() + users_begin_[s + 1];
        const auto* it = std::lower_bound(first, last, at);
        r.next_user = it == last ? NodeId{} : order_[*it];
    } else {
        const auto users = alias_.users_of(iv.storage);
        const auto it = std::lower_bound(users.begin(), users.end(), from.valid() ? from : NodeId(0));
        r.next_user = it == users.end() ? NodeId{} : *it;
    }
    return r;
}

} // namespace fxmem
