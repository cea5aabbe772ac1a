#include "sizes/devicememory.h"

#include <fxmem/units.h>

#include <QStringBuilder>

#include <cmath>

QString DevicePreset::text() const { return QStringLiteral("%1 GB · %2").arg(gb).arg(device); }

const std::vector<DevicePreset>& devicePresets() {
    static const std::vector<DevicePreset> presets = {
        {16, QStringLiteral("V100"), QStringLiteral("V100 16GB, T4, RTX 4080")},
        {24, QStringLiteral("RTX 4090"), QStringLiteral("RTX 4090, L4, A10")},
        {40, QStringLiteral("A100"), QStringLiteral("A100 40GB")},
        {48, QStringLiteral("L40S"), QStringLiteral("L40S, RTX 6000 Ada, A40")},
        {80, QStringLiteral("H100"), QStringLiteral("H100 SXM and PCIe, A100 80GB")},
        {94, QStringLiteral("H100 NVL"), QStringLiteral("H100 NVL")},
        {141, QStringLiteral("H200"), QStringLiteral("H200")},
        {192, QStringLiteral("B200"), QStringLiteral("B200, MI300X")},
    };
    return presets;
}

std::optional<std::int64_t> parseDeviceMemory(const QString& text) {
    // A preset's text carries its devices after the dot; the size is read as fxmem-cli reads it.
    const QString size = text.section(u'·', 0, 0).trimmed();
    const std::optional<std::int64_t> bytes = fxmem::parse_byte_size(size.toStdString());
    if (!bytes || *bytes < 1) return std::nullopt;
    return bytes;
}
