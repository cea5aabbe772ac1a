// ViewState decides which live set is shown, and the live table, the graph view and the Dataflow
// view all follow it: the graph marks exactly the allocators of the table's rows, at every step,
// in a joined pair (the backward's baseline is marked in the forward), and while an edit's
// live-set index is being built (all keep the previous set until it arrives). The sets are worked out by hand from the
// fixtures' graphs (ui_fixtures.h).
#include "dataflow/dataflowview.h"
#include "dataflow/graphmodepane.h"
#include "graphview/graphview.h"
#include "mainwindow/mainwindow.h"
#include "mainwindow/windowparts.h"
#include "models/livestoragemodel.h"
#include "panels/livestoragepanel.h"
#include "qtest_registry.h"
#include "schedule/scheduleeditor.h"
#include "state/viewstate.h"
#include "ui_fixtures.h"
#include "ui_open.h"

#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QUndoStack>
#include <QtTest>

#include <set>
#include <string>

class TestShownLive : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void graphMarksWhatTheTableLists();
    void joinedPairMarksTheBaselineInTheForward();
    void anEditKeepsTheShownSetUntilItsIndexArrives();
};

namespace {

using Marked = std::set<std::pair<int, std::string>>; // (segment, node name)

// The nodes the graph view marks live, over every node of the scene.
Marked graphMarks(MainWindow& w) {
    Marked out;
    const Scene& scene = *w.scene();
    for (std::size_t s = 0; s < scene.segments.size(); ++s) {
        const fxmem::Graph& g = scene.segments[s].analysis->graph();
        for (std::size_t n = 0; n < g.size(); ++n) {
            const NodeRef ref{static_cast<int>(s), fxmem::NodeId(static_cast<std::int32_t>(n))};
            if (w.parts().graphView->isMarkedLive(ref)) out.insert({ref.segment, g.nodes[n].name});
        }
    }
    return out;
}

// The nodes the Dataflow view marks live (those holding a live storage, in the cursor's segment).
Marked dataflowMarks(MainWindow& w) {
    Marked out;
    const DataflowMarks& m = w.parts().dataflow->marks();
    if (m.segment < 0) return out;
    const fxmem::Graph& g = w.scene()->segments[static_cast<std::size_t>(m.segment)].analysis->graph();
    for (std::size_t n = 0; n < m.liveNode.size(); ++n)
        if (m.liveNode[n]) out.insert({m.segment, g.nodes[n].name});
    return out;
}

// The allocators of the live table's rows.
Marked tableAllocators(MainWindow& w) {
    Marked out;
    const LiveStorageModel* m = w.parts().livePanel->model();
    for (int r = 0; r < m->rowCount(); ++r) {
        const LiveStorageModel::Row& row = m->row(r);
        const fxmem::Graph& g = w.scene()->segments[static_cast<std::size_t>(row.segment)].analysis->graph();
        out.insert({row.segment, g.node(row.allocator).name});
    }
    return out;
}

bool openWithin20s(MainWindow& w, const char* path) {
    return ui_open::openAndWait(w, QString::fromLatin1(path), 20000);
}

} // namespace

void TestShownLive::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("fxmem-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("test_shown_live"));
    QSettings().clear();
}

void TestShownLive::graphMarksWhatTheTableLists() {
    MainWindow w(fixtures::fakeLoader());
    w.show();
    QVERIFY(openWithin20s(w, "chain.json"));
    // chain: primals_1 (kept) -> a -> b (reaches the output) -> c (on the CPU, not counted).
    // Steps: 0 start, 1/2 a's alloc/free, 3/4 b's, 5/6 c's; a is freed after b (its last user).
    const std::vector<Marked> expected = {
        {{0, "primals_1"}},           {{0, "primals_1"}, {0, "a"}},
        {{0, "primals_1"}, {0, "a"}}, {{0, "primals_1"}, {0, "a"}, {0, "b"}},
        {{0, "primals_1"}, {0, "b"}}, {{0, "primals_1"}, {0, "b"}},
        {{0, "primals_1"}, {0, "b"}},
    };
    for (std::int64_t k : {3, 0, 1, 2, 4, 5, 6, 3}) {
        w.setCursorStep(k);
        QVERIFY(w.state()->shownLive());
        QCOMPARE(w.state()->shownLive(), w.state()->liveAtCursor());
        QCOMPARE(graphMarks(w), expected[static_cast<std::size_t>(k)]);
        QCOMPARE(tableAllocators(w), expected[static_cast<std::size_t>(k)]);
    }
}

void TestShownLive::joinedPairMarksTheBaselineInTheForward() {
    MainWindow w(fixtures::fakeLoader());
    w.show();
    QVERIFY(openWithin20s(w, "pair.json"));
    QSignalSpy shown(&w, &MainWindow::sceneShown);
    w.showGraph(-1, 0);
    QTRY_COMPARE(shown.count(), 1);
    QVERIFY(w.scene()->joined());
    // Global step 5 is the backward's start (the forward has 5 steps): tangents_1 (5) and saved_a
    // (s1, 10) in the backward, and b's s2 (20), which no backward input holds: the baseline,
    // made by the forward's b. 35 bytes.
    w.setCursorStep(5);
    const Marked expected = {{1, "tangents_1"}, {1, "saved_a"}, {0, "b"}};
    QCOMPARE(w.parts().livePanel->model()->totalBytes(), 35);
    QCOMPARE(tableAllocators(w), expected);
    QCOMPARE(graphMarks(w), expected);
    // The forward's last step: primals_1, a and b, all in the forward.
    w.setCursorStep(4);
    QCOMPARE(graphMarks(w), (Marked{{0, "primals_1"}, {0, "a"}, {0, "b"}}));
    QCOMPARE(tableAllocators(w), graphMarks(w));
}

void TestShownLive::anEditKeepsTheShownSetUntilItsIndexArrives() {
    MainWindow w(fixtures::fakeLoader());
    w.show();
    QVERIFY(openWithin20s(w, "reorder.json"));
    // The Dataflow mode shown, its layout delivered.
    w.parts().graphModes->setMode(GraphModePane::Mode::Dataflow);
    QTRY_VERIFY(w.parts().dataflow->layouts());
    // Original order: big 1/2, small 3/4, use_big 5/6, use_small 7/8. At step 3 (small's
    // allocation) primals_1, big and small are live.
    w.setCursorStep(3);
    const Marked original = {{0, "primals_1"}, {0, "big"}, {0, "small"}};
    QCOMPARE(graphMarks(w), original);
    QCOMPARE(dataflowMarks(w), original);
    const std::shared_ptr<const LiveAtStep> before = w.state()->shownLive();

    // use_big right after big: at step 3 the edited order runs use_big (big, primals_1, use_big).
    QSignalSpy shownChanged(w.state(), &ViewState::shownLiveChanged);
    QVERIFY(w.parts().editor->moveNode(3, 2, nullptr));
    // The edited order's index is built on a worker: nothing has been delivered yet, so the
    // shown set, the table and the graph's marks are still the original order's.
    QVERIFY(w.state()->liveStale());
    QCOMPARE(shownChanged.count(), 0);
    QCOMPARE(w.state()->shownLive(), before);
    QCOMPARE(graphMarks(w), original);
    QCOMPARE(tableAllocators(w), original);
    QCOMPARE(dataflowMarks(w), original);

    QTRY_COMPARE(shownChanged.count(), 1);
    const Marked edited = {{0, "primals_1"}, {0, "big"}, {0, "use_big"}};
    QCOMPARE(w.parts().livePanel->model()->totalBytes(), 105);
    QCOMPARE(graphMarks(w), edited);
    QCOMPARE(tableAllocators(w), edited);
    QCOMPARE(dataflowMarks(w), edited);

    // Undo: the graph's own order answers at once, but the shown set follows after the frame
    // that shows the undo; until then both views keep the edited set.
    w.parts().editor->undoStack()->undo();
    QVERIFY(w.state()->liveFollowsAfterPaint());
    QCOMPARE(shownChanged.count(), 1);
    QCOMPARE(graphMarks(w), edited);
    QCOMPARE(dataflowMarks(w), edited);
    QTRY_COMPARE(shownChanged.count(), 2);
    QCOMPARE(graphMarks(w), original);
    QCOMPARE(tableAllocators(w), original);
    QCOMPARE(dataflowMarks(w), original);
    QCOMPARE(w.parts().livePanel->model()->totalBytes(), 114);
}

FXMEM_QTEST(TestShownLive)
#include "test_shown_live.moc"
