// MemoryTracker with per-storage counters of unscheduled users: PyTorch's
// all(u in scheduled for u in all_uses) becomes "the counter reached zero", O(1) per use.
#include "fxmem/estimator.h"

#include "estimator_checks.h"

namespace fxmem {

MemoryTracker::MemoryTracker(const GraphFile& file, const Graph& graph, const AliasInfo& alias, NodeMask releasable,
                             StorageMask counted)
    : file_(file), graph_(graph), alias_(alias), releasable_(std::move(releasable)), counted_(std::move(counted)) {
    detail::check_inputs(file_, graph_, alias_, releasable_, counted_, "MemoryTracker");
    const std::size_t n_storages = file_.storages.size();
    live_.assign(n_storages, 0);
    scheduled_.assign(graph_.size(), 0);
    // Only the graph's own storages have users, and each of them is allocated in it (fresh).
    unscheduled_users_.assign(n_storages, 0);
    for (StorageId s : alias_.fresh_pool) unscheduled_users_[s.index()] = alias_.storage_users[s.index()].size();
    for (std::size_t i = 0; i < graph_.size(); ++i) {
        const OpKind op = graph_.nodes[i].op;
        if (op != OpKind::Placeholder && op != OpKind::GetAttr) continue;
        for (StorageId s : alias_.fresh_of(NodeId(static_cast<std::int32_t>(i))))
            if (counted_[s.index()]) {
                live_[s.index()] = 1;
                current_ += file_.nbytes(s);
            }
    }
    peak_ = current_;
}

void MemoryTracker::schedule(NodeId node) {
    if (!node.valid() || node.index() >= graph_.size())
        throw PreconditionError("MemoryTracker: " + detail::graph_where(graph_) + ": node id " +
                                std::to_string(node.value) + " is out of range");
    const Node& nd = graph_.node(node);
    if (scheduled_[node.index()])
        throw Error(detail::graph_where(graph_) + ": node " + detail::quote(nd.name) + " is scheduled twice");
    const bool runs = has_profile_points(nd.op);
    // PyTorch asserts that every counted storage a node uses is live. We check before changing
    // anything, so a failed schedule() leaves the tracker as it was. (A node never uses a storage it
    // allocates itself: its inputs come earlier in graph order, so the allocator does too.)
    if (runs)
        for (StorageId s : alias_.uses_of(node))
            if (counted_[s.index()] && !live_[s.index()]) throw detail::not_live_error(graph_, alias_, file_, node, s);
    scheduled_[node.index()] = 1;
    // Every scheduled node counts as scheduled for "all uses scheduled", placeholder and output included.
    for (StorageId s : alias_.uses_of(node)) --unscheduled_users_[s.index()];
    if (!runs) return;

    for (StorageId s : alias_.fresh_of(node))
        if (counted_[s.index()] && !live_[s.index()]) {
            live_[s.index()] = 1;
            current_ += file_.nbytes(s);
        }
    if (current_ > peak_) peak_ = current_;
    for (StorageId s : alias_.uses_of(node)) {
        const std::size_t si = s.index();
        if (counted_[si] && releasable_[alias_.allocator[si].index()] && unscheduled_users_[si] == 0 && live_[si]) {
            live_[si] = 0;
            current_ -= file_.nbytes(s);
        }
    }
}

} // namespace fxmem
