// A node pinned by its own single-use view input: the refusal offers to move it with that input
// ("move with 't'"), and the offer moves both as one undo step.
#include "schedule/scheduleeditor.h"
#include "state/editedschedule.h"

#include <fxmem/schedule.h>

#include <QToolButton>
#include <QUndoStack>
#include <QtTest>

namespace {

// primals_1 (100 B), primals_2 (200 B); b = neg(primals_1) 10 B; a = relu(primals_1) 1000 B;
// t = t(primals_2) (a view); mm = mm(b, t) 50 B; output(a, mm). Original peak 1360 (during mm);
// with t and mm before a: 1350 (during a), as worked out in tests/core/test_move_with.cpp.
std::shared_ptr<const GraphAnalysis> pinned() {
    auto f = std::make_shared<fxmem::GraphFile>();
    f->source = "pinned.json";
    using fxmem::OpKind;
    const auto P1 = f->add_storage(0, "cuda:0", 100), P2 = f->add_storage(1, "cuda:0", 200),
               B = f->add_storage(2, "cuda:0", 10), A = f->add_storage(3, "cuda:0", 1000), M = f->add_storage(4, "cuda:0", 50);
    fxmem::GraphBuilder b(*f, "g", fxmem::GraphKind::Forward);
    b.add("primals_1", OpKind::Placeholder, "primals_1", {}, {P1});
    b.add("primals_2", OpKind::Placeholder, "primals_2", {}, {P2});
    b.add("b", OpKind::CallFunction, "aten.neg.default", {"primals_1"}, {B});
    b.add("a", OpKind::CallFunction, "aten.relu.default", {"primals_1"}, {A});
    b.add("t", OpKind::CallFunction, "aten.t.default", {"primals_2"}, {P2});
    b.add("mm", OpKind::CallFunction, "aten.mm.default", {"b", "t"}, {M});
    b.add("output", OpKind::Output, "output", {"a", "mm"}, {});
    b.finish();
    return GraphAnalysis::compute(f, 0);
}

} // namespace

class TestMoveWithInputs : public QObject {
    Q_OBJECT
private slots:
    void refusalOffersToMoveWithTheView();
};

void TestMoveWithInputs::refusalOffersToMoveWithTheView() {
    ScheduleEditor editor;
    const auto analysis = pinned();
    editor.setAnalysis(analysis);
    const fxmem::Graph& g = analysis->graph();
    auto* offer = editor.findChild<QToolButton*>(QStringLiteral("moveWithInputs"));
    QVERIFY(offer);
    QVERIFY(offer->isHidden());
    QCOMPARE(editor.peak(), 1360);

    QString why;
    QVERIFY(!editor.moveNode(5, 3, &why));  // mm before a: its transpose t pins it
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
    const std::vector<fxmem::NodeId> want = {g.find("primals_1"), g.find("primals_2"), g.find("b"), g.find("t"),
                                             g.find("mm"), g.find("a"), g.find("output")};
    QCOMPARE(editor.order(), want);
    QCOMPARE(editor.peak(), 1350);
    QCOMPARE(editor.undoStack()->count(), commands + 1);  // one undo step for both moves
    QVERIFY(offer->isHidden());
    editor.undoStack()->undo();
    QCOMPARE(editor.order(), fxmem::original_order(g));
    editor.undoStack()->redo();
    QCOMPARE(editor.order(), want);
    // Straight through the API as well: back down with t.
    QVERIFY(editor.moveNodeWithInputs(4, 5, &why));
    QCOMPARE(editor.order(), fxmem::original_order(g));
}

QTEST_MAIN(TestMoveWithInputs)
#include "test_move_with_inputs.moc"
