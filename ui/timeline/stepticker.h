// X-axis ticks on whole profile steps only: a tiny profile (a few steps wide) gets one tick per
// step, never fractional ticks whose rounded labels repeat ("-1, -0, 0, 0, 1, 1").
#pragma once
#include "timeline/qcp.h"

class StepTicker : public QCPAxisTicker {
protected:
    double getTickStep(const QCPRange& range) override;
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override;
};
