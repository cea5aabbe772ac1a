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

    std::int64_t cursorStep() const { return cursor_; }
    std::size_t stepCount() const { return profile_.size(); }
    const std::vector<std::int64_t>& profile() const { return profile_; }
    const std::vector<std::int64_t>& overlay() const { return overlay_; }  // empty without one
    // The title of exported images ("Memory timeline" when none was set), e.g. "model.json — fwd".
    void setTitle(const QString& title);
    QString exportTitle() const;
    // While on: no hover cursor, a title row and a legend of the curves shown (PlotExport turns it
    // on around writing a file and off again).
    void setExportMode(bool on);
    bool exportMode() const { return exporting_; }
    QString peakText() const;
    QString cursorText() const;  // the cursor label: step, bytes and node (both orders with an overlay)

public slots:
    void setCursorStep(std::int64_t step);
    void resetZoom();
    void setXRange(double lo, double hi);
    void applyPalette();

signals:
    void cursorMoved(std::int64_t step);
    void stepActivated(std::int64_t step);  // a click
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
    void updatePeakItems();
    void layoutSections();
    void refreshLegend();
    std::int64_t stepAtPixel(double x) const;

    std::vector<std::int64_t> profile_, overlay_;
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
    QCPTextElement* titleElement_ = nullptr;
    int lastLeft_ = -1, lastRight_ = -1;
    QPoint pressPos_;

    QCPGraph* curve_ = nullptr;
    QCPGraph* overlayCurve_ = nullptr;
    QCPItemStraightLine* cursorLine_ = nullptr;
    QCPItemText* cursorLabel_ = nullptr;
    QCPItemTracer* peakDot_ = nullptr;
    QCPItemText* peakLabel_ = nullptr;
    QCPItemTracer* editedDot_ = nullptr;
    QCPItemText* editedLabel_ = nullptr;
    QCPItemText* emptyLabel_ = nullptr;
};
