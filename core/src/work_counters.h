// Work counters for core's own tests and benchmarks: they check that crafted input (names that
// collide in a hash table, sparse storage ids, very deep module names) costs linear work by
// counting the work instead of timing it. Not part of the public API: the classes keep the counts
// private and befriend WorkCounters, which only this header defines (tests link
// fxmem_core_internal to include it).
#pragma once
#include "estimator/storage_passes.h"
#include "export/export_work.h"
#include "fxmem/attribution.h"
#include "fxmem/dataflow_scene.h"
#include "fxmem/model.h"
#include "fxmem/name_index.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace fxmem::detail {

struct WorkCounters {
    // Slots visited by a NameIndex's inserts so far: linear in the names for any input, quadratic
    // if they all collided. find() counts nothing (it may run on several threads at once).
    static std::uint64_t insert_probes(const NameIndex& index) { return index.probes_; }

    // The same over a file's indexes of graph names, dtypes and devices.
    static std::uint64_t index_probes(const GraphFile& file) {
        return insert_probes(file.graph_index_) + insert_probes(file.dtype_index_) + insert_probes(file.device_index_);
    }

    // The most storage ids in one bucket of a file's map of sparse ids (an unseeded hash would put
    // ids chosen as multiples of the bucket count all in one).
    static std::size_t longest_sparse_id_chain(const GraphFile& file) {
        std::size_t longest = 0;
        const auto& map = file.sparse_by_file_id_;
        for (std::size_t b = 0; b < map.bucket_count(); ++b) longest = std::max(longest, map.bucket_size(b));
        return longest;
    }

    // A ModuleTree's work of building and lookups: one per dotted component looked up, plus the
    // bytes of names hashed or compared (linear in the names' length).
    static std::uint64_t lookup_bytes(const ModuleTree& tree) { return tree.lookup_bytes_->load(); }

    // Tables of one entry per storage of the file the estimator has filled so far, in this
    // process (build_alias_info without a table to reuse, get_fwd_bwd_interactions' flags).
    static std::uint64_t storage_table_passes() { return detail::storage_table_passes.load(); }

    // Pieces, open stays and carried items export_timeline has visited so far, in this process.
    static std::uint64_t export_stay_work() { return detail::export_stay_work.load(); }

    // Segments a DataflowScene has drawn (each O(its graph)), its construction included.
    static std::uint64_t drawings(const DataflowScene& scene) { return scene.drawings_; }
};

} // namespace fxmem::detail
