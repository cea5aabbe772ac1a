// Where a node of the edited schedule may be dropped along the graph view's time axis: core's
// legal range (fxmem::IncrementalSchedule::legal_range) on the profile steps of the nodes that
// run inside it, with the reason in words; and the schedule position a drop at a step means.
#pragma once
#include <fxmem/model.h>

#include <QString>

#include <cstdint>

class EditedSchedule;

struct DropBand {
    bool ok = false;
    std::int64_t loStep = 0, hiStep = 0; // legal drop steps (global)
    QString why;
};

// `node` of `graph`, which `schedule` orders. Not ok (and why) for nodes that do not run.
DropBand dropBandOf(const EditedSchedule& schedule, const fxmem::Graph& graph, fxmem::NodeId node);
// The position a node dropped at profile step `step` takes (the running node nearest the step).
std::size_t dropPosition(const EditedSchedule& schedule, double step);
