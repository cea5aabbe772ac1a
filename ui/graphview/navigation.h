// Where the graph view looks: the visible steps, the first lane and the lane height, and the
// maths of zooming, panning, scrolling, fitting and centring. A plain value; the view supplies
// what it measures (the lane area's size, the pad above the lanes, the lane count) as an Extent.
#pragma once
#include "graphview/hittest.h"
#include "graphview/viewport.h"

#include <cstdint>
#include <span>

struct GraphNavigation {
    // What the widget measures now: its size less the scroll bars, the pad above the first lane.
    struct Extent {
        int width = 0, height = 0;
        double topPad = 0;
        std::int32_t lanes = 1; // the most lanes of any graph of the scene
    };

    double x0 = 0, x1 = 1; // visible global steps
    int left = 60, right = 600;
    double top = 0; // first visible lane (fractional)
    double laneHeight = 22;
    bool fitted = true; // lanes follow the view's height until the user zooms them

    GraphViewport viewport(const Extent& e) const;
    double visibleLanes(const Extent& e) const { return viewport(e).visibleLanes(); }
    // The lane height at which every lane fits the view (an overview for graphs with many lanes).
    double fitLaneHeight(const Extent& e) const;
    // Every lane in view (readable boxes for small graphs, at most 24 px a lane) and the whole
    // time axis of `profileSteps` steps.
    void reset(std::size_t profileSteps, const Extent& e);
    // A resize: lanes that fit the view keep fitting it.
    void refit(const Extent& e);
    // Keeps the first lane within the lanes (half a lane of slack at the bottom).
    void clampTop(const Extent& e);
    // Moves the view back by dSteps and up by dLanes (a drag's motion; not clamped).
    void pan(double dSteps, double dLanes) {
        x0 -= dSteps;
        x1 -= dSteps;
        top -= dLanes;
    }
    // Zooms time keeping the step at widget x in place (factor < 1: in).
    void zoomTime(double factor, double x, const Extent& e);
    // Zooms lanes keeping the lane at widget y in place, from the overview up to large boxes.
    void zoomLanes(double factor, double y, const Extent& e);
    // Moves by `notches` sixths of the visible lanes, at least one lane each.
    void scrollLanes(double notches, const Extent& e);
    // Centres the time range on step unless it is well inside; true when the range moved.
    bool centerStep(double step);
    // Centres the lanes on lane unless it is in view (not clamped).
    void centerLane(double lane, const Extent& e);
    // After a change of the time range: when no node of the range is on the visible lanes,
    // scrolls to the topmost one (a narrow window of a big graph often lives far down); true when
    // it scrolled (not clamped).
    bool followNodes(std::span<const HitSegment> segments, const Extent& e);
};
