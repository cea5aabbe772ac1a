#include "sizes/devicememory.h"

#include <QRegularExpression>
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
    // A preset's text carries its devices after the dot.
    const QString size = text.section(u'·', 0, 0).trimmed();
    static const QRegularExpression re(
        QStringLiteral(R"(^([0-9]+(?:\.[0-9]*)?(?:[eE][0-9]+)?)\s*(B|kB|KB|MB|GB|TB|KiB|MiB|GiB|TiB)?$)"));
    const QRegularExpressionMatch m = re.match(size);
    if (!m.hasMatch()) return std::nullopt;
    bool ok = false;
    const double number = m.captured(1).toDouble(&ok);
    const QString unit = m.captured(2);
    double scale = 1;
    if (unit == QStringLiteral("kB") || unit == QStringLiteral("KB"))
        scale = 1e3;
    else if (unit == QStringLiteral("MB"))
        scale = 1e6;
    else if (unit == QStringLiteral("GB"))
        scale = 1e9;
    else if (unit == QStringLiteral("TB"))
        scale = 1e12;
    else if (unit == QStringLiteral("KiB"))
        scale = 1024.0;
    else if (unit == QStringLiteral("MiB"))
        scale = 1048576.0;
    else if (unit == QStringLiteral("GiB"))
        scale = 1073741824.0;
    else if (unit == QStringLiteral("TiB"))
        scale = 1099511627776.0;
    const double bytes = std::floor(number * scale);
    if (!ok || !(bytes >= 1) || !(bytes < 9.2e18)) return std::nullopt;
    return static_cast<std::int64_t>(bytes);
}
