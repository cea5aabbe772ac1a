// How many times the estimator has filled a table with one entry per storage of the file: a file
// of many small graphs must not cost graphs x storages, and tests check it by this count
// (work_counters.h) instead of timing it.
#pragma once
#include <atomic>
#include <cstdint>

namespace fxmem::detail {

inline std::atomic<std::uint64_t> storage_table_passes{0};

inline void count_storage_table_pass() { storage_table_passes.fetch_add(1, std::memory_order_relaxed); }

} // namespace fxmem::detail
