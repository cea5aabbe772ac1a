// Cancellation, one idiom for all of core: the caller passes a CancelCheck that answers "stop
// now?" (true = stop); long work polls it between phases (and every few thousand items inside
// one) and throws fxmem::Cancelled. An empty check never cancels. The anytime searches
// (optimize_schedule, search_remat) poll it the same way but return their best result so far
// instead of throwing (OptimizeResult::cancelled says so).
//
// Progress is separate: a ProgressReport receives the fraction done (0..1) where the caller shows
// it, and cannot stop the work.
//
// Threads: a CancelCheck is called on the thread doing the work, so it must be safe there (an
// atomic flag, as JobTracker's); a ProgressReport likewise.
#pragma once
#include "fxmem/error.h"

#include <functional>

namespace fxmem {

using CancelCheck = std::function<bool()>;
using ProgressReport = std::function<void(double fraction)>;

// What a caller hands a file load (fxmem/io.h; the UI's injected loader takes the same): the
// check it polls, and where the fraction read goes.
struct LoadControl {
    CancelCheck cancelled;
    ProgressReport progress;
};

inline void throw_if_cancelled(const CancelCheck& cancelled) {
    if (cancelled && cancelled()) throw Cancelled();
}

} // namespace fxmem
