#include "timeline/bytesticker.h"

#include "util/units.h"

#include <cmath>

double BytesTicker::getTickStep(const QCPRange& range) {
    const double base = unitBase();
    const double span = std::max(range.size(), 1.0);
    power_ = 0;
    double unit = 1;
    while (span / unit >= base && power_ < 6) {
        unit *= base;
        ++power_;
    }
    // A 1-2-5 step in that unit giving about tickCount() ticks.
    const double raw = span / unit / std::max(tickCount(), 1);
    const double mag = std::pow(10.0, std::floor(std::log10(std::max(raw, 1e-9))));
    const double f = raw / mag;
    const double nice = f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10;
    return std::max(nice * mag, power_ == 0 ? 1.0 : 1e-9) * unit;
}

QString BytesTicker::getTickLabel(double tick, const QLocale& locale, QChar, int) {
    const double v = tick / std::pow(unitBase(), power_);
    const int decimals = std::abs(v - std::round(v)) < 1e-6 ? 0 : std::abs(v * 10 - std::round(v * 10)) < 1e-6 ? 1 : 2;
    return locale.toString(v, 'f', decimals) % QLatin1Char(' ') % unitName(power_);
}
