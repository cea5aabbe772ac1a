#include "fxmem/units.h"

#include <array>
#include <cstdio>

namespace fxmem {

std::string format_bytes(std::int64_t bytes) {
    // Work on the magnitude as unsigned so that INT64_MIN has one too.
    const bool negative = bytes < 0;
    const std::uint64_t magnitude =
        negative ? 0 - static_cast<std::uint64_t>(bytes) : static_cast<std::uint64_t>(bytes);
    const std::string sign = negative ? "-" : "";
    if (magnitude < 1024) return sign + std::to_string(magnitude) + " B";

    static constexpr std::array<const char*, 4> kUnits = {"KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(magnitude) / 1024.0;
    std::size_t unit = 0;
    // Pick the unit after rounding: 1023.7 KiB prints as "1.00 MiB", not "1024 KiB".
    while (v >= 1023.5 && unit + 1 < kUnits.size()) {
        v /= 1024.0;
        ++unit;
    }
    // Three significant digits: 1.23, 12.3, 123 (a value that rounds up gains a digit: 9.996 -> 10.0).
    const int decimals = v < 9.995 ? 2 : v < 99.95 ? 1 : 0;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f %s", decimals, v, kUnits[unit]);
    return sign + buf;
}

} // namespace fxmem
