// Turns the graph view's mouse, wheel and key events into intents (pan, zoom, hover, select,
// start / move / drop / cancel a node drag), and keeps the state of the gesture in progress.
// It changes nothing itself: the view applies each intent, so the rules of the gestures can be
// read, and tested, apart from painting and schedule state.
#pragma once
#include "graphview/viewport.h"
#include "loading/scene.h"

#include <QPoint>

#include <functional>
#include <vector>

class QKeyEvent;
class QMouseEvent;
class QWheelEvent;

struct GraphIntent {
    enum Kind {
        Hover,       // pos: the pointer moved with no button held
        Select,      // node: clicked (pressed and released in place)
        ModuleClick, // pos: a click on no node (a module band or a collapsed box, if any)
        StartPan,    // a pan began (the closed-hand cursor)
        Pan,         // a, b: steps and lanes to move the view back by (the content follows the pointer)
        ShiftTime,   // a: steps to move both ends of the time range by
        SetTime,     // a, b: the new time range
        ZoomTime,    // a: factor (< 1: in), b: widget x that stays in place
        ZoomLanes,   // a: factor, b: widget y that stays in place
        ScrollLanes, // a: notches of a sixth of the visible lanes
        ResetZoom,   //
        StartDrag,   // node: dragging it along the time axis began
        DragTo,      // a: the global step under the pointer
        Drop,        // node, a: the step it was dropped at; withInputs: Shift held
        EndGesture,  // the button went up: cursor back, repaint
    };
    Kind kind = Hover;
    double a = 0, b = 0;
    QPoint pos{};
    NodeRef node{};
    bool withInputs = false;
};

class GraphInput {
public:
    enum class Drag { None, Pan, Node };
    // Hit test and whether nodes may be dragged now, asked of the view.
    std::function<NodeRef(QPoint)> nodeAt;
    std::function<bool()> editable;

    std::vector<GraphIntent> press(const QMouseEvent& e);
    std::vector<GraphIntent> move(const QMouseEvent& e, const GraphViewport& v);
    std::vector<GraphIntent> release(const QMouseEvent& e, const GraphViewport& v);
    std::vector<GraphIntent> wheel(const QWheelEvent& e, const GraphViewport& v);
    // Empty when the key means nothing here (the view passes it on).
    std::vector<GraphIntent> key(const QKeyEvent& e, const GraphViewport& v);
    // Forgets the gesture (a new scene).
    void reset();

    Drag drag() const { return drag_; }
    NodeRef pressed() const { return pressed_; }
    double dragStep() const { return dragStep_; }
    QPoint lastPos() const { return lastPos_; }

private:
    Drag drag_ = Drag::None;
    QPoint pressPos_, lastPos_;
    NodeRef pressed_;
    double dragStep_ = 0;
};
