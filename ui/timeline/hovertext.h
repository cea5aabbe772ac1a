// What the hover box says at a step: the step; the bytes and the node there in the original
// order and, with an edited overlay, in the edited one (the same step is another node in each
// order); each compared order's bytes; and, stacked, the bands that hold the most.
#pragma once
#include "timeline/timelinetypes.h"

#include <functional>

class BandGraphs;
class CompareCurves;

struct HoverSources {
    const std::vector<std::int64_t>& profile;
    const std::vector<std::int64_t>& overlay; // empty without one
    const std::function<QString(std::int64_t step, bool edited)>& describe;
    const CompareCurves& compare;
    const BandGraphs& bands;
};

// `lines`: how many text lines fit in about half of the plot (the box covers at most that).
QString hoverText(const HoverSources& sources, std::int64_t step, int lines);
