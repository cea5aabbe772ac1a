// Y-axis ticks at round numbers of the unit that fits the range (KiB, MiB, GiB or kB, MB, GB),
// labelled with that unit.
#pragma once
#include "timeline/qcp.h"

class BytesTicker : public QCPAxisTicker {
protected:
    double getTickStep(const QCPRange& range) override;
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override;

private:
    int power_ = 0; // unit of the current labels: base^power_
};
