#include "util/units.h"

#include "fxmem/units.h"

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

// Core's formatter, so that the app and fxmem-cli print a size alike.
QString formatBytes(double bytes) { return QString::fromStdString(fxmem::format_fractional_bytes(bytes, g_units)); }

QString formatBytes(std::int64_t bytes) { return QString::fromStdString(fxmem::format_bytes(bytes, g_units)); }

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
