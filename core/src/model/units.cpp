#include "fxmem/units.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

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

std::optional<std::int64_t> parse_byte_size(std::string_view text) {
    const auto space = [](char c) { return c == ' ' || c == '\t'; };
    while (!text.empty() && space(text.front())) text.remove_prefix(1);
    while (!text.empty() && space(text.back())) text.remove_suffix(1);
    // The number: digits, an optional fraction, an optional exponent; then the unit.
    std::size_t end = 0;
    const auto digits = [&] {
        const std::size_t from = end;
        while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
        return end > from;
    };
    if (!digits()) return std::nullopt;
    bool integral = true;
    if (end < text.size() && text[end] == '.') {
        ++end;
        digits();
        integral = false;
    }
    if (end < text.size() && (text[end] == 'e' || text[end] == 'E')) {
        ++end;
        if (!digits()) return std::nullopt;
        integral = false;
    }
    const std::string_view number = text.substr(0, end);
    std::string_view unit = text.substr(end);
    while (!unit.empty() && space(unit.front())) unit.remove_prefix(1);
    static constexpr std::pair<std::string_view, double> kUnits[] = {{"", 1},
                                                                     {"B", 1},
                                                                     {"kB", 1e3},
                                                                     {"KB", 1e3},
                                                                     {"MB", 1e6},
                                                                     {"GB", 1e9},
                                                                     {"TB", 1e12},
                                                                     {"KiB", 1024.0},
                                                                     {"MiB", 1048576.0},
                                                                     {"GiB", 1073741824.0},
                                                                     {"TiB", 1099511627776.0}};
    double scale = 0;
    for (const auto& [name, s] : kUnits)
        if (unit == name) scale = s;
    if (scale == 0) return std::nullopt;
    if (integral && scale == 1) { // bytes, exactly (a double would round above 2^53)
        std::int64_t v = 0;
        const auto r = std::from_chars(number.data(), number.data() + number.size(), v);
        if (r.ec != std::errc() || r.ptr != number.data() + number.size()) return std::nullopt;
        return v;
    }
    double v = 0;
    const auto r = std::from_chars(number.data(), number.data() + number.size(), v);
    if (r.ec != std::errc() || r.ptr != number.data() + number.size()) return std::nullopt;
    const double bytes = std::floor(v * scale);
    if (!(bytes >= 0) || !(bytes < 9.2e18)) return std::nullopt;
    // A fraction of a byte is no size ("0.9B" is not 0 bytes); a unit's fraction rounds down.
    if (scale == 1 && bytes != v * scale) return std::nullopt;
    if (bytes == 0 && v > 0) return std::nullopt;
    return static_cast<std::int64_t>(bytes);
}

} // namespace fxmem
