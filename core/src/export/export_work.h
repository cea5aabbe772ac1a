// The work export_timeline did on the stays, summed over its calls in this process: pieces,
// open stays and carried items visited. A whole step of n calls that carries O(n) items through
// O(n) sections must cost O(n), and tests check it by this count (work_counters.h), not by time.
#pragma once
#include <atomic>
#include <cstdint>

namespace fxmem::detail {

inline std::atomic<std::uint64_t> export_stay_work{0};

} // namespace fxmem::detail
