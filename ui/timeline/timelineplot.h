// The memory timeline: bytes over profile steps, the peak marked, a hover cursor that names the
// step's node, zoom and drag along x only, and an overlay for the edited schedule. Long profiles
// are reduced to a few points per pixel (each column's minimum and maximum) for the visible
// range on every change.
#pragma once
#include "timeline/qcp.h"

#include <cstdint>
#include <functional>
#include <vector>

class TimelinePlot : public QCustomPlot {
    Q_OBJECT
public:
    explicit TimelinePlot(QWidget* parent = nullptr);

    struct Marker {
        std::int64_t step = 0;
        QString label;
    };
    // `sections` mark where each graph of a joined view starts.
    void setProfile(std::vector<std::int64_t> profile, std::size_t peakStep, std::vector<Marker> sections = {});
    void clearProfile();
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
    struct Band {
        QString name;
        QColor colour;
        std::vector<std::int64_t> values;
    };
    void setStackedBands(std::vector<Band> bands);
    void clearStackedBands() { setStackedBands({}); }
    bool isStacked() const { return !bands_.empty(); }
    const std::vector<Band>& stackedBands() const { return bands_; }
    // A horizontal dashed line at `bytes`, labelled "no order can go below …" (the optimizer's
    // lower bound); a negative value removes it.
    void setLowerBound(std::int64_t bytes);
    std::int64_t lowerBound() const { return lowerBound_; }
    // Compare: two orders of the same graph (e.g. two named schedules) drawn as lines over the
    // profile, each with its peak marked; `name` goes into the legend and the peak labels.
    struct Curve {
        QString name;
        std::vector<std::int64_t> profile;
        std::size_t peakStep = 0;
    };
    void setComparison(Curve a, Curve b);
    void clearComparison();
    bool hasComparison() const { return !compare_[0].profile.empty(); }
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
    QString cursorText() const; // the cursor label: step, bytes and node (both orders with an overlay)

public slots:
    void setCursorStep(std::int64_t step);
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
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    void onMouseMove(QMouseEvent* event);
    void onRangeChanged(const QCPRange& range);
    void resample();
    void updateCursorItems();
    void replotCursor(); // the cursor layer alone
    void updatePeakItems();
    void layoutSections();
    void refreshLegend();
    void refreshLegendOnScreen();
    std::int64_t stepAtPixel(double x) const;

    void rebuildBandGraphs();
    void updateLowerBoundItems();
    void updateCompareItems();
    std::vector<std::int64_t> profile_, overlay_;
    std::vector<Band> bands_;
    std::vector<std::vector<std::int64_t>> cumulative_; // per band: the sum of it and those below
    std::vector<QCPGraph*> bandGraphs_;                 // top band first (drawn first)
    std::int64_t lowerBound_ = -1;
    QCPItemStraightLine* boundLine_ = nullptr;
    QCPItemText* boundLabel_ = nullptr;
    Curve compare_[2];
    QCPGraph* compareGraphs_[2] = {nullptr, nullptr};
    QCPItemTracer* compareDots_[2] = {nullptr, nullptr};
    QCPItemText* compareLabels_[2] = {nullptr, nullptr};
    std::size_t peakStep_ = 0, overlayPeakStep_ = 0;
    QString overlayLabel_;
    std::vector<Marker> sections_;
    std::vector<QCPItemStraightLine*> sectionLines_;
    std::vector<QCPItemText*> sectionLabels_;
    StepDescriber describe_;
    std::int64_t cursor_ = -1;
    bool clamping_ = false;
    bool exporting_ = false;
    bool legendOnScreen_ = false;
    QString title_;
    QString profileName_; // the plain curve's legend name
    QCPTextElement* titleElement_ = nullptr;
    QCPLayoutGrid* legendColumn_ = nullptr; // right of the plot while the legend shows
    int lastLeft_ = -1, lastRight_ = -1;
    QPoint pressPos_;

    QCPGraph* curve_ = nullptr;
    QCPGraph* overlayCurve_ = nullptr;
    QCPLayer* cursorLayer_ = nullptr; // cursor line and box, buffered on their own
    QCPItemStraightLine* cursorLine_ = nullptr;
    QCPItemText* cursorLabel_ = nullptr;
    QCPItemTracer* peakDot_ = nullptr;
    QCPItemText* peakLabel_ = nullptr;
    QCPItemTracer* editedDot_ = nullptr;
    QCPItemText* editedLabel_ = nullptr;
    QCPItemText* emptyLabel_ = nullptr;
};
