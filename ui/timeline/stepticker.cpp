#include "timeline/stepticker.h"

#include <cmath>

double StepTicker::getTickStep(const QCPRange& range) {
    // The base ticker's 1-2-5 step, but never below one step (cleanMantissa keeps it an integer).
    return std::max(1.0, QCPAxisTicker::getTickStep(range));
}

QString StepTicker::getTickLabel(double tick, const QLocale& locale, QChar, int) {
    // Ticks are whole numbers; llround avoids "-0" for a tick a hair below zero.
    return locale.toString(static_cast<qlonglong>(std::llround(tick)));
}
