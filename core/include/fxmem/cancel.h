// A cooperative cancel check for long computations: the caller passes a callable that answers
// "stop now?", the computation polls it between phases (and every few thousand items inside
// one) and throws fxmem::Cancelled. An empty check never cancels.
#pragma once
#include "fxmem/error.h"

#include <functional>

namespace fxmem {

using CancelCheck = std::function<bool()>;

inline void throw_if_cancelled(const CancelCheck& cancelled) {
    if (cancelled && cancelled()) throw Cancelled();
}

} // namespace fxmem
