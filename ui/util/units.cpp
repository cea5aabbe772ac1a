#include "util/units.h"

#include <QLocale>

#include <array>
#include <cmath>

namespace {
ByteUnits g_units = ByteUnits::Binary;
} // namespace

void ByteUnitsWriter::set(ByteUnits units) { g_units = units; }
ByteUnits byteUnits() { return g_units; }

double unitBase() { return g_units == ByteUnits::Binary ? 1024.0 : 1000.0; }

QString unitName(int power) {
    static const std::array<const char*, 7> binary = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    static const std::array<const char*, 7> decimal = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    const auto i = static_cast<std::size_t>(std::clamp(power, 0, 6));
    return QString::fromLatin1(g_units == ByteUnits::Binary ? binary[i] : decimal[i]);
}

QString formatBytes(double bytes) {
    const double base = unitBase();
    double v = std::abs(bytes);
    int power = 0;
    while (v >= base && power < 6) {
        v /= base;
        ++power;
    }
    const QString sign = bytes < 0 ? QStringLiteral("-") : QString();
    if (power == 0) return sign % QString::number(static_cast<qint64>(std::llround(v))) % QStringLiteral(" B");
    // Three significant digits; rounding may carry into the next unit (1023.9 KiB -> 1.00 MiB).
    int decimals = v < 10 ? 2 : v < 100 ? 1 : 0;
    if (std::round(v * std::pow(10, decimals)) / std::pow(10, decimals) >= base && power < 6) {
        v /= base;
        ++power;
        decimals = 2;
    }
    return sign % QString::number(v, 'f', decimals) % QLatin1Char(' ') % unitName(power);
}

QString formatBytes(std::int64_t bytes) { return formatBytes(static_cast<double>(bytes)); }

QString formatDelta(std::int64_t delta, std::int64_t base) {
    if (delta == 0) return QStringLiteral("±0 B");
    QString text = (delta > 0 ? QStringLiteral("+") : QString()) % formatBytes(delta);
    if (base > 0) {
        const double pct = 100.0 * static_cast<double>(delta) / static_cast<double>(base);
        text += QStringLiteral(" (") % (pct > 0 ? QStringLiteral("+") : QString()) % QString::number(pct, 'f', 1) %
                QStringLiteral(" %)");
    }
    return text;
}
