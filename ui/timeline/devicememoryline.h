// The device's memory: a solid horizontal line across the visible range at the capacity chosen
// (the Sizes bar's GPU), labelled at its right end. Owns its line and label. The peak's label
// says whether the peak fits under it (fitsText).
#pragma once
#include "timeline/qcp.h"

#include <QString>

#include <cstdint>

class DeviceMemoryLine {
public:
    explicit DeviceMemoryLine(QCustomPlot* plot);
    DeviceMemoryLine(const DeviceMemoryLine&) = delete;
    DeviceMemoryLine& operator=(const DeviceMemoryLine&) = delete;

    // Negative: none. `name` is what the label calls it ("80 GB").
    void set(std::int64_t bytes, const QString& name);
    std::int64_t bytes() const { return bytes_; }
    // Places it over the visible range, red while the peak is over it; hidden without a capacity
    // or without a profile.
    void update(bool hasProfile, std::int64_t peak);
    void applyPalette(const QColor& fits, const QColor& over, const QColor& text, const QColor& labelBackground);

private:
    QCustomPlot* plot_;
    QCPItemStraightLine* line_;
    QCPItemText* label_;
    std::int64_t bytes_ = -1;
    QString name_;
    QColor fits_, over_;
};

// The peak against a capacity: "fits, 3.21 GiB free" or "over by 1.20 GiB".
QString fitsText(std::int64_t peak, std::int64_t capacity);
