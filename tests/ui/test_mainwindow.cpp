// The main window end to end with an injected loader: the core's peak in the UI, scrubbing fills
// the live table with the plot's value, a bad file keeps the previous graph, graph switching,
// joined pairs, the CPU-only banner, and the bundled example through the real loader.
#include "graphview/graphview.h"
#include "inspector/nodeinspector.h"
#include "mainwindow/mainactions.h"
#include "mainwindow/maintoolbar.h"
#include "mainwindow/mainwindow.h"
#include "models/livestoragemodel.h"
#include "panels/livestoragepanel.h"
#include "panels/schedulepanel.h"
#include "panels/summarybar.h"
#include "qtest_registry.h"
#include "schedule/scheduleeditor.h"
#include "shell_fixtures.h"
#include "state/viewstate.h"
#include "timeline/qcp.h"
#include "timeline/timelinemodebar.h"
#include "timeline/timelineplot.h"
#include "ui_fixtures.h"
#include "ui_open.h"
#include "ui_settle.h"
#include "util/units.h"

#include <fxmem/io.h>

#include <QAbstractItemModelTester>
#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QPushButton>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <functional>
#include <fxmem/schedule.h>

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void openingShowsTheCorePeak();
    void scrubbingFillsTheLiveTable();
    void invalidFileKeepsThePreviousGraph();
    void switchingGraphsAndJoinedPair();
    void cpuOnlyGraphShowsTheBanner();
    void selectingANodeFillsTheInspector();
    void scheduleEditShowsTheOverlay();
    void editingABackwardMovesThePairPeak();
    void droppingAFileOpensIt();
    void bundledExampleThroughTheRealLoader();
    // A laptop screen, both redo keys, why a joined pair cannot be reordered
    void fitsALaptopScreenAfterAnEdit();
    void redoAnswersBothKeys();
    void joinedPairScheduleTabSaysWhy();
    void resetScheduleLeavesNothingUnsaved();
    void liveFooterCountsWhatTheFilterShows();
    void saveScheduleNeverDefaultsToTheExamples();
    void inspectorFollowsKeyboardScrubbing();
    void giantNamesAreElidedEverywhere();
    void scheduleComparisonReachesTheTimeline();
    void fitsALaptopScreenInEveryState();
    void colourComboMatchesTheGraphView();
    void editedPairPeakOverflowIsAnError();
};

namespace {
// Every window starts from default settings (a test may switch the device filter).
void resetSettings() { QSettings().clear(); }

bool openWithin20s(MainWindow& w, const QString& path) { return ui_open::openAndWait(w, path, 20000); }
} // namespace

void TestMainWindow::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("fxmem-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("test_mainwindow"));
    ViewState().setUnits(ByteUnits::Binary);
}

void TestMainWindow::openingShowsTheCorePeak() {
    resetSettings();
    MainWindow w(fixtures::fakeLoader());
    w.show();
    QVERIFY(openWithin20s(w, QStringLiteral("/data/chain.json")));
    QCOMPARE(w.scene()->peak, 130);
    QVERIFY2(w.parts().summary->text().contains(QStringLiteral("130 B")), qPrintable(w.parts().summary->text()));
    QVERIFY2(w.parts().timeline->peakText().startsWith(QStringLiteral("peak 130 B · step 3")),
             qPrintable(w.parts().timeline->peakText()));
    QCOMPARE(w.parts().timeline->profile(), fixtures::kChainProfile);
    // The cursor starts at the peak, and the table already answers for it.
    QCOMPARE(w.parts().timeline->cursorStep(), 3);
    QCOMPARE(w.parts().livePanel->model()->totalBytes(), 130);
}

void TestMainWindow::scrubbingFillsTheLiveTable() {
    resetSettings();
    MainWindow w(fixtures::fakeLoader());
    w.show();
    QVERIFY(openWithin20s(w, QStringLiteral("chain.json")));
    QAbstractItemModelTester tester(w.parts().livePanel->proxy(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    for (std::int64_t k : {0, 1, 2, 4, 6, 3}) {
        w.setCursorStep(k);
        QCOMPARE(w.parts().livePanel->model()->step(), k);
        QCOMPARE(w.parts().livePanel->model()->totalBytes(), fixtures::kChainProfile[static_cast<std::size_t>(k)]);
        QVERIFY2(w.parts().livePanel->footerLabel()->text().contains(
                     formatBytes(fixtures::kChainProfile[static_cast<std::size_t>(k)])),
                 qPrintable(w.parts().livePanel->footerLabel()->text()));
    }
    // Keyboard: Right steps the cursor by one.
    w.setCursorStep(1);
    w.parts().timeline->setFocus();
    QTest::keyClick(w.parts().timeline, Qt::Key_Right);
    QCOMPARE(w.parts().timeline->cursorStep(), 2);
    QCOMPARE(w.parts().livePanel->model()->totalBytes(), 110);
    // The hovered mouse position maps to a step the same way.
    const QRect area = w.parts().timeline->chart()->axisRect()->rect();
    const int x = static_cast<int>(w.parts().timeline->chart()->xAxis->coordToPixel(5));
    QTest::mouseMove(w.parts().timeline->chart(), QPoint(x, area.center().y()));
    QTRY_COMPARE(w.parts().timeline->cursorStep(), 5);
    QCOMPARE(w.parts().livePanel->model()->totalBytes(), 120);
}

void TestMainWindow::invalidFileKeepsThePreviousGraph() {
    resetSettings();
    MainWindow w(fixtures::fakeLoader());
    w.show();
    QVERIFY(openWithin20s(w, QStringLiteral("chain.json")));
    const auto before = w.scene();
    QSignalSpy failed(&w, &MainWindow::loadFailed);
    w.openFile(QStringLiteral("broken.json"));
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10000);
    QVERIFY(failed.front().front().toString().contains(QStringLiteral("broken.json:3:7")));
    QCOMPARE(w.scene(), before);
    QCOMPARE(w.parts().timeline->profile(), fixtures::kChainProfile);
    QVERIFY(w.parts().summary->text().contains(QStringLiteral("130 B")));
    // The error dialog is open (not exec'd): the window still answers.
    QMessageBox* box = w.findChild<QMessageBox*>();
    QVERIFY(box);
    QVERIFY(box->informativeText().contains(QStringLiteral("expected")));
    box->close();
    w.setCursorStep(0);
    QCOMPARE(w.parts().livePanel->model()->totalBytes(), 100);
}

void TestMainWindow::switchingGraphsAndJoinedPair() {
    resetSettings();
    MainWindow w(fixtures::fakeLoader());
    w.show();
    QVERIFY(openWithin20s(w, QStringLiteral("pair.json")));
    QCOMPARE(w.parts().toolbar->graphCombo()->count(), 3); // fwd, bwd, fwd + bwd
    QCOMPARE(w.scene()->title(), QStringLiteral("fwd"));
    QCOMPARE(w.scene()->peak, 130);
    QVERIFY(w.parts().summary->text().contains(QStringLiteral("Pair peak <b>130 B</b>")));

    QSignalSpy shown(&w, &MainWindow::sceneShown);
    w.showGraph(1);
    QTRY_COMPARE(shown.count(), 1);
    QCOMPARE(w.scene()->title(), QStringLiteral("bwd"));
    QCOMPARE(w.scene()->profile, (std::vector<std::int64_t>{15, 55, 45}));
    QCOMPARE(w.parts().toolbar->graphCombo()->currentIndex(), 1);

    w.showGraph(-1, 0);
    QTRY_COMPARE(shown.count(), 2);
    QVERIFY(w.scene()->joined());
    QCOMPARE(w.parts().timeline->profile(), fixtures::kJoinedProfile);
    QCOMPARE(w.parts().toolbar->graphCombo()->currentIndex(), 2);
    QVERIFY(!w.parts().editor->isEnabled()); // the editor works on one graph
    for (std::int64_t k = 0; k < 8; ++k) {
        w.setCursorStep(k);
        QCOMPARE(w.parts().livePanel->model()->totalBytes(), fixtures::kJoinedProfile[static_cast<std::size_t>(k)]);
    }
}

void TestMainWindow::cpuOnlyGraphShowsTheBanner() {
    resetSettings();
    MainWindow w(fixtures::fakeLoader());
    w.show();
    QVERIFY(openWithin20s(w, QStringLiteral("cpu.json")));
    QLabel* banner = nullptr;
    for (QLabel* l : w.findChildren<QLabel*>())
        if (l->text().contains(QStringLiteral("only CPU storages"))) banner = l;
    QVERIFY(banner);
    QVERIFY(banner->isVisible());
    QCOMPARE(w.scene()->peak, 0);
    // Counting every device: x (64) then y (64) -> 128, no banner.
    QSignalSpy shown(&w, &MainWindow::sceneShown);
    emit banner->linkActivated(QStringLiteral("all"));
    QTRY_COMPARE(shown.count(), 1);
    QCOMPARE(w.scene()->peak, 128);
    QVERIFY(!banner->isVisible());
    QVERIFY2(w.parts().summary->text().contains(QStringLiteral("counting CPU storages")),
             qPrintable(w.parts().summary->text()));
    // The choice is this file's: the next file, and the next session, count as PyTorch does.
    QVERIFY(openWithin20s(w, QStringLiteral("/data/chain.json")));
    QCOMPARE(w.scene()->request.filter, DeviceFilter::NonCpu);
    QVERIFY(!w.parts().summary->text().contains(QStringLiteral("counting CPU storages")));
    MainWindow later(fixtures::fakeLoader());
    later.show();
    QVERIFY(openWithin20s(later, QStringLiteral("cpu.json")));
    QCOMPARE(later.scene()->request.filter, DeviceFilter::NonCpu);
    QCOMPARE(later.scene()->peak, 0);
}

void TestMainWindow::selectingANodeFillsTheInspector() {
    resetSettings();
    MainWindow w(fixtures::fakeLoader());
    w.resize(1400, 900);
    w.show();
    QVERIFY(openWithin20s(w, QStringLiteral("chain.json")));
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    GraphView* view = w.parts().graphView;
    const NodeRef b{0, w.scene()->segments[0].analysis->graph().find("b")};
    const QPoint at = view->nodeCenter(b).toPoint();
    QCOMPARE(view->nodeAt(at), b);
    QTest::mouseClick(view, Qt::LeftButton, {}, at);
    QCOMPARE(view->selectedNode(), b);
    const QString html = w.parts().inspector->toPlainText();
    QVERIFY2(html.contains(QStringLiteral("aten.mul.Tensor")), qPrintable(html));
    QVERIFY(html.contains(QStringLiteral("inputs a")));
    QVERIFY(html.contains(QStringLiteral("frees 10 B")));
}

namespace {
// Records, at a widget's first paint, what `what()` said then (1 or 0; -1: no paint).
struct PaintProbe : QObject {
    PaintProbe(QWidget* w, std::function<bool()> f) : what(std::move(f)) { w->installEventFilter(this); }
    bool eventFilter(QObject*, QEvent* e) override {
        if (e->type() == QEvent::Paint && firstPaintSaw < 0) firstPaintSaw = what() ? 1 : 0;
        return false;
    }
    std::function<bool()> what;
    int firstPaintSaw = -1;
};
} // namespace

void TestMainWindow::scheduleEditShowsTheOverlay() {
    resetSettings();
    MainWindow w(fixtures::fakeLoader());
    w.resize(1400, 900);
    w.show();
    QVERIFY(openWithin20s(w, QStringLiteral("reorder.json")));
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QCOMPARE(w.scene()->peak, 115);
    ScheduleEditor* editor = w.parts().editor;
    QVERIFY(editor->isEnabled());
    QString why;
    QVERIFY(!editor->moveNode(3, 1, &why)); // use_big before its input big
    QVERIFY(why.contains(QStringLiteral("big")));
    QVERIFY(!w.parts().timeline->hasOverlay());

    // Drag use_big (step 5) in the graph view onto small's place (step 3): schedule 3 -> 2.
    GraphView* view = w.parts().graphView;
    const fxmem::Graph& g = w.scene()->segments[0].analysis->graph();
    const NodeRef useBig{0, g.find("use_big")}, small{0, g.find("small")};
    const QPoint from = view->nodeCenter(useBig).toPoint(),
                 to = QPoint(view->nodeCenter(small).toPoint().x(), from.y());
    QTest::mousePress(view, Qt::LeftButton, {}, from);
    for (int i = 1; i <= 4; ++i) {
        const QPoint p = from + (to - from) * i / 4;
        QMouseEvent move(QEvent::MouseMove, p, view->mapToGlobal(p), Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(view, &move);
    }
    w.setCursorStep(3); // original: small's allocation; edited: use_big's
    // The drop's own frame comes first: the graph view paints the node at its new place before
    // the timeline's edited curve (a full replot) and the workers' follow-ups are started.
    PaintProbe probe(view, [&] { return w.parts().timeline->hasOverlay(); });
    QTest::mouseRelease(view, Qt::LeftButton, {}, to);
    QCOMPARE(editor->peak(), 105);
    QTRY_VERIFY(w.parts().timeline->hasOverlay());
    QCOMPARE(probe.firstPaintSaw, 0);
    QCOMPARE(editor->profile(), (std::vector<std::int64_t>{4, 104, 104, 105, 5, 15, 15, 16, 6}));
    QVERIFY2(w.parts().summary->text().contains(QStringLiteral("Edited")), qPrintable(w.parts().summary->text()));
    QVERIFY(w.parts().summary->text().contains(QStringLiteral("-10 B (-8.7 %)")));
    QVERIFY(w.isWindowModified());
    // The graph view follows the edited schedule: use_big now sits at step 3.
    QCOMPARE(view->stepOf(useBig), 3);

    // So do the live table and the step names, once the edited order's index arrives from its
    // worker. Edited order: big 1/2, use_big 3/4, small 5/6, use_small 7/8.
    QTRY_VERIFY(w.parts().livePanel->model()->orderedLive() != nullptr);
    // The timeline's cursor box, left at step 3, names the node the edited order runs there.
    QTRY_VERIFY2(w.parts().timeline->cursorText().contains(QStringLiteral("edited 105 B · use_big (after alloc)")),
                 qPrintable(w.parts().timeline->cursorText()));
    const std::vector<std::int64_t> edited = editor->profile();
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(edited.size()); ++k) {
        w.setCursorStep(k);
        QCOMPARE(w.parts().livePanel->model()->totalBytes(), edited[static_cast<std::size_t>(k)]);
    }
    // The inspector gives the node's step in the edited order, and where it was.
    w.parts().inspector->showNode(useBig);
    QVERIFY2(w.parts().inspector->toPlainText().contains(QStringLiteral("step 3 (originally 5)")),
             qPrintable(w.parts().inspector->toPlainText()));
    w.setCursorStep(3);
    // After use_big allocates: big 100 (its last user is use_big), primals_1 4, use_big 1 = 105.
    QCOMPARE(w.parts().livePanel->model()->rowCount(), 3);
    // The model's rows follow the steps by difference (any order); big is the 100-byte one.
    int bigRow = -1;
    for (int r = 0; r < 3; ++r)
        if (w.parts().livePanel->model()->row(r).nbytes == 100) bigRow = r;
    QVERIFY(bigRow >= 0);
    QCOMPARE(w.parts().livePanel->model()->row(bigRow).lastUser, g.find("use_big"));
    QCOMPARE(w.parts().livePanel->model()->row(bigRow).freeStep, 4);
    QVERIFY2(w.parts().livePanel->headerLabel()->text().contains(QStringLiteral("use_big (after alloc)")),
             qPrintable(w.parts().livePanel->headerLabel()->text()));
    QVERIFY2(w.parts().livePanel->footerLabel()->text().contains(QStringLiteral("edited order")),
             qPrintable(w.parts().livePanel->footerLabel()->text()));
    // The summary's peak is the original order's: step 5 is use_big's allocation there (in the
    // edited order it is small's).
    QVERIFY2(w.parts().summary->text().contains(QStringLiteral("use_big (after alloc)")),
             qPrintable(w.parts().summary->text()));

    // Undo at step 3 (edited 105 B, original 114 B): the header names the original order's node
    // at once; the rows (O(live)) are listed again right after the frame that shows the undo.
    w.setCursorStep(3);
    QCOMPARE(w.parts().livePanel->model()->totalBytes(), 105);
    editor->undoStack()->undo();
    QVERIFY(w.state()->liveFollowsAfterPaint());
    QVERIFY2(w.parts().livePanel->headerLabel()->text().contains(QStringLiteral("small (after alloc)")),
             qPrintable(w.parts().livePanel->headerLabel()->text()));
    QTRY_COMPARE(w.parts().livePanel->model()->totalBytes(), 114);
    QVERIFY(!w.state()->liveFollowsAfterPaint());
    QTRY_VERIFY(!w.parts().timeline->hasOverlay());
    QCOMPARE(view->stepOf(useBig), 5);
    QVERIFY(!w.isWindowModified());
    // Back to the graph's own order, at once.
    QVERIFY(w.parts().livePanel->model()->orderedLive() == nullptr);
    w.setCursorStep(3);
    QCOMPARE(w.parts().livePanel->model()->totalBytes(),
             114); // original profile [4, 104, 104, 114, 114, 115, 15, 16, 6]
    QVERIFY2(w.parts().livePanel->headerLabel()->text().contains(QStringLiteral("small (after alloc)")),
             qPrintable(w.parts().livePanel->headerLabel()->text()));
    w.parts().inspector->showNode(useBig);
    QVERIFY(w.parts().inspector->toPlainText().contains(QStringLiteral("step 5")));
    QVERIFY(!w.parts().inspector->toPlainText().contains(QStringLiteral("originally")));
}

void TestMainWindow::editingABackwardMovesThePairPeak() {
    // ui_fixtures.h pairReorder(): pair peak 265; use_big right after big in the backward: 236.
    resetSettings();
    MainWindow w(fixtures::fakeLoader());
    w.show();
    QVERIFY(openWithin20s(w, QStringLiteral("pair_reorder.json")));
    QSignalSpy shown(&w, &MainWindow::sceneShown);
    w.showGraph(1);
    QTRY_COMPARE(shown.count(), 1);
    QCOMPARE(w.scene()->profile, (std::vector<std::int64_t>{15, 215, 215, 245, 235, 236, 36, 37, 7}));
    QVERIFY2(w.parts().summary->text().contains(QStringLiteral("Pair peak <b>265 B</b>")),
             qPrintable(w.parts().summary->text()));
    QVERIFY(!w.parts().summary->text().contains(QStringLiteral("edited")));
    QVERIFY(w.parts().editor->moveNode(4, 3, nullptr));
    QCOMPARE(w.parts().editor->peak(), 216);
    // The original peak keeps its node's name; the cursor names the node of each order at step 3.
    QTRY_VERIFY(w.parts().livePanel->model()->orderedLive() != nullptr);
    QVERIFY2(w.parts().timeline->peakText().startsWith(QStringLiteral("peak 245 B · step 3 · small (after alloc)")),
             qPrintable(w.parts().timeline->peakText()));
    w.setCursorStep(2);
    w.setCursorStep(3);
    QVERIFY2(w.parts().timeline->cursorText().contains(QStringLiteral("245 B · small (after alloc)")),
             qPrintable(w.parts().timeline->cursorText()));
    QVERIFY2(w.parts().timeline->cursorText().contains(QStringLiteral("edited 216 B · use_big (after alloc)")),
             qPrintable(w.parts().timeline->cursorText()));
    QVERIFY2(w.parts().summary->text().contains(QStringLiteral("edited <b>236 B</b> -29 B (-10.9 %)")),
             qPrintable(w.parts().summary->text()));
    // Undo: the original order, and the pair peak alone again.
    w.parts().editor->undoStack()->undo();
    QVERIFY(!w.parts().summary->text().contains(QStringLiteral("edited")));
    // An edit undone before its live index arrives leaves nothing "updating".
    QVERIFY(w.parts().editor->moveNode(4, 3, nullptr));
    w.parts().editor->undoStack()->undo();
    w.setCursorStep(4);
    QVERIFY2(!w.parts().livePanel->footerLabel()->text().contains(QStringLiteral("Updating")),
             qPrintable(w.parts().livePanel->footerLabel()->text()));
    // Every job the edit and its undo started has finished and delivered: no index came.
    QVERIFY(settle::jobsUnder(&w));
    QVERIFY(w.parts().livePanel->model()->orderedLive() == nullptr);
}

void TestMainWindow::droppingAFileOpensIt() {
    resetSettings();
    MainWindow w(fixtures::fakeLoader());
    w.show();
    QVERIFY(openWithin20s(w, QStringLiteral("chain.json")));
    QSignalSpy shown(&w, &MainWindow::sceneShown);
    auto* mime = new QMimeData;
    mime->setUrls({QUrl::fromLocalFile(QStringLiteral("/nowhere/pair.json"))});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &drop);
    QTRY_COMPARE(shown.count(), 1);
    QCOMPARE(w.scene()->path, QStringLiteral("/nowhere/pair.json"));
    QCOMPARE(w.scene()->title(), QStringLiteral("fwd"));
    QCOMPARE(w.parts().timeline->exportTitle(), QStringLiteral("pair.json · fwd")); // exported plots say what they show
    delete mime;
}

void TestMainWindow::bundledExampleThroughTheRealLoader() {
    const QString path = QStringLiteral(FXMEM_EXAMPLES "/gpt.fxmem.json");
    if (!QFileInfo::exists(path)) QSKIP("bundled example not present");
    resetSettings();
    MainWindow w([](const std::string& p, const LoadControl& control) { return fxmem::load_file(p, control); });
    w.show();
    QVERIFY(openWithin20s(w, path));
    const auto file = std::make_shared<const fxmem::GraphFile>(fxmem::load_file(path.toStdString()));
    const auto analysis = GraphAnalysis::compute(file, fxmem::GraphId(0));
    QCOMPARE(w.scene()->peak, analysis->peak());
    QCOMPARE(w.parts().timeline->profile(), analysis->profile());
    QVERIFY(w.parts().summary->text().contains(formatBytes(analysis->peak())));
    const std::size_t n = analysis->profile().size();
    for (std::size_t k : {std::size_t(0), n / 3, n / 2, analysis->peak_step(), n - 1}) {
        w.setCursorStep(static_cast<std::int64_t>(k));
        QCOMPARE(w.parts().livePanel->model()->totalBytes(), analysis->profile()[k]);
    }
}

namespace {
// The window's smallest size: what its layout allows (dock, toolbar, status bar and central
// widget minimums together).
QSize minimumOf(MainWindow& w) {
    QApplication::processEvents();
    return w.minimumSizeHint().expandedTo(w.minimumSize());
}
// A legal move of the bundled example that changes the order: the first node that can go one step earlier.
bool someEdit(ScheduleEditor* editor) {
    const std::size_t n = editor->order().size();
    for (std::size_t from = n / 2; from < n; ++from)
        if (editor->moveNode(from, from - 1, nullptr)) return true;
    return false;
}
} // namespace

void TestMainWindow::fitsALaptopScreenAfterAnEdit() {
    const QString path = QStringLiteral(FXMEM_EXAMPLES "/gpt.fxmem.json");
    if (!QFileInfo::exists(path)) QSKIP("bundled example not present");
    resetSettings();
    MainWindow w([](const std::string& p, const LoadControl& control) { return fxmem::load_file(p, control); });
    w.resize(1366, 768);
    w.show();
    QVERIFY(openWithin20s(w, path));
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const QSize before = minimumOf(w);
    QVERIFY2(before.width() <= 1366 && before.height() <= 768,
             qPrintable(QStringLiteral("minimum %1x%2").arg(before.width()).arg(before.height())));
    // An edit makes the summary line longer (edited peak, pair peak): the window must not widen.
    QVERIFY(someEdit(w.parts().editor));
    QVERIFY(w.parts().summary->text().contains(QStringLiteral("Edited")));
    QTRY_VERIFY(w.parts().livePanel->model()->orderedLive() != nullptr);
    const QSize after = minimumOf(w);
    QVERIFY2(after.width() <= 1366 && after.height() <= 768,
             qPrintable(QStringLiteral("minimum after an edit %1x%2").arg(after.width()).arg(after.height())));
    QVERIFY2(w.width() <= 1366, qPrintable(QString::number(w.width())));
    // The joined pair (the longest summary) as well.
    const int pairs = static_cast<int>(w.scene()->file->pairs.size());
    if (pairs > 0) {
        w.parts().editor->undoStack()->setClean(); // no "unsaved" question
        QSignalSpy shown(&w, &MainWindow::sceneShown);
        w.showGraph(-1, 0);
        QTRY_COMPARE(shown.count(), 1);
        const QSize joined = minimumOf(w);
        QVERIFY2(joined.width() <= 1366 && joined.height() <= 768,
                 qPrintable(QStringLiteral("minimum joined %1x%2").arg(joined.width()).arg(joined.height())));
    }
}

void TestMainWindow::redoAnswersBothKeys() {
    resetSettings();
    MainWindow w(fixtures::fakeLoader());
    w.show();
    QVERIFY(openWithin20s(w, QStringLiteral("reorder.json")));
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    // Each key is bound once (a key bound twice is "ambiguous" and does nothing).
    const QList<QKeySequence> keys = w.parts().actions->redo->shortcuts();
    QVERIFY(keys.contains(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z)));
    QVERIFY(keys.contains(QKeySequence(Qt::CTRL | Qt::Key_Y)));
    QCOMPARE(QSet<QKeySequence>(keys.begin(), keys.end()).size(), keys.size());
    QUndoStack* stack = w.parts().editor->undoStack();
    QVERIFY(w.parts().editor->moveNode(3, 2, nullptr));
    QCOMPARE(w.parts().editor->peak(), 105);
    for (const QKeySequence& key :
         {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)}) {
        stack->undo();
        QCOMPARE(w.parts().editor->peak(), 115);
        QSignalSpy ambiguous(w.parts().actions->redo, &QAction::triggered);
        QTest::keySequence(&w, key);
        QVERIFY2(ambiguous.count() == 1, qPrintable(key.toString()));
        QCOMPARE(w.parts().editor->peak(), 105);
    }
}

void TestMainWindow::joinedPairScheduleTabSaysWhy() {
    resetSettings();
    MainWindow w(fixtures::fakeLoader());
    w.show();
    QVERIFY(openWithin20s(w, QStringLiteral("pair.json")));
    SchedulePanel* panel = w.parts().schedulePanel;
    QCOMPARE(panel->currentWidget(), static_cast<QWidget*>(w.parts().editor));
    QSignalSpy shown(&w, &MainWindow::sceneShown);
    w.showGraph(-1, 0);
    QTRY_COMPARE(shown.count(), 1);
    QVERIFY(w.scene()->joined());
    QVERIFY(panel->currentWidget() != w.parts().editor);
    QVERIFY2(panel->messageLabel()->text().contains(QStringLiteral("joined")),
             qPrintable(panel->messageLabel()->text()));
    QVERIFY(panel->forwardButton()->text().contains(QStringLiteral("fwd")));
    QVERIFY(panel->backwardButton()->text().contains(QStringLiteral("bwd")));
    panel->backwardButton()->click();
    QTRY_COMPARE(shown.count(), 2);
    QCOMPARE(w.scene()->title(), QStringLiteral("bwd"));
    QCOMPARE(panel->currentWidget(), static_cast<QWidget*>(w.parts().editor));
    QVERIFY(w.parts().editor->isEnabled());
    w.showGraph(-1, 0);
    QTRY_COMPARE(shown.count(), 3);
    panel->forwardButton()->click();
    QTRY_COMPARE(shown.count(), 4);
    QCOMPARE(w.scene()->title(), QStringLiteral("fwd"));
}

void TestMainWindow::resetScheduleLeavesNothingUnsaved() {
    resetSettings();
    MainWindow w(fixtures::fakeLoader());
    w.show();
    QVERIFY(openWithin20s(w, QStringLiteral("reorder.json")));
    QVERIFY(w.parts().editor->moveNode(3, 2, nullptr));
    QVERIFY(w.isWindowModified());
    QVERIFY(w.parts().actions->resetSchedule->isEnabled());
    w.parts().actions->resetSchedule->trigger();
    QCOMPARE(w.parts().editor->order(), fxmem::original_order(w.scene()->segments[0].analysis->graph()));
    QVERIFY(!w.isWindowModified());
    QVERIFY(!w.parts().editor->isModified()); // Open Schedule and Quit ask nothing
    // Undoing the reset brings the edit back: unsaved again; redoing it: clean again.
    w.parts().editor->undoStack()->undo();
    QVERIFY(w.isWindowModified());
    w.parts().editor->undoStack()->redo();
    QVERIFY(!w.isWindowModified());
}

void TestMainWindow::liveFooterCountsWhatTheFilterShows() {
    resetSettings();
    MainWindow w(fixtures::fakeLoader());
    w.show();
    QVERIFY(openWithin20s(w, QStringLiteral("chain.json")));
    w.setCursorStep(3); // primals_1 100, a 10, b 20
    QVERIFY2(w.parts().livePanel->footerLabel()->text().contains(QStringLiteral("<b>130 B</b> in 3 storages")),
             qPrintable(w.parts().livePanel->footerLabel()->text()));
    w.parts().livePanel->filterEdit()->setText(QStringLiteral("primals"));
    QTRY_COMPARE(w.parts().livePanel->proxy()->rowCount(), 1);
    QVERIFY2(w.parts().livePanel->footerLabel()->text().contains(
                 QStringLiteral("<b>100 B</b> in 1 storages shown, of 130 B in 3")),
             qPrintable(w.parts().livePanel->footerLabel()->text()));
    w.setCursorStep(1); // primals_1 100, a 10: the filter still applies
    QVERIFY2(w.parts().livePanel->footerLabel()->text().contains(
                 QStringLiteral("<b>100 B</b> in 1 storages shown, of 110 B in 2")),
             qPrintable(w.parts().livePanel->footerLabel()->text()));
}

void TestMainWindow::saveScheduleNeverDefaultsToTheExamples() {
    const QString path = QStringLiteral(FXMEM_EXAMPLES "/mlp.fxmem.json");
    if (!QFileInfo::exists(path)) QSKIP("bundled example not present");
    resetSettings();
    MainWindow w([](const std::string& p, const LoadControl& control) { return fxmem::load_file(p, control); });
    w.setBundledExamplesDir(QStringLiteral(FXMEM_EXAMPLES));
    w.show();
    QVERIFY(openWithin20s(w, path));
    QCOMPARE(w.scheduleDir(), QDir::homePath());
    // A file of the user's: its own folder.
    QTemporaryDir dir;
    QVERIFY(QFile::copy(path, dir.filePath(QStringLiteral("mine.fxmem.json"))));
    QVERIFY(openWithin20s(w, dir.filePath(QStringLiteral("mine.fxmem.json"))));
    QCOMPARE(w.scheduleDir(), QFileInfo(dir.path()).absoluteFilePath());
}

void TestMainWindow::inspectorFollowsKeyboardScrubbing() {
    resetSettings();
    MainWindow w(fixtures::fakeLoader());
    w.show();
    QVERIFY(openWithin20s(w, QStringLiteral("chain.json")));
    const fxmem::Graph& g = w.scene()->segments[0].analysis->graph();
    QCOMPARE(w.parts().inspector->node(), (NodeRef{0, g.find("b")})); // the peak's node
    w.parts().timeline->setFocus();
    QTest::keyClick(w.parts().timeline, Qt::Key_Left); // step 2: after a frees
    QCOMPARE(w.parts().timeline->cursorStep(), 2);
    QCOMPARE(w.parts().inspector->node(), (NodeRef{0, g.find("a")}));
    QVERIFY(w.parts().inspector->toPlainText().contains(QStringLiteral("aten.relu.default")));
    QTest::keyClick(w.parts().timeline, Qt::Key_Right);
    QTest::keyClick(w.parts().timeline, Qt::Key_Right); // step 4: after b frees
    QCOMPARE(w.parts().inspector->node(), (NodeRef{0, g.find("b")}));
    // Hovering scrubs without taking the selection away.
    const QRect area = w.parts().timeline->chart()->axisRect()->rect();
    QTest::mouseMove(w.parts().timeline->chart(),
                     QPoint(static_cast<int>(w.parts().timeline->chart()->xAxis->coordToPixel(1)), area.center().y()));
    QTRY_COMPARE(w.parts().timeline->cursorStep(), 1);
    QCOMPARE(w.parts().inspector->node(), (NodeRef{0, g.find("b")}));
}

void TestMainWindow::giantNamesAreElidedEverywhere() {
    // A 20 MiB node (and graph) name: every view shows its head, never the whole name.
    resetSettings();
    MainWindow w(shellfixtures::loader());
    w.resize(1366, 768);
    w.show();
    QVERIFY(openWithin20s(w, QStringLiteral("giant.json")));
    const int limit = 4000;
    QVERIFY2(w.windowTitle().size() < limit, "title");
    QVERIFY2(w.parts().summary->text().size() < limit, "summary");
    QVERIFY2(w.parts().livePanel->headerLabel()->text().size() < limit, "live header");
    QVERIFY2(w.parts().timeline->cursorText().size() < limit, "cursor label");
    QVERIFY2(w.parts().timeline->peakText().size() < limit, "peak label");
    for (int i = 0; i < w.parts().toolbar->graphCombo()->count(); ++i)
        QVERIFY2(w.parts().toolbar->graphCombo()->itemText(i).size() < limit, "graph combo");
    QVERIFY2(w.statusBar()->findChildren<QLabel*>().size() > 0, "status");
    for (QLabel* l : w.statusBar()->findChildren<QLabel*>()) QVERIFY2(l->text().size() < limit, "status bar");
    w.setCursorStep(3); // b allocated: its row names it
    for (int r = 0; r < w.parts().livePanel->model()->rowCount(); ++r)
        for (int c = 0; c < LiveStorageModel::ColumnCount; ++c) {
            const QModelIndex i = w.parts().livePanel->model()->index(r, c);
            QVERIFY(w.parts().livePanel->model()->data(i).toString().size() < limit);
            QVERIFY(w.parts().livePanel->model()->data(i, Qt::ToolTipRole).toString().size() < limit);
            QVERIFY(w.parts().livePanel->model()->data(i, LiveStorageModel::FilterRole).toString().size() < 10 * limit);
        }
    // The giant name's column does not push the others out of the dock.
    auto* table = w.parts().livePanel->findChild<QTableView*>();
    QVERIFY(table);
    for (int c = 0; c + 1 < LiveStorageModel::ColumnCount; ++c)
        QVERIFY2(table->columnWidth(c) <= 400,
                 qPrintable(QStringLiteral("column %1: %2 px").arg(c).arg(table->columnWidth(c))));
    w.setCursorStep(1); // a's row: "needed by <giant>"
    for (int r = 0; r < w.parts().livePanel->model()->rowCount(); ++r)
        QVERIFY(w.parts()
                    .livePanel->model()
                    ->data(w.parts().livePanel->model()->index(r, LiveStorageModel::ReasonColumn))
                    .toString()
                    .size() < limit);
    const fxmem::Graph& g = w.scene()->segments[0].analysis->graph();
    w.state()->selectNode({0, g.find("a")}, false);
    QVERIFY2(w.parts().inspector->toHtml().size() < 10 * limit, "inspector (users list)");
    w.state()->selectNode({0, fxmem::NodeId(2)}, false);
    QVERIFY2(w.parts().inspector->toHtml().size() < 10 * limit, "inspector (the node itself)");
    QVERIFY(minimumOf(w).width() <= 1366);
}

void TestMainWindow::scheduleComparisonReachesTheTimeline() {
    // reorder.json: original [4, 104, 104, 114, 114, 115, 15, 16, 6]; use_big after big:
    // [4, 104, 104, 105, 5, 15, 15, 16, 6].
    resetSettings();
    MainWindow w(fixtures::fakeLoader());
    w.show();
    QVERIFY(openWithin20s(w, QStringLiteral("reorder.json")));
    QVERIFY(w.parts().editor->moveNode(3, 2, nullptr));
    const QStringList sources = w.parts().editor->sourceNames();
    QVERIFY2(sources.size() >= 2, qPrintable(sources.join(u',')));
    QTRY_VERIFY(w.parts().timeline->hasOverlay());
    w.parts().editor->setComparison(0, static_cast<int>(sources.size()) - 1); // the original and the edit
    QTRY_VERIFY(w.parts().timeline->hasComparison());
    QVERIFY(!w.parts().timeline->hasOverlay()); // the comparison's B curve is the edit: not drawn twice
    w.parts().editor->clearComparison();
    QTRY_VERIFY(!w.parts().timeline->hasComparison());
    QVERIFY(w.parts().timeline->hasOverlay());
    QCOMPARE(w.parts().timeline->lowerBound(), -1);
}

namespace {
void requireFits(MainWindow& w, const char* state) {
    const QSize m = minimumOf(w);
    QVERIFY2(
        m.width() <= 1366 && m.height() <= 768,
        qPrintable(
            QStringLiteral("minimum in state '%1': %2x%3").arg(QLatin1String(state)).arg(m.width()).arg(m.height())));
    QVERIFY2(w.width() <= 1366 && w.height() <= 768,
             qPrintable(
                 QStringLiteral("size in state '%1': %2x%3").arg(QLatin1String(state)).arg(w.width()).arg(w.height())));
}
QDockWidget* dock(MainWindow& w, const char* name) { return w.findChild<QDockWidget*>(QLatin1String(name)); }
} // namespace

void TestMainWindow::fitsALaptopScreenInEveryState() {
    // The bundled llama (long module names, 8 layers) and fsdp (a named schedule): stacked
    // timeline by role and by module, the breakdown tab with a module selected, the schedule
    // dock with every tool open, and the joined pair: the window never outgrows 1366x768.
    const QString llama = QStringLiteral(FXMEM_EXAMPLES "/llama.fxmem.json");
    const QString fsdp = QStringLiteral(FXMEM_EXAMPLES "/fsdp.fxmem.json");
    if (!QFileInfo::exists(llama) || !QFileInfo::exists(fsdp)) QSKIP("bundled examples not present");
    resetSettings();
    MainWindow w([](const std::string& p, const LoadControl& control) { return fxmem::load_file(p, control); });
    w.resize(1366, 768);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(openWithin20s(w, llama));
    requireFits(w, "llama opened");
    // Stacked by role is the default for a real model.
    QCOMPARE(w.parts().modeBar->mode(), TimelineModeBar::Mode::ByRole);
    QTRY_VERIFY(w.parts().timeline->isStacked());
    requireFits(w, "stacked by role");
    // By module, the depth that shows the decoder's 8 layers (not "layers" holding everything).
    QCOMPARE(w.parts().modeBar->depth(), 2);
    w.parts().modeBar->setMode(TimelineModeBar::Mode::ByModule);
    QTRY_VERIFY(std::any_of(w.parts().timeline->stackedBands().begin(), w.parts().timeline->stackedBands().end(),
                            [](const TimelinePlot::Band& b) { return b.name == QStringLiteral("layers.7"); }));
    requireFits(w, "stacked by module, depth 2");
    // The breakdown tab, a module selected (its tree expanded to it).
    dock(w, "breakdownDock")->raise();
    w.state()->selectModule(QStringLiteral("layers.3.attention"));
    QCoreApplication::sendPostedEvents(); // the layout requests of the expanded tree
    QCoreApplication::processEvents();
    requireFits(w, "breakdown with a module selected");
    // The schedule dock with compare, suggestions and the optimizer's bound.
    dock(w, "scheduleDock")->raise();
    QVERIFY(someEdit(w.parts().editor));
    w.parts().editor->setComparison(0, static_cast<int>(w.parts().editor->sourceNames().size()) - 1);
    QTRY_VERIFY(w.parts().timeline->hasComparison());
    w.parts().editor->refreshSuggestions();
    QSignalSpy optimized(w.parts().editor, &ScheduleEditor::optimizeFinished);
    w.parts().editor->optimize(0.5);
    QTRY_VERIFY_WITH_TIMEOUT(optimized.count() > 0, 20000);
    requireFits(w, "schedule tools open");
    // The joined pair, stacked by role.
    w.parts().editor->undoStack()->setClean();
    {
        QSignalSpy shown(&w, &MainWindow::sceneShown);
        w.showGraph(-1, 0);
        QTRY_COMPARE(shown.count(), 1);
    }
    QVERIFY(w.scene()->joined());
    w.parts().modeBar->setMode(TimelineModeBar::Mode::ByRole);
    QTRY_VERIFY(w.parts().timeline->isStacked());
    requireFits(w, "joined pair");
    // fsdp: its Inductor overlap order compared with the original.
    w.parts().editor->undoStack()->setClean();
    QVERIFY(openWithin20s(w, fsdp));
    QVERIFY(w.parts().editor->sourceNames().contains(QStringLiteral("inductor-overlap")));
    w.parts().editor->setComparison(
        0, static_cast<int>(w.parts().editor->sourceNames().indexOf(QStringLiteral("inductor-overlap"))));
    QTRY_VERIFY(w.parts().timeline->hasComparison());
    requireFits(w, "fsdp comparison");
}

void TestMainWindow::colourComboMatchesTheGraphView() {
    // The graph view opens coloured by op category: the combo says so, and each item sets its mode.
    resetSettings();
    MainWindow w(fixtures::fakeLoader());
    w.show();
    QVERIFY(openWithin20s(w, QStringLiteral("chain.json")));
    auto* combo = w.findChild<QComboBox*>(QStringLiteral("colorCombo"));
    QVERIFY(combo);
    QCOMPARE(combo->currentText(), QStringLiteral("By op category"));
    QCOMPARE(w.parts().graphView->colorMode(), GraphView::ColorMode::OpCategory);
    combo->setCurrentIndex(combo->findText(QStringLiteral("By memory change")));
    QCOMPARE(w.parts().graphView->colorMode(), GraphView::ColorMode::MemoryChange);
    combo->setCurrentIndex(combo->findText(QStringLiteral("By op kind")));
    QCOMPARE(w.parts().graphView->colorMode(), GraphView::ColorMode::OpKind);
    // The choice is remembered by the next window.
    MainWindow again(fixtures::fakeLoader());
    QCOMPARE(again.parts().graphView->colorMode(), GraphView::ColorMode::OpKind);
    QCOMPARE(again.findChild<QComboBox*>(QStringLiteral("colorCombo"))->currentText(), QStringLiteral("By op kind"));
}

namespace {
// A hostile pair (the loader caps only the sum of distinct storages): the forward output f2
// (3*2^60 bytes, the backward's baseline) is allocated again by the backward's `re`. Original
// backward: big (2^62) freed before re: pair peak 3*2^60 + 2^62 + 16. Running `re` before
// `use_big` keeps both live: 3*2^60 + (2^62 + 3*2^60 + 15) > 2^63 - 1.
constexpr std::int64_t kE60 = std::int64_t(1) << 60;
fxmem::GraphFile overflowingPair() {
    using namespace fxmem;
    GraphFile f;
    f.source = "overflow.json";
    const StorageId p = f.add_storage(0, "cuda:0", 100), f1 = f.add_storage(1, "cuda:0", 10),
                    f2 = f.add_storage(2, "cuda:0", 3 * kE60), t = f.add_storage(3, "cuda:0", 5),
                    big = f.add_storage(4, "cuda:0", 4 * kE60), ub = f.add_storage(5, "cuda:0", 1),
                    ur = f.add_storage(6, "cuda:0", 1);
    {
        GraphBuilder g(f, "fwd", GraphKind::Forward);
        g.add("primals_1", OpKind::Placeholder, "primals_1", {}, {p});
        g.add("f1", OpKind::CallFunction, "aten.relu.default", {"primals_1"}, {f1});
        g.add("f2", OpKind::CallFunction, "aten.relu.default", {"f1"}, {f2});
        g.add("output", OpKind::Output, "output", {"f1", "f2"}, {});
        g.finish();
    }
    {
        GraphBuilder g(f, "bwd", GraphKind::Backward);
        g.add("tangents_1", OpKind::Placeholder, "tangents_1", {}, {t});
        g.add("saved_f1", OpKind::Placeholder, "saved_f1", {}, {f1});
        g.add("big", OpKind::CallFunction, "aten.empty", {"tangents_1"}, {big});
        g.add("use_big", OpKind::CallFunction, "aten.sum", {"big"}, {ub});
        g.add("re", OpKind::CallFunction, "aten.empty", {"saved_f1"}, {f2});
        g.add("use_re", OpKind::CallFunction, "aten.sum", {"re"}, {ur});
        g.add("output", OpKind::Output, "output", {"use_big", "use_re"}, {});
        g.finish();
    }
    f.add_pair("fwd", "bwd");
    return f;
}
} // namespace

void TestMainWindow::editedPairPeakOverflowIsAnError() {
    resetSettings();
    MainWindow w([](const std::string&, const LoadControl&) { return overflowingPair(); });
    w.show();
    QSignalSpy failed(&w, &MainWindow::loadFailed);
    QVERIFY2(openWithin20s(w, QStringLiteral("overflow.json")),
             failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
    QSignalSpy shown(&w, &MainWindow::sceneShown);
    w.showGraph(1);
    QTRY_COMPARE(shown.count(), 1);
    QCOMPARE(w.scene()->pairPeak->peak, 7 * kE60 + 16);
    QVERIFY(w.parts().editor->moveNode(4, 3, nullptr)); // re before use_big
    QCOMPARE(w.parts().editor->peak(), 7 * kE60 + 15);
    const QString text = w.parts().summary->text();
    QVERIFY2(text.contains(QStringLiteral("→ edited: <b>overflow</b>")), qPrintable(text));
    QVERIFY2(!text.contains(QStringLiteral("EiB -")) && !text.contains(QStringLiteral("<b>-")), qPrintable(text));
    QVERIFY2(w.parts().summary->toolTip().contains(QStringLiteral("more than 2^63-1 bytes")),
             qPrintable(w.parts().summary->toolTip()));
    QVERIFY2(w.parts().summary->toolTip().contains(QStringLiteral("overflow.json")),
             qPrintable(w.parts().summary->toolTip()));
    // Undo: the pair peak alone, no error left behind.
    w.parts().editor->undoStack()->undo();
    QVERIFY(!w.parts().summary->text().contains(QStringLiteral("overflow</b>")));
    QVERIFY(w.parts().summary->toolTip().isEmpty());
}

FXMEM_QTEST(TestMainWindow)
#include "test_mainwindow.moc"
