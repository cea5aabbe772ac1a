// Compare: two orders of the same graph drawn as lines over the profile, each with its peak
// marked (A solid in the edited colour with its label above, B dashed with its label below).
// Owns the two graphs and their peak marks.
#pragma once
#include "timeline/peakmark.h"
#include "timeline/timelinetypes.h"

#include <array>
#include <memory>

class CompareCurves {
public:
    explicit CompareCurves(QCustomPlot* plot);

    void set(timeline::Curve a, timeline::Curve b);
    bool shown() const { return !curves_[0].profile.empty(); }
    const timeline::Curve& curve(int i) const { return curves_[static_cast<std::size_t>(i)]; }
    QCPGraph* graph(int i) const { return graphs_[static_cast<std::size_t>(i)]; }

    // Reduces the curves to the points for steps [first, end] in `buckets` columns.
    void resample(std::size_t first, std::size_t end, std::size_t buckets);
    void clearData();
    void updateMarks();
    void applyPalette(const QColor& a, const QColor& b, const QColor& labelBackground);
    // The hover box's lines: "NAME: bytes" for each curve at `step`.
    QString cursorLines(std::size_t step) const;

private:
    std::array<timeline::Curve, 2> curves_;
    std::array<QCPGraph*, 2> graphs_{};
    std::array<std::unique_ptr<PeakMark>, 2> marks_;
};
