#include "sizes/logscale.h"

#include <algorithm>
#include <cmath>

namespace {
constexpr std::int64_t kUnboundedCut = std::int64_t{1} << 16;
constexpr std::int64_t kHintMultiple = 64;
} // namespace

LogScale LogScale::of(const fxmem::Symbol& symbol) {
    LogScale s;
    s.min = symbol.min;
    const std::int64_t hint = std::max<std::int64_t>(symbol.hint, 1);
    const std::int64_t cut =
        std::max(kUnboundedCut, hint > INT64_MAX / kHintMultiple ? INT64_MAX : hint * kHintMultiple);
    s.max = symbol.max ? *symbol.max : cut;
    s.capped = !symbol.max;
    s.max = std::max(s.max, s.min);
    return s;
}

// Distances from min are logged (log(1 + d)), so a range starting at 0 or 1 works too.
int LogScale::position(std::int64_t value) const {
    if (max <= min || value <= min) return 0;
    if (value >= max) return kSliderSteps;
    const double t = std::log1p(static_cast<double>(value - min)) / std::log1p(static_cast<double>(max - min));
    return std::clamp(static_cast<int>(std::lround(t * kSliderSteps)), 0, kSliderSteps);
}

std::int64_t LogScale::value(int position) const {
    if (position <= 0 || max <= min) return min;
    if (position >= kSliderSteps) return max;
    const double t = static_cast<double>(position) / kSliderSteps;
    const double d = std::expm1(t * std::log1p(static_cast<double>(max - min)));
    if (!(d < static_cast<double>(max - min))) return max; // also keeps llround in int64
    return std::clamp(min + static_cast<std::int64_t>(std::llround(d)), min, max);
}
