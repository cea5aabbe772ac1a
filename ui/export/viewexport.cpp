#include "export/viewexport.h"

fxmem::ExportView exportViewOf(const Scene& scene, const std::vector<fxmem::NodeId>* editedOrder) {
    fxmem::ExportView v;
    v.devices = scene.request.filter;
    if (scene.wholeStep()) {
        v.scope = fxmem::ExportScope::WholeStep;
    } else if (scene.request.pair >= 0) {
        v.scope = fxmem::ExportScope::Pair;
        v.pair = static_cast<std::size_t>(scene.request.pair);
    } else {
        v.scope = fxmem::ExportScope::Graph;
        v.graph = fxmem::GraphId(scene.request.graph);
        v.context = fxmem::PairContext::AsInPair; // buildScene's GraphAnalysis::compute
        if (editedOrder) v.schedule = fxmem::Schedule{fxmem::GraphId(scene.request.graph), *editedOrder};
    }
    return v;
}
