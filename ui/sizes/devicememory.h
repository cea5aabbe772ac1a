// Device memory for the timeline's capacity line: presets for common GPUs and what a typed size
// means. The presets are GB (10^9 bytes) as GPU datasheets print them: "80 GB" is 80 * 10^9
// bytes (74.5 GiB), whatever the GPU's allocator later reserves for itself.
#pragma once
#include <QString>

#include <cstdint>
#include <optional>
#include <vector>

struct DevicePreset {
    int gb = 0;      // as printed on the datasheet
    QString device;  // the best-known one: "H100"
    QString devices; // all of them: "A100 80GB, H100 SXM and PCIe"
    std::int64_t bytes() const { return std::int64_t{gb} * 1000 * 1000 * 1000; }
    QString text() const; // "80 GB · H100"
};
const std::vector<DevicePreset>& devicePresets();

// "80GB", "80 GB", "74.5 GiB", "512MiB", "1e12", "80 GB · H100" (a preset's text): bytes, with
// decimal (kB, MB, GB, TB) or binary (KiB, MiB, GiB, TiB) units, as fxmem-cli fit's --memory;
// nullopt when the text is not a size or not positive.
std::optional<std::int64_t> parseDeviceMemory(const QString& text);
