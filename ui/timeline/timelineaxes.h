// The timeline chart's frame: bytes up the y axis, profile steps along x, drag and wheel zoom
// along x only, and their colours from the palette.
#pragma once
#include "timeline/qcp.h"

namespace TimelineAxes {

void setup(QCustomPlot* plot);
void applyPalette(QCustomPlot* plot, const QColor& base, const QColor& text);

} // namespace TimelineAxes
