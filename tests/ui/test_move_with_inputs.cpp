// A node pinned by its own single-use view input: the refusal offers to move it with that input
// ("move with 't'"), and the offer moves both as one undo step.
#include "qtest_registry.h"
#include "schedule/scheduleeditor.h"
#include "state/editedschedule.h"

#include <fxmem/schedule.h>

#include "../common/pinned_graph.h"

#include <QToolButton>
#include <QUndoStack>
#include <QtTest>

namespace {

// The graph of tests/common/pinned_graph.h: original peak 1360 (during mm); with t and mm
// before a, 1350 (during a).
std::shared_ptr<const GraphAnalysis> pinned() {
    auto f = std::make_shared<fxmem::GraphFile>();
    fxmem_test::add_pinned_graph(*f);
    return GraphAnalysis::compute(f, fxmem::GraphId(0));
}

} // namespace

class TestMoveWithInputs : public QObject {
    Q_OBJECT
private slots:
    void refusalOffersToMoveWithTheView();
};

void TestMoveWithInputs::refusalOffersToMoveWithTheView() {
    EditedSchedule edited;
    ScheduleEditor editor(&edited);
    const auto analysis = pinned();
    editor.setAnalysis(analysis);
    const fxmem::Graph& g = analysis->graph();
    auto* offer = editor.findChild<QToolButton*>(QStringLiteral("moveWithInputs"));
    QVERIFY(offer);
    QVERIFY(offer->isHidden());
    QCOMPARE(editor.peak(), 1360);

    QString why;
    QVERIFY(!editor.moveNode(5, 3, &why)); // mm before a: its transpose t pins it
    QVERIFY2(why.contains(QStringLiteral("must stay after its input 't'")), qPrintable(why));
    QVERIFY2(why.endsWith(QStringLiteral("; move with 't'")), qPrintable(why));
    QVERIFY(!offer->isHidden());
    QCOMPARE(offer->text(), QStringLiteral("Move with 't'"));
    // Refused for another reason (b is an input but no view): no offer.
    QVERIFY(!editor.moveNode(5, 2, &why));
    QVERIFY(!why.contains(QStringLiteral("move with")));
    QVERIFY(offer->isHidden());

    QVERIFY(!editor.moveNode(5, 3, &why));
    const int commands = editor.undoStack()->count();
    offer->click();
    const std::vector<fxmem::NodeId> want = {g.find("primals_1"), g.find("primals_2"), g.find("b"),     g.find("t"),
                                             g.find("mm"),        g.find("a"),         g.find("output")};
    QCOMPARE(editor.order(), want);
    QCOMPARE(editor.peak(), 1350);
    QCOMPARE(editor.undoStack()->count(), commands + 1); // one undo step for both moves
    QVERIFY(offer->isHidden());
    editor.undoStack()->undo();
    QCOMPARE(editor.order(), fxmem::original_order(g));
    editor.undoStack()->redo();
    QCOMPARE(editor.order(), want);
    // Straight through the API as well: back down with t.
    QVERIFY(editor.moveNodeWithInputs(4, 5, &why));
    QCOMPARE(editor.order(), fxmem::original_order(g));
}

FXMEM_QTEST(TestMoveWithInputs)
#include "test_move_with_inputs.moc"
