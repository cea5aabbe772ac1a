// The bundled examples end to end. fsdp: its stored "inductor-overlap" schedule appears in the
// picker, Compare gives both orders' peaks as the core scores them, the stacked bands add up to
// the profile, and the timeline shows bands, both orders and the lower bound together. llama
// (roles and modules from the exporter): the joined pair stacked by role and by module adds up
// to the joined profile at every step. FXMEM_TIMELINE_PNG=prefix writes screenshots.
#include "loading/scene.h"
#include "qtest_registry.h"
#include "schedule/scheduleeditor.h"
#include "timeline/qcp.h"
#include "timeline/stackedbands.h"
#include "timeline/timelineplot.h"

#include <fxmem/attribution.h>
#include <fxmem/io.h>
#include <fxmem/optimize.h>
#include <fxmem/schedule.h>

#include <QtTest>

class TestScheduleFsdp : public QObject {
    Q_OBJECT
private slots:
    void overlapScheduleComparedAndStacked();
    void llamaPairStackedByRoleAndModule();
};

void TestScheduleFsdp::llamaPairStackedByRoleAndModule() {
    auto file = std::make_shared<const fxmem::GraphFile>(fxmem::load_file(FXMEM_EXAMPLES "/llama.fxmem.json"));
    QVERIFY(!file->pairs.empty());
    SceneRequest request;
    request.pair = 0;
    const auto scene = buildScene(file, QStringLiteral("llama.fxmem.json"), request);
    QVERIFY(scene->joined());
    const fxmem::RoleAssignment roles = fxmem::resolve_roles(*file);
    for (const auto& [by, depth] : {std::pair{fxmem::GroupBy::Role, 0u}, std::pair{fxmem::GroupBy::Module, 1u},
                                    std::pair{fxmem::GroupBy::Module, 2u}}) {
        const auto bands = StackedBands::forScene(*scene, roles, by, depth);
        QVERIFY(!bands.empty());
        for (std::size_t i = 0; i < scene->profile.size(); ++i) {
            std::int64_t sum = 0;
            for (const auto& b : bands) sum += b.values[i];
            QCOMPARE(sum, scene->profile[i]);
        }
        QStringList names;
        for (const auto& b : bands) names << b.name;
        qInfo("%s depth %u: %s", by == fxmem::GroupBy::Role ? "role" : "module", depth,
              qPrintable(names.join(QStringLiteral(", "))));
        if (by == fxmem::GroupBy::Role) // bottom to top in the documented order across both halves
            QCOMPARE(names.join(QLatin1Char(',')),
                     QStringLiteral("parameter,buffer,input,activation,output,tangent,gradient,temporary"));
        if (qEnvironmentVariableIsSet("FXMEM_TIMELINE_PNG")) {
            TimelinePlot plot;
            plot.resize(1000, 340);
            plot.show();
            QVERIFY(QTest::qWaitForWindowExposed(&plot));
            std::vector<TimelinePlot::Marker> sections;
            for (const Segment& s : scene->segments)
                sections.push_back({s.offset, QString::fromStdString(s.analysis->graph().name)});
            plot.setProfile(scene->profile, scene->peakStep, sections);
            plot.setStackedBands(bands);
            plot.chart()->replot(QCustomPlot::rpImmediateRefresh);
            plot.grab().save(qEnvironmentVariable("FXMEM_TIMELINE_PNG") +
                             QStringLiteral("-llama-%1%2.png")
                                 .arg(by == fxmem::GroupBy::Role ? QStringLiteral("role") : QStringLiteral("module"))
                                 .arg(depth));
        }
    }
}

void TestScheduleFsdp::overlapScheduleComparedAndStacked() {
    auto file = std::make_shared<const fxmem::GraphFile>(fxmem::load_file(FXMEM_EXAMPLES "/fsdp.fxmem.json"));
    QVERIFY(!file->schedules.empty());
    const fxmem::NamedSchedule& stored = file->schedules.front();
    const auto analysis = GraphAnalysis::compute(file, stored.graph);

    EditedSchedule edited;

    ScheduleEditor editor(&edited);
    editor.setAnalysis(analysis);
    const QStringList names = editor.sourceNames();
    int index = -1;
    for (int i = 0; i < names.size(); ++i)
        if (names[i] == QString::fromStdString(stored.name)) index = i;
    QVERIFY2(index > 0, qPrintable(names.join(QStringLiteral(" | "))));
    editor.setComparison(0, index);
    const auto c = editor.comparison();
    QVERIFY(c);
    const fxmem::ScheduleScore s = fxmem::score_schedule(*file, analysis->graph(), analysis->alias(), stored.order,
                                                         analysis->releasable(), analysis->counted());
    QCOMPARE(c->peak_a, analysis->peak());
    QCOMPARE(c->profile_a, analysis->profile());
    QCOMPARE(c->peak_b, s.peak);
    qInfo("graph %s: original peak %lld, %s peak %lld, %zu nodes moved", analysis->graph().name.c_str(),
          static_cast<long long>(c->peak_a), stored.name.c_str(), static_cast<long long>(c->peak_b), c->moved.size());

    const fxmem::RoleAssignment roles = fxmem::resolve_roles(*file);
    const fxmem::Attribution attribution(*file, stored.graph, roles);
    const auto bands = StackedBands::byRole(analysis->live(), attribution);
    for (std::size_t i = 0; i < analysis->profile().size(); ++i) {
        std::int64_t sum = 0;
        for (const auto& b : bands) sum += b.values[i];
        QCOMPARE(sum, analysis->profile()[i]);
    }
    const std::int64_t bound = fxmem::peak_lower_bound(*file, analysis->graph(), analysis->alias(),
                                                       analysis->releasable(), analysis->counted());
    QVERIFY(bound <= std::min(c->peak_a, c->peak_b));

    TimelinePlot plot;
    plot.resize(1000, 340);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setProfile(analysis->profile(), analysis->peak_step());
    plot.setStackedBands(bands);
    plot.setComparison({editor.comparisonName(0), c->profile_a, c->peak_step_a},
                       {editor.comparisonName(1), c->profile_b, c->peak_step_b});
    plot.setLowerBound(bound);
    plot.setTitle(QStringLiteral("fsdp · ") + QString::fromStdString(analysis->graph().name));
    QVERIFY(plot.hasComparison());
    if (qEnvironmentVariableIsSet("FXMEM_TIMELINE_PNG")) {
        const QString prefix = qEnvironmentVariable("FXMEM_TIMELINE_PNG");
        plot.chart()->replot(QCustomPlot::rpImmediateRefresh);
        plot.grab().save(prefix + QStringLiteral("-fsdp-timeline.png"));
        editor.resize(460, 640);
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        editor.grab().save(prefix + QStringLiteral("-fsdp-dock.png"));
    }
}

FXMEM_QTEST(TestScheduleFsdp)
#include "test_schedule_fsdp.moc"
