// The schedule dock's tools: the schedule picker (original, the file's named
// schedules, your edit), Compare (both curves and the moved nodes, sorted by their effect on A's
// peak, on a hand-made pair of orders), Optimize on a worker (the result is one undo step; Cancel
// changes nothing) and Suggest moves (one click, one undoable move).
#include "qtest_registry.h"
#include "schedule/ordercompare.h"
#include "schedule/scheduleeditor.h"
#include "schedule/schedulemodel.h"
#include "schedule/scheduleview.h"
#include "test_schedule_graphs.h"
#include "timeline/timelinebinding.h"
#include "timeline/timelineplot.h"
#include "util/units.h"

#include <fxmem/optimize.h>
#include <fxmem/schedule.h>

#include <synth.h>

#include <QComboBox>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QUndoStack>

using schedtest::ids;
using schedtest::kMoved;
using schedtest::kMovedProfile;
using schedtest::kOriginal;
using schedtest::kOriginalProfile;

namespace {

// Graph g with two stored schedules: "c-first" (kMoved) and "same" (the original order again).
std::shared_ptr<const GraphAnalysis> withSchedules() {
    auto file = schedtest::smallFile();
    file->schedules.push_back({"c-first", fxmem::GraphId(0), kMoved, "by hand"});
    file->schedules.push_back({"other-graph", fxmem::GraphId(1), fxmem::original_order(file->graphs[1]), ""});
    return GraphAnalysis::compute(file, fxmem::GraphId(0));
}

} // namespace

class TestScheduleTools : public QObject {
    Q_OBJECT
private slots:
    void pickerSwitchesToANamedSchedule();
    void compareListOnAHandMadePair();
    void compareInTheDock();
    void optimizeIsOneUndoStep();
    void optimizeCancelChangesNothing();
    void suggestionsApplyWithOneClick();
    void suggestionListFitsItsLines();
    void moveToSaysWhereANodeMayGo();
    void dockStaysNarrow();
    void memoryColumnsInViewOnALaptopDock();
    void sameOrdersAndOptimalOrdersSaySo();
    void compareTimeOn100kNodes();
    void linkedToTheTimeline();
};

// linkScheduleToTimeline: the dock's comparison and lower bound appear on the plot and go away
// with them.
void TestScheduleTools::linkedToTheTimeline() {
    EditedSchedule edited;
    ScheduleEditor editor(&edited);
    TimelinePlot timeline;
    linkScheduleToTimeline(&editor, &timeline);
    const auto analysis = withSchedules();
    timeline.setProfile(analysis->profile(), analysis->peak_step());
    editor.setAnalysis(analysis);
    editor.setComparison(0, 1);
    QVERIFY(timeline.hasComparison());
    editor.clearComparison();
    QVERIFY(!timeline.hasComparison());
    QSignalSpy finished(&editor, &ScheduleEditor::optimizeFinished);
    editor.optimize(5);
    QVERIFY(finished.wait(20000));
    QCOMPARE(timeline.lowerBound(), editor.lowerBound());
    QVERIFY(timeline.lowerBound() >= 0);
    editor.setAnalysis(analysis); // a new graph: no bound known
    QCOMPARE(timeline.lowerBound(), std::int64_t(-1));
}

// Not a timed assertion: prints how long a comparison of the original order with Inductor's BFS
// order takes on a 100k-node graph (it is redone after each edit while shown) and checks it.
void TestScheduleTools::compareTimeOn100kNodes() {
    fxmem::synth::Options options;
    options.nodes = 100000;
    options.pair = false;
    options.seed = 11;
    auto file = std::make_shared<const fxmem::GraphFile>(fxmem::synth::generate(options));
    const auto a = GraphAnalysis::compute(file, *file->find_graph(fxmem::synth::kForwardName));
    const std::vector<fxmem::NodeId> original = fxmem::original_order(a->graph());
    const std::vector<fxmem::NodeId> bfs =
        fxmem::inductor_bfs_order(a->file(), a->graph(), a->alias(), a->releasable(), a->counted());
    QElapsedTimer timer;
    timer.start();
    const OrderComparison c = fxmem::compare_orders(*a, original, bfs);
    const double ms = double(timer.nsecsElapsed()) / 1e6;
    std::size_t scored = 0;
    for (const auto& m : c.moved) scored += m.effect.has_value();
    qInfo("compare on %zu nodes: %.1f ms, %zu moved, %zu with an effect", a->graph().size(), ms, c.moved.size(),
          scored);
    QCOMPARE(c.peak_a, a->peak());
    QCOMPARE(c.peak_b,
             fxmem::score_schedule(a->file(), a->graph(), a->alias(), bfs, a->releasable(), a->counted()).peak);
}

// The dock must fit beside the graph on a 1366-pixel laptop screen with every tool open and a
// schedule name far longer than the dock.
void TestScheduleTools::dockStaysNarrow() {
    auto file = schedtest::smallFile();
    file->schedules.push_back({std::string(300, 'n'), fxmem::GraphId(0), kMoved, std::string(200, 's')});
    EditedSchedule edited;
    ScheduleEditor editor(&edited);
    editor.setAnalysis(GraphAnalysis::compute(file, fxmem::GraphId(0)));
    editor.setComparison(0, 1);
    editor.refreshSuggestions();
    editor.findChild<QListWidget*>(QStringLiteral("suggestionList"))->show();
    editor.resize(420, 700);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    qInfo("minimum size hint %d x %d", editor.minimumSizeHint().width(), editor.minimumSizeHint().height());
    QVERIFY(editor.minimumSizeHint().width() <= 420);
    QVERIFY(editor.minimumSizeHint().height() <= 600);
    if (qEnvironmentVariableIsSet("FXMEM_SCHEDULE_PNG"))
        editor.grab().save(qEnvironmentVariable("FXMEM_SCHEDULE_PNG") + QStringLiteral("-tools.png"));
}

// At 1366x768 the dock is about 550 px wide: the columns a move changes (During, After, Change)
// come right after the node's name and are in view without scrolling sideways; the op/target,
// the widest text, comes last.
void TestScheduleTools::memoryColumnsInViewOnALaptopDock() {
    EditedSchedule edited;
    ScheduleEditor editor(&edited);
    editor.setAnalysis(schedtest::smallAnalysis());
    editor.resize(550, 500);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    auto* view = editor.findChild<ScheduleView*>();
    QVERIFY(view);
    const QHeaderView* h = view->horizontalHeader();
    QCOMPARE(h->visualIndex(ScheduleModel::DuringColumn), h->visualIndex(ScheduleModel::NodeColumn) + 1);
    QCOMPARE(h->visualIndex(ScheduleModel::TargetColumn), int(ScheduleModel::ColumnCount) - 1);
    for (int c :
         {int(ScheduleModel::DuringColumn), int(ScheduleModel::MemoryColumn), int(ScheduleModel::DeltaColumn)}) {
        const int right = h->sectionViewportPosition(c) + h->sectionSize(c);
        QVERIFY2(right <= view->viewport()->width(),
                 qPrintable(
                     QStringLiteral("column %1 ends at %2 of %3 px").arg(c).arg(right).arg(view->viewport()->width())));
    }
}

// Comparing an order with itself says so (instead of "0 node(s) moved"); optimizing an order that
// is already optimal says that, not "no order found".
void TestScheduleTools::sameOrdersAndOptimalOrdersSaySo() {
    EditedSchedule edited;
    ScheduleEditor editor(&edited);
    editor.setAnalysis(schedtest::smallAnalysis()); // no named schedules: original and your edit
    auto* status = editor.findChild<QLabel*>(QStringLiteral("scheduleStatus"));
    QVERIFY(status);
    editor.setComparison(0, 1);
    QVERIFY2(status->text().contains(QStringLiteral("same order")), qPrintable(status->text()));
    editor.clearComparison();
    QSignalSpy finished(&editor, &ScheduleEditor::optimizeFinished);
    editor.optimize(5);
    QVERIFY(finished.wait(20000));
    QCOMPARE(editor.peak(), 2110); // the optimum of graph g
    editor.optimize(5);
    QVERIFY(finished.wait(20000));
    QCOMPARE(finished.last().front().toBool(), false);
    QVERIFY2(status->text().contains(QStringLiteral("already optimal")), qPrintable(status->text()));
    QCOMPARE(editor.undoStack()->count(), 1);
}

void TestScheduleTools::pickerSwitchesToANamedSchedule() {
    EditedSchedule edited;
    ScheduleEditor editor(&edited);
    editor.setAnalysis(withSchedules());
    // Only the schedules of this graph, between the original and your edit.
    QCOMPARE(editor.sourceNames(),
             (QStringList{QStringLiteral("Original order"), QStringLiteral("c-first"), QStringLiteral("Your edit")}));
    QCOMPARE(editor.sourceIndex(), 0);
    auto* picker = editor.findChild<QComboBox*>(QStringLiteral("schedulePicker"));
    QVERIFY(picker);
    QCOMPARE(picker->count(), 3);
    QCOMPARE(picker->itemData(1, Qt::ToolTipRole).toString(), QStringLiteral("by hand")); // the source
    QVERIFY(!editor.pickSource(2));                                                       // no edit yet
    // Pick the stored schedule: one undoable command, its numbers.
    QVERIFY(editor.pickSchedule(QStringLiteral("c-first")));
    QCOMPARE(editor.order(), kMoved);
    QCOMPARE(editor.peak(), 2110);
    QCOMPARE(editor.profile(), kMovedProfile);
    QCOMPARE(editor.undoStack()->count(), 1);
    QCOMPARE(editor.undoStack()->undoText(), QStringLiteral("Use schedule 'c-first'"));
    QCOMPARE(picker->currentIndex(), 1);
    // A move of the user's own: the picker says "Your edit", and keeps it while others are picked.
    QVERIFY(editor.moveNode(3, 1)); // b (its only input is x) right after x: x b a c d output
    QCOMPARE(picker->currentIndex(), 2);
    const std::vector<fxmem::NodeId> mine = editor.order();
    QVERIFY(mine != kMoved && mine != kOriginal);
    QVERIFY(editor.pickSource(0));
    QCOMPARE(editor.order(), kOriginal);
    QCOMPARE(picker->currentIndex(), 0);
    QVERIFY(editor.pickSource(2));
    QCOMPARE(editor.order(), mine);
    // Undo walks back through the picks.
    editor.undoStack()->undo();
    QCOMPARE(editor.order(), kOriginal);
    editor.undoStack()->undo();
    QCOMPARE(editor.order(), mine);
    editor.undoStack()->undo();
    QCOMPARE(editor.order(), kMoved);
    QCOMPARE(picker->currentIndex(), 1);
}

// A = original (x a b c d output), B = c first (x a c b d output). One node moved: b (or c; the
// longest common subsequence keeps c), from position 2 in A to 3 in B. Moving b alone in A to
// just after c (its predecessor in B) gives B itself: A's peak 3100 -> 2110, effect -990.
void TestScheduleTools::compareListOnAHandMadePair() {
    const auto a = schedtest::smallAnalysis();
    const OrderComparison c = fxmem::compare_orders(*a, kOriginal, kMoved);
    QCOMPARE(c.profile_a, kOriginalProfile);
    QCOMPARE(c.profile_b, kMovedProfile);
    QCOMPARE(c.peak_a, 3100);
    QCOMPARE(c.peak_b, 2110);
    QCOMPARE(c.peak_step_a, std::size_t(3));
    QCOMPARE(c.peak_step_b, std::size_t(5));
    QCOMPARE(c.moved.size(), std::size_t(1));
    QCOMPARE(c.moved[0].node, fxmem::NodeId(2)); // b
    QCOMPARE(c.moved[0].position_a, std::size_t(2));
    QCOMPARE(c.moved[0].position_b, std::size_t(3));
    QCOMPARE(c.moved[0].allocates, 2000);
    QVERIFY(c.moved[0].effect.has_value());
    QCOMPARE(*c.moved[0].effect, -990);
    // The other way round the same move raises B's peak by 990.
    const OrderComparison back = fxmem::compare_orders(*a, kMoved, kOriginal);
    QCOMPARE(back.moved.size(), std::size_t(1));
    QCOMPARE(*back.moved[0].effect, 990);
    // Equal orders: nothing moved.
    QVERIFY(fxmem::compare_orders(*a, kOriginal, kOriginal).moved.empty());
    // Sorted by effect: a graph where two nodes move, one helping, one not. Graph "long"-like:
    // x; p = big (1000) from x; q = small (10) from x; up = use(p); uq = use(q); output(up, uq).
    auto file = std::make_shared<fxmem::GraphFile>();
    file->source = "two";
    using fxmem::OpKind;
    {
        const auto sx = file->add_storage(0, "cuda:0", 4), sp = file->add_storage(1, "cuda:0", 1000),
                   sq = file->add_storage(2, "cuda:0", 10), su = file->add_storage(3, "cuda:0", 1),
                   sv = file->add_storage(4, "cuda:0", 1);
        fxmem::GraphBuilder g(*file, "two", fxmem::GraphKind::Inference);
        g.add("x", OpKind::Placeholder, "x", {}, {sx});
        g.add("p", OpKind::CallFunction, "aten.empty", {"x"}, {sp});
        g.add("q", OpKind::CallFunction, "aten.empty", {"x"}, {sq});
        g.add("up", OpKind::CallFunction, "aten.sum", {"p"}, {su});
        g.add("uq", OpKind::CallFunction, "aten.sum", {"q"}, {sv});
        g.add("output", OpKind::Output, "output", {"up", "uq"}, {});
        g.finish();
    }
    const auto two = GraphAnalysis::compute(file, fxmem::GraphId(0));
    // A: x p q up uq; B: x q p up uq... B2: x p up q uq (up right after p: p is freed before q).
    // A -> B2 moves up (before q): alone it lowers A's peak (1014 -> 1005), effect -9.
    const OrderComparison t = fxmem::compare_orders(*two, ids({0, 1, 2, 3, 4, 5}), ids({0, 1, 3, 2, 4, 5}));
    QCOMPARE(t.peak_a, 1014); // x 4 + p 1000 + q 10 (x is freed after q, p after up)
    QCOMPARE(t.peak_b, 1005); // x 4 + p 1000 + up 1, then p is freed before q
    QCOMPARE(t.moved.size(), std::size_t(1));
    QCOMPARE(t.moved[0].node, fxmem::NodeId(2)); // q moved after up (the LCS keeps up)
    QCOMPARE(*t.moved[0].effect, -9);
    // Two moved nodes, sorted by effect: A = x q p uq up, B = x p up q uq.
    const OrderComparison u = fxmem::compare_orders(*two, ids({0, 2, 1, 4, 3, 5}), ids({0, 1, 3, 2, 4, 5}));
    QVERIFY(u.moved.size() >= 2);
    for (std::size_t i = 1; i < u.moved.size(); ++i) QVERIFY(*u.moved[i - 1].effect <= *u.moved[i].effect);
    // Out of budget: the moved nodes are all listed, without an effect.
    const OrderComparison none = fxmem::compare_orders(*two, ids({0, 2, 1, 4, 3, 5}), ids({0, 1, 3, 2, 4, 5}), 5000, 0);
    QCOMPARE(none.moved.size(), u.moved.size());
    for (const auto& m : none.moved) QVERIFY(!m.effect);
}

void TestScheduleTools::compareInTheDock() {
    EditedSchedule edited;
    ScheduleEditor editor(&edited);
    editor.setAnalysis(withSchedules());
    QSignalSpy changed(&editor, &ScheduleEditor::comparisonChanged);
    editor.setComparison(0, 1);
    QCOMPARE(changed.count(), 1);
    QVERIFY(editor.comparison());
    QCOMPARE(editor.comparisonName(0), QStringLiteral("A: Original order"));
    QCOMPARE(editor.comparisonName(1), QStringLiteral("B: c-first"));
    auto* list = editor.findChild<QTableView*>(QStringLiteral("compareList"));
    QVERIFY(list);
    QCOMPARE(list->model()->rowCount(), 1);
    QCOMPARE(list->model()->index(0, CompareModel::NodeColumn).data().toString(), QStringLiteral("b"));
    QCOMPARE(list->model()->index(0, CompareModel::EffectColumn).data(CompareModel::EffectRole).toLongLong(), -990);
    QCOMPARE(list->model()->index(0, CompareModel::EffectColumn).data().toString(), QStringLiteral("-990 B (-31.9 %)"));
    // "Your edit" follows the edits while compared.
    QVERIFY(editor.moveNode(3, 2)); // the user's own c-first: the same order as the stored one
    editor.setComparison(0, 2);
    QCOMPARE(editor.comparison()->peak_b, 2110);
    editor.clearComparison();
    QVERIFY(!editor.comparison());
    QCOMPARE(changed.count(), 4); // set, the edit, set again, clear
}

void TestScheduleTools::optimizeIsOneUndoStep() {
    EditedSchedule edited;
    ScheduleEditor editor(&edited);
    const auto analysis = schedtest::smallAnalysis();
    editor.setAnalysis(analysis);
    QSignalSpy finished(&editor, &ScheduleEditor::optimizeFinished);
    QSignalSpy bound(&editor, &ScheduleEditor::lowerBoundChanged);
    editor.optimize(5);
    QVERIFY(editor.isOptimizing());
    QVERIFY(finished.wait(20000));
    QCOMPARE(finished.front().front().toBool(), true);
    QVERIFY(!editor.isOptimizing());
    // One command; the new order is legal and its peak is the core's own score of it.
    QCOMPARE(editor.undoStack()->count(), 1);
    QVERIFY(editor.undoStack()->undoText().startsWith(QStringLiteral("Optimize: peak")));
    const std::vector<fxmem::NodeId> best = editor.order();
    const fxmem::ScheduleScore s = fxmem::score_schedule(analysis->file(), analysis->graph(), analysis->alias(), best,
                                                         analysis->releasable(), analysis->counted());
    QCOMPARE(editor.peak(), s.peak);
    QVERIFY(editor.peak() <= 2110); // at least as good as c-first, found by hand
    // The change spelled out (both ends of a large peak can round alike).
    QVERIFY2(editor.undoStack()->undoText().contains(formatDelta(s.peak - 3100, 3100)),
             qPrintable(editor.undoStack()->undoText()));
    QCOMPARE(bound.count(), 1);
    QVERIFY(editor.lowerBound() >= 0 && editor.lowerBound() <= editor.peak());
    // Undone in one step, redone in one step.
    editor.undoStack()->undo();
    QCOMPARE(editor.order(), kOriginal);
    QCOMPARE(editor.peak(), 3100);
    QVERIFY(!editor.isModified());
    editor.undoStack()->redo();
    QCOMPARE(editor.order(), best);
}

void TestScheduleTools::optimizeCancelChangesNothing() {
    fxmem::synth::Options options;
    options.nodes = 3000;
    options.pair = false;
    options.seed = 3;
    auto file = std::make_shared<const fxmem::GraphFile>(fxmem::synth::generate(options));
    const auto analysis = GraphAnalysis::compute(file, *file->find_graph(fxmem::synth::kForwardName));
    EditedSchedule edited;
    ScheduleEditor editor(&edited);
    editor.setAnalysis(analysis);
    const std::vector<fxmem::NodeId> before = editor.order();
    QSignalSpy finished(&editor, &ScheduleEditor::optimizeFinished);
    editor.optimize(60);
    // Cancel at once: the optimizer stops at its first progress check and the order stays.
    editor.cancelOptimize();
    QVERIFY(finished.wait(20000));
    QCOMPARE(finished.front().front().toBool(), false);
    QCOMPARE(editor.order(), before);
    QCOMPARE(editor.undoStack()->count(), 0);
    const QString status = editor.findChild<QLabel*>(QStringLiteral("scheduleStatus"))->text();
    QVERIFY2(status.contains(QStringLiteral("cancelled")), qPrintable(status));
    QVERIFY(!editor.isOptimizing());
}

// The suggestion list is as tall as its lines: "no move lowers it" takes one row, not the
// schedule's.
void TestScheduleTools::suggestionListFitsItsLines() {
    EditedSchedule edited;
    ScheduleEditor editor(&edited);
    editor.setAnalysis(schedtest::smallAnalysis());
    editor.resize(550, 700);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    auto* list = editor.findChild<QListWidget*>(QStringLiteral("suggestionList"));
    editor.refreshSuggestions();
    list->show();
    const int row = list->sizeHintForRow(0);
    QVERIFY(list->count() >= 1);
    QCOMPARE(list->height(), std::min(list->count(), 5) * row + 2 * list->frameWidth());
    // Apply the best move until none is left: one line.
    for (int i = 0; i < 10 && !editor.suggestions().empty(); ++i) QVERIFY(editor.applySuggestion(0));
    editor.refreshSuggestions();
    QCOMPARE(list->count(), 1);
    QCOMPARE(list->height(), row + 2 * list->frameWidth());
}

// Move-to: a refusal names where the node may go; changing the mode clears the field.
void TestScheduleTools::moveToSaysWhereANodeMayGo() {
    EditedSchedule edited;
    ScheduleEditor editor(&edited);
    editor.setAnalysis(schedtest::smallAnalysis());
    auto* status = editor.findChild<QLabel*>(QStringLiteral("scheduleStatus"));
    // c (position 3) uses a (position 1) and is used by d (position 4): positions 2..3.
    QString why;
    QVERIFY(!editor.moveNodeToPosition(fxmem::NodeId(3), 0, &why));
    QVERIFY2(status->text().endsWith(QStringLiteral("it may go to positions 2–3.")), qPrintable(status->text()));
    QVERIFY(!why.contains(QStringLiteral("may go"))); // the reason itself stays the core's
    QComboBox* kind = nullptr;
    for (QComboBox* box : editor.findChildren<QComboBox*>())
        if (box->findText(QStringLiteral("just after node")) >= 0) kind = box;
    QVERIFY(kind);
    QLineEdit* field = nullptr;
    for (QLineEdit* line : editor.findChildren<QLineEdit*>())
        if (line->placeholderText() == QStringLiteral("number")) field = line;
    QVERIFY(field);
    field->setText(QStringLiteral("100"));
    kind->setCurrentIndex(kind->findText(QStringLiteral("just after node")));
    QVERIFY(field->text().isEmpty());
    QCOMPARE(field->placeholderText(), QStringLiteral("node name"));
}

void TestScheduleTools::suggestionsApplyWithOneClick() {
    EditedSchedule edited;
    ScheduleEditor editor(&edited);
    editor.setAnalysis(schedtest::smallAnalysis());
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    editor.refreshSuggestions();
    const auto suggestions = editor.suggestions();
    QVERIFY(!suggestions.empty());
    for (const auto& m : suggestions) QVERIFY(m.peak_after < 3100);
    auto* list = editor.findChild<QListWidget*>(QStringLiteral("suggestionList"));
    QVERIFY(list);
    QCOMPARE(list->count(), int(suggestions.size()));
    QVERIFY(list->item(0)->text().contains(QStringLiteral("→")));
    list->show();
    const QRect first = list->visualItemRect(list->item(0));
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, first.center());
    QCOMPARE(editor.peak(), suggestions[0].peak_after);
    QCOMPARE(editor.undoStack()->count(), 1);
    editor.undoStack()->undo();
    QCOMPARE(editor.peak(), 3100);
}

FXMEM_QTEST(TestScheduleTools)
#include "test_schedule_tools.moc"
