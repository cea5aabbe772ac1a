// A marked point of a curve: a dot and a framed label beside it (the peak, the edited order's
// peak, each compared order's peak). Owns its two items.
#pragma once
#include "timeline/qcp.h"

#include <cstdint>

class PeakMark {
public:
    PeakMark(QCustomPlot* plot, double dotSize);
    PeakMark(const PeakMark&) = delete;
    PeakMark& operator=(const PeakMark&) = delete;

    // The dot at (step, bytes), the label beside it: left-aligned near the left of the visible
    // range, right-aligned near its right, centred between, and moved sideways to stay inside the
    // plot (a long node name would be cut at its edge; one longer than the plot is elided); above the dot, or below
    // with `below`, `gap` pixels off. With `hideOutOfView`, a label whose step is out of view hides (rather than be cut
    // at the plot's edge).
    void place(std::size_t step, std::int64_t bytes, const QString& text, bool below, double gap,
               bool hideOutOfView = true);
    void hide();
    void setLayer(const QString& layer);
    // `colour` for the dot, the label's frame and its text.
    void setColours(const QColor& colour, const QColor& labelBackground);
    void setLabelFont(const QFont& font) { label_->setFont(font); }
    void setDotVisible(bool on) { dot_->setVisible(on); }
    void setLabelVisible(bool on) { label_->setVisible(on); }

    QString text() const { return text_; } // as given to place(), before any elision
    bool labelVisible() const { return label_->visible(); }
    // The label's box in widget pixels (null when hidden or empty), for what must not cover it.
    QRectF labelBox() const;
    // The label's height in pixels, text and padding (whether shown or not).
    int labelHeight() const;

private:
    QCustomPlot* plot_;
    QCPItemTracer* dot_;
    QCPItemText* label_;
    QString text_;
};
