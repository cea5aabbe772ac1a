// The graph view's mapping between (global step, lane) and widget pixels. A plain value, shared
// by the view (input, hit tests) and the preparation of the visible items (painting).
#pragma once
#include <algorithm>

struct GraphViewport {
    double x0 = 0, x1 = 1;      // visible global steps
    double left = 0, right = 1; // pixels where steps x0 and x1 fall (the timeline's plot area)
    double top = 0;             // first visible lane (fractional)
    double laneHeight = 22;     // pixels per lane
    double topPad = 18;         // pixels above the first lane (segment names, module bands)
    int width = 0, height = 0;  // the widget

    double pxPerStep() const { return (right - left) / std::max(x1 - x0, 1e-9); }
    double px(double step) const { return left + (step - x0) * pxPerStep(); }
    double stepAt(double x) const { return x0 + (x - left) * (x1 - x0) / std::max(right - left, 1.0); }
    double py(double lane) const { return topPad + (lane - top) * laneHeight + laneHeight / 2; }
    double laneAt(double y) const { return (y - topPad) / laneHeight + top - 0.5; }
    double visibleLanes() const { return (height - topPad) / laneHeight; }
};
