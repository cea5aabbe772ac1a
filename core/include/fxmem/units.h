// Human-readable sizes in binary units (B, KiB, MiB, GiB, TiB).
#pragma once
#include <cstdint>
#include <string>

namespace fxmem {

// "0 B", "1023 B", "1.00 KiB", "12.5 MiB", "-3.00 GiB": three significant digits.
std::string format_bytes(std::int64_t bytes);

} // namespace fxmem
