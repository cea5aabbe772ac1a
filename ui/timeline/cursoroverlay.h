// The hover cursor: a dashed line at the cursor's step and the box that describes it, on a
// buffered layer of their own (above the curves, below the peak and section marks), so that a
// cursor step replots this layer alone.
#pragma once
#include "timeline/qcp.h"

class CursorOverlay {
public:
    explicit CursorOverlay(QCustomPlot* plot);
    CursorOverlay(const CursorOverlay&) = delete;
    CursorOverlay& operator=(const CursorOverlay&) = delete;

    // The line at step `x`, and with `box` the box at the bottom of the plot: right of the line,
    // or left of it in the right part of the visible range (its text is kept either way).
    void show(double x, const QString& text, bool box = true);
    void hide();
    void applyPalette(const QColor& cursor, const QColor& text, const QColor& labelBackground);
    // Redraws the layer alone (QCustomPlot falls back to a full replot while its buffers are not
    // set up: first show, resize).
    void replot() { layer_->replot(); }

    bool boxVisible() const { return box_->visible(); }
    QString text() const { return box_->text(); }
    int lineSpacing() const { return std::max(1, QFontMetrics(box_->font()).lineSpacing()); }
    QCPLayer* layer() const { return layer_; }

private:
    QCustomPlot* plot_;
    QCPLayer* layer_ = nullptr;
    QCPItemStraightLine* line_;
    QCPItemText* box_;
};
