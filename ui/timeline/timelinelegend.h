// The timeline's legend and an export's title row. The legend names the curves that are drawn
// (never an empty one); shown, it sits in a column right of the plot, at the top (inside the plot
// it would cover the peak label); hidden, it goes back into the axis rect's inset layout and
// takes no room. Owns the column and the title element.
#pragma once
#include "timeline/qcp.h"

class TimelineLegend {
public:
    explicit TimelineLegend(QCustomPlot* plot);

    // Entries for the graphs that are visible, named and not empty, in graph order.
    void refreshEntries();
    // The entries, then the legend shown (when `wanted` and there is an entry) or hidden.
    void refresh(bool wanted);
    void applyPalette(const QColor& base, const QColor& text);
    // A title row above the plot (exports), or none.
    void showTitle(const QString& title, const QFont& font, const QColor& colour);
    void hideTitle();

private:
    QCustomPlot* plot_;
    QCPLayoutGrid* column_ = nullptr; // right of the plot while the legend shows
    QCPTextElement* title_ = nullptr;
};
