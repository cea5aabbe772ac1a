#include "fxmem/units.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

namespace fxmem {

namespace {

// One formatter for every unit system and both number types: `magnitude` >= 0.
std::string format_magnitude(bool negative, long double magnitude, ByteUnits units) {
    const std::string sign = negative ? "-" : "";
    const long double base = units == ByteUnits::Binary ? 1024.0L : 1000.0L;
    if (magnitude < base) return sign + std::to_string(static_cast<std::uint64_t>(std::llroundl(magnitude))) + " B";
    static constexpr std::array<const char*, 6> kBinary = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    static constexpr std::array<const char*, 6> kDecimal = {"kB", "MB", "GB", "TB", "PB", "EB"};
    long double v = magnitude / base;
    std::size_t unit = 0;
    // Pick the unit after rounding: 1023.7 KiB prints as "1.00 MiB", not "1024 KiB".
    while (v >= base - 0.5L && unit + 1 < kBinary.size()) {
        v /= base;
        ++unit;
    }
    // Three significant digits: 1.23, 12.3, 123 (a value that rounds up gains a digit: 9.996 -> 10.0).
    const int decimals = v < 9.995L ? 2 : v < 99.95L ? 1 : 0;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*Lf %s", decimals, v, (units == ByteUnits::Binary ? kBinary : kDecimal)[unit]);
    return sign + buf;
}

} // namespace

std::string format_bytes(std::int64_t bytes, ByteUnits units) {
    // Work on the magnitude as unsigned so that INT64_MIN has one too (exact in a long double).
    const bool negative = bytes < 0;
    const std::uint64_t magnitude =
        negative ? 0 - static_cast<std::uint64_t>(bytes) : static_cast<std::uint64_t>(bytes);
    return format_magnitude(negative, static_cast<long double>(magnitude), units);
}

std::string format_fractional_bytes(double bytes, ByteUnits units) {
    if (!std::isfinite(bytes)) return bytes != bytes ? "nan B" : (bytes < 0 ? "-inf B" : "inf B");
    return format_magnitude(bytes < 0, std::fabs(static_cast<long double>(bytes)), units);
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
