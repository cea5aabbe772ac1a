// The stacked timeline: bands by role and by module from the core's attribution add up to the
// graph's profile at every step (a hand-made graph with modules, a joined pair with its baseline,
// a 20k-node synthetic graph), the plot draws them at the total's points so the drawn bands add
// up to the drawn total, and the mode bar says what the user chose.
#include "analysis/graphanalysis.h"
#include "qtest_registry.h"
#include "timeline/qcp.h"
#include "timeline/stackedbands.h"
#include "timeline/timelinemodebar.h"
#include "timeline/timelineplot.h"
#include "ui_fixtures.h"

#include <fxmem/attribution.h>

#include <synth.h>

#include <QComboBox>
#include <QSignalSpy>
#include <QSpinBox>
#include <QtTest>

namespace {

using namespace fxmem;

// primals_1 (parameter, 100) and x (input, 8); a = mm(x, primals_1) in l1 (40, freed by b);
// b = relu(a) in l2 (20, a graph output); c = neg(b) in l2.act (4, freed by d); d = add(b, c) in
// l2 (2, a graph output).
std::shared_ptr<const GraphAnalysis> moduleGraph() {
    auto file = std::make_shared<GraphFile>();
    file->source = "modules.json";
    const StorageId s[] = {file->add_storage(0, "cuda:0", 100), file->add_storage(1, "cuda:0", 8),
                           file->add_storage(2, "cuda:0", 40),  file->add_storage(3, "cuda:0", 20),
                           file->add_storage(4, "cuda:0", 4),   file->add_storage(5, "cuda:0", 2)};
    GraphBuilder g(*file, "m", GraphKind::Inference);
    const auto node = [&](const char* name, OpKind op, const char* target, std::initializer_list<const char*> inputs,
                          int storage, const char* module, const char* type) {
        g.begin_node(name, op, target);
        for (const char* in : inputs) g.add_input(in);
        if (storage >= 0) {
            const std::int64_t shape[1] = {file->nbytes(s[storage]) / 4}, stride[1] = {1};
            g.val_tensor(s[storage], "float32", shape, stride, 0);
        }
        if (module) g.set_module(module, type);
        g.end_node();
    };
    node("primals_1", OpKind::Placeholder, "primals_1", {}, 0, nullptr, nullptr);
    node("x", OpKind::Placeholder, "x", {}, 1, nullptr, nullptr);
    node("a", OpKind::CallFunction, "aten.mm.default", {"x", "primals_1"}, 2, "l1", "Linear");
    node("b", OpKind::CallFunction, "aten.relu.default", {"a"}, 3, "l2", "Block");
    node("c", OpKind::CallFunction, "aten.neg.default", {"b"}, 4, "l2.act", "ReLU");
    node("d", OpKind::CallFunction, "aten.add.Tensor", {"b", "c"}, 5, "l2", "Block");
    node("output", OpKind::Output, "output", {"d", "b"}, -1, nullptr, nullptr);
    g.finish();
    return GraphAnalysis::compute(file, fxmem::GraphId(0));
}

// At every step the bands add up to the profile; returns the first step where they do not.
std::int64_t firstMismatch(const std::vector<TimelinePlot::Band>& bands, const std::vector<std::int64_t>& profile) {
    for (std::size_t i = 0; i < profile.size(); ++i) {
        std::int64_t sum = 0;
        for (const auto& b : bands) {
            if (b.values.size() != profile.size()) return static_cast<std::int64_t>(i);
            sum += b.values[i];
        }
        if (sum != profile[i]) return static_cast<std::int64_t>(i);
    }
    return -1;
}

const TimelinePlot::Band* band(const std::vector<TimelinePlot::Band>& bands, const QString& name) {
    for (const auto& b : bands)
        if (b.name == name) return &b;
    return nullptr;
}

// The plot's drawn bands: the graph of the top band carries the cumulative sum, which must equal
// the drawn total at every drawn key.
void checkDrawnStack(TimelinePlot& plot, const std::vector<TimelinePlot::Band>& bands) {
    QCPGraph* total = plot.chart()->graph(0);
    QCPGraph* top = nullptr;
    for (int i = 0; i < plot.chart()->graphCount(); ++i)
        if (plot.chart()->graph(i)->name() == bands.back().name) top = plot.chart()->graph(i);
    QVERIFY(top);
    QCOMPARE(top->data()->size(), total->data()->size());
    auto t = total->data()->constBegin();
    for (auto it = top->data()->constBegin(); it != top->data()->constEnd(); ++it, ++t) {
        QCOMPARE(it->key, t->key);
        QCOMPARE(it->value, t->value);
    }
}

} // namespace

class TestTimelineBands : public QObject {
    Q_OBJECT
private slots:
    void rolesAndModulesAddUpOnAHandMadeGraph();
    void joinedPairWithBaselineAddsUp();
    void largeGraphDownsampledConsistently();
    void modeBar();
    void cursorBoxNamesFiveBandsOrFourAndTheRest();
};

void TestTimelineBands::rolesAndModulesAddUpOnAHandMadeGraph() {
    const auto analysis = moduleGraph();
    const RoleAssignment roles = resolve_roles(analysis->file());
    const Attribution attribution(analysis->file(), fxmem::GraphId(0), roles);
    const std::vector<std::int64_t>& profile = analysis->profile();
    QCOMPARE(profile.size(), std::size_t(1 + 2 * 4));

    const auto byRole = StackedBands::byRole(analysis->live(), attribution);
    QCOMPARE(firstMismatch(byRole, profile), std::int64_t(-1));
    // Bottom to top in the documented order; roles never present are left out.
    QStringList names;
    for (const auto& b : byRole) names << b.name;
    QCOMPARE(names.join(QLatin1Char(',')), QStringLiteral("parameter,input,output,temporary"));
    // The parameter stays live the whole time (primals are never freed); the input x is freed
    // after its last user a (profile step 2).
    QCOMPARE(band(byRole, QStringLiteral("parameter"))->values, std::vector<std::int64_t>(profile.size(), 100));
    QCOMPARE(band(byRole, QStringLiteral("input"))->values, (std::vector<std::int64_t>{8, 8, 0, 0, 0, 0, 0, 0, 0}));
    // a's 40 bytes are a temporary from its step (1) until b frees them (after b: step 4).
    QCOMPARE(band(byRole, QStringLiteral("temporary"))->values[1], 40);
    QCOMPARE(band(byRole, QStringLiteral("temporary"))->values[4], 0);
    QCOMPARE(band(byRole, QStringLiteral("parameter"))->colour, StackedBands::roleColour(StorageRole::Parameter));

    // By top-level module: l1 (a), l2 (b, d and l2.act's c), and the root's placeholders.
    const auto byModule = StackedBands::byModule(analysis->live(), attribution, 1);
    QCOMPARE(firstMismatch(byModule, profile), std::int64_t(-1));
    QVERIFY(band(byModule, QStringLiteral("l1")));
    QVERIFY(band(byModule, QStringLiteral("l2")));
    QVERIFY(band(byModule, QStringLiteral("(root)")));
    QCOMPARE(band(byModule, QStringLiteral("l2"))->values[5], 20 + 4); // c allocated: b and c
    // Depth 2 splits l2.act off l2.
    const auto deep = StackedBands::byModule(analysis->live(), attribution, 2);
    QCOMPARE(firstMismatch(deep, profile), std::int64_t(-1));
    QCOMPARE(band(deep, QStringLiteral("l2.act"))->values[5], 4);
    // Only the largest module shown: the rest is one "other" band, still adding up.
    const auto top1 = StackedBands::byModule(analysis->live(), attribution, 2, 1);
    QCOMPARE(top1.size(), std::size_t(2));
    QVERIFY(top1.back().name.startsWith(QStringLiteral("other")));
    QCOMPARE(firstMismatch(top1, profile), std::int64_t(-1));

    TimelinePlot plot;
    plot.resize(800, 300);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setProfile(profile, analysis->peak_step());
    plot.setStackedBands(byRole);
    QVERIFY(plot.isStacked());
    QVERIFY(plot.chart()->legend->visible()); // the legend names the bands on screen
    checkDrawnStack(plot, byRole);
    // The cursor box names what holds the memory at the step.
    plot.setCursorStep(1);
    QVERIFY2(plot.cursorText().contains(QStringLiteral("parameter 100 B")), qPrintable(plot.cursorText()));
    QVERIFY(plot.cursorText().contains(QStringLiteral("temporary 40 B")));
    // The edited-order overlay still draws over the bands.
    plot.setOverlay(profile, analysis->peak_step(), QStringLiteral("edited"));
    QVERIFY(plot.hasOverlay());
    QVERIFY(!plot.chart()->graph(1)->data()->isEmpty());
    plot.clearStackedBands();
    QVERIFY(!plot.isStacked());
    QVERIFY(!plot.chart()->legend->visible());
}

void TestTimelineBands::joinedPairWithBaselineAddsUp() {
    auto file = std::make_shared<const GraphFile>(fixtures::pair());
    const GraphAnalysis::Pair pair = GraphAnalysis::compute_pair(file, 0);
    const RoleAssignment roles = resolve_roles(*file);
    const Attribution fwd(*file, pair.forward->graph_index(), roles);
    const Attribution bwd(*file, pair.backward->graph_index(), roles);
    for (GroupBy by : {GroupBy::Role, GroupBy::Module}) {
        const auto f = StackedBands::compute(pair.forward->live(), fwd, by, 1);
        const auto bp = StackedBands::profileOf(pair.backward->live(), bwd, by, 1);
        const auto b = StackedBands::colour(bp, by);
        const auto base =
            StackedBands::baselineParts(*file, pair.baseline_storages, pair.backward->counted(), bwd, bp, b, by, 1);
        const auto joined = StackedBands::join(f, b, base);
        QCOMPARE(firstMismatch(joined, fixtures::kJoinedProfile), std::int64_t(-1));
        // The same through the scene the views show.
        SceneRequest request;
        request.pair = 0;
        const auto scene = buildScene(file, QStringLiteral("pair.json"), request);
        QCOMPARE(scene->profile, fixtures::kJoinedProfile);
        QCOMPARE(firstMismatch(StackedBands::forScene(*scene, roles, by, 1), scene->profile), std::int64_t(-1));
        if (by == GroupBy::Role) {
            // The baseline is b's storage (20 B), a forward output: in the backward it is the
            // "output" band's whole value; the saved activation a (10 B) is held by saved_a.
            QCOMPARE(band(joined, QStringLiteral("output"))->values[6], 20);
            QCOMPARE(band(joined, QStringLiteral("activation"))->values[2], 10);
            QCOMPARE(band(joined, QStringLiteral("gradient"))->values[6], 40);
        }
    }
}

void TestTimelineBands::largeGraphDownsampledConsistently() {
    synth::Options options;
    options.nodes = 20000;
    options.pair = false;
    options.seed = 5;
    auto file = std::make_shared<const GraphFile>(synth::generate(options));
    const auto analysis = GraphAnalysis::compute(file, *file->find_graph(synth::kForwardName));
    const RoleAssignment roles = resolve_roles(*file);
    const Attribution attribution(*file, analysis->graph_index(), roles);
    const auto bands = StackedBands::byRole(analysis->live(), attribution);
    QVERIFY(!bands.empty());
    QCOMPARE(firstMismatch(bands, analysis->profile()), std::int64_t(-1));
    TimelinePlot plot;
    plot.resize(700, 300);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setProfile(analysis->profile(), analysis->peak_step());
    plot.setStackedBands(bands);
    QVERIFY(plot.chart()->graph(0)->data()->size() < int(analysis->profile().size())); // downsampled
    checkDrawnStack(plot, bands);
    plot.setLowerBound(analysis->peak() / 2);
    if (qEnvironmentVariableIsSet("FXMEM_TIMELINE_PNG")) {
        plot.setCursorStep(static_cast<std::int64_t>(analysis->peak_step()) + 3000);
        plot.chart()->replot(QCustomPlot::rpImmediateRefresh);
        plot.grab().save(qEnvironmentVariable("FXMEM_TIMELINE_PNG"));
    }
    plot.setXRange(1000, 9000); // and after a zoom
    checkDrawnStack(plot, bands);
}

void TestTimelineBands::modeBar() {
    TimelineModeBar bar;
    QSignalSpy changed(&bar, &TimelineModeBar::modeChanged);
    QCOMPARE(bar.mode(), TimelineModeBar::Mode::Total);
    auto* depth = bar.findChild<QSpinBox*>(QStringLiteral("timelineDepth"));
    QVERIFY(!depth->isEnabled());
    bar.setMaxDepth(3);
    bar.setMode(TimelineModeBar::Mode::ByModule);
    QVERIFY(depth->isEnabled());
    bar.setDepth(2);
    QCOMPARE(changed.count(), 2);
    QCOMPARE(changed.last().at(1).toInt(), 2);
    bar.setDepth(7); // clamped to the deepest level
    QCOMPARE(bar.depth(), 3);
    QCOMPARE(TimelineModeBar::defaultFor(100, true), TimelineModeBar::Mode::Total);
    QCOMPARE(TimelineModeBar::defaultFor(5000, true), TimelineModeBar::Mode::ByRole);
    QCOMPARE(TimelineModeBar::defaultFor(5000, false), TimelineModeBar::Mode::Total);
}

void TestTimelineBands::cursorBoxNamesFiveBandsOrFourAndTheRest() {
    // Hand-made bands of 1..n bytes at one step: the box lists them largest first; with five it
    // names the fifth instead of "1 more", with six the four largest and "2 more".
    for (std::size_t n : {std::size_t(5), std::size_t(6)}) {
        std::vector<TimelinePlot::Band> bands;
        std::int64_t total = 0;
        for (std::size_t b = 1; b <= n; ++b) {
            bands.push_back({QStringLiteral("g%1").arg(b), QColor(Qt::gray), {static_cast<std::int64_t>(b)}});
            total += static_cast<std::int64_t>(b);
        }
        TimelinePlot plot;
        plot.resize(800, 300);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        plot.setProfile({total}, 0);
        plot.setStackedBands(bands);
        plot.setCursorStep(0);
        const QString text = plot.cursorText();
        QVERIFY2(text.contains(QStringLiteral("g%1 %2 B").arg(n).arg(n)), qPrintable(text));
        if (n == 5) {
            QVERIFY2(text.contains(QStringLiteral("g1 1 B")) && !text.contains(QStringLiteral("more")),
                     qPrintable(text));
        } else {
            QVERIFY2(!text.contains(QStringLiteral("g2 2 B")) && text.contains(QStringLiteral("2 more")),
                     qPrintable(text));
        }
        // On a short plot (a laptop's timeline) fewer lines: the box covers at most about half of it.
        plot.resize(800, 150); // the resize redoes the box
        QTRY_VERIFY(plot.chart()->axisRect()->height() < 120);
        const int lines = static_cast<int>(plot.cursorText().count(QLatin1Char('\n'))) + 1;
        QVERIFY2(lines < 2 + static_cast<int>(n), qPrintable(plot.cursorText())); // fewer than at 300 px
        QVERIFY2(plot.cursorText().contains(QStringLiteral("more")), qPrintable(plot.cursorText()));
        QVERIFY2(plot.cursorText().contains(QStringLiteral("g%1 %2 B").arg(n).arg(n)),
                 qPrintable(plot.cursorText())); // the largest stays
    }
}

FXMEM_QTEST(TestTimelineBands)
#include "test_timeline_bands.moc"
