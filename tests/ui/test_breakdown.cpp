// The breakdown panel and the live table's Role and Module columns on tests/data/good/modules.json
// (the module pair worked by hand in tests/core/test_cli_breakdown.cpp): fwd profile
// [3100, 3400, 3300, 3700, 3700, 3704, 3304]; at step 5: W0 1000 (parameter, layers.0.fc by its
// label), W1 2000 (parameter, layers.1.fc), A0 300 (activation, mm0's layers.0.fc), A1 400
// (temporary, mm1's layers.1.fc), L 4 (output, loss's root module).
#include "graphview/graphview.h"
#include "mainwindow/mainwindow.h"
#include "models/breakdownmodels.h"
#include "models/livestoragemodel.h"
#include "panels/breakdownpanel.h"
#include "panels/livestoragepanel.h"
#include "panels/summarybar.h"
#include "qtest_registry.h"
#include "state/viewstate.h"
#include "timeline/timelinemodebar.h"
#include "timeline/timelineplot.h"

#include <fxmem/io.h>

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTreeView>
#include <QtTest>

class TestBreakdown : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void groupsAtTheStepByHand();
    void groupsAddUpToEveryStep();
    void selectingAModuleFiltersTheTable();
    void liveTableHasRoleAndModule();
    void stackedTimelineFollowsTheModeBar();
    void graphViewModuleClickSelectsIt();
};

namespace {
const QString kModules = QStringLiteral(FXMEM_TEST_DATA "/good/modules.json");

std::unique_ptr<MainWindow> openModules(const QString& path = kModules) {
    QSettings().clear();
    auto w = std::make_unique<MainWindow>(
        [](const std::string& p, const LoadControl& control) { return fxmem::load_file(p, control); });
    w->resize(1366, 768);
    w->show();
    QSignalSpy shown(w.get(), &MainWindow::sceneShown);
    w->openFile(path);
    if (!QTest::qWaitFor([&] { return shown.count() > 0; }, 20000)) return nullptr;
    return w;
}

// Bytes per module name of the tree model, through its (sorted, filtered) proxy.
std::int64_t moduleBytes(BreakdownPanel* panel, const char* name) {
    const fxmem::ModuleTree* a = panel->moduleModel()->tree();
    const std::uint32_t m = a->find(name);
    if (m == fxmem::ModuleTree::npos) return -1;
    return panel->moduleModel()->data(panel->moduleModel()->indexOf(m), ModuleBreakdownModel::BytesRole).toLongLong();
}
} // namespace

void TestBreakdown::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("fxmem-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("test_breakdown"));
}

void TestBreakdown::groupsAtTheStepByHand() {
    auto w = openModules();
    QVERIFY(w);
    BreakdownPanel* panel = w->parts().breakdown;
    QAbstractItemModelTester t1(panel->roleModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(panel->moduleModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t3(panel->moduleProxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    w->setCursorStep(5);
    panel->refresh();
    QCOMPARE(panel->roleModel()->total(), 3704);
    std::map<std::string, std::int64_t> roles;
    for (const auto& g : panel->roleModel()->groups()) roles[g.key] = g.bytes;
    QCOMPARE(roles, (std::map<std::string, std::int64_t>{
                        {"parameter", 3000}, {"temporary", 400}, {"activation", 300}, {"output", 4}}));
    QCOMPARE(panel->moduleModel()->total(), 3704);
    QCOMPARE(moduleBytes(panel, ""), 3704);
    QCOMPARE(moduleBytes(panel, "layers"), 3700);
    QCOMPARE(moduleBytes(panel, "layers.0"), 1300);
    QCOMPARE(moduleBytes(panel, "layers.0.fc"), 1300);
    QCOMPARE(moduleBytes(panel, "layers.1.fc"), 2400);
    // The largest module first under its parent (sorted by bytes), shares of the step.
    const QModelIndex root = panel->moduleProxy()->index(0, 0);
    const QModelIndex layers = panel->moduleProxy()->index(0, 0, root);
    QCOMPARE(layers.data(ModuleBreakdownModel::NameRole).toString(), QStringLiteral("layers"));
    const QModelIndex first = panel->moduleProxy()->index(0, 0, layers);
    QCOMPARE(first.data(ModuleBreakdownModel::NameRole).toString(), QStringLiteral("layers.1"));
    QCOMPARE(first.siblingAtColumn(ModuleBreakdownModel::ShareColumn).data().toString(),
             QStringLiteral("64.8 %")); // 2400 / 3704
    QVERIFY(panel->headerLabel()->text().contains(QStringLiteral("in 5 storages")));
}

void TestBreakdown::groupsAddUpToEveryStep() {
    for (const char* view : {"fwd", "bwd", "joined"}) {
        auto w = openModules();
        QVERIFY(w);
        if (QByteArray(view) != "fwd") {
            QSignalSpy shown(w.get(), &MainWindow::sceneShown);
            if (QByteArray(view) == "bwd")
                w->showGraph(1);
            else
                w->showGraph(-1, 0);
            QTRY_COMPARE(shown.count(), 1);
        }
        BreakdownPanel* panel = w->parts().breakdown;
        const auto& profile = w->scene()->profile;
        for (std::size_t k = 0; k < profile.size(); ++k) {
            w->setCursorStep(static_cast<std::int64_t>(k));
            panel->refresh();
            std::int64_t roleSum = 0;
            for (const auto& g : panel->roleModel()->groups()) roleSum += g.bytes;
            QCOMPARE(roleSum, profile[k]);
            QCOMPARE(panel->moduleModel()->total(), profile[k]);
            // Inclusive totals: each module holds its own storages plus its children's.
            const fxmem::ModuleTree& tree = (*panel->moduleModel()->tree());
            std::int64_t leaves = 0;
            for (std::uint32_t m = 0; m < tree.size(); ++m) {
                std::int64_t children = 0;
                for (std::uint32_t c : tree[m].children) children += panel->moduleModel()->bytes(c);
                QVERIFY(panel->moduleModel()->bytes(m) >= children);
                leaves += panel->moduleModel()->bytes(m) - children; // its own storages
            }
            QCOMPARE(leaves, profile[k]);
            QCOMPARE(w->parts().livePanel->model()->totalBytes(), profile[k]);
        }
    }
}

void TestBreakdown::selectingAModuleFiltersTheTable() {
    auto w = openModules();
    QVERIFY(w);
    BreakdownPanel* panel = w->parts().breakdown;
    w->setCursorStep(5);
    panel->refresh();
    QSignalSpy selected(w->state(), &ViewState::moduleSelected);
    auto select = [&](const char* name) {
        const std::uint32_t m = (*panel->moduleModel()->tree()).find(name);
        const QModelIndex i = panel->moduleProxy()->mapFromSource(panel->moduleModel()->indexOf(m));
        QVERIFY(i.isValid());
        panel->moduleView()->selectionModel()->setCurrentIndex(i, QItemSelectionModel::ClearAndSelect |
                                                                      QItemSelectionModel::Rows);
    };
    auto shown = [&] {
        std::int64_t bytes = 0;
        for (int r = 0; r < w->parts().livePanel->proxy()->rowCount(); ++r)
            bytes += w->parts().livePanel->proxy()->index(r, 0).data(LiveStorageModel::BytesRole).toLongLong();
        return bytes;
    };
    select("layers.1.fc");
    QCOMPARE(w->state()->selectedModule(), QStringLiteral("layers.1.fc"));
    QCOMPARE(selected.count(), 1);
    QCOMPARE(w->parts().livePanel->proxy()->rowCount(), 2); // W1 and A1
    QCOMPARE(shown(), 2400);
    QVERIFY2(w->parts().livePanel->footerLabel()->text().contains(QStringLiteral("in 2 storages shown")),
             qPrintable(w->parts().livePanel->footerLabel()->text()));
    select("layers");
    QCOMPARE(w->parts().livePanel->proxy()->rowCount(), 4);
    QCOMPARE(shown(), 3700);
    // The filter follows the cursor: at step 1 (after mm0 allocates) layers holds W0, W1, A0.
    w->setCursorStep(1);
    QCOMPARE(shown(), 3300);
    // Selecting the whole graph, or another view's clear, shows everything again.
    w->state()->selectModule(QString());
    QCOMPARE(w->parts().livePanel->proxy()->rowCount(), w->parts().livePanel->model()->rowCount());
    QVERIFY(!panel->moduleView()->selectionModel()->currentIndex().isValid());
    // A module chosen elsewhere (the graph view) is selected in the tree too.
    w->state()->selectModule(QStringLiteral("layers.0.fc"));
    panel->refresh();
    const QModelIndex current = panel->moduleView()->selectionModel()->currentIndex();
    QCOMPARE(current.data(ModuleBreakdownModel::NameRole).toString(), QStringLiteral("layers.0.fc"));
    QCOMPARE(shown(), 1300 - 300 + 300); // at step 1: W0 1000 and A0 300
}

void TestBreakdown::liveTableHasRoleAndModule() {
    auto w = openModules();
    QVERIFY(w);
    w->setCursorStep(5);
    QMap<QString, QPair<QString, QString>> byAllocator;
    LiveStorageModel* m = w->parts().livePanel->model();
    for (int r = 0; r < m->rowCount(); ++r)
        byAllocator[m->index(r, LiveStorageModel::AllocatorColumn).data().toString()] = {
            m->index(r, LiveStorageModel::RoleColumn).data().toString(),
            m->index(r, LiveStorageModel::ModuleColumn).data().toString()};
    QCOMPARE(byAllocator.size(), 5);
    QCOMPARE(byAllocator[QStringLiteral("primals_1")],
             qMakePair(QStringLiteral("parameter"), QStringLiteral("layers.0.fc")));
    QCOMPARE(byAllocator[QStringLiteral("primals_2")],
             qMakePair(QStringLiteral("parameter"), QStringLiteral("layers.1.fc")));
    QCOMPARE(byAllocator[QStringLiteral("mm0")],
             qMakePair(QStringLiteral("activation"), QStringLiteral("layers.0.fc")));
    QCOMPARE(byAllocator[QStringLiteral("mm1")], qMakePair(QStringLiteral("temporary"), QStringLiteral("layers.1.fc")));
    QCOMPARE(byAllocator[QStringLiteral("loss")], qMakePair(QStringLiteral("output"), QStringLiteral("(root)")));
    // The filter box searches them too.
    w->parts().livePanel->filterEdit()->setText(QStringLiteral("activation"));
    QTRY_COMPARE(w->parts().livePanel->proxy()->rowCount(), 1);
}

void TestBreakdown::stackedTimelineFollowsTheModeBar() {
    auto w = openModules();
    QVERIFY(w);
    QCOMPARE(w->parts().modeBar->mode(), TimelineModeBar::Mode::Total); // 14 nodes: the plain curve
    QVERIFY(!w->parts().timeline->isStacked());
    auto bandsAddUp = [&] {
        const auto& profile = w->parts().timeline->profile();
        for (std::size_t k = 0; k < profile.size(); ++k) {
            std::int64_t sum = 0;
            for (const auto& b : w->parts().timeline->stackedBands()) sum += b.values[k];
            if (sum != profile[k]) return false;
        }
        return true;
    };
    w->parts().modeBar->setMode(TimelineModeBar::Mode::ByRole);
    QTRY_VERIFY(w->parts().timeline->isStacked());
    QStringList names;
    for (const auto& b : w->parts().timeline->stackedBands()) names << b.name;
    QVERIFY2(names.contains(QStringLiteral("parameter")) && names.contains(QStringLiteral("activation")),
             qPrintable(names.join(u',')));
    QVERIFY(bandsAddUp());
    w->parts().modeBar->setMode(TimelineModeBar::Mode::ByModule);
    QTRY_VERIFY(w->parts().timeline->stackedBands().front().name != QStringLiteral("parameter"));
    QVERIFY(bandsAddUp());
    w->parts().modeBar->setMode(TimelineModeBar::Mode::Total);
    QVERIFY(!w->parts().timeline->isStacked());
    // The joined pair: bands over the joined profile (baseline included).
    w->parts().modeBar->setMode(TimelineModeBar::Mode::ByRole);
    QSignalSpy shown(w.get(), &MainWindow::sceneShown);
    w->showGraph(-1, 0);
    QTRY_COMPARE(shown.count(), 1);
    QTRY_VERIFY(w->parts().timeline->isStacked() &&
                w->parts().timeline->stackedBands().front().values.size() == w->parts().timeline->profile().size());
    QVERIFY(bandsAddUp());
}

void TestBreakdown::graphViewModuleClickSelectsIt() {
    auto w = openModules();
    QVERIFY(w);
    const fxmem::ModuleTree& tree = w->scene()->segments[0].attribution->tree();
    emit w->parts().graphView->moduleClicked(0, tree.find("layers.1.fc"));
    QCOMPARE(w->state()->selectedModule(), QStringLiteral("layers.1.fc"));
    w->setCursorStep(5);
    QCOMPARE(w->parts().livePanel->proxy()->rowCount(), 2);
    emit w->parts().graphView->moduleClicked(0, fxmem::ModuleTree::kRoot); // the whole graph: no filter
    QVERIFY(w->state()->selectedModule().isNull());
    QCOMPARE(w->parts().livePanel->proxy()->rowCount(), 5);
}

FXMEM_QTEST(TestBreakdown)
#include "test_breakdown.moc"
