// The memory timeline: bytes over profile steps, the peak marked, a hover cursor that names the
// step's node, zoom and drag along x only, and an overlay for the edited schedule. Long profiles
// are reduced to a few points per pixel (each column's minimum and maximum) for the visible
// range on every change.
//
// A widget that contains its QCustomPlot (chart()); what is drawn over the curves belongs to
// small classes that own their items: the cursor and its box (CursorOverlay, a buffered layer
// replotted alone), the peak marks (PeakMark), the compared orders (CompareCurves), the stacked
// bands (BandGraphs), the lower bound (LowerBoundLine) and the section markers (SectionMarkers).
#pragma once
#include "timeline/timelinetypes.h"

#include <QWidget>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

class QCustomPlot;
class QCPGraph;
class QCPItemText;
class QCPRange;
class BandGraphs;
class CompareCurves;
class CursorOverlay;
class DeviceMemoryLine;
class LowerBoundLine;
class PeakMark;
class SectionMarkers;
class TimelineLegend;

class TimelinePlot : public QWidget {
    Q_OBJECT
public:
    explicit TimelinePlot(QWidget* parent = nullptr);
    ~TimelinePlot() override;

    using Marker = timeline::Marker;
    // `sections` mark where each graph of a joined view starts.
    void setProfile(std::vector<std::int64_t> profile, std::size_t peakStep, std::vector<Marker> sections = {});
    void clearProfile();
    // While the y axis stays as it was, only the edited curve is sampled again (one replot).
    void setOverlay(std::vector<std::int64_t> profile, std::size_t peakStep, const QString& label);
    void clearOverlay();
    bool hasOverlay() const { return !overlay_.empty(); }
    // Text for the cursor label and the peak: the node at a step ("relu (after alloc)"), in the
    // original order or, with `edited`, in the overlay's (edited) order.
    using StepDescriber = std::function<QString(std::int64_t step, bool edited)>;
    void setStepDescriber(StepDescriber describe);

    // Stacked mode: one filled band per group under the total, e.g. by storage role or by module.
    // Plain data, however it was computed: each band has a value per profile step (the same
    // length as the profile), listed bottom to top, and at every step the bands should add up to
    // the profile (StackedBands helpers guarantee it). The bands are downsampled at the points
    // chosen for the total, so the drawn bands still add up to the drawn total. A legend names
    // them. An empty vector returns to the plain curve.
    using Band = timeline::Band;
    void setStackedBands(std::vector<Band> bands);
    void clearStackedBands() { setStackedBands({}); }
    bool isStacked() const;
    const std::vector<Band>& stackedBands() const;
    // A horizontal dashed line at `bytes`, labelled "no order can go below …" (the optimizer's
    // lower bound); a negative value removes it.
    void setLowerBound(std::int64_t bytes);
    std::int64_t lowerBound() const;
    // The device's memory: a line at `bytes` labelled with `name` ("80 GB"), and the peak's label
    // says "fits, X free" or "over by X"; a negative value removes it. Kept across profiles.
    void setDeviceMemory(std::int64_t bytes, const QString& name = {});
    std::int64_t deviceMemory() const;
    // Compare: two orders of the same graph (e.g. two named schedules) drawn as lines over the
    // profile, each with its peak marked; `name` goes into the legend and the peak labels.
    using Curve = timeline::Curve;
    void setComparison(Curve a, Curve b);
    void clearComparison();
    bool hasComparison() const;
    // Curve names for the legend (defaults "original order", "edited order").
    void setCurveNames(const QString& profile, const QString& overlay);

    std::int64_t cursorStep() const { return cursor_; }
    std::size_t stepCount() const { return profile_.size(); }
    const std::vector<std::int64_t>& profile() const { return profile_; }
    const std::vector<std::int64_t>& overlay() const { return overlay_; } // empty without one
    // The title of exported images ("Memory timeline" when none was set), e.g. "model.json — fwd".
    void setTitle(const QString& title);
    QString exportTitle() const;
    // While on: no hover cursor, a title row and a legend of the curves shown (PlotExport turns it
    // on around writing a file and off again).
    void setExportMode(bool on);
    bool exportMode() const { return exporting_; }
    QString peakText() const;
    // The cursor's text: step, bytes and node (both orders with an overlay); its box shows it
    // only while the mouse is over the plot or the keys walk it (cursorBoxVisible()).
    QString cursorText() const;
    bool cursorBoxVisible() const;

    // The chart itself, for exporting and for tests that look at what is drawn (axes, graphs,
    // items, layers); mouse input arrives on it.
    QCustomPlot* chart() const { return chart_; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

public slots:
    void setCursorStep(std::int64_t step);
    // The cursor box again, at the same step: the steps' names changed (an edited order's
    // live-set index arrived and names the node the edited order runs there).
    void refreshCursorText();
    // Every text that shows bytes again (the y axis, the peak, bound, device and compare labels,
    // the cursor box): the byte units changed.
    void refreshUnits();
    void resetZoom();
    void setXRange(double lo, double hi);
    void applyPalette();

signals:
    void cursorMoved(std::int64_t step);
    void stepActivated(std::int64_t step); // a click
    // The cursor was moved by a key (←/→, PgUp/PgDn, Home/End, P): the user walks node by node,
    // so views that show "the node at the cursor" may follow (hovering does not select).
    void steppedByKey(std::int64_t step);
    void xRangeChanged(double lo, double hi);
    // The plot area's left and right edges in widget pixels (for aligning the graph view).
    void plotAreaChanged(int left, int right);

protected:
    void keyPressEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void focusOutEvent(QFocusEvent* event) override;
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void onMouseMove(QMouseEvent* event);
    // The cursor to `step`; with `box`, its box too (hover, keys), else the line alone.
    void moveCursor(std::int64_t step, bool box);
    void showCursorBox(bool on);
    void onRangeChanged(const QCPRange& range);
    void applyColours();
    void resample();
    void replot();
    bool resampleOverlay(); // false (nothing done) when the y axis or the legend must change too
    struct Window {
        std::size_t first, end, buckets; // the steps sampled (the visible ones and one more each side)
    };
    Window window() const;
    double yUpper() const;
    void updateCursorItems();
    void updatePeakItems();
    void refreshLegendOnScreen();
    std::int64_t stepAtPixel(double x) const;

    QCustomPlot* chart_;
    QCPGraph* curve_ = nullptr;
    QCPGraph* overlayCurve_ = nullptr;
    std::unique_ptr<CompareCurves> compare_;
    std::unique_ptr<LowerBoundLine> bound_;
    std::unique_ptr<DeviceMemoryLine> device_;
    std::unique_ptr<CursorOverlay> cursorOverlay_;
    std::unique_ptr<PeakMark> peak_, editedPeak_;
    std::unique_ptr<BandGraphs> bands_;
    std::unique_ptr<SectionMarkers> sections_;
    std::unique_ptr<TimelineLegend> legend_;
    QCPItemText* emptyLabel_ = nullptr;

    std::vector<std::int64_t> profile_, overlay_;
    QVector<double> keys_, values_; // the last sampled points, reused
    std::size_t peakStep_ = 0, overlayPeakStep_ = 0;
    QString overlayLabel_;
    StepDescriber describe_;
    std::int64_t cursor_ = -1;
    bool cursorBox_ = false; // the cursor's box is shown (hover or keys)
    int deferDraw_ = 0;      // > 0: replot() lays the chart out and leaves drawing to the caller
    bool clamping_ = false;
    bool exporting_ = false;
    bool legendOnScreen_ = false;
    QString title_;
    QString profileName_; // the plain curve's legend name
    int lastLeft_ = -1, lastRight_ = -1;
    QPoint pressPos_;
};
