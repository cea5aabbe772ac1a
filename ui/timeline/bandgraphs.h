// Stacked mode: one filled graph per band under the total, on a layer below the curves. Each
// graph draws the sum of its band and those below it, down to zero, top band first, so that the
// band below paints over the fill of the one above. Owns the graphs; a new set of bands reuses
// them (renamed) rather than building them again.
#pragma once
#include "timeline/qcp.h"
#include "timeline/timelinetypes.h"

class BandGraphs {
public:
    explicit BandGraphs(QCustomPlot* plot);

    // Bands listed bottom to top, each padded with zeros (or cut) to `steps` values.
    void set(std::vector<timeline::Band> bands, std::size_t steps);
    bool empty() const { return bands_.empty(); }
    const std::vector<timeline::Band>& bands() const { return bands_; }

    // At the total's downsampled points, so the drawn bands add up to the drawn total.
    void resample(const QVector<double>& keys);
    void clearData();
    void applyPalette(const QColor& base, bool dark);
    // The hover box's lines: the largest bands at `step`, at most `lines` lines ("N more" last).
    QString cursorLines(std::size_t step, std::size_t lines) const;

private:
    QCustomPlot* plot_;
    QCPLayer* layer_;
    std::vector<timeline::Band> bands_;
    std::vector<std::vector<std::int64_t>> cumulative_; // per band: the sum of it and those below
    std::vector<QCPGraph*> graphs_;                     // top band first (drawn first)
};
