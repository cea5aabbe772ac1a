// The live-storage table: model invariants, totals against the profile, rows worked by hand.
#include "analysis/liveatstep.h"
#include "loading/scene.h"
#include "models/breakdownmodels.h"
#include "models/livestoragemodel.h"
#include "qtest_registry.h"
#include "shell_fixtures.h"
#include "ui_fixtures.h"
#include "ui_open.h"

#include <fxmem/io.h>

#include <QAbstractItemModelTester>
#include <QSignalSpy>

#include <QtTest>
#include <map>
#include <set>

class TestLiveStorageModel : public QObject {
    Q_OBJECT
private slots:
    void modelsPassTheTester();
    void totalEqualsProfileAtEveryStep();
    void rowsAtThePeak();
    void joinedPairListsTheBaseline();
    void proxySortsAndFilters();
    void namesSortNaturally();
    void neighbouringStepsUpdateByDifference();
    void roleBreakdownUpdatesByDifference();
};

void TestLiveStorageModel::modelsPassTheTester() {
    LiveStorageModel model;
    LiveStorageProxy proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester t1(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setScene(ui_open::sceneOfGraphFile(fixtures::pair(), SceneRequest{-1, 0, DeviceFilter::NonCpu}));
    for (std::int64_t step = 0; step < 8; ++step) model.setStep(step);
    proxy.sort(LiveStorageModel::SizeColumn, Qt::DescendingOrder);
    proxy.setFilterText(QStringLiteral("saved"));
    model.setStep(6);
    proxy.setFilterText(QString());
    model.setStep(100); // outside: empty
    QCOMPARE(model.rowCount(), 0);
    model.setScene(nullptr);
}

void TestLiveStorageModel::totalEqualsProfileAtEveryStep() {
    const auto scene = ui_open::sceneOfGraphFile(fixtures::chain());
    QCOMPARE(scene->profile, fixtures::kChainProfile);
    LiveStorageModel model;
    model.setScene(scene);
    for (std::size_t k = 0; k < scene->profile.size(); ++k) {
        model.setStep(static_cast<std::int64_t>(k));
        QCOMPARE(model.totalBytes(), scene->profile[k]);
    }
    const auto joined = ui_open::sceneOfGraphFile(fixtures::pair(), SceneRequest{-1, 0, DeviceFilter::NonCpu});
    QCOMPARE(joined->profile, fixtures::kJoinedProfile);
    model.setScene(joined);
    for (std::size_t k = 0; k < joined->profile.size(); ++k) {
        model.setStep(static_cast<std::int64_t>(k));
        QCOMPARE(model.totalBytes(), joined->profile[k]);
    }
}

void TestLiveStorageModel::rowsAtThePeak() {
    const auto scene = ui_open::sceneOfGraphFile(fixtures::chain());
    QCOMPARE(scene->peak, 130);
    QCOMPARE(scene->peakStep, std::size_t(3));
    LiveStorageModel model;
    model.setScene(scene);
    model.setStep(3);
    QCOMPARE(model.rowCount(), 3);
    // Largest first: the primal (never freed), b's output (reaches the output), a's output.
    auto cell = [&](int row, int col) { return model.data(model.index(row, col)).toString(); };
    QCOMPARE(cell(0, LiveStorageModel::StorageColumn), QStringLiteral("0"));
    QCOMPARE(cell(0, LiveStorageModel::SizeColumn), QStringLiteral("100 B"));
    QCOMPARE(cell(0, LiveStorageModel::AllocatorColumn), QStringLiteral("primals_1"));
    QCOMPARE(cell(0, LiveStorageModel::ReasonColumn), QStringLiteral("primal input: never freed"));
    QCOMPARE(cell(1, LiveStorageModel::AllocatorColumn), QStringLiteral("b"));
    QCOMPARE(cell(1, LiveStorageModel::ReasonColumn), QStringLiteral("graph output: kept to the end"));
    QCOMPARE(cell(2, LiveStorageModel::AllocatorColumn), QStringLiteral("a"));
    QCOMPARE(cell(2, LiveStorageModel::LastUserColumn), QStringLiteral("b"));
    QVERIFY2(cell(2, LiveStorageModel::ReasonColumn).contains(QStringLiteral("freed at step 4")),
             qPrintable(cell(2, LiveStorageModel::ReasonColumn)));
    QCOMPARE(cell(2, LiveStorageModel::DtypeColumn), QStringLiteral("float32"));
    QCOMPARE(cell(2, LiveStorageModel::ShapeColumn), QStringLiteral("[2]")); // 10 bytes / 4
    QCOMPARE(cell(2, LiveStorageModel::DeviceColumn), QStringLiteral("cuda:0"));
    QCOMPARE(model.data(model.index(2, 0), LiveStorageModel::BytesRole).toLongLong(), 10);
    // After b's frees: a's output is gone.
    model.setStep(4);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.totalBytes(), 120);
}

void TestLiveStorageModel::joinedPairListsTheBaseline() {
    const auto scene = ui_open::sceneOfGraphFile(fixtures::pair(), SceneRequest{-1, 0, DeviceFilter::NonCpu});
    QVERIFY(scene->joined());
    QVERIFY(scene->pairPeak.has_value());
    QCOMPARE(scene->pairPeak->peak, 130);
    QCOMPARE(scene->pairPeak->backward_baseline, 20);
    LiveStorageModel model;
    model.setScene(scene);
    model.setStep(6); // backward step 1: after g's allocation
    QCOMPARE(model.totalBytes(), 75);
    QCOMPARE(model.rowCount(), 4);
    bool sawBaseline = false;
    for (int r = 0; r < model.rowCount(); ++r)
        if (model.row(r).baseline) {
            sawBaseline = true;
            QCOMPARE(model.row(r).nbytes, 20);
            QCOMPARE(model.data(model.index(r, LiveStorageModel::AllocatorColumn)).toString(), QStringLiteral("b"));
            QCOMPARE(model.data(model.index(r, LiveStorageModel::ReasonColumn)).toString(),
                     QStringLiteral("forward output saved for the backward"));
        }
    QVERIFY(sawBaseline);
}

void TestLiveStorageModel::proxySortsAndFilters() {
    LiveStorageModel model;
    LiveStorageProxy proxy;
    proxy.setSourceModel(&model);
    model.setScene(ui_open::sceneOfGraphFile(fixtures::chain()));
    model.setStep(3);
    proxy.sort(LiveStorageModel::SizeColumn, Qt::AscendingOrder);
    QCOMPARE(proxy.data(proxy.index(0, LiveStorageModel::SizeColumn), LiveStorageModel::BytesRole).toLongLong(), 10);
    QCOMPARE(proxy.data(proxy.index(2, LiveStorageModel::SizeColumn), LiveStorageModel::BytesRole).toLongLong(), 100);
    proxy.setFilterText(QStringLiteral("PRIMAL"));
    QCOMPARE(proxy.rowCount(), 1);
    proxy.setFilterText(QStringLiteral("output"));
    QCOMPARE(proxy.rowCount(), 1);
    proxy.setFilterText(QString());
    QCOMPARE(proxy.rowCount(), 3);
}

void TestLiveStorageModel::namesSortNaturally() {
    // primals_10, primals_4, primals_2 (and add) all live after add allocates (step 1).
    LiveStorageModel model;
    LiveStorageProxy proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setScene(ui_open::sceneOfGraphFile(shellfixtures::numbered()));
    model.setStep(1);
    QCOMPARE(model.rowCount(), 4);
    proxy.sort(LiveStorageModel::AllocatorColumn, Qt::AscendingOrder);
    QStringList names;
    for (int r = 0; r < proxy.rowCount(); ++r)
        names << proxy.index(r, LiveStorageModel::AllocatorColumn).data().toString();
    QCOMPARE(names, (QStringList{QStringLiteral("add"), QStringLiteral("primals_2"), QStringLiteral("primals_4"),
                                 QStringLiteral("primals_10")}));
    proxy.sort(LiveStorageModel::AllocatorColumn, Qt::DescendingOrder);
    QCOMPARE(proxy.index(0, LiveStorageModel::AllocatorColumn).data().toString(), QStringLiteral("primals_10"));
    // Sizes stay numeric: 10, 4, 2, 1.
    proxy.sort(LiveStorageModel::SizeColumn, Qt::DescendingOrder);
    QCOMPARE(proxy.index(3, LiveStorageModel::AllocatorColumn).data().toString(), QStringLiteral("add"));
}

FXMEM_QTEST(TestLiveStorageModel)
void TestLiveStorageModel::neighbouringStepsUpdateByDifference() {
    // The llama example as a joined pair: 4k steps, hundreds of storages live at a time.
    const auto scene = ui_open::sceneOfGraphFile(fxmem::load_file(FXMEM_EXAMPLES "/llama.fxmem.json"),
                                                 SceneRequest{-1, 0, DeviceFilter::NonCpu});
    LiveStorageModel model;
    LiveStorageProxy proxy;
    proxy.setSourceModel(&model);
    proxy.sort(LiveStorageModel::SizeColumn, Qt::DescendingOrder);
    QAbstractItemModelTester t1(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setScene(scene);
    int inserted = 0, removed = 0;
    connect(&model, &QAbstractItemModel::rowsInserted, this,
            [&](const QModelIndex&, int first, int last) { inserted += last - first + 1; });
    connect(&model, &QAbstractItemModel::rowsRemoved, this,
            [&](const QModelIndex&, int first, int last) { removed += last - first + 1; });
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    // The live set by hand: (storage, listed as the backward's baseline) at a step.
    using Key = std::pair<std::uint32_t, bool>;
    auto keysAt = [&](std::int64_t step) {
        const LiveAtStep at = liveAtStep(*scene, nullptr, step);
        std::set<Key> keys;
        for (std::size_t i = 0; i < at.live.size(); ++i)
            keys.insert({at.live[i].storage.index(), i >= at.baselineBegin});
        return keys;
    };
    auto rowsOf = [](const LiveStorageModel& m) {
        std::map<Key, LiveStorageModel::Row> rows;
        for (int r = 0; r < m.rowCount(); ++r) rows[{m.row(r).storage.index(), m.row(r).baseline}] = m.row(r);
        return rows;
    };
    const auto steps = static_cast<std::int64_t>(scene->profile.size());
    const std::int64_t backward = scene->segments[1].offset;
    model.setStep(1);
    int byDifference = 0, segmentResets = 0;
    for (std::int64_t step = 2; step < steps; step += step < backward - 300 || step > backward + 300 ? 15 : 1) {
        const std::set<Key> before = keysAt(model.step()), after = keysAt(step);
        std::vector<Key> gone, come;
        std::set_difference(before.begin(), before.end(), after.begin(), after.end(), std::back_inserter(gone));
        std::set_difference(after.begin(), after.end(), before.begin(), before.end(), std::back_inserter(come));
        const bool crosses = scene->locate(model.step()).segment != scene->locate(step).segment;
        inserted = removed = 0;
        const auto resetsBefore = resets.count();
        model.setStep(step);
        if (model.lastUpdate().reset) {
            // Only another graph (other node ids) resets between neighbouring steps.
            QVERIFY2(crosses, qPrintable(QStringLiteral("reset at step %1").arg(step)));
            ++segmentResets;
        } else {
            QCOMPARE(removed, static_cast<int>(gone.size()));
            QCOMPARE(inserted, static_cast<int>(come.size()));
            QCOMPARE(resets.count(), resetsBefore);
            ++byDifference;
        }
        // Whichever way, the rows are those of a model filled afresh at the step.
        LiveStorageModel fresh;
        fresh.setScene(scene);
        fresh.setStep(step);
        QCOMPARE(model.totalBytes(), fresh.totalBytes());
        QVERIFY(rowsOf(model) == rowsOf(fresh));
        // The proxy stays sorted by size.
        if (proxy.rowCount() > 1)
            QVERIFY(proxy.data(proxy.index(0, 0), LiveStorageModel::BytesRole).toLongLong() >=
                    proxy.data(proxy.index(proxy.rowCount() - 1, 0), LiveStorageModel::BytesRole).toLongLong());
    }
    QCOMPARE(segmentResets, 1);
    QVERIFY(byDifference > 500);
    // A jump across most of a graph changes most rows: one reset.
    model.setStep(backward + 5);
    model.setStep(steps - 2);
    QCOMPARE(rowsOf(model).size(), keysAt(steps - 2).size());
}

void TestLiveStorageModel::roleBreakdownUpdatesByDifference() {
    const auto scene = ui_open::sceneOfGraphFile(fxmem::load_file(FXMEM_EXAMPLES "/llama.fxmem.json"),
                                                 SceneRequest{-1, 0, DeviceFilter::NonCpu});
    RoleBreakdownModel roles;
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&roles);
    proxy.setSortRole(RoleBreakdownModel::SortRole);
    proxy.sort(RoleBreakdownModel::BytesColumn, Qt::DescendingOrder);
    QAbstractItemModelTester t1(&roles, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy resets(&roles, &QAbstractItemModel::modelReset);
    const fxmem::Attribution& a = *scene->segments[0].attribution;
    for (std::int64_t step = 0; step < scene->segments[1].offset; step += 3) {
        const LiveAtStep at = liveAtStep(*scene, nullptr, step);
        roles.setLive(&a, at.live);
        // By hand: bytes per role over the live storages.
        std::map<std::string, std::int64_t> expected, shown;
        for (const fxmem::LiveStorage& s : at.live)
            expected[std::string(fxmem::to_string(a.role(s.storage)))] += s.nbytes;
        for (const auto& g : roles.groups()) shown[g.key] = g.bytes;
        QCOMPARE(shown, expected);
        QCOMPARE(roles.rowCount(), static_cast<int>(expected.size()));
    }
    QCOMPARE(resets.count(), 0);
}

#include "test_livestoragemodel.moc"
