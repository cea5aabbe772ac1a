// A symbol's slider: positions 0..kSliderSteps over its range on a log scale (a batch of 8 and
// one of 8192 are each a few steps from their neighbours). An unbounded range is cut at
// max(64 x hint, 2^16); the number field beside the slider still takes any value in range.
#pragma once
#include <fxmem/symbolic.h>

#include <cstdint>

struct LogScale {
    static constexpr int kSliderSteps = 1000;
    std::int64_t min = 0, max = 0;
    bool capped = false; // max is the cut, not the symbol's own bound

    static LogScale of(const fxmem::Symbol& symbol);
    // The nearest position to `value` (clamped to the ends), and the value at a position: the
    // ends map to min and max exactly.
    int position(std::int64_t value) const;
    std::int64_t value(int position) const;
};
