// Draws one frame of the graph view from its prepared items (VisibleItems), one function per
// layer, bottom to top, after Tracy's TimelineItem: the view decides what is visible, the
// painter only turns items into pixels. Holds no state beyond the frame it is given.
#pragma once
#include "graphview/colormode.h"
#include "graphview/nodecolors.h"
#include "graphview/viewport.h"
#include "graphview/visibleitems.h"

#include <QFont>
#include <QPalette>
#include <QRect>
#include <QString>

#include <cstdint>
#include <vector>

class QPainter;

// Everything a frame shows besides the items.
struct GraphFrame {
    const VisibleItems* items = nullptr;
    GraphViewport view;
    QRect rect; // the whole widget
    QPalette palette;
    QFont font;
    double peakStep = 0;
    std::int64_t cursor = -1; // -1: none
    std::vector<LegendEntry> legend;
    // A node being dragged: its legal band, and the ghost at the pointer.
    struct Drag {
        bool active = false, ok = false;
        std::int64_t loStep = 0, hiStep = 0;
        double step = 0, lane = 0;
        QString why;
    } drag;
};

class GraphPainter {
public:
    GraphPainter(QPainter& p, const GraphFrame& frame, NodeColors& colors);

    // Every layer in order.
    void paint();
    // With no graph: the hint to open one.
    static void paintEmpty(QPainter& p, const QRect& rect, const QPalette& pal, const QString& hint);

    void drawPeak();     // the peak column, under everything
    void drawStripes();  // the model's blocks as alternating shades; a highlighted module tinted
    void drawDividers(); // between the graphs of a joined pair
    void drawWires();    // plain, then live on top
    void drawSpans();    // collectives in flight, over their wire
    void drawGroups();   // collapsed modules with the marks of what they hide
    void drawDots();     // nodes under a pixel, written straight into an image
    void drawBoxes();    // nodes as boxes with their marks
    void drawEdges();    // the selected node's inputs and users, as arrows
    void drawBands();    // the module bands at the top
    void drawLabels();   // every text: nodes, spans, graph names, bands
    void drawLegend();   // the colour legend at the bottom-left
    void drawCursor();   // the timeline's cursor
    void drawDrag();     // the legal band and the ghost of a dragged node

private:
    QPainter& p_;
    const GraphFrame& f_;
    const VisibleItems& items_;
    NodeColors& colors_;
    QColor base_, text_, live_;
    int height_;
};
