// Draws the Dataflow mode: what later segments read from earlier ones (saved activations, under
// the rest), then per segment its title, the open modules' frames, the edges (width by
// the log of their bytes; live ones and the selection's path over the rest) and the boxes of
// nodes and collapsed modules with their text, only what meets the widget. Text and borders are
// left out where boxes are too small to read, so an overview of 100k boxes is rectangles only.
#pragma once
#include "dataflow/dataflowlabelcache.h"
#include "dataflow/dataflowlayouts.h"
#include "dataflow/dataflowmarks.h"
#include "graphview/nodecolors.h"

#include <QPalette>
#include <QPointF>
#include <QRectF>

#include <cstdint>
#include <vector>

class QPainter;

// The mapping from layout coordinates to the widget: widget = (layout - origin) * scale.
struct DataflowCamera {
    QPointF origin;
    double scale = 1;
    QPointF toWidget(double x, double y) const { return {(x - origin.x()) * scale, (y - origin.y()) * scale}; }
    QPointF toLayout(QPointF w) const { return {w.x() / scale + origin.x(), w.y() / scale + origin.y()}; }
};

struct DataflowPaintInput {
    const Scene* scene = nullptr;
    const DataflowLayouts* layouts = nullptr;
    const DataflowMarks* marks = nullptr;
    DataflowCamera camera;
    QPalette palette;
    NodeColors* colors = nullptr;
    // Per segment, per box: selected (1), hovered (2), the selection's path (4), recomputed (8),
    // the selected module (16), a search match (32).
    const std::vector<std::vector<std::uint8_t>>* boxFlags = nullptr;
    const std::vector<std::vector<std::uint8_t>>* pathEdges = nullptr; // per segment, per edge
    // Visit only the boxes and edges the segment's DataflowSpatialIndex says may be in view;
    // false tests every one (what a test compares the index's drawing with).
    bool useIndex = true;
    // Out, when set: a key of the choices the frame made from what is in view (which edge passes
    // were drawn thin and opaque past their segment limit, whether the cross edges were
    // antialiased). A frame scrolled by whole pixels paints only its exposed strips, which match
    // the moved pixels when the key is the previous frame's (DataflowView::panTo).
    std::uint64_t* style = nullptr;
    // The node boxes' text kept across frames (the view's); null: made every frame.
    DataflowLabelCache* labels = nullptr;
    // Out, when set: the expanded modules' frames the base layer drew (added to).
    std::size_t* framesDrawn = nullptr;
};

enum DataflowBoxFlag : std::uint8_t {
    kBoxSelected = 1,
    kBoxHovered = 2,
    kBoxPath = 4,
    kBoxRecomputed = 8,
    kBoxModule = 16,
    kBoxMatch = 32,
};

// Returns how many boxes were drawn.
std::size_t paintDataflow(QPainter& painter, const DataflowPaintInput& in, QSizeF size);

// The two layers paintDataflow() paints, base then marks. The base (background, titles, module
// frames, every edge plain or on the selection's path, the cross edges dashed) does not depend on
// the cursor's step; the marks layer (the live edges again over them, and the boxes with their
// marks and live bytes) does. The view keeps its base as an image while nothing it shows changes,
// so a step of the timeline paints only the marks over it. Returns the boxes drawn (marks).
enum class DataflowLayer { Base, Marks };
std::size_t paintDataflow(QPainter& painter, const DataflowPaintInput& in, QSizeF size, DataflowLayer layer);
// An edge's pen width in layout units before zoom: 0.5 + the log2 of its bytes over 1 KiB / 5.
double edgeWidth(std::int64_t bytes);
