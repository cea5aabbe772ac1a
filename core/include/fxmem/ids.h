// Strong integer ids: a node index within one graph, a storage index within one file, a graph
// index within one file.
// Dense (0..n-1) so that per-node and per-storage data live in contiguous arrays.
//
// Plain values: any thread.
#pragma once
#include <cstdint>
#include <functional>

namespace fxmem {

template <class Tag>
struct Id {
    std::int32_t value = -1;
    constexpr Id() = default;
    constexpr explicit Id(std::int32_t v) : value(v) {}
    constexpr bool valid() const { return value >= 0; }
    constexpr std::size_t index() const { return static_cast<std::size_t>(value); }
    friend constexpr bool operator==(Id a, Id b) = default;
    friend constexpr auto operator<=>(Id a, Id b) = default;
};

using NodeId = Id<struct NodeTag>;       // position of a node in its graph's original order
using StorageId = Id<struct StorageTag>; // position of a storage in GraphFile::storages (not the file's "id")
using GraphId = Id<struct GraphTag>;     // position of a graph in GraphFile::graphs

} // namespace fxmem

template <class Tag>
struct std::hash<fxmem::Id<Tag>> {
    std::size_t operator()(fxmem::Id<Tag> id) const noexcept { return std::hash<std::int32_t>{}(id.value); }
};
