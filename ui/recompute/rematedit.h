// "Recompute in backward" / "Save" on one value of a pair that partitions a joint graph: which
// joint node a live storage is, the edited saved set through core's recompute_in_backward /
// save_in_forward (refused with core's reason), and the edited pair scored and materialized.
// Qt-free; O(N + E) per edit.
#pragma once
#include <fxmem/remat.h>

#include <memory>
#include <span>
#include <string>
#include <vector>

struct RematEditResult {
    bool recompute = false; // true: x was recomputed in the backward; false: saved
    fxmem::NodeId node;     // the joint node edited
    std::vector<fxmem::NodeId> saved;
    fxmem::Partition partition;
    fxmem::PeakMemory peak;                       // the edited pair, scored
    std::int64_t flopsBefore = 0;                 // forward + backward FLOPs before the edit
    std::shared_ptr<const fxmem::GraphFile> file; // the edited pair as a file of one pair
    // The edited pair as a plan file (make_plan; extra FLOPs over remat_baseline, the backward in
    // the partition's own order): what `fxmem-cli remat --plan` of it writes back with -o.
    std::shared_ptr<const fxmem::RematPlan> plan;
};

// Edits the partition `saved` at the joint node that holds `storage`: a saved value holding it is
// recomputed in the backward, else a recomputed node holding it is saved. Throws fxmem::Error
// with the reason when the storage is neither or core refuses the edit.
RematEditResult editAtStorage(const fxmem::JointGraph& joint, std::span<const fxmem::NodeId> saved,
                              fxmem::StorageId storage, const std::string& name);
