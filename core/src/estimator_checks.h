// Private helpers shared by the estimator sources: argument checks and message fragments.
#pragma once
#include "fxmem/error.h"
#include "fxmem/estimator.h"
#include "fxmem/profile_steps.h"

#include <string>

namespace fxmem::detail {

// Names in messages are cut to their first 120 and last 60 bytes (on UTF-8 boundaries) around
// "…": a refusal is built on every drag-over, and a hostile 100 MB name must not make each one
// 100 MB. Names up to kQuoteLimit bytes are quoted whole.
inline constexpr std::size_t kQuoteLimit = 200;

inline std::string quote(std::string_view s) {
    std::string r; // appended piece by piece: "'" + std::string(s) trips GCC 12's -Wrestrict at -O3
    r += '\'';
    if (s.size() <= kQuoteLimit) {
        r += s;
    } else {
        const auto continuation = [&](std::size_t i) { return (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80; };
        std::size_t head = 120, tail = s.size() - 60;
        while (head > 0 && continuation(head)) --head;
        while (tail < s.size() && continuation(tail)) ++tail;
        r += s.substr(0, head);
        r += "\u2026";
        r += s.substr(tail);
    }
    r += '\'';
    return r;
}

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
