#include "recompute/rematedit.h"

#include "recompute/recomputepoints.h"

#include <fxmem/error.h>

#include <algorithm>

using namespace fxmem;

namespace {
// Of `nodes`, the first in joint order holding `storage` (views share their base's storage: the
// base, which allocates it, is the one a live-table row means).
NodeId holding(const JointGraph& joint, std::span<const NodeId> nodes, StorageId storage) {
    NodeId best;
    for (NodeId n : nodes) {
        const auto outs = joint.g().outputs(n);
        if (std::find(outs.begin(), outs.end(), storage) != outs.end() && (!best.valid() || n.index() < best.index()))
            best = n;
    }
    return best;
}
} // namespace

RematEditResult editAtStorage(const JointGraph& joint, std::span<const NodeId> saved, StorageId storage,
                              const std::string& name) {
    const Partition before = simulate_partition(joint, saved);
    RematEditResult r;
    r.flopsBefore = before.flops;
    if (const NodeId x = holding(joint, saved, storage); x.valid()) {
        r.recompute = true;
        r.node = x;
        r.saved = recompute_in_backward(joint, saved, x);
    } else if (const NodeId y = holding(joint, before.recomputed, storage); y.valid()) {
        r.node = y;
        r.saved = save_in_forward(joint, saved, y);
    } else {
        throw Error("this storage is neither a saved activation nor a recomputed value of the pair");
    }
    r.partition = simulate_partition(joint, r.saved);
    r.peak = score_partition(joint, r.partition);
    r.file = simulatedPairFile(joint, r.partition, {}, name);
    // As fxmem-cli remat --plan scores a plan: saved in the backward's placeholder order.
    RematResult asPlan;
    asPlan.saved = r.partition.saved;
    asPlan.partition = r.partition;
    asPlan.backward_order = r.partition.backward;
    asPlan.peak = r.peak;
    asPlan.extra_flops = r.partition.flops - remat_baseline(joint).flops;
    r.plan = std::make_shared<const RematPlan>(make_plan(joint, asPlan));
    return r;
}
