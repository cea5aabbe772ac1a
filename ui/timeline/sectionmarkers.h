// Where each graph of a joined view starts: a dotted vertical line and the graph's name at the
// top of its section. Labels are placed in pixels, each inside the visible part of its own
// section and clear of the peak label, so two labels never overprint at any zoom. Owns the items.
#pragma once
#include "timeline/qcp.h"
#include "timeline/timelinetypes.h"

class SectionMarkers {
public:
    SectionMarkers(QCustomPlot* plot, QString layer);

    void set(std::vector<timeline::Marker> markers);
    // Places (and elides or hides) the labels for the current range; `avoid` is the peak label's
    // box in pixels (null when there is none).
    void layout(const QRectF& avoid);
    void applyPalette(const QColor& line, const QColor& text);
    // Pixels from the plot's top to the bottom of the labels' row (0 without markers): what the
    // peak label must stay below so that it hides none of them.
    double rowBottom(double plotHeight) const;

private:
    QCustomPlot* plot_;
    QString layer_;
    std::vector<timeline::Marker> markers_;
    std::vector<QCPItemStraightLine*> lines_;
    std::vector<QCPItemText*> labels_;
};
