// resolve_roles: the file's roles, else roles derived from the graphs' structure (the rules are
// listed in fxmem/attribution.h). One pass per graph collects per-storage evidence as bits; the
// role is then the first rule, in precedence order, whose bit is set.
#include "fxmem/attribution.h"

#include "fxmem/profile_steps.h"

#include <array>
#include <bit>

namespace fxmem {

namespace {

// Evidence bits, in precedence order (lowest bit wins).
enum : std::uint8_t {
    kParameter = 1,   // a "primals*" placeholder of a forward or unpaired graph holds it
    kBuffer = 2,      // a get_attr node holds it
    kTangent = 4,     // a "tangents*" placeholder holds it
    kInput = 8,       // another placeholder of a forward or unpaired graph holds it
    kActivation = 16, // another placeholder of a backward graph holds it
    kGradient = 32,   // computed in a backward graph, reaches its output node
    kOutput = 64,     // computed in a forward or unpaired graph, reaches its output node
};
constexpr std::array<StorageRole, 7> kRoleOfBit = {
    StorageRole::Parameter,  StorageRole::Buffer,   StorageRole::Tangent, StorageRole::Input,
    StorageRole::Activation, StorageRole::Gradient, StorageRole::Output};

} // namespace

std::string_view to_string(RoleSource source) {
    switch (source) {
    case RoleSource::File: return "file";
    case RoleSource::Derived: return "derived";
    case RoleSource::Mixed: return "mixed";
    }
    return "";
}

RoleAssignment resolve_roles(const GraphFile& file) {
    const std::size_t n_storages = file.storages.size();
    const std::size_t n_graphs = file.graphs.size();
    RoleAssignment r;
    r.role.assign(n_storages, StorageRole::Temporary);
    r.producer_graph.assign(n_storages, kNoGraph);
    r.producer_node.assign(n_storages, NodeId{});

    std::vector<std::uint8_t> is_backward(n_graphs, 0);
    for (const Pair& p : file.pairs) is_backward[p.backward.index()] = 1;

    std::vector<std::uint8_t> evidence(n_storages, 0);
    std::vector<std::uint32_t> seen_in(n_storages, kNoGraph);     // last graph in which the storage was held
    std::vector<std::uint32_t> computed_in(n_storages, kNoGraph); // last graph whose allocator of it computes
    for (std::uint32_t g = 0; g < n_graphs; ++g) {
        const Graph& graph = file.graphs[g];
        const bool backward = is_backward[g] != 0;
        for (std::size_t i = 0; i < graph.size(); ++i) {
            const NodeId id(static_cast<std::int32_t>(i));
            const Node& node = graph.node(id);
            std::uint8_t bit = 0;
            if (node.op == OpKind::Placeholder) {
                if (node.name.starts_with("tangents"))
                    bit = kTangent;
                else if (backward)
                    bit = kActivation;
                else
                    bit = node.name.starts_with("primals") ? kParameter : kInput;
            } else if (node.op == OpKind::GetAttr) {
                bit = kBuffer;
            } else if (node.op == OpKind::Output) {
                // What reaches the output: its inputs' storages. Only those this graph computes
                // are gradients / outputs (evidence of a placeholder outranks them anyway).
                for (NodeId in : graph.inputs(id))
                    for (StorageId s : graph.outputs(in))
                        if (computed_in[s.index()] == g) evidence[s.index()] |= backward ? kGradient : kOutput;
                continue;
            }
            for (StorageId s : graph.outputs(id)) {
                const std::size_t k = s.index();
                evidence[k] |= bit;
                // The first holder in this graph allocates it; a computing allocator is its producer.
                if (seen_in[k] == g) continue;
                seen_in[k] = g;
                if (!has_profile_points(node.op)) continue;
                computed_in[k] = g;
                if (r.producer_graph[k] == kNoGraph) {
                    r.producer_graph[k] = g;
                    r.producer_node[k] = id;
                }
            }
        }
    }
    for (std::size_t s = 0; s < n_storages; ++s) {
        const StorageRole given = file.storages[s].role;
        if (given != StorageRole::Unknown) {
            r.role[s] = given;
            ++r.from_file;
        } else if (const std::uint8_t e = evidence[s]; e != 0) {
            r.role[s] = kRoleOfBit[static_cast<std::size_t>(std::countr_zero(e))];
        }
    }
    r.source = r.from_file == 0            ? RoleSource::Derived
               : r.from_file == n_storages ? RoleSource::File
                                           : RoleSource::Mixed;
    return r;
}

} // namespace fxmem
