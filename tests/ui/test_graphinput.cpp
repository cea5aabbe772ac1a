// The graph view's input handler alone: which intents mouse, wheel and key events become, with
// the numbers worked out by hand for a viewport of 100 steps over 500 pixels and 10-pixel lanes.
#include "graphview/graphinput.h"
#include "qtest_registry.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QWheelEvent>
#include <QtTest>

namespace {

GraphViewport view() {
    GraphViewport v;
    v.x0 = 0;
    v.x1 = 100;
    v.left = 0;
    v.right = 500; // 5 px a step
    v.laneHeight = 10;
    v.topPad = 0;
    v.width = 500;
    v.height = 300;
    return v;
}

QMouseEvent mouse(QEvent::Type type, QPoint at, Qt::MouseButton button, Qt::MouseButtons held,
                  Qt::KeyboardModifiers mods = Qt::NoModifier) {
    return QMouseEvent(type, QPointF(at), QPointF(at), button, held, mods);
}

std::vector<GraphIntent::Kind> kinds(const std::vector<GraphIntent>& intents) {
    std::vector<GraphIntent::Kind> out;
    for (const GraphIntent& i : intents) out.push_back(i.kind);
    return out;
}

} // namespace

class TestGraphInput : public QObject {
    Q_OBJECT
private slots:
    void nodeDragStartsAfterSlackAndDropsWithShift();
    void pressOnNothingPans();
    void uneditableNodePans();
    void clickSelectsOrHitsModules();
    void wheelAndKeys();
};

void TestGraphInput::nodeDragStartsAfterSlackAndDropsWithShift() {
    GraphInput in;
    const NodeRef node{0, fxmem::NodeId(3)};
    int asked = 0;
    in.nodeAt = [&](QPoint) {
        ++asked;
        return node;
    };
    in.editable = [] { return true; };
    const GraphViewport v = view();
    QVERIFY(in.press(mouse(QEvent::MouseButtonPress, {100, 50}, Qt::LeftButton, Qt::LeftButton)).empty());
    QCOMPARE(asked, 1);
    // 4 px of slack: nothing yet.
    QVERIFY(in.move(mouse(QEvent::MouseMove, {104, 50}, Qt::NoButton, Qt::LeftButton), v).empty());
    QCOMPARE(in.drag(), GraphInput::Drag::None);
    // 5 px: the drag starts, and the ghost follows the pointer: x 105 is step 21.
    std::vector<GraphIntent> out = in.move(mouse(QEvent::MouseMove, {105, 50}, Qt::NoButton, Qt::LeftButton), v);
    QCOMPARE(kinds(out), (std::vector{GraphIntent::StartDrag, GraphIntent::DragTo}));
    QCOMPARE(out[0].node, node);
    QCOMPARE(out[1].a, 21.0);
    QCOMPARE(in.drag(), GraphInput::Drag::Node);
    out = in.move(mouse(QEvent::MouseMove, {160, 52}, Qt::NoButton, Qt::LeftButton), v);
    QCOMPARE(kinds(out), (std::vector{GraphIntent::DragTo}));
    QCOMPARE(out[0].a, 32.0);
    out = in.release(mouse(QEvent::MouseButtonRelease, {160, 52}, Qt::LeftButton, Qt::NoButton, Qt::ShiftModifier), v);
    QCOMPARE(kinds(out), (std::vector{GraphIntent::Drop, GraphIntent::EndGesture}));
    QCOMPARE(out[0].node, node);
    QCOMPARE(out[0].a, 32.0);
    QVERIFY(out[0].withInputs);
    QCOMPARE(in.drag(), GraphInput::Drag::None);
}

void TestGraphInput::pressOnNothingPans() {
    GraphInput in;
    in.nodeAt = [](QPoint) { return NodeRef{}; };
    in.editable = [] { return true; };
    const GraphViewport v = view();
    in.press(mouse(QEvent::MouseButtonPress, {200, 100}, Qt::LeftButton, Qt::LeftButton));
    // 10 px right and 20 px down: the view goes back 2 steps and 2 lanes.
    std::vector<GraphIntent> out = in.move(mouse(QEvent::MouseMove, {210, 120}, Qt::NoButton, Qt::LeftButton), v);
    QCOMPARE(kinds(out), (std::vector{GraphIntent::StartPan, GraphIntent::Pan}));
    QCOMPARE(out[1].a, 2.0);
    QCOMPARE(out[1].b, 2.0);
    out = in.release(mouse(QEvent::MouseButtonRelease, {210, 120}, Qt::LeftButton, Qt::NoButton), v);
    QCOMPARE(kinds(out), (std::vector{GraphIntent::EndGesture}));
    // Without a button the pointer hovers.
    out = in.move(mouse(QEvent::MouseMove, {300, 10}, Qt::NoButton, Qt::NoButton), v);
    QCOMPARE(kinds(out), (std::vector{GraphIntent::Hover}));
    QCOMPARE(out[0].pos, QPoint(300, 10));
}

void TestGraphInput::uneditableNodePans() {
    GraphInput in;
    in.nodeAt = [](QPoint) { return NodeRef{1, fxmem::NodeId(0)}; };
    in.editable = [] { return false; };
    in.press(mouse(QEvent::MouseButtonPress, {200, 100}, Qt::LeftButton, Qt::LeftButton));
    const auto out = in.move(mouse(QEvent::MouseMove, {190, 100}, Qt::NoButton, Qt::LeftButton), view());
    QCOMPARE(kinds(out), (std::vector{GraphIntent::StartPan, GraphIntent::Pan}));
    QCOMPARE(out[1].a, -2.0);
    // The middle button pans even over a node that could be dragged.
    GraphInput mid;
    mid.nodeAt = in.nodeAt;
    mid.editable = [] { return true; };
    mid.press(mouse(QEvent::MouseButtonPress, {200, 100}, Qt::MiddleButton, Qt::MiddleButton));
    QCOMPARE(kinds(mid.move(mouse(QEvent::MouseMove, {200, 110}, Qt::NoButton, Qt::MiddleButton), view())),
             (std::vector{GraphIntent::StartPan, GraphIntent::Pan}));
}

void TestGraphInput::clickSelectsOrHitsModules() {
    GraphInput in;
    NodeRef under{0, fxmem::NodeId(7)};
    in.nodeAt = [&](QPoint) { return under; };
    in.editable = [] { return true; };
    in.press(mouse(QEvent::MouseButtonPress, {50, 50}, Qt::LeftButton, Qt::LeftButton));
    auto out = in.release(mouse(QEvent::MouseButtonRelease, {52, 50}, Qt::LeftButton, Qt::NoButton), view());
    QCOMPARE(kinds(out), (std::vector{GraphIntent::Select, GraphIntent::EndGesture}));
    QCOMPARE(out[0].node, under);
    under = {};
    in.press(mouse(QEvent::MouseButtonPress, {50, 5}, Qt::LeftButton, Qt::LeftButton));
    out = in.release(mouse(QEvent::MouseButtonRelease, {50, 5}, Qt::LeftButton, Qt::NoButton), view());
    QCOMPARE(kinds(out), (std::vector{GraphIntent::ModuleClick, GraphIntent::EndGesture}));
    QCOMPARE(out[0].pos, QPoint(50, 5));
}

void TestGraphInput::wheelAndKeys() {
    GraphInput in;
    const GraphViewport v = view();
    const auto wheel = [&](QPoint delta, Qt::KeyboardModifiers mods) {
        QWheelEvent e(QPointF(250, 40), QPointF(250, 40), QPoint(), delta, Qt::NoButton, mods, Qt::NoScrollPhase,
                      false);
        return in.wheel(e, v);
    };
    auto out = wheel({0, 120}, Qt::NoModifier); // one notch up: time zooms in by 0.8 around x 250
    QCOMPARE(kinds(out), (std::vector{GraphIntent::ZoomTime}));
    QCOMPARE(out[0].a, 0.8);
    QCOMPARE(out[0].b, 250.0);
    out = wheel({0, -120}, Qt::ControlModifier);
    QCOMPARE(kinds(out), (std::vector{GraphIntent::ZoomLanes}));
    QCOMPARE(out[0].a, 1 / 1.15);
    QCOMPARE(out[0].b, 40.0);
    out = wheel({0, 240}, Qt::ShiftModifier);
    QCOMPARE(kinds(out), (std::vector{GraphIntent::ScrollLanes}));
    QCOMPARE(out[0].a, -2.0);
    out = wheel({-120, 0}, Qt::NoModifier); // a swipe pans a tenth of the 100 steps
    QCOMPARE(kinds(out), (std::vector{GraphIntent::ShiftTime}));
    QCOMPARE(out[0].a, 10.0);

    const auto key = [&](int k) { return in.key(QKeyEvent(QEvent::KeyPress, k, Qt::NoModifier), v); };
    out = key(Qt::Key_Left);
    QCOMPARE(kinds(out), (std::vector{GraphIntent::ShiftTime}));
    QCOMPARE(out[0].a, -10.0);
    out = key(Qt::Key_Plus);
    QCOMPARE(kinds(out), (std::vector{GraphIntent::SetTime}));
    QCOMPARE(out[0].a, 20.0);
    QCOMPARE(out[0].b, 80.0);
    out = key(Qt::Key_Minus);
    QCOMPARE(out[0].a, -25.0);
    QCOMPARE(out[0].b, 125.0);
    QCOMPARE(kinds(key(Qt::Key_PageDown)), (std::vector{GraphIntent::ScrollLanes}));
    QCOMPARE(key(Qt::Key_PageDown)[0].a, 5.0);
    QCOMPARE(kinds(key(Qt::Key_R)), (std::vector{GraphIntent::ResetZoom}));
    QVERIFY(key(Qt::Key_A).empty()); // passed on
}

FXMEM_QTEST(TestGraphInput)
#include "test_graphinput.moc"
