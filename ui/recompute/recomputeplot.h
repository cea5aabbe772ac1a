// Pair peak (y) against extra FLOPs (x, % of the budget-1.0 pair): PyTorch's budget points
// labelled with their budget, fxmem's frontier as a step line, the current plan, the lowest peak
// ringed, the point shown now highlighted and Find plan's FLOPs limit as a dashed vertical line. A
// click on a point emits pointClicked.
#pragma once
#include "recompute/recomputepoints.h"
#include "timeline/qcp.h"

class RecomputePlot : public QCustomPlot {
    Q_OBJECT
public:
    explicit RecomputePlot(QWidget* parent = nullptr);
    void setPoints(const RecomputePoints& points);
    // The point shown in the views (ringed), -1: none.
    void setCurrent(int index);
    // Find plan's limit on extra FLOPs (% of budget 1.0), drawn as a vertical line; < 0: none.
    void setLimit(double percent);
    // Index into the points of the point drawn within a few pixels of `pos`, -1: none.
    int pointAt(const QPointF& pos) const;
    // Where point `index` is drawn, in widget pixels.
    QPointF pixelOf(int index) const;
    void applyPalette();
    // The budget labels shown (one may name several points: "0.9, 0.8") and their boxes in
    // widget pixels.
    std::vector<std::pair<QString, QRectF>> budgetLabels() const;

signals:
    void pointClicked(int index);

private:
    RecomputePoints points_;
    QCPGraph* budgets_ = nullptr;
    QCPGraph* frontier_ = nullptr;
    QCPGraph* plan_ = nullptr;
    QCPGraph* edits_ = nullptr;
    QCPGraph* lowest_ = nullptr;
    QCPGraph* current_ = nullptr;
    QList<QCPItemText*> labels_; // one per budget point, shown or not by layoutLabels
    std::vector<int> labelled_;  // the budget points' indices, labels_'s order
    QCPItemStraightLine* limit_ = nullptr;
    double limitPercent_ = -1;
    int currentIndex_ = -1;
    void place(QCPGraph* graph, const std::vector<int>& which);
    void placeLimit();
    void fitLegend();
    void layoutLabels();

protected:
    void resizeEvent(QResizeEvent* event) override;
};
