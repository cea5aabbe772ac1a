// IncrementalSchedule under MemoryTracker semantics, for legal orders:
//  - a counted storage is allocated when its allocator runs (placeholders and get_attr: in start_);
//  - it is freed when the user at the highest position runs, if its allocator is releasable and
//    that user is not a placeholder, get_attr or output node (the tracker frees nothing there);
//  - memory peaks after a node's allocations, before its frees.
// Leaf p holds (net = alloc - free, best = alloc) of the node at position p; a parent holds
// net = netL + netR and best = max(bestL, netL + bestR), so start + root.best is the peak.
// Moving a node from `from` to `to` only changes the leaves in [min, max]: the nodes there shift,
// and every storage whose last-scheduled user changes has both old and new one inside the range.
//
// Legality: after every input and before every user, the output node last, and also the
// tracker's own invariant (a node uses only live storages): a node that runs must come after the
// allocator of every counted storage it uses. In graphs exported from PyTorch that allocator is
// always an ancestor, so this adds nothing there; it keeps hand-made or odd files exact.
#include "fxmem/incremental.h"

#include "estimator/estimator_checks.h"
#include "fxmem/op_category.h"
#include "fxmem/schedule.h"

#include <algorithm>

namespace fxmem {

using detail::quote;

struct IncrementalSchedule::Bounds {
    std::size_t lo = 0, hi = 0;
    NodeId before, after;                    // blockers (invalid at the schedule's edges)
    StorageId before_storage, after_storage; // set when the blocker is an allocator/user through a storage
};

IncrementalSchedule::IncrementalSchedule(const GraphFile& file, const Graph& graph, const AliasInfo& alias,
                                         NodeMask releasable, StorageMask counted, std::vector<NodeId> order)
    : file_(file), graph_(graph), alias_(alias), releasable_(std::move(releasable)), counted_(std::move(counted)),
      order_(std::move(order)) {
    detail::check_inputs(file_, graph_, alias_, releasable_, counted_, "IncrementalSchedule");
    check_schedule(graph_, order_);
    const std::size_t n = graph_.size();
    if (n > 0 && graph_.nodes.back().op == OpKind::Output) output_ = NodeId(static_cast<std::int32_t>(n - 1));
    op_.resize(n);
    for (std::size_t i = 0; i < n; ++i) op_[i] = static_cast<std::uint8_t>(graph_.nodes[i].op);
    position_.resize(n);
    for (std::size_t p = 0; p < n; ++p) position_[order_[p].index()] = p;

    // The tracker's invariant on the initial order (check_schedule does not know storages).
    for (std::size_t p = 0; p < n; ++p) {
        const NodeId u = order_[p];
        if (!has_profile_points(op(u))) continue;
        for (StorageId s : alias_.uses_of(u)) {
            if (!counted_[s.index()]) continue;
            const NodeId a = alias_.allocator[s.index()];
            const OpKind aop = op(a);
            if (aop == OpKind::Output || (has_profile_points(aop) && position_[a.index()] > p))
                throw Error(detail::graph_where(graph_) + ": node " + quote(graph_.node(u).name) + " (position " +
                            std::to_string(p) + ") uses " + detail::storage_label(file_, s) + " before its allocator " +
                            quote(graph_.node(a).name) + " runs");
        }
    }

    alloc_of_.assign(n, 0);
    free_of_.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const NodeId node(static_cast<std::int32_t>(i));
        const OpKind nop = op(node);
        const bool runs = has_profile_points(nop);
        for (StorageId s : alias_.fresh_of(node)) {
            if (!counted_[s.index()]) continue;
            if (runs)
                alloc_of_[i] += file_.nbytes(s);
            else if (nop != OpKind::Output)
                start_ += file_.nbytes(s);
        }
    }
    const std::size_t n_storages = file_.storages.size();
    freeable_.assign(n_storages, 0);
    last_scheduled_.assign(n_storages, NodeId{});
    for (std::size_t s = 0; s < n_storages; ++s) {
        const NodeId a = alias_.allocator[s];
        const auto users = alias_.users_of(StorageId(static_cast<std::int32_t>(s)));
        if (!a.valid() || !counted_[s] || !releasable_[a.index()] || users.empty() || op(a) == OpKind::Output) continue;
        freeable_[s] = 1;
        NodeId last = users.front();
        for (NodeId u : users)
            if (position_[u.index()] > position_[last.index()]) last = u;
        last_scheduled_[s] = last;
        if (has_profile_points(op(last)))
            free_of_[last.index()] += file_.nbytes(StorageId(static_cast<std::int32_t>(s)));
    }

    while (leaves_ < n) leaves_ *= 2;
    // Padding leaves (0, 0) stand for "after the last node": never above the last real leaf.
    tree_sum_.assign(2 * leaves_, 0);
    tree_best_.assign(2 * leaves_, 0);
    for (std::size_t p = 0; p < n; ++p) set_leaf(p);
    for (std::size_t v = leaves_ - 1; v >= 1; --v) {
        tree_sum_[v] = tree_sum_[2 * v] + tree_sum_[2 * v + 1];
        tree_best_[v] = std::max(tree_best_[2 * v], tree_sum_[2 * v] + tree_best_[2 * v + 1]);
    }
}

void IncrementalSchedule::set_leaf(std::size_t position) {
    const std::size_t node = order_[position].index();
    tree_sum_[leaves_ + position] = alloc_of_[node] - free_of_[node];
    tree_best_[leaves_ + position] = alloc_of_[node];
}

void IncrementalSchedule::rebuild_positions(std::size_t lo, std::size_t hi) {
    for (std::size_t p = lo; p <= hi; ++p) set_leaf(p);
    // Parents of the range, level by level: O(hi - lo + log N).
    for (std::size_t a = (leaves_ + lo) / 2, b = (leaves_ + hi) / 2; a >= 1; a /= 2, b /= 2) {
        for (std::size_t v = a; v <= b; ++v) {
            tree_sum_[v] = tree_sum_[2 * v] + tree_sum_[2 * v + 1];
            tree_best_[v] = std::max(tree_best_[2 * v], tree_sum_[2 * v] + tree_best_[2 * v + 1]);
        }
        if (a == 1) break;
    }
}

IncrementalSchedule::Bounds IncrementalSchedule::bounds(std::size_t position) const {
    const std::size_t n = order_.size();
    const NodeId x = order_[position];
    Bounds b;
    if (x == output_) {
        b.lo = b.hi = n - 1;
        return b;
    }
    const bool runs = has_profile_points(op(x));
    // Latest predecessor: inputs, then (for a node that runs) allocators of counted storages it uses.
    std::size_t lo = 0, hi = output_.valid() ? n - 1 : n;
    auto later = [&](NodeId p, StorageId via) {
        if (position_[p.index()] + 1 > lo) {
            lo = position_[p.index()] + 1;
            b.before = p;
            b.before_storage = via;
        }
    };
    for (NodeId in : graph_.inputs(x)) later(in, StorageId{});
    if (runs)
        for (StorageId s : alias_.uses_of(x)) {
            if (!counted_[s.index()]) continue;
            const NodeId a = alias_.allocator[s.index()];
            if (has_profile_points(op(a))) later(a, s);
        }
    // Earliest successor: users, then (for a node that runs) nodes that run and use its storages.
    if (output_.valid()) b.after = output_;
    auto earlier = [&](NodeId u, StorageId via) {
        if (position_[u.index()] < hi) {
            hi = position_[u.index()];
            b.after = u;
            b.after_storage = via;
        }
    };
    for (NodeId u : graph_.users(x)) earlier(u, StorageId{});
    if (runs)
        for (StorageId s : alias_.fresh_of(x)) {
            if (!counted_[s.index()]) continue;
            for (NodeId u : alias_.users_of(s))
                if (has_profile_points(op(u))) earlier(u, s);
        }
    b.lo = lo;
    b.hi = hi - 1;
    return b;
}

IncrementalSchedule::LegalRange IncrementalSchedule::legal_range(std::size_t position) const {
    if (position >= order_.size())
        throw Error(detail::graph_where(graph_) + ": position " + std::to_string(position) +
                    " is out of range (the schedule has " + std::to_string(order_.size()) + " nodes)");
    const Bounds b = bounds(position);
    return LegalRange{b.lo, b.hi, b.before, b.after};
}

IncrementalSchedule::MoveCheck IncrementalSchedule::check_move(std::size_t from, std::size_t to) const {
    MoveCheck r;
    const std::size_t n = order_.size();
    if (from >= n || to >= n) {
        r.reason = "position " + std::to_string(from >= n ? from : to) + " is out of range (the schedule has " +
                   std::to_string(n) + " nodes)";
        return r;
    }
    const NodeId x = order_[from];
    const std::string name = quote(graph_.node(x).name);
    if (x == output_ && to != from) {
        r.blocker = x;
        r.reason = "the output node " + name + " must stay last";
        return r;
    }
    const Bounds b = bounds(from);
    auto step = [&](NodeId v) { return " (position " + std::to_string(position_[v.index()]) + ")"; };
    if (to < b.lo) {
        r.blocker = b.before;
        const std::string other = quote(graph_.node(b.before).name);
        r.reason = b.before_storage.valid()
                       ? name + " must stay after " + other + step(b.before) + ", which allocates " +
                             detail::storage_label(file_, b.before_storage) + " that it uses"
                       : name + " must stay after its input " + other + step(b.before);
        return r;
    }
    if (to > b.hi) {
        r.blocker = b.after;
        const std::string other = quote(graph_.node(b.after).name);
        if (b.after_storage.valid())
            r.reason = name + " must stay before " + other + step(b.after) + ", which uses " +
                       detail::storage_label(file_, b.after_storage) + " that it allocates";
        else if (b.after == output_ && !std::binary_search(graph_.users(x).begin(), graph_.users(x).end(), output_))
            r.reason = name + " must stay before the output node " + other + step(b.after);
        else
            r.reason = name + " must stay before its user " + other + step(b.after);
        return r;
    }
    r.ok = true;
    return r;
}

void IncrementalSchedule::move(std::size_t from, std::size_t to) {
    const MoveCheck c = check_move(from, to);
    if (!c.ok) throw Error(detail::graph_where(graph_) + ": cannot move: " + c.reason);
    if (from == to) return;
    const NodeId x = order_[from];
    const std::size_t lo = std::min(from, to), hi = std::max(from, to);
    if (from < to)
        std::rotate(order_.begin() + static_cast<std::ptrdiff_t>(from),
                    order_.begin() + static_cast<std::ptrdiff_t>(from) + 1,
                    order_.begin() + static_cast<std::ptrdiff_t>(to) + 1);
    else
        std::rotate(order_.begin() + static_cast<std::ptrdiff_t>(to),
                    order_.begin() + static_cast<std::ptrdiff_t>(from),
                    order_.begin() + static_cast<std::ptrdiff_t>(from) + 1);
    for (std::size_t p = lo; p <= hi; ++p) position_[order_[p].index()] = p;

    // Only storages x uses can change their last-scheduled user.
    for (StorageId s : alias_.uses_of(x)) {
        const std::size_t si = s.index();
        if (!freeable_[si]) continue;
        const NodeId old_last = last_scheduled_[si];
        NodeId new_last = old_last;
        if (from < to) {
            if (old_last != x && position_[x.index()] > position_[old_last.index()]) new_last = x;
        } else if (old_last == x) {
            for (NodeId u : alias_.users_of(s))
                if (position_[u.index()] > position_[new_last.index()]) new_last = u;
        }
        if (new_last == old_last) continue;
        const std::int64_t size = file_.nbytes(s);
        if (has_profile_points(op(old_last))) free_of_[old_last.index()] -= size;
        if (has_profile_points(op(new_last))) free_of_[new_last.index()] += size;
        last_scheduled_[si] = new_last;
    }
    rebuild_positions(lo, hi);
}

std::int64_t IncrementalSchedule::peak() const { return start_ + tree_best_[1]; }

std::size_t IncrementalSchedule::peak_position() const {
    if (order_.empty()) return 0;
    // Descend towards the leftmost leaf where prefix + best reaches the root's best.
    std::size_t v = 1;
    std::int64_t before = 0;
    while (v < leaves_) {
        if (before + tree_best_[2 * v] == tree_best_[1]) {
            v = 2 * v;
        } else {
            before += tree_sum_[2 * v];
            v = 2 * v + 1;
        }
    }
    return std::min(v - leaves_, order_.size() - 1);
}

std::int64_t IncrementalSchedule::after(std::size_t position) const {
    if (position >= order_.size())
        throw Error(detail::graph_where(graph_) + ": position " + std::to_string(position) + " is out of range");
    // Sum of the leaves [0, position]: walk up from the leaf, adding left siblings.
    std::size_t v = leaves_ + position;
    std::int64_t total = tree_sum_[v];
    for (; v > 1; v /= 2)
        if (v % 2 == 1) total += tree_sum_[v - 1];
    return start_ + total;
}

std::vector<std::int64_t> IncrementalSchedule::current() const {
    std::vector<std::int64_t> out(order_.size());
    std::int64_t memory = start_;
    for (std::size_t p = 0; p < order_.size(); ++p) {
        memory += tree_sum_[leaves_ + p];
        out[p] = memory;
    }
    return out;
}

std::vector<std::int64_t> IncrementalSchedule::profile() const {
    std::vector<std::int64_t> out;
    out.reserve(1 + 2 * order_.size());
    out.push_back(start_);
    std::int64_t memory = start_;
    for (std::size_t p = 0; p < order_.size(); ++p) {
        const NodeId node = order_[p];
        const std::int64_t before = memory;
        memory += tree_sum_[leaves_ + p];
        if (!has_profile_points(op(node))) continue;
        out.push_back(before + alloc_of_[node.index()]);
        out.push_back(memory);
    }
    return out;
}

std::vector<NodeId> IncrementalSchedule::companions(std::size_t position) const {
    std::vector<NodeId> out;
    if (position >= order_.size()) return out;
    const std::vector<OpCategory> categories = target_categories(graph_);
    std::vector<NodeId> todo{order_[position]};
    while (!todo.empty()) {
        const NodeId user = todo.back();
        todo.pop_back();
        for (NodeId in : graph_.inputs(user)) {
            const auto users = graph_.users(in);
            if (users.size() != 1 || users.front() != user || !has_profile_points(op(in)) ||
                node_category(graph_, in, categories) != OpCategory::View ||
                std::find(out.begin(), out.end(), in) != out.end())
                continue;
            out.push_back(in);
            todo.push_back(in);
        }
    }
    std::sort(out.begin(), out.end(), [&](NodeId a, NodeId b) { return position_[a.index()] < position_[b.index()]; });
    return out;
}

std::vector<IncrementalSchedule::Step> IncrementalSchedule::plan_move_with(std::size_t from, std::size_t to,
                                                                           MoveCheck* check) const {
    MoveCheck result = check_move(from, to); // out of range, or the output node: as a single move
    if (from >= order_.size() || to >= order_.size() || order_[from] == output_) {
        if (check) *check = result;
        return {};
    }
    const NodeId x = order_[from];
    std::vector<Step> steps;
    // Tried on a copy: every step must be legal where the steps before it left the order.
    IncrementalSchedule trial(*this);
    const auto step = [&](std::size_t a, std::size_t b) {
        result = trial.check_move(a, b);
        if (!result.ok) return false;
        if (a != b) {
            steps.push_back({a, b});
            trial.move(a, b);
        }
        return true;
    };
    bool ok = true;
    const std::vector<NodeId> with = companions(from);
    if (to < from) {
        // Up: the companions (first to last) to `to`, `to + 1`, ... unless already above that; the
        // node right after them. Its position does not change meanwhile (they all were before it).
        std::size_t at = to;
        for (NodeId c : with) {
            const std::size_t p = trial.position_of(c);
            if (p < at) continue;
            if (!(ok = step(p, at++))) break;
        }
        if (ok) ok = step(trial.position_of(x), at);
    } else {
        // Down (or in place): the node first, then each companion to right before it.
        ok = step(from, to);
        for (std::size_t i = 0; ok && i < with.size(); ++i) {
            const std::size_t p = trial.position_of(with[i]), xp = trial.position_of(x);
            ok = step(p, xp - 1);
        }
    }
    if (check) *check = result;
    if (!ok) return {};
    return steps;
}

} // namespace fxmem
