#include "graphview/graphinput.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QWheelEvent>

#include <cmath>

void GraphInput::reset() {
    drag_ = Drag::None;
    pressed_ = {};
}

std::vector<GraphIntent> GraphInput::press(const QMouseEvent& e) {
    pressPos_ = lastPos_ = e.pos();
    pressed_ = e.button() == Qt::LeftButton && nodeAt ? nodeAt(e.pos()) : NodeRef{};
    drag_ = Drag::None;
    return {};
}

std::vector<GraphIntent> GraphInput::move(const QMouseEvent& e, const GraphViewport& v) {
    const QPoint pos = e.pos();
    std::vector<GraphIntent> out;
    if (e.buttons() & (Qt::LeftButton | Qt::MiddleButton)) {
        // A few pixels of slack before a press becomes a drag: a node's drag, else a pan.
        if (drag_ == Drag::None && (pos - pressPos_).manhattanLength() > 4) {
            if (pressed_.valid() && editable && editable() && (e.buttons() & Qt::LeftButton)) {
                drag_ = Drag::Node;
                out.push_back({GraphIntent::StartDrag, 0, 0, pos, pressed_});
            } else {
                drag_ = Drag::Pan;
                out.push_back({GraphIntent::StartPan});
            }
        }
        if (drag_ == Drag::Pan) {
            const double dx = (pos.x() - lastPos_.x()) * (v.x1 - v.x0) / std::max(v.right - v.left, 1.0);
            out.push_back({GraphIntent::Pan, dx, (pos.y() - lastPos_.y()) / v.laneHeight});
        } else if (drag_ == Drag::Node) {
            dragStep_ = v.stepAt(pos.x());
            out.push_back({GraphIntent::DragTo, dragStep_});
        }
        lastPos_ = pos;
        return out;
    }
    lastPos_ = pos;
    out.push_back({GraphIntent::Hover, 0, 0, pos});
    return out;
}

std::vector<GraphIntent> GraphInput::release(const QMouseEvent& e, const GraphViewport&) {
    std::vector<GraphIntent> out;
    if (drag_ == Drag::None && pressed_.valid() && e.button() == Qt::LeftButton) {
        out.push_back({GraphIntent::Select, 0, 0, e.pos(), pressed_});
    } else if (drag_ == Drag::None && e.button() == Qt::LeftButton) {
        out.push_back({GraphIntent::ModuleClick, 0, 0, e.pos()});
    } else if (drag_ == Drag::Node && pressed_.valid()) {
        GraphIntent drop{GraphIntent::Drop, dragStep_, 0, e.pos(), pressed_};
        drop.withInputs = e.modifiers() & Qt::ShiftModifier;
        drag_ = Drag::None; // the band and the ghost go before the edit repaints
        out.push_back(drop);
    }
    drag_ = Drag::None;
    out.push_back({GraphIntent::EndGesture});
    return out;
}

std::vector<GraphIntent> GraphInput::wheel(const QWheelEvent& e, const GraphViewport& v) {
    const QPoint delta = e.angleDelta();
    const QPointF at = e.position();
    if (e.modifiers() & Qt::ControlModifier)
        return {{GraphIntent::ZoomLanes, std::pow(1.15, delta.y() / 120.0), at.y()}};
    if (e.modifiers() & Qt::ShiftModifier)
        // Some platforms turn Shift+wheel into a horizontal delta: either way it scrolls lanes.
        return {{GraphIntent::ScrollLanes, -(delta.y() != 0 ? delta.y() : delta.x()) / 120.0}};
    if (delta.x() != 0 && std::abs(delta.x()) > std::abs(delta.y()))
        // A horizontal wheel or touchpad swipe pans time, a tenth of the view per notch.
        return {{GraphIntent::ShiftTime, -delta.x() / 120.0 * (v.x1 - v.x0) / 10}};
    return {{GraphIntent::ZoomTime, std::pow(0.8, delta.y() / 120.0), at.x()}};
}

std::vector<GraphIntent> GraphInput::key(const QKeyEvent& e, const GraphViewport& v) {
    const double w = v.x1 - v.x0;
    switch (e.key()) {
    case Qt::Key_Left: return {{GraphIntent::ShiftTime, -(w / 10)}};
    case Qt::Key_Right: return {{GraphIntent::ShiftTime, w / 10}};
    case Qt::Key_Up: return {{GraphIntent::ScrollLanes, -1}};
    case Qt::Key_Down: return {{GraphIntent::ScrollLanes, 1}};
    case Qt::Key_PageUp: return {{GraphIntent::ScrollLanes, -5}};
    case Qt::Key_PageDown: return {{GraphIntent::ScrollLanes, 5}};
    case Qt::Key_R:
    case Qt::Key_0: return {{GraphIntent::ResetZoom}};
    case Qt::Key_Plus:
    case Qt::Key_Equal: return {{GraphIntent::SetTime, v.x0 + w / 5, v.x1 - w / 5}};
    case Qt::Key_Minus: return {{GraphIntent::SetTime, v.x0 - w / 4, v.x1 + w / 4}};
    default: return {};
    }
}
