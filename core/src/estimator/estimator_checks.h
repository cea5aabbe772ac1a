// Private helpers shared by the estimator sources: argument checks and message fragments.
#pragma once
#include "fxmem/error.h"
#include "fxmem/estimator.h"
#include "fxmem/profile_steps.h"
#include "model/quote.h"

#include <string>

namespace fxmem::detail {

inline std::string graph_where(const Graph& graph) { return "graph " + quote(graph.name); }

inline std::string storage_label(const GraphFile& file, StorageId s) {
    return "storage id " + std::to_string(file.storages[s.index()].file_id);
}

// MemoryTracker's assertion that a running node uses only live counted storages, as a message
// naming the file (when it has a name), the graph, the node and the storage.
inline Error not_live_error(const Graph& graph, const AliasInfo& alias, const GraphFile& file, NodeId node,
                            StorageId s) {
    const NodeId alloc = alias.allocator[s.index()];
    return Error((file.source.empty() ? std::string() : file.source + ": ") + graph_where(graph) + ": node " +
                 quote(graph.node(node).name) + " uses " + storage_label(file, s) + " (allocated by " +
                 quote(graph.node(alloc).name) +
                 ") which is not live: its allocator has not run yet or it was already freed");
}

// Masks and alias info must have been made for this file and graph.
inline void check_inputs(const GraphFile& file, const Graph& graph, const AliasInfo& alias, const NodeMask& releasable,
                         const StorageMask& counted, const char* who) {
    if (releasable.size() != graph.size() || counted.size() != file.storages.size() ||
        alias.fresh.size() != graph.size() || alias.allocator.size() != file.storages.size())
        throw Error(std::string(who) + ": " + graph_where(graph) +
                    ": masks or alias info were built for another graph or file");
}

} // namespace fxmem::detail
