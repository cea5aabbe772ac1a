// The app's whole-step view against fxmem-cli: with a step in the file the window opens on the
// whole step ("Whole step" first in the graph picker); its timeline is `profile --whole-step`'s;
// at three whole-step indices of gpt_adam and gpt_break the live table (the run's own storages,
// then every carried one, tagged with why) lists the storages and bytes of `live --whole-step
// --step K`, and the breakdown's groups are `breakdown --whole-step --step K`'s; the stacked
// timeline's optimizer_state band is the file's Adam state (hand-summed); the schedule tab
// offers the graph of the run under the cursor instead of editing a shared order.
#include "analysis/liveatstep.h"
#include "cli_json.h"
#include "export/profilecsv.h"
#include "graphview/graphmodules.h"
#include "loading/scene.h"
#include "mainwindow/maintoolbar.h"
#include "mainwindow/mainwindow.h"
#include "models/breakdownmodels.h"
#include "models/livestoragemodel.h"
#include "panels/breakdownpanel.h"
#include "panels/livestoragepanel.h"
#include "panels/schedulepanel.h"
#include "panels/summarybar.h"
#include "qtest_registry.h"
#include "schedule/scheduleeditor.h"
#include "state/viewstate.h"
#include "timeline/stackedbands.h"
#include "timeline/timelineplot.h"

#include <fxmem/io.h>

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTreeView>
#include <QtTest>

#include <map>
#include <set>

class TestWholeStepView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void liveAndBreakdownMatchTheCli_data();
    void liveAndBreakdownMatchTheCli();
    void optimizerStateBandIsTheFilesAdamState_data();
    void optimizerStateBandIsTheFilesAdamState();
    void windowOpensOnTheWholeStep();
    void aRepeatedRegionsModulesAreQualified();
    void profileCsvNamesEachRun();
    void moduleBreakdownIsTheClis();
};

namespace {

QJsonObject cli(const QStringList& args) { return cliJson(args); }

QString example(const char* name) { return QStringLiteral(FXMEM_EXAMPLES "/") + QLatin1String(name); }

std::shared_ptr<const Scene> wholeStepScene(const QString& path) {
    auto file = std::make_shared<const fxmem::GraphFile>(fxmem::load_file(path.toStdString()));
    return buildScene(file, path, SceneRequest{}); // the default: the whole step
}

qint64 num(const QJsonValue& v) { return static_cast<qint64>(v.toDouble()); }

} // namespace

void TestWholeStepView::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("fxmem-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("test_whole_step_view"));
}

void TestWholeStepView::liveAndBreakdownMatchTheCli_data() {
    QTest::addColumn<QString>("path");
    QTest::newRow("gpt_adam") << example("gpt_adam.fxmem.json");
    QTest::newRow("gpt_break") << example("gpt_break.fxmem.json");
}

void TestWholeStepView::liveAndBreakdownMatchTheCli() {
    QFETCH(QString, path);
    const auto scene = wholeStepScene(path);
    QVERIFY(scene->wholeStep());
    QVERIFY(scene->request.wholeStep);
    QCOMPARE(scene->segments.size(), scene->file->step.size());
    QVERIFY(scene->joined()); // nothing to reorder

    // The timeline is the CLI's, index for index; the sections are the step's entries.
    const QJsonObject profile =
        cli({QStringLiteral("profile"), path, QStringLiteral("--whole-step"), QStringLiteral("--json")});
    const QJsonArray timeline = profile.value(QStringLiteral("timeline")).toArray();
    QCOMPARE(static_cast<std::size_t>(timeline.size()), scene->profile.size());
    for (std::size_t i = 0; i < scene->profile.size(); ++i)
        QCOMPARE(scene->profile[i], num(timeline[static_cast<qsizetype>(i)]));
    QCOMPARE(static_cast<qint64>(scene->peak), num(profile.value(QStringLiteral("peak"))));
    const QJsonArray segs = profile.value(QStringLiteral("segments")).toArray();
    QCOMPARE(static_cast<std::size_t>(segs.size()), scene->segments.size());
    for (std::size_t s = 0; s < scene->segments.size(); ++s) {
        QCOMPARE(scene->segments[s].offset,
                 num(segs[static_cast<qsizetype>(s)].toObject().value(QStringLiteral("begin"))));
        QCOMPARE(scene->segmentName(s),
                 segs[static_cast<qsizetype>(s)].toObject().value(QStringLiteral("graph")).toString());
    }

    // Mid first run, the second run's first step, and the peak.
    const std::int64_t second = scene->segments[1].offset;
    for (const std::int64_t step : {second / 2, second, static_cast<std::int64_t>(scene->peakStep)}) {
        const LiveAtStep app = liveAtStep(*scene, nullptr, step);
        const Segment& seg = scene->segments[static_cast<std::size_t>(app.where.segment)];
        const std::vector<fxmem::CarriedStorage> carried =
            scene->timeline->carried(static_cast<std::size_t>(app.where.segment));
        std::int64_t appBytes = 0;
        std::multiset<qint64> appOwn, appCarried;
        std::map<qint64, QString> appWhy; // carried storage -> kind
        for (std::size_t i = 0; i < app.live.size(); ++i) {
            const fxmem::LiveStorage& s = app.live[i];
            appBytes += s.nbytes;
            const qint64 id = scene->file->storages[s.storage.index()].file_id;
            if (i < app.baselineBegin) {
                appOwn.insert(id);
            } else {
                appCarried.insert(id);
                appWhy[id] = QString::fromUtf8(fxmem::to_string(carried[i - app.baselineBegin].kind));
            }
        }
        QCOMPARE(appBytes, scene->profile[static_cast<std::size_t>(step)]);
        QCOMPARE(app.live.size() - app.baselineBegin, carried.size());

        const QStringList at = {QStringLiteral("--whole-step"), QStringLiteral("--step"), QString::number(step),
                                QStringLiteral("--json")};
        const QJsonObject live = cli(QStringList{QStringLiteral("live"), path} + at);
        QCOMPARE(num(live.value(QStringLiteral("total"))), appBytes);
        std::multiset<qint64> cliOwn, cliCarried;
        std::int64_t cliBytes = 0;
        for (const QJsonValue v : live.value(QStringLiteral("storages")).toArray()) {
            cliOwn.insert(num(v.toObject().value(QStringLiteral("storage"))));
            cliBytes += num(v.toObject().value(QStringLiteral("bytes")));
        }
        for (const QJsonValue v : live.value(QStringLiteral("carried")).toArray()) {
            const qint64 id = num(v.toObject().value(QStringLiteral("storage")));
            cliCarried.insert(id);
            cliBytes += num(v.toObject().value(QStringLiteral("bytes")));
            QCOMPARE(appWhy[id], v.toObject().value(QStringLiteral("kind")).toString());
        }
        QCOMPARE(cliBytes, appBytes);
        QVERIFY2(cliOwn == appOwn, qPrintable(QStringLiteral("step %1: different storages of the run").arg(step)));
        QVERIFY2(cliCarried == appCarried, qPrintable(QStringLiteral("step %1: different carried storages").arg(step)));
        QVERIFY(!appCarried.empty()); // parameters and optimizer state at least

        // The breakdown by role: the app's groups (the breakdown panel's, over the same live set)
        // are the CLI's, bytes and storage counts.
        const QJsonObject breakdown = cli(QStringList{QStringLiteral("breakdown"), path} + at);
        QCOMPARE(num(breakdown.value(QStringLiteral("total"))), appBytes);
        std::map<QString, std::pair<qint64, qint64>> cliGroups;
        for (const QJsonValue v : breakdown.value(QStringLiteral("groups")).toArray())
            cliGroups[v.toObject().value(QStringLiteral("key")).toString()] = {
                num(v.toObject().value(QStringLiteral("bytes"))), num(v.toObject().value(QStringLiteral("storages")))};
        std::map<QString, std::pair<qint64, qint64>> appGroups;
        for (const fxmem::Attribution::Group& g : seg.attribution->by_role(app.live))
            appGroups[QString::fromStdString(g.key)] = {g.bytes, g.storages};
        QCOMPARE(appGroups, cliGroups);
    }
}

void TestWholeStepView::optimizerStateBandIsTheFilesAdamState_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<qint64>("state");
    // exp_avg + exp_avg_sq of every parameter, summed over the file's non-CPU optimizer_state
    // storages by a script (Adam's `step` counters are CPU tensors: not counted, as in PyTorch).
    QTest::newRow("gpt_adam") << example("gpt_adam.fxmem.json") << qint64(5402624);
    QTest::newRow("gpt_break") << example("gpt_break.fxmem.json") << qint64(6988800);
}

void TestWholeStepView::optimizerStateBandIsTheFilesAdamState() {
    QFETCH(QString, path);
    QFETCH(qint64, state);
    const auto scene = wholeStepScene(path);
    const std::vector<StackedBands::Band> bands =
        StackedBands::forScene(*scene, *scene->roles, fxmem::GroupBy::Role, 0);
    const StackedBands::Band* opt = nullptr;
    const StackedBands::Band* saved = nullptr;
    for (const StackedBands::Band& b : bands) {
        if (b.name == QStringLiteral("optimizer_state")) opt = &b;
        if (b.name == StackedBands::savedBandName()) saved = &b;
    }
    QVERIFY(opt);
    QCOMPARE(opt->values.size(), scene->profile.size());
    // No graph of these steps holds the state: its band is the whole state at every step.
    for (std::int64_t v : opt->values) QCOMPARE(v, state);
    // The bands add up to the timeline.
    for (std::size_t i = 0; i < scene->profile.size(); ++i) {
        std::int64_t sum = 0;
        for (const StackedBands::Band& b : bands) sum += b.values[i];
        QCOMPARE(sum, scene->profile[i]);
    }
    // Counting every device adds Adam's CPU `step` counters (4 B per parameter tensor: 29 in
    // gpt_adam, 41 in gpt_break), and the view stays on the whole step.
    {
        SceneRequest all = scene->request;
        all.filter = DeviceFilter::All;
        const auto every = buildScene(scene->file, path, all);
        QVERIFY(every->wholeStep());
        const qint64 counters = path.contains(QStringLiteral("gpt_adam")) ? 29 * 4 : 41 * 4;
        QCOMPARE(every->step->optimizer_state, state + counters);
        for (const StackedBands::Band& b : StackedBands::forScene(*every, *every->roles, fxmem::GroupBy::Role, 0))
            if (b.name == QStringLiteral("optimizer_state")) QCOMPARE(b.values.front(), state + counters);
    }
    // gpt_break's region0.forward saves activations while region1 runs: its own band, zero in
    // the first run, the saved bytes whole_step carries in the second.
    if (path.contains(QStringLiteral("gpt_break"))) {
        QVERIFY(saved);
        QCOMPARE(saved->values[0], 0);
        QCOMPARE(saved->values[static_cast<std::size_t>(scene->segments[1].offset)],
                 scene->step->segments[1].carry.saved);
        QVERIFY(scene->step->segments[1].carry.saved > 0);
    }
}

void TestWholeStepView::windowOpensOnTheWholeStep() {
    QSettings().clear();
    MainWindow w([](const std::string& p, const LoadControl& control) { return fxmem::load_file(p, control); });
    w.show();
    QSignalSpy shown(&w, &MainWindow::sceneShown);
    w.openFile(example("gpt_break.fxmem.json"));
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 30000);
    QVERIFY(w.scene()->wholeStep());
    // The picker: "Whole step" first and chosen, then the 6 graphs (each region's forward,
    // backward and joint) and the 2 pairs.
    QCOMPARE(w.parts().toolbar->graphCombo()->count(), 9);
    QCOMPARE(w.parts().toolbar->graphCombo()->currentIndex(), 0);
    QVERIFY(w.parts().toolbar->graphCombo()->itemText(0).startsWith(QStringLiteral("Whole step")));
    // The peak line names the run that holds the peak.
    const QString peakRun = w.scene()->segmentName(
        static_cast<std::size_t>(w.scene()->locate(static_cast<std::int64_t>(w.scene()->peakStep)).segment));
    QCOMPARE(peakRun, QStringLiteral("region1.backward"));
    QVERIFY2(w.parts().timeline->peakText().contains(peakRun), qPrintable(w.parts().timeline->peakText()));
    // The summary says which peak it is: the whole step's, not fxmem-cli peak's pair peak (it said "Peak").
    auto* summary = w.findChild<SummaryBar*>();
    QVERIFY(summary);
    QVERIFY2(summary->text().startsWith(QStringLiteral("<span>Whole-step peak <b")), qPrintable(summary->text()));
    // The live table at the cursor adds up to the whole step's curve, carried storages included.
    const std::int64_t inSecondRun = w.scene()->segments[1].offset + 3;
    w.setCursorStep(inSecondRun);
    QCOMPARE(w.parts().livePanel->model()->totalBytes(), w.scene()->profile[static_cast<std::size_t>(inSecondRun)]);
    bool savedRow = false;
    for (int r = 0; r < w.parts().livePanel->model()->rowCount(); ++r) {
        const QString why = w.parts()
                                .livePanel->model()
                                ->data(w.parts().livePanel->model()->index(r, LiveStorageModel::ReasonColumn))
                                .toString();
        savedRow = savedRow || why == QStringLiteral("saved by region0.forward for its backward");
    }
    QVERIFY(savedRow);
    // The breakdown's module tree says what its root holds: the run and what it carries.
    w.parts().breakdown->refresh(); // it refreshes when shown; its tab is not raised here
    auto* tree = w.parts().breakdown->findChild<QTreeView*>();
    QVERIFY(tree);
    const QString root = tree->model()->index(0, 0).data().toString();
    QVERIFY2(root == QStringLiteral("(region1.forward and carried)"), qPrintable(root));
    // The schedule tab edits one graph: here it says so and offers the run under the cursor's graph.
    SchedulePanel* panel = w.parts().schedulePanel;
    QVERIFY(panel->currentWidget() != w.parts().editor);
    QVERIFY(!w.parts().editor->isEnabled());
    QVERIFY2(panel->messageLabel()->text().contains(QStringLiteral("whole step")),
             qPrintable(panel->messageLabel()->text()));
    QVERIFY(panel->forwardButton()->isVisibleTo(panel));
    QVERIFY(!panel->backwardButton()->isVisibleTo(panel));
    QCOMPARE(panel->forwardButton()->text(), QStringLiteral("Edit region1.forward"));
    panel->forwardButton()->click();
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 2, 30000);
    QVERIFY(!w.scene()->wholeStep());
    QCOMPARE(w.scene()->title(), QStringLiteral("region1.forward"));
    QVERIFY(w.parts().editor->isEnabled());
    // Back to the whole step through the picker.
    w.parts().toolbar->graphCombo()->setCurrentIndex(0);
    emit w.parts().toolbar->graphCombo()->activated(0);
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 3, 30000);
    QVERIFY(w.scene()->wholeStep());
}

// One region run for blocks.0 and for blocks.1 (module names relative to the block): f0 makes a
// (saved, 20 B) and b (30 B) in module "lin"; b0 turns a and a tangent into lin.weight's gradient.
void TestWholeStepView::aRepeatedRegionsModulesAreQualified() {
    const auto t = [](int s) {
        return QStringLiteral(R"({"storage": %1, "dtype": "float32", "shape": [1], "stride": [1], "offset": 0})")
            .arg(s);
    };
    const auto node = [](const QString& name, const QString& op, const QString& inputs, const QString& val,
                         const QString& module) {
        return QStringLiteral(
                   R"({"name": "%1", "op": "%2", "target": "%1", "inputs": [%3], "val": %4, "module": "%5"})")
            .arg(name, op, inputs, val, module);
    };
    const QString text =
        QStringLiteral(R"({"format": "fxmem", "version": 1, "storages": [
{"id": 0, "device": "cuda:0", "nbytes": 100, "role": "parameter", "label": "lin.weight"},
{"id": 1, "device": "cuda:0", "nbytes": 10, "role": "input"},
{"id": 2, "device": "cuda:0", "nbytes": 20, "role": "activation"},
{"id": 3, "device": "cuda:0", "nbytes": 30, "role": "output"},
{"id": 4, "device": "cuda:0", "nbytes": 30, "role": "tangent"},
{"id": 5, "device": "cuda:0", "nbytes": 100, "role": "gradient", "label": "grad of lin.weight"}],
"graphs": [{"name": "f0", "kind": "forward", "nodes": [)") +
        node(QStringLiteral("primals_1"), QStringLiteral("placeholder"), {}, t(0), {}) + QLatin1Char(',') +
        node(QStringLiteral("primals_2"), QStringLiteral("placeholder"), {}, t(1), {}) + QLatin1Char(',') +
        node(QStringLiteral("a"), QStringLiteral("call_function"), QStringLiteral(R"("primals_1", "primals_2")"), t(2),
             QStringLiteral("lin")) +
        QLatin1Char(',') +
        node(QStringLiteral("b"), QStringLiteral("call_function"), QStringLiteral(R"("a")"), t(3),
             QStringLiteral("lin")) +
        QLatin1Char(',') +
        node(QStringLiteral("output"), QStringLiteral("output"), QStringLiteral(R"("b", "a")"), QStringLiteral("null"),
             {}) +
        QStringLiteral(R"(]}, {"name": "b0", "kind": "backward", "nodes": [)") +
        node(QStringLiteral("a_saved"), QStringLiteral("placeholder"), {}, t(2), {}) + QLatin1Char(',') +
        node(QStringLiteral("tangents_1"), QStringLiteral("placeholder"), {}, t(4), {}) + QLatin1Char(',') +
        node(QStringLiteral("gw"), QStringLiteral("call_function"), QStringLiteral(R"("a_saved", "tangents_1")"), t(5),
             QStringLiteral("lin")) +
        QLatin1Char(',') +
        node(QStringLiteral("output"), QStringLiteral("output"), QStringLiteral(R"("gw")"), QStringLiteral("null"),
             {}) +
        QStringLiteral(R"(]}], "pairs": [{"forward": "f0", "backward": "b0"}],
"step": [{"graph": "f0", "call": 0, "module_prefix": "blocks.0"}, {"graph": "f0", "call": 1, "module_prefix": "blocks.1"},
         {"graph": "b0", "call": 1, "module_prefix": "blocks.1"}, {"graph": "b0", "call": 0, "module_prefix": "blocks.0"}]})");
    auto file = std::make_shared<const fxmem::GraphFile>(fxmem::load_buffer(text.toStdString(), "repeat.json"));
    const auto scene = buildScene(file, QStringLiteral("repeat.json"), SceneRequest{});
    QVERIFY(scene->wholeStep());
    QCOMPARE(scene->segments.size(), std::size_t(4));
    QCOMPARE(scene->segmentName(1), QStringLiteral("f0 #2 (blocks.1)"));
    // One analysis and layout for both runs of f0.
    QCOMPARE(scene->segments[0].analysis, scene->segments[1].analysis);
    QCOMPARE(scene->segments[0].layout, scene->segments[1].layout);
    // The exported profile tells the two runs of f0 apart.
    const QList<QByteArray> csv = profileCsv(*scene).split('\n');
    const QList<QByteArray> first = csv[1 + static_cast<qsizetype>(scene->segments[0].offset)].split(','),
                            second = csv[1 + static_cast<qsizetype>(scene->segments[1].offset)].split(',');
    QCOMPARE(first[2], QByteArray("f0"));
    QCOMPARE(second[2], QByteArray("f0"));
    QCOMPARE(second[1], QByteArray("f0 #2 (blocks.1)"));
    QCOMPARE(first[1], scene->segmentName(0).toUtf8());
    QVERIFY(first[1] != second[1]);
    // Stacked by module: each run's "lin" under its own block.
    std::set<QString> names;
    for (const StackedBands::Band& b : StackedBands::forScene(*scene, *scene->roles, fxmem::GroupBy::Module, 2))
        names.insert(b.name);
    QVERIFY2(names.count(QStringLiteral("blocks.0.lin")) && names.count(QStringLiteral("blocks.1.lin")),
             qPrintable(QStringList(names.begin(), names.end()).join(QStringLiteral(", "))));
    // The live table in the second run, after a: its own a in blocks.1.lin, and the first run's a
    // (saved for b0 call 0) carried, in blocks.0.lin.
    LiveStorageModel model;
    model.setScene(scene);
    const std::int64_t afterA = scene->segments[1].offset + 1;
    model.setStep(afterA);
    QCOMPARE(model.totalBytes(), scene->profile[static_cast<std::size_t>(afterA)]);
    std::set<std::pair<QString, QString>> rows; // (module, why)
    for (int r = 0; r < model.rowCount(); ++r)
        if (model.row(r).storage.index() == 2)
            rows.insert({model.data(model.index(r, LiveStorageModel::ModuleColumn)).toString(),
                         model.data(model.index(r, LiveStorageModel::ReasonColumn)).toString()});
    QVERIFY(rows.count({QStringLiteral("blocks.0.lin"), QStringLiteral("saved by f0 (blocks.0) for its backward")}));
    bool own = false;
    for (const auto& [module, why] : rows)
        own = own || (module == QStringLiteral("blocks.1.lin") && !why.startsWith(QStringLiteral("saved by")));
    QVERIFY(own);
    // A module selected by its qualified name names one run: the live table's module filter, the
    // graph view's highlight and the qualified names the graph view and the breakdown hand out.
    const std::uint32_t lin = scene->segments[0].attribution->tree().find("lin");
    QVERIFY(lin != fxmem::ModuleTree::npos);
    QCOMPARE(scene->findModule(0, QStringLiteral("blocks.0.lin")), lin);
    QCOMPARE(scene->findModule(1, QStringLiteral("blocks.1.lin")), lin);
    QCOMPARE(scene->findModule(1, QStringLiteral("blocks.0.lin")), fxmem::ModuleTree::npos);
    QCOMPARE(scene->findModule(0, QStringLiteral("lin")), fxmem::ModuleTree::npos);
    QCOMPARE(scene->findModule(1, QStringLiteral("blocks.10.lin")), fxmem::ModuleTree::npos);
    QCOMPARE(scene->findModule(1, QStringLiteral("blocks.1")), fxmem::ModuleTree::kRoot);
    QCOMPARE(relativeModule(QString(), QStringLiteral("lin")), std::optional<std::string>("lin"));
    QCOMPARE(GraphModules::qualifiedName(scene.get(), 1, lin), std::optional<QString>(QStringLiteral("blocks.1.lin")));
    GraphModules groups;
    groups.reset(scene.get());
    // One module tree per graph: the graph view groups by the attribution's own tree, so an index
    // it hands out means the same module in the breakdown and the live table.
    for (std::size_t s = 0; s < scene->segments.size(); ++s) {
        QVERIFY(groups.of(static_cast<int>(s)) != nullptr);
        QCOMPARE(&groups.of(static_cast<int>(s))->tree(), &scene->segments[s].attribution->tree());
    }
    groups.setHighlightedName(QStringLiteral("blocks.1.lin"));
    QCOMPARE(groups.highlight(0), ModuleGroups::npos);
    QCOMPARE(groups.highlight(1), lin);
    // The backward of blocks.1 (b0's run under blocks.1) has its lin too; blocks.0's has not.
    QCOMPARE(groups.highlight(2), scene->segments[2].attribution->tree().find("lin"));
    QVERIFY(groups.highlight(2) != ModuleGroups::npos);
    QCOMPARE(groups.highlight(3), ModuleGroups::npos);
    {
        // The breakdown shows the run under the cursor: its lin is blocks.1.lin there, both ways
        // (the first run's a, carried, stays in blocks.0.lin).
        ViewState state;
        state.setScene(scene);
        state.setCursorStep(afterA);
        BreakdownPanel panel(&state);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QTreeView* tree = panel.moduleView();
        const QModelIndex linRow = tree->model()
                                       ->match(tree->model()->index(0, 0), ModuleBreakdownModel::NameRole,
                                               QStringLiteral("blocks.1.lin"), 1, Qt::MatchRecursive | Qt::MatchExactly)
                                       .value(0);
        QVERIFY(linRow.isValid());
        tree->selectionModel()->setCurrentIndex(linRow,
                                                QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        QCOMPARE(state.selectedModule(), QStringLiteral("blocks.1.lin"));
        state.selectModule(QString());
        QVERIFY(!tree->currentIndex().isValid() || tree->currentIndex() != linRow);
        state.selectModule(QStringLiteral("blocks.1.lin"));
        QCOMPARE(tree->currentIndex(), linRow);
        state.selectModule(QStringLiteral("blocks.0.lin")); // another run's: not in this tree
        QVERIFY(tree->currentIndex() != linRow);
    }
    LiveStorageProxy proxy;
    proxy.setSourceModel(&model);
    proxy.setModuleFilter(QStringLiteral("blocks.1.lin"));
    std::set<QString> shown;
    for (int r = 0; r < proxy.rowCount(); ++r)
        shown.insert(proxy.data(proxy.index(r, LiveStorageModel::ModuleColumn)).toString());
    QCOMPARE(shown, (std::set<QString>{QStringLiteral("blocks.1.lin")}));
    proxy.setModuleFilter(QStringLiteral("blocks.0.lin"));
    QVERIFY(proxy.rowCount() > 0);
    for (int r = 0; r < proxy.rowCount(); ++r)
        QCOMPARE(proxy.data(proxy.index(r, LiveStorageModel::ModuleColumn)).toString(), QStringLiteral("blocks.0.lin"));
    // b0's run for blocks.1 holds no parameter: it carries blocks.0.lin.weight and
    // blocks.1.lin.weight, one storage (the region's placeholder) listed twice, as the CLI does.
    // Scrubbing the whole step keeps the model consistent and its total the curve's.
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    for (std::size_t k = 0; k < scene->profile.size(); ++k) {
        model.setStep(static_cast<std::int64_t>(k));
        QCOMPARE(model.totalBytes(), scene->profile[k]);
        std::int64_t rowBytes = 0; // the rows shown, not only the total worked out
        for (int r = 0; r < model.rowCount(); ++r) rowBytes += model.row(r).nbytes;
        QCOMPARE(rowBytes, scene->profile[k]);
        QCOMPARE(static_cast<std::size_t>(model.rowCount()),
                 liveAtStep(*scene, nullptr, static_cast<std::int64_t>(k)).live.size());
    }
    model.setStep(scene->segments[2].offset + 1);
    int weightRows = 0;
    for (int r = 0; r < model.rowCount(); ++r)
        weightRows += model.row(r).storage.index() == 0 && model.row(r).carry >= 0 ? 1 : 0;
    QCOMPARE(weightRows, 2);
}

void TestWholeStepView::profileCsvNamesEachRun() {
    // gpt_break: the exported profile has a row per whole-step index with the graph and bytes
    // the CLI gives, and names the run of each row (a graph run twice: aRepeatedRegions...).
    const QString path = example("gpt_break.fxmem.json");
    const auto scene = wholeStepScene(path);
    const QJsonObject j =
        cli({QStringLiteral("profile"), path, QStringLiteral("--whole-step"), QStringLiteral("--json")});
    const QJsonArray timeline = j[QStringLiteral("timeline")].toArray(), segs = j[QStringLiteral("segments")].toArray();
    QCOMPARE(segs.size(), qsizetype(scene->segments.size()));
    const QList<QByteArray> lines = profileCsv(*scene).split('\n');
    QCOMPARE(lines.front(), QByteArray("step,run,graph,graph_step,node,phase,bytes"));
    QCOMPARE(lines.size(), timeline.size() + 2); // the header and the empty piece after the last newline
    for (qsizetype k = 0; k < segs.size(); ++k) {
        const QJsonObject seg = segs[k].toObject();
        const QByteArray run = scene->segmentName(static_cast<std::size_t>(k)).toUtf8();
        const QString graph = seg[QStringLiteral("graph")].toString();
        for (qint64 i = num(seg[QStringLiteral("begin")]), e = i + num(seg[QStringLiteral("length")]); i < e; ++i) {
            const QList<QByteArray> f = lines[i + 1].split(',');
            QCOMPARE(f[0].toLongLong(), i);
            QCOMPARE(f[1], run);
            QCOMPARE(QString::fromUtf8(f[2]), graph);
            QCOMPARE(f.back().toLongLong(), num(timeline[i]));
        }
    }
}

FXMEM_QTEST(TestWholeStepView)
#include "test_whole_step_view.moc"

// Issue 39, item 15: the Breakdown tab by module on the whole step of a model with graph breaks
// (gpt_break: region0 runs tok, pos and blocks.0, region1 blocks.1, blocks.2, ln and head) is `breakdown
// --whole-step --by module`'s at each run's middle step and at the peak: each module's own bytes
// and storages (its inclusive total less its children's) are the CLI's group of that name, and
// every module holding bytes is one of the model's (a graph's module or an ancestor of one): what
// one region carries into the other's runs stays under the module that made it, not the root.
void TestWholeStepView::moduleBreakdownIsTheClis() {
    const QString path = example("gpt_break.fxmem.json");
    const auto scene = wholeStepScene(path);
    QVERIFY(scene->wholeStep());
    std::set<QString> real = {QString()}; // the model's modules: every graph's, with their ancestors
    for (const fxmem::StepEntry& e : scene->file->step)
        for (const fxmem::ModuleInfo& m : scene->file->graph(e.graph).modules) {
            QString name = QString::fromStdString(e.module_prefix.empty() ? m.name : e.module_prefix + "." + m.name);
            for (; !name.isEmpty(); name.truncate(std::max<qsizetype>(0, name.lastIndexOf(QLatin1Char('.')))))
                real.insert(name);
        }
    QVERIFY(real.count(QStringLiteral("head")) && real.count(QStringLiteral("blocks.2.fc")));
    std::vector<std::int64_t> steps;
    for (const fxmem::TimelineSegment& seg : scene->timeline->segments())
        steps.push_back(static_cast<std::int64_t>(seg.offset + seg.length / 2));
    steps.push_back(static_cast<std::int64_t>(scene->peakStep));

    ViewState state;
    state.setScene(scene);
    BreakdownPanel panel(&state);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    int differsFromTheRunsOwnTree = 0; // steps where the running graph's tree would file storages otherwise
    for (const std::int64_t step : steps) {
        state.setCursorStep(step);
        const ModuleBreakdownModel* model = panel.moduleModel();
        QCOMPARE(model->total(), scene->profile[static_cast<std::size_t>(step)]);
        const fxmem::ModuleTree* tree = model->tree();
        QVERIFY(tree);
        std::map<QString, std::pair<qint64, qint64>> app; // module -> (own bytes, own storages)
        for (std::uint32_t m = 0; m < tree->size(); ++m) {
            qint64 bytes = model->bytes(m);
            qint64 storages = model->data(model->indexOf(m, ModuleBreakdownModel::StoragesColumn)).toLongLong();
            for (const std::uint32_t c : (*tree)[m].children) {
                bytes -= model->bytes(c);
                storages -= model->data(model->indexOf(c, ModuleBreakdownModel::StoragesColumn)).toLongLong();
            }
            if (storages == 0) continue;
            const QString name = model->data(model->indexOf(m), ModuleBreakdownModel::NameRole).toString();
            QVERIFY2(real.count(name),
                     qPrintable(QStringLiteral("step %1: '%2' is no module of the model").arg(step).arg(name)));
            app[name] = {bytes, storages};
        }
        const QJsonObject cliOut =
            cli({QStringLiteral("breakdown"), path, QStringLiteral("--whole-step"), QStringLiteral("--step"),
                 QString::number(step), QStringLiteral("--by"), QStringLiteral("module"), QStringLiteral("--json")});
        std::map<QString, std::pair<qint64, qint64>> fromCli;
        for (const QJsonValue v : cliOut.value(QStringLiteral("groups")).toArray()) {
            const QString key = v.toObject().value(QStringLiteral("key")).toString();
            QVERIFY2(real.count(key), qPrintable(QStringLiteral("CLI, step %1: '%2'").arg(step).arg(key)));
            fromCli[key] = {num(v.toObject().value(QStringLiteral("bytes"))),
                            num(v.toObject().value(QStringLiteral("storages")))};
        }
        QVERIFY(!fromCli.empty());
        QCOMPARE(app, fromCli);
        // The running graph's own tree over the whole live set (the rule before): another region's
        // storages fell to its root.
        const LiveAtStep at = liveAtStep(*scene, nullptr, step);
        const fxmem::Attribution& own = *scene->segments[static_cast<std::size_t>(at.where.segment)].attribution;
        std::map<QString, std::pair<qint64, qint64>> runsOwnTree;
        for (const fxmem::Attribution::Group& g : own.by_module(at.live, own.tree().max_depth()))
            runsOwnTree[QString::fromStdString(g.key)] = {g.bytes, g.storages};
        if (runsOwnTree != fromCli) ++differsFromTheRunsOwnTree;
    }
    // Some steps hold another region's storages (region1's in region0's backward, region0's in
    // region1's runs) that the running graph's tree cannot name: the case the rule is for.
    QVERIFY(differsFromTheRunsOwnTree > 0);
}
