// The policies PyTorch passes as callables (device_filter, is_releasable), evaluated once into masks.
#include "fxmem/estimator.h"
#include "fxmem/profile_steps.h"

namespace fxmem {

StorageMask default_counted(const GraphFile& file) {
    // device.type != "cpu": the model already knows each interned device's type.
    StorageMask mask(file.storages.size());
    for (std::size_t s = 0; s < mask.size(); ++s) mask[s] = file.device_is_cpu[file.storages[s].device] ? 0 : 1;
    return mask;
}

StorageMask counted_by_device(const GraphFile& file, const std::function<bool(std::string_view device)>& keep) {
    // One call per distinct device string, not per storage.
    std::vector<std::uint8_t> per_device(file.devices.size());
    for (std::size_t d = 0; d < per_device.size(); ++d) per_device[d] = keep(file.devices[d]) ? 1 : 0;
    StorageMask mask(file.storages.size());
    for (std::size_t s = 0; s < mask.size(); ++s) mask[s] = per_device[file.storages[s].device];
    return mask;
}

NodeMask default_releasable(const Graph& graph) {
    NodeMask mask(graph.size());
    for (std::size_t n = 0; n < mask.size(); ++n) mask[n] = graph.nodes[n].name.starts_with("primals") ? 0 : 1;
    return mask;
}

std::vector<NodeId> profile_nodes(const Graph& graph) {
    std::vector<NodeId> out;
    out.reserve(graph.size());
    for (std::size_t n = 0; n < graph.size(); ++n) {
        if (has_profile_points(graph.nodes[n].op)) out.emplace_back(static_cast<std::int32_t>(n));
    }
    return out;
}

} // namespace fxmem
