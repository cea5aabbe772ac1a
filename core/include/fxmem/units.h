// Human-readable sizes in binary units (B, KiB, MiB, GiB, TiB).
//
// Pure functions: any thread.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fxmem {

// "0 B", "1023 B", "1.00 KiB", "12.5 MiB", "-3.00 GiB": three significant digits.
std::string format_bytes(std::int64_t bytes);

// A size as a person types it: "1000000" (bytes, exact), "80GiB", "24GB", "79.6 GiB", "1e9",
// "512MiB": decimal units (kB/KB, MB, GB, TB: powers of 1000) or binary ones (KiB, MiB, GiB, TiB),
// the bytes rounded down. nullopt for anything else, a negative size, one of 2^63 bytes or
// more, a fraction of a byte without a unit ("0.9B", "1.5") or a size that rounds down to 0
// from above ("0.1kB" is 100 bytes, "0.0001kB" nothing). fxmem-cli fit --memory and the app's device memory read sizes
// through this.
std::optional<std::int64_t> parse_byte_size(std::string_view text);

} // namespace fxmem
