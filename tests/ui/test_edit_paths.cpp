// One way to edit: every path that changes the schedule (the list's drop, moveRows and Alt+Up,
// the graph view's drop, "Move selected to", a suggestion, a pick, Optimize, Reset) is a request
// to the window's one EditedSchedule, lands as one command on its undo stack, and undo gives the
// original order back through the window's history (ViewState::history); a refused request
// pushes nothing. The small graph g (x a b c d output,
// tests/common/small_graph.h): c may go before b (position 2), not before its input a.
#include "graphview/graphview.h"
#include "loading/scene.h"
#include "qtest_registry.h"
#include "schedule/scheduleeditor.h"
#include "schedule/schedulemodel.h"
#include "schedule/scheduleview.h"
#include "state/editedschedule.h"
#include "state/viewstate.h"
#include "test_schedule_graphs.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QSignalSpy>
#include <QTest>
#include <QUndoGroup>
#include <QUndoStack>

namespace {

using schedtest::ids;
using schedtest::kMoved;
using schedtest::kOriginal;
const fxmem::NodeId kC(3);

void mouse(QWidget* w, QEvent::Type type, QPointF at, Qt::MouseButtons buttons) {
    QMouseEvent e(type, at, w->mapToGlobal(at), Qt::LeftButton, buttons, Qt::NoModifier);
    QCoreApplication::sendEvent(w, &e);
}

} // namespace

class TestEditPaths : public QObject {
    Q_OBJECT
private slots:
    void init();
    void cleanup();
    void scheduleListDrop();
    void scheduleListMoveRowsAndKeys();
    void graphViewDrop();
    void moveToRow();
    void suggestionPickOptimizeAndReset();

private:
    ViewState* state_ = nullptr;
    GraphView* graph_ = nullptr;
    ScheduleEditor* editor_ = nullptr;
    EditedSchedule* edited() const { return state_->schedule(); }
    QUndoStack* stack() const { return edited()->undoStack(); }
    QString status() const { return editor_->findChild<QLabel*>(QStringLiteral("scheduleStatus"))->text(); }
    // One command with `text` made kMoved (or `order`); undo gives the original back.
    void expectOneEdit(const QString& text, const std::vector<fxmem::NodeId>& order = kMoved);
};

// The window's arrangement: the graph view and the schedule dock over the state's one schedule.
void TestEditPaths::init() {
    state_ = new ViewState;
    graph_ = new GraphView(state_);
    editor_ = new ScheduleEditor(state_);
    graph_->resize(900, 300);
    graph_->setPlotArea(40, 860);
    editor_->resize(720, 400);
    auto file = schedtest::smallFile();
    file->schedules.push_back({"c first", fxmem::GraphId(0), kMoved, ""});
    SceneRequest request;
    request.graph = 0;
    state_->setScene(buildScene(file, QStringLiteral("small.json"), request));
    QCOMPARE(edited()->order(), kOriginal);
    QCOMPARE(editor_->order(), kOriginal);
    QCOMPARE(stack()->count(), 0);
}

void TestEditPaths::cleanup() {
    delete editor_;
    delete graph_;
    delete state_;
}

void TestEditPaths::expectOneEdit(const QString& text, const std::vector<fxmem::NodeId>& order) {
    QCOMPARE(stack()->count(), 1);
    QCOMPARE(stack()->undoText(), text);
    QCOMPARE(edited()->order(), order);
    // Undone as Edit ▸ Undo does it: through the window's history, whose active stack is this one.
    QCOMPARE(state_->history()->activeStack(), stack());
    state_->history()->undo();
    QCOMPARE(edited()->order(), kOriginal);
    QCOMPARE(edited()->peak(), 3100);
    stack()->clear();
}

void TestEditPaths::scheduleListDrop() {
    editor_->show();
    QVERIFY(QTest::qWaitForWindowExposed(editor_));
    auto* view = editor_->findChild<ScheduleView*>();
    ScheduleModel* model = view->scheduleModel();
    QWidget* vp = view->viewport();
    const auto dropAt = [&](int row) {
        std::unique_ptr<QMimeData> mime(model->mimeData({model->index(3, 0)})); // c
        const QPoint at = view->visualRect(model->index(row, 0)).topLeft() + QPoint(20, 2);
        QDragEnterEvent enter(at, Qt::MoveAction, mime.get(), Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(vp, &enter);
        QDragMoveEvent move(at, Qt::MoveAction, mime.get(), Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(vp, &move);
        QDropEvent drop(QPointF(at), Qt::MoveAction, mime.get(), Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(vp, &drop);
        return drop.isAccepted();
    };
    // Before a (row 1): refused, nothing pushed.
    QVERIFY(!dropAt(1));
    QCOMPARE(stack()->count(), 0);
    QCOMPARE(edited()->order(), kOriginal);
    // Before b (row 2): one undoable move, said in the dock's status line.
    QVERIFY(dropAt(2));
    QVERIFY2(status().startsWith(QStringLiteral("Moved 'c' from position 3 to 2")), qPrintable(status()));
    expectOneEdit(QStringLiteral("Move 'c' to position 2"));
}

void TestEditPaths::scheduleListMoveRowsAndKeys() {
    ScheduleModel* model = editor_->findChild<ScheduleView*>()->scheduleModel();
    QVERIFY(!model->moveRows({}, 3, 1, {}, 1)); // before a
    QCOMPARE(stack()->count(), 0);
    QVERIFY(model->moveRows({}, 3, 1, {}, 2));
    expectOneEdit(QStringLiteral("Move 'c' to position 2"));
    // Alt+Up on c's row.
    editor_->show();
    QVERIFY(QTest::qWaitForWindowExposed(editor_));
    auto* view = editor_->findChild<ScheduleView*>();
    editor_->selectNode(kC);
    QTest::keyClick(view, Qt::Key_Up, Qt::AltModifier);
    expectOneEdit(QStringLiteral("Move 'c' to position 2"));
}

// The graph view's drop asks the edited schedule itself (no detour through the dock), and the
// dock still shows the outcome.
void TestEditPaths::graphViewDrop() {
    QSignalSpy refused(graph_, &GraphView::dropRefused);
    const NodeRef c{0, kC};
    QCOMPARE(graph_->stepOf(c), 5);
    const auto dropAtStep = [&](double step) {
        const QPointF at = graph_->nodeCenter(c);
        const QPointF to(graph_->viewport().px(step), at.y());
        mouse(graph_, QEvent::MouseButtonPress, at, Qt::LeftButton);
        mouse(graph_, QEvent::MouseMove, at + QPointF(8, 0), Qt::LeftButton);
        mouse(graph_, QEvent::MouseMove, to, Qt::LeftButton);
        mouse(graph_, QEvent::MouseButtonRelease, to, Qt::NoButton);
    };
    dropAtStep(1); // a's step: before its input
    QCOMPARE(refused.count(), 1);
    QVERIFY2(refused.front().at(0).toString().contains(QStringLiteral("'a'")),
             qPrintable(refused.front().at(0).toString()));
    QCOMPARE(stack()->count(), 0);
    dropAtStep(3); // b's step: position 2
    QCOMPARE(refused.count(), 1);
    QVERIFY2(status().startsWith(QStringLiteral("Moved 'c' from position 3 to 2")), qPrintable(status()));
    expectOneEdit(QStringLiteral("Move 'c' to position 2"));
}

void TestEditPaths::moveToRow() {
    editor_->show();
    QVERIFY(QTest::qWaitForWindowExposed(editor_));
    auto* kind = editor_->findChild<QComboBox*>(QStringLiteral("moveKind"));
    auto* target = editor_->findChild<QLineEdit*>(QStringLiteral("moveTarget"));
    QVERIFY(kind && target);
    editor_->selectNode(kC);
    kind->setCurrentIndex(0); // a position
    target->setText(QStringLiteral("1"));
    QTest::keyClick(target, Qt::Key_Return);
    QVERIFY2(status().contains(QStringLiteral("'a'")), qPrintable(status()));
    QCOMPARE(stack()->count(), 0);
    target->setText(QStringLiteral("2"));
    QTest::keyClick(target, Qt::Key_Return);
    expectOneEdit(QStringLiteral("Move 'c' to position 2"));
}

void TestEditPaths::suggestionPickOptimizeAndReset() {
    // A suggestion: one move at the peak, pushed like any other.
    editor_->refreshSuggestions();
    QVERIFY(!editor_->suggestions().empty());
    const fxmem::MoveSuggestion first = editor_->suggestions().front();
    QVERIFY(editor_->applySuggestion(0));
    QCOMPARE(stack()->count(), 1);
    QCOMPARE(edited()->positionOf(first.node), first.to);
    stack()->undo();
    QCOMPARE(edited()->order(), kOriginal);
    stack()->clear();
    // A pick of the file's schedule: a whole order, one command.
    QVERIFY(editor_->pickSchedule(QStringLiteral("c first")));
    expectOneEdit(QStringLiteral("Use schedule 'c first'"));
    // Optimize: the worker's order comes back as one command.
    QSignalSpy finished(editor_, &ScheduleEditor::optimizeFinished);
    editor_->optimize(5);
    QVERIFY(finished.wait(20000));
    QCOMPARE(finished.front().at(0).toBool(), true);
    QCOMPARE(stack()->count(), 1);
    QVERIFY2(stack()->undoText().startsWith(QStringLiteral("Optimize: peak")), qPrintable(stack()->undoText()));
    QVERIFY(edited()->peak() < 3100);
    stack()->undo();
    QCOMPARE(edited()->order(), kOriginal);
    stack()->clear();
    // Reset after a move: two commands, undone one at a time.
    QVERIFY(edited()->move(3, 2).ok);
    editor_->resetSchedule();
    QCOMPARE(stack()->count(), 2);
    QCOMPARE(stack()->undoText(), QStringLiteral("Reset schedule"));
    QCOMPARE(edited()->order(), kOriginal);
    stack()->undo();
    QCOMPARE(edited()->order(), kMoved);
    stack()->undo();
    QCOMPARE(edited()->order(), kOriginal);
    // A whole order that breaks a dependency is refused with core's reason and pushes nothing.
    const MoveOutcome bad = edited()->setOrder(ids({0, 3, 1, 2, 4, 5}), QStringLiteral("bad"), true);
    QVERIFY(!bad.ok);
    QVERIFY(!bad.why.isEmpty());
    QCOMPARE(stack()->index(), 0);
    QCOMPARE(edited()->order(), kOriginal);
}

FXMEM_QTEST(TestEditPaths)
#include "test_edit_paths.moc"
