// The optimizer's lower bound: a dashed horizontal line across the visible range, labelled
// "no order can go below …" at its right end. Owns its line and label.
#pragma once
#include "timeline/qcp.h"

#include <cstdint>

class LowerBoundLine {
public:
    explicit LowerBoundLine(QCustomPlot* plot);
    LowerBoundLine(const LowerBoundLine&) = delete;
    LowerBoundLine& operator=(const LowerBoundLine&) = delete;

    void set(std::int64_t bytes) { bytes_ = bytes; } // negative: none
    std::int64_t bytes() const { return bytes_; }
    // Places it over the visible range; hidden without a bound or without a profile.
    void update(bool hasProfile);
    void applyPalette(const QColor& line, const QColor& text, const QColor& labelBackground);

private:
    QCustomPlot* plot_;
    QCPItemStraightLine* line_;
    QCPItemText* label_;
    std::int64_t bytes_ = -1;
};
