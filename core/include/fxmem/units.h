// Human-readable sizes, one formatter for fxmem-cli and the app: binary units (B, KiB, ... EiB, as
// PyTorch reports) or decimal ones (B, kB, ... EB, as datasheets do).
//
// Pure functions: any thread.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fxmem {

enum class ByteUnits : std::uint8_t { Binary, Decimal };

// "0 B", "1023 B", "1.00 KiB", "12.5 MiB", "-3.00 GiB": three significant digits; the unit is
// chosen after rounding (1,048,575 B is "1.00 MiB"). 2^63-1 B is "8.00 EiB".
std::string format_bytes(std::int64_t bytes, ByteUnits units = ByteUnits::Binary);
// The same for a value between whole bytes (axis ticks); "inf B" and "nan B" for those.
std::string format_fractional_bytes(double bytes, ByteUnits units);

// A size as a person types it: "1000000" (bytes, exact), "80GiB", "24GB", "79.6 GiB", "1e9",
// "512MiB": decimal units (kB/KB, MB, GB, TB: powers of 1000) or binary ones (KiB, MiB, GiB, TiB),
// the bytes rounded down. nullopt for anything else, a negative size, one of 2^63 bytes or
// more, a fraction of a byte without a unit ("0.9B", "1.5") or a size that rounds down to 0
// from above ("0.1kB" is 100 bytes, "0.0001kB" nothing). fxmem-cli fit --memory and the app's device memory read sizes
// through this.
std::optional<std::int64_t> parse_byte_size(std::string_view text);

} // namespace fxmem
