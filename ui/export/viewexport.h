// The view the window shows as core's export view (fxmem/export.h), for File > Export > Perfetto
// trace and memory_viz snapshot: the whole step, a joined pair, or one graph as the app analyses
// it (a pair's backward as in its pair: fxmem-cli export --graph G --in-pair), in the edited order
// when there is one, with the scene's device filter. fxmem-cli export writes the same bytes for
// the same view (docs/exports.md).
#pragma once
#include "loading/scene.h"

#include <fxmem/export.h>

#include <vector>

// `editedOrder`: the single graph's order when it differs from the graph's own; nullptr otherwise.
fxmem::ViewSpec exportViewOf(const Scene& scene, const std::vector<fxmem::NodeId>* editedOrder);
