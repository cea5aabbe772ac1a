// Dragging a node in the graph view: the green drop band is core's legal range. Every drop the
// band marks legal is one core accepts, and every drop outside it is one core refuses, on a graph
// where the storages (not only the inputs and users) bound the range.
#include "graphview/graphview.h"
#include "qtest_registry.h"
#include "state/editedschedule.h"
#include "state/viewstate.h"

#include <fxmem/layout.h>
#include <fxmem/profile_steps.h>

#include <QSignalSpy>
#include <QUndoStack>
#include <QtTest>

namespace {

// a = f() allocates S; b = f() outputs S too without depending on a (possible in a hand-made
// file); c = f(b) allocates T, and uses S through b; e = f() allocates U; output(c, e).
// Order a b c e output; running nodes at steps a 1, b 3, c 5, e 7.
// Core: a must stay before c, which uses the storage S that a allocates, so a may go to
// positions 0..1 (steps 1 and 3). a has no users: a rule of inputs and users alone would let it
// go anywhere before the output (steps 1..7), and core would refuse positions 2 and 3.
std::shared_ptr<const Scene> storageBound() {
    auto f = std::make_shared<fxmem::GraphFile>();
    f->source = "storage-bound.json";
    const fxmem::StorageId S = f->add_storage(5, "cuda:0", 10), T = f->add_storage(6, "cuda:0", 5),
                           U = f->add_storage(7, "cuda:0", 3);
    fxmem::GraphBuilder b(*f, "g", fxmem::GraphKind::Other);
    b.add("a", fxmem::OpKind::CallFunction, "f", {}, {S});
    b.add("b", fxmem::OpKind::CallFunction, "f", {}, {S});
    b.add("c", fxmem::OpKind::CallFunction, "f", {"b"}, {T});
    b.add("e", fxmem::OpKind::CallFunction, "f", {}, {U});
    b.add("output", fxmem::OpKind::Output, "output", {"c", "e"}, {});
    b.finish();
    return buildScene(f, QStringLiteral("storage-bound.json"), SceneRequest{});
}

void send(QWidget* w, QEvent::Type type, QPointF at, Qt::MouseButtons buttons) {
    QMouseEvent e(type, at, w->mapToGlobal(at), Qt::LeftButton, buttons, Qt::NoModifier);
    QCoreApplication::sendEvent(w, &e);
}

// Presses on `from`, moves past the drag threshold, releases at `to` (widget coordinates).
void drag(QWidget* w, QPointF from, QPointF to) {
    send(w, QEvent::MouseButtonPress, from, Qt::LeftButton);
    send(w, QEvent::MouseMove, from + QPointF(8, 0), Qt::LeftButton);
    send(w, QEvent::MouseMove, to, Qt::LeftButton);
    send(w, QEvent::MouseButtonRelease, to, Qt::NoButton);
}

// The view over storageBound(), 900x300 with a plot area of 40..860.
void showStorageBound(ViewState& state, GraphView& view) {
    view.resize(900, 300);
    view.setPlotArea(40, 860);
    state.setScene(storageBound());
}

} // namespace

class TestGraphViewDrag : public QObject {
    Q_OBJECT
private slots:
    void dropBandIsCoresLegalRange();
    void dropMovesTheNodeAtOnceAndTheLanesFollow();
};

void TestGraphViewDrag::dropBandIsCoresLegalRange() {
    ViewState state;
    GraphView view(&state);
    showStorageBound(state, view);
    EditedSchedule& schedule = *state.schedule();
    const fxmem::Graph& g = state.scene()->segments[0].analysis->graph();
    const NodeRef a{0, g.find("a")};
    QCOMPARE(schedule.size(), std::size_t(5));

    const GraphView::DropBand band = view.dropBand(a);
    QVERIFY(band.ok);
    QCOMPARE(band.loStep, 1);
    QCOMPARE(band.hiStep, 3); // b's step: not c's (5) nor e's (7)
    QVERIFY2(band.why.contains(QStringLiteral("before 'c'")), qPrintable(band.why));

    QSignalSpy refusedDrops(&view, &GraphView::dropRefused);
    int legal = 0, refused = 0;
    // Every alloc step of the axis: inside the band, core accepts the drop (one undoable move of
    // the edited schedule); outside, it refuses it (nothing pushed, the reason said).
    for (std::size_t k = 0; k < schedule.runningCount(); ++k) {
        const std::int64_t step = fxmem::alloc_step(k);
        const bool inBand = step >= band.loStep && step <= band.hiStep;
        refusedDrops.clear();
        const int commands = schedule.undoStack()->count();
        const QPointF at = view.nodeCenter(a);
        drag(&view, at, QPointF(view.viewport().px(static_cast<double>(step)), at.y()));
        const bool accepted = schedule.undoStack()->count() == commands + 1;
        if (!accepted && refusedDrops.isEmpty()) {
            QCOMPARE(schedule.undoStack()->count(), commands);
            QCOMPARE(static_cast<std::int64_t>(schedule.stepOf(a.node)), step); // dropped on itself
            continue;
        }
        QVERIFY2(accepted == inBand,
                 qPrintable(QStringLiteral("step %1: band says %2, the drop was %3 (%4)")
                                .arg(step)
                                .arg(inBand)
                                .arg(accepted ? QStringLiteral("accepted") : QStringLiteral("refused"))
                                .arg(refusedDrops.isEmpty() ? QString() : refusedDrops.front().at(0).toString())));
        if (accepted) {
            // The move happened, and the band of the moved node is still core's range.
            QVERIFY(refusedDrops.isEmpty());
            QCOMPARE(schedule.stepOf(a.node), step);
            QCOMPARE(schedule.undoStack()->undoText(), QStringLiteral("Move 'a' to position 1"));
            const GraphView::DropBand after = view.dropBand(a);
            QCOMPARE(after.loStep, 1);
            QCOMPARE(after.hiStep, 3);
            schedule.undoStack()->undo();
            ++legal;
        } else {
            QCOMPARE(refusedDrops.count(), 1);
            QVERIFY2(refusedDrops.front().at(0).toString().contains(QStringLiteral("'c'")),
                     qPrintable(refusedDrops.front().at(0).toString()));
            ++refused;
        }
    }
    QCOMPARE(legal, 1);   // to step 3 (step 1 is where a is)
    QCOMPARE(refused, 2); // steps 5 and 7
    QCOMPARE(schedule.isEdited(), false);
}

// A drop does not lay the whole graph out on the GUI thread: the node is at its new step in the
// very next paint, on its old lane; the lanes of the new order arrive from a worker, and equal a
// layout of that order built from scratch.
void TestGraphViewDrag::dropMovesTheNodeAtOnceAndTheLanesFollow() {
    ViewState state;
    GraphView view(&state);
    showStorageBound(state, view);
    EditedSchedule& schedule = *state.schedule();
    const fxmem::Graph& g = state.scene()->segments[0].analysis->graph();
    const fxmem::GraphLayout& original = *state.scene()->segments[0].layout;
    const NodeRef e{0, g.find("e")};
    QCOMPARE(view.stepOf(e), 7);

    // e (no inputs, read by the output only) dropped at step 1, before a: a, b and c move right.
    QSignalSpy arrived(&schedule, &EditedSchedule::layoutChanged);
    const QPointF at = view.nodeCenter(e);
    drag(&view, at, QPointF(view.viewport().px(1), at.y()));
    QCOMPARE(schedule.undoStack()->count(), 1); // the drop itself is the undoable move
    QCOMPARE(schedule.layoutsBuiltHere(), std::size_t(0));
    QCOMPARE(view.stepOf(e), 1);
    QCOMPARE(view.stepOf({0, g.find("a")}), 3);
    QCOMPARE(view.stepOf({0, g.find("c")}), 7);
    for (const char* n : {"a", "b", "c", "e", "output"})
        QCOMPARE(schedule.layout()->lane(g.find(n)), original.lane(g.find(n)));
    QCOMPARE(view.nodeCenter(e), QPointF(view.viewport().px(1), at.y()));

    QVERIFY(arrived.wait(10000));
    const fxmem::GraphLayout fresh(g, schedule.order());
    for (std::size_t i = 0; i < g.size(); ++i) {
        const fxmem::NodeId n(static_cast<std::int32_t>(i));
        QCOMPARE(schedule.layout()->lane(n), fresh.lane(n));
        QCOMPARE(schedule.layout()->step(n), fresh.step(n));
    }
    QCOMPARE(view.nodeCenter(e).y(), view.viewport().py(fresh.lane(e.node)));
    QCOMPARE(schedule.layoutsBuiltHere(), std::size_t(0));

    // Undo: the graph's own order, drawn with the scene's layout again.
    schedule.undoStack()->undo();
    QVERIFY(!schedule.layout());
    QCOMPARE(view.stepOf(e), 7);
    QCOMPARE(schedule.layoutsBuiltHere(), std::size_t(0));
}

FXMEM_QTEST(TestGraphViewDrag)
#include "test_graphview_drag.moc"
