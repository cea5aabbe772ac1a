// What the graph view draws for a viewport, worked out before any painting (Tracy's timeline
// does the same: prepare the items, then draw them layer by layer). A plain function of the
// layouts, the viewport and the marks, so tests can check its output without pixels: which
// nodes become boxes or dots, where the wires run, which labels fit.
#pragma once
#include "graphview/modulegroups.h"
#include "graphview/viewport.h"
#include "loading/scene.h"

#include <fxmem/collectives.h>
#include <fxmem/layout.h>
#include <fxmem/model.h>

#include <QFont>
#include <QFontMetricsF>
#include <QLineF>
#include <QRectF>
#include <QString>

#include <cstdint>
#include <string_view>
#include <vector>

// One graph of the scene as the view sees it (segment 0 may be laid out in an edited order).
struct SegmentInput {
    const fxmem::Graph* graph = nullptr;
    const fxmem::GraphLayout* layout = nullptr;
    std::int64_t offset = 0;                          // global step of the graph's step 0
    const std::vector<std::uint8_t>* live = nullptr;  // per node: its storage is live at the cursor
    const std::vector<std::uint8_t>* match = nullptr; // per node: a search match
    const ModuleGroups* groups = nullptr;             // null: the graph has no modules
    std::uint32_t highlight = ModuleGroups::npos;     // tree index of a highlighted module
    const std::vector<fxmem::CollectivePair>* collectives = nullptr;
    const std::vector<std::uint8_t>* recomputed = nullptr; // per node: recomputed in the backward
    std::string_view name{}; // the label above it (a whole step's run); empty: the graph's name
};

struct PrepareInput {
    std::vector<SegmentInput> segments;
    GraphViewport view;
    NodeRef selected, hovered;
    QFont font; // for the labels that must fit their box
    // Module bands: rows for depths 1..bandRows from y = bandTop, kBandRow pixels each; the runs
    // at stripeDepth shade the lanes behind the nodes in alternation (0: no stripes).
    std::uint32_t bandRows = 0;
    double bandTop = 0;
    std::uint32_t stripeDepth = 0;
    static constexpr double kBandRow = 14;
};

struct VisibleItems {
    enum Flag : std::uint8_t { Live = 1, Match = 2, Selected = 4, Hovered = 8, Highlight = 16, Recomputed = 32 };
    // A node drawn as a box (zoomed in).
    struct Box {
        QRectF rect;
        NodeRef ref;
        std::uint8_t flags = 0;
    };
    // A node drawn as a dot (zoomed out): one per pixel, the first node wins, a live one wins over
    // a plain one.
    struct Dot {
        int x = 0, y = 0;
        NodeRef ref;
        bool live = false;
        bool highlight = false; // in the highlighted module
    };
    struct Wire {
        QLineF line;
        bool live = false;
        NodeRef producer; // whose storage it carries (its live mark follows the cursor)
    };
    enum class LabelKind : std::uint8_t { Node, Segment, Band, Group, Span };
    struct Label {
        QRectF rect;
        QString text;
        LabelKind kind = LabelKind::Node;
    };
    // A joined pair: where a graph starts (the divider) and its name.
    struct SegmentMark {
        double x = 0; // divider, at the segment's first step - 0.5
        int segment = 0;
    };

    // A module's run in the band strip (one row per depth); click to collapse or expand.
    struct Band {
        QRectF rect;
        int segment = 0;
        std::uint32_t module = 0;
        std::uint32_t depth = 1;
        std::uint32_t ordinal = 0; // alternating shades
        bool collapsed = false;
        bool highlight = false;
    };
    // A run at the stripe depth, shaded behind the lanes (x only: it spans the node area).
    struct Stripe {
        double x0 = 0, x1 = 0;
        std::uint32_t ordinal = 0;
        bool highlight = false;
    };
    // A collapsed module's run, drawn as one labelled box in place of its nodes.
    struct GroupBox {
        QRectF rect;
        int segment = 0;
        std::uint32_t module = 0;
        std::uint32_t nodes = 0;
        bool highlight = false;
        std::uint8_t flags = 0; // Live, Match, Selected: of any node it hides
    };
    // The selected node's edges: from each input to it, from it to each user.
    struct Edge {
        QPointF from, to;
        bool toUser = false;
    };

    // A collective in flight: from its start to its wait, along the start's lane.
    struct Span {
        QRectF rect;
        NodeRef start, wait;
    };

    std::vector<Stripe> stripes;
    std::vector<Span> spans;
    std::vector<Band> bands;
    std::vector<GroupBox> groups;
    std::vector<Edge> edges;
    std::vector<Wire> wires;
    std::vector<Box> boxes;
    std::vector<Dot> dots;
    std::vector<Label> labels;
    std::vector<SegmentMark> segmentMarks;
    // Every node placed on a dot, in the order they were met: refreshLiveMarks picks each dot's
    // node again (the first live one, else the first) without laying anything out.
    struct DotNode {
        std::uint32_t dot = 0;
        NodeRef ref;
        bool highlight = false;
    };
    std::vector<DotNode> dotNodes;
    double nodeW = 1, nodeH = 1; // box size in pixels
    int dotRows = 1;             // dot height in pixels
    std::size_t nodeCount() const { return boxes.size() + dots.size(); }
};

VisibleItems prepareVisibleItems(const PrepareInput& in);
// Brings the marks that follow the cursor up to date with `in` (live marks, the selected and the
// hovered node; the viewport and everything else unchanged): wires, boxes, dots and the
// selection's edges come out as prepareVisibleItems(in) would make them. Returns false when it
// cannot (collapsed modules summarise their nodes' marks): prepare again then. O(items).
bool refreshMarks(VisibleItems& items, const PrepareInput& in);
// The smaller font of module bands, group boxes and span labels (measured and drawn alike).
QFont bandFontOf(const QFont& font);
// A module's caption for `width` pixels: "name  Type", else "name", else its last component elided.
QString moduleCaption(const fxmem::ModuleTree& tree, std::uint32_t module, const QFontMetricsF& fm, double width);
