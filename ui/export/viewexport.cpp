#include "export/viewexport.h"

fxmem::ViewSpec exportViewOf(const Scene& scene, const std::vector<fxmem::NodeId>* editedOrder) {
    fxmem::ViewSpec v;
    v.devices = scene.request.filter;
    if (scene.wholeStep()) {
        v.scope = fxmem::ViewScope::WholeStep;
    } else if (scene.request.pair >= 0) {
        v.scope = fxmem::ViewScope::Pair;
        v.pair = static_cast<std::size_t>(scene.request.pair);
    } else {
        v.scope = fxmem::ViewScope::Graph;
        v.graph = fxmem::GraphId(scene.request.graph);
        v.context = fxmem::PairContext::AsInPair; // buildScene's GraphAnalysis::compute
        if (editedOrder) v.schedule = fxmem::Schedule{fxmem::GraphId(scene.request.graph), *editedOrder};
    }
    return v;
}
