// ScheduleModel: values per row, fine-grained moves under QAbstractItemModelTester, drag and
// drop through mime data, whole-order changes that keep persistent indexes on their nodes, and
// the incremental numbers against fxmem::score_schedule on generated graphs.
#include "qtest_registry.h"
#include "schedule/schedulemodel.h"
#include "state/editedschedule.h"
#include "test_schedule_graphs.h"

#include <fxmem/error.h>
#include <fxmem/profile_steps.h>
#include <fxmem/schedule.h>

#include <synth.h>

#include <QAbstractItemModelTester>
#include <QMimeData>
#include <QSignalSpy>
#include <QTest>
#include <QUndoStack>

#include <algorithm>
#include <random>

using schedtest::kMovedProfile;
using schedtest::kOriginalProfile;

namespace {

QString nameAt(const ScheduleModel& m, int row) { return m.index(row, ScheduleModel::NodeColumn).data().toString(); }

QStringList names(const ScheduleModel& m) {
    QStringList out;
    for (int r = 0; r < m.rowCount(); ++r) out << nameAt(m, r);
    return out;
}

QStringList strings(std::initializer_list<const char*> items) {
    QStringList out;
    for (const char* s : items) out << QString::fromLatin1(s);
    return out;
}

qlonglong bytesAt(const ScheduleModel& m, int row) {
    return m.index(row, ScheduleModel::MemoryColumn).data(ScheduleModel::BytesRole).toLongLong();
}

} // namespace

class TestScheduleModel : public QObject {
    Q_OBJECT
private slots:
    void originalOrderRows();
    void moveRowsIsFineGrained();
    void illegalMovesAreRefused();
    void dropThroughMimeData();
    void setOrderKeepsPersistentIndexes();
    void positionsAndProfileStepsAreBothShown();
    void randomMovesMatchScoreSchedule_data();
    void randomMovesMatchScoreSchedule();
};

void TestScheduleModel::originalOrderRows() {
    EditedSchedule edited;
    ScheduleModel model(&edited);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const auto analysis = schedtest::smallAnalysis();
    model.setAnalysis(analysis);
    QCOMPARE(model.rowCount(), 6);
    QCOMPARE(model.columnCount(), int(ScheduleModel::ColumnCount));
    QCOMPARE(names(model), strings({"x", "a", "b", "c", "d", "output"}));
    // Memory after each node, by hand (see test_schedule_graphs.h).
    const qlonglong after[] = {100, 1100, 3000, 2010, 20, 20};
    const qlonglong delta[] = {0, 1000, 1900, -990, -1990, 0};
    for (int r = 0; r < 6; ++r) {
        QCOMPARE(bytesAt(model, r), after[r]);
        QCOMPARE(model.index(r, ScheduleModel::DeltaColumn).data(ScheduleModel::DeltaRole).toLongLong(), delta[r]);
        QCOMPARE(model.index(r, 0).data(ScheduleModel::NodeIdRole).toInt(), r);
        QCOMPARE(model.index(r, 0).data(Qt::DisplayRole).toString(), QString::number(r));
    }
    QCOMPARE(model.index(2, 0).data(ScheduleModel::DuringRole).toLongLong(), 3100);
    QCOMPARE(model.index(1, ScheduleModel::MemoryColumn).data().toString(), QStringLiteral("1.07 KiB"));
    QCOMPARE(model.index(3, ScheduleModel::DeltaColumn).data().toString(), QStringLiteral("-990 B"));
    QCOMPARE(model.index(1, ScheduleModel::TargetColumn).data().toString(), QStringLiteral("aten.relu.default"));
    QCOMPARE(model.index(0, ScheduleModel::TargetColumn).data().toString(), QStringLiteral("placeholder x"));
    // The peak row (b) and nothing else.
    for (int r = 0; r < 6; ++r) QCOMPARE(model.index(r, 0).data(ScheduleModel::IsPeakRole).toBool(), r == 2);
    // Numbers are right-aligned, names left-aligned.
    QCOMPARE(model.index(0, ScheduleModel::MemoryColumn).data(Qt::TextAlignmentRole).toInt(),
             int(Qt::AlignRight | Qt::AlignVCenter));
    QCOMPARE(model.schedule()->profile(), kOriginalProfile);
    QCOMPARE(model.schedule()->profile(), analysis->profile());
    // The output node is not draggable, the others are; drops go between rows only.
    QVERIFY(!(model.flags(model.index(5, 0)) & Qt::ItemIsDragEnabled));
    QVERIFY(model.flags(model.index(3, 0)) & Qt::ItemIsDragEnabled);
    QVERIFY(!(model.flags(model.index(3, 0)) & Qt::ItemIsDropEnabled));
    QVERIFY(model.flags({}) & Qt::ItemIsDropEnabled);
}

void TestScheduleModel::moveRowsIsFineGrained() {
    EditedSchedule edited;
    ScheduleModel model(&edited);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAnalysis(schedtest::smallAnalysis());
    QSignalSpy moved(&model, &QAbstractItemModel::rowsMoved);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy order(&model, &ScheduleModel::orderChanged);
    const QPersistentModelIndex c(model.index(3, ScheduleModel::NodeColumn));
    const QPersistentModelIndex d(model.index(4, ScheduleModel::NodeColumn));

    // Qt's destination counts before the move: c (row 3) goes before b (row 2).
    QVERIFY(model.moveRows({}, 3, 1, {}, 2));
    QCOMPARE(moved.count(), 1);
    QCOMPARE(reset.count(), 0);
    QCOMPARE(order.count(), 1);
    QCOMPARE(names(model), strings({"x", "a", "c", "b", "d", "output"}));
    QCOMPARE(c.row(), 2);
    QCOMPARE(d.row(), 4);
    QCOMPARE(model.schedule()->profile(), kMovedProfile);
    // Rows 2..3 changed; the peak row moved from 2 (b) to 3 (b again); nothing after row 3.
    bool coversRange = false;
    for (const QList<QVariant>& args : changed) {
        const auto tl = args[0].value<QModelIndex>(), br = args[1].value<QModelIndex>();
        QVERIFY(br.row() <= 3);
        coversRange = coversRange || (tl.row() <= 2 && br.row() >= 3);
    }
    QVERIFY(coversRange);
    QCOMPARE(bytesAt(model, 2), 110);
    QCOMPARE(bytesAt(model, 3), 2010);
    QVERIFY(model.index(3, 0).data(ScheduleModel::IsPeakRole).toBool());
    QCOMPARE(model.index(2, ScheduleModel::OriginalStepColumn).data().toString(), QStringLiteral("3"));
    QCOMPARE(model.index(0, ScheduleModel::OriginalStepColumn).data().toString(), QString());

    // Downwards: b (row 3) after... it is already before d, its user; move it back up to row 2.
    QVERIFY(model.moveRows({}, 3, 1, {}, 2));
    QCOMPARE(names(model), strings({"x", "a", "b", "c", "d", "output"}));
    QCOMPARE(model.schedule()->profile(), kOriginalProfile);
    // Down with Qt's convention: a (row 1) to before d (row 4) is illegal (c uses a) ...
    QVERIFY(!model.moveRows({}, 1, 1, {}, 4));
    // ... but b (row 2) to before d (row 4) lands at row 3.
    QVERIFY(model.moveRows({}, 2, 1, {}, 4));
    QCOMPARE(names(model), strings({"x", "a", "c", "b", "d", "output"}));
    QCOMPARE(model.schedule()->profile(), kMovedProfile);
    // Each accepted moveRows was one undoable move of the edited schedule; the refused one none.
    QCOMPARE(edited.undoStack()->count(), 3);
    QCOMPARE(edited.undoStack()->undoText(), QStringLiteral("Move 'b' to position 3"));
    edited.undoStack()->undo();
    QCOMPARE(names(model), strings({"x", "a", "b", "c", "d", "output"}));
}

void TestScheduleModel::illegalMovesAreRefused() {
    EditedSchedule edited;
    ScheduleModel model(&edited);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAnalysis(schedtest::smallAnalysis());
    QSignalSpy moved(&model, &QAbstractItemModel::rowsMoved);
    // c before its input a.
    fxmem::IncrementalSchedule::MoveCheck check = model.checkMove(3, 1);
    QVERIFY(!check.ok);
    QCOMPARE(check.blocker, fxmem::NodeId(1));
    QVERIFY2(QString::fromStdString(check.reason).contains(QStringLiteral("'a'")), check.reason.c_str());
    QVERIFY(!model.moveRows({}, 3, 1, {}, 1));
    // a after its user c.
    check = model.checkMove(1, 4);
    QVERIFY(!check.ok);
    QCOMPARE(check.blocker, fxmem::NodeId(3));
    QVERIFY2(QString::fromStdString(check.reason).contains(QStringLiteral("'c'")), check.reason.c_str());
    // The output node stays last; nothing goes after it.
    QVERIFY(!model.checkMove(5, 4).ok);
    QVERIFY(!model.checkMove(4, 5).ok);
    // Several rows or a bad destination.
    QVERIFY(!model.moveRows({}, 1, 2, {}, 5));
    QVERIFY(!model.moveRows({}, 1, 1, {}, 7));
    QVERIFY(!model.checkMove(1, 9).ok);
    // The request itself: refused with the blocker named, nothing pushed.
    const MoveOutcome refused = edited.move(3, 1);
    QVERIFY(!refused.ok);
    QVERIFY2(refused.why.contains(QStringLiteral("'a'")), qPrintable(refused.why));
    QCOMPARE(edited.undoStack()->count(), 0);
    QCOMPARE(moved.count(), 0);
    QCOMPARE(model.schedule()->profile(), kOriginalProfile);
}

void TestScheduleModel::dropThroughMimeData() {
    EditedSchedule edited;
    ScheduleModel model(&edited);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAnalysis(schedtest::smallAnalysis());
    std::unique_ptr<QMimeData> mime(model.mimeData({model.index(3, 0), model.index(3, 1)}));
    QVERIFY(mime);
    QCOMPARE(model.decodePosition(mime.get()), std::optional<std::size_t>(3));
    // Two rows at once are not a single node.
    QVERIFY(!model.mimeData({model.index(3, 0), model.index(2, 0)}));
    QVERIFY(!model.canDropMimeData(mime.get(), Qt::MoveAction, 1, 0, {})); // before a: illegal
    QVERIFY(!model.canDropMimeData(mime.get(), Qt::CopyAction, 2, 0, {}));
    QVERIFY(model.canDropMimeData(mime.get(), Qt::MoveAction, 2, 0, {}));
    QVERIFY(!model.dropMimeData(mime.get(), Qt::MoveAction, 1, 0, {}));
    // The drop is a move request to the edited schedule, at the final positions: one undo step.
    std::vector<MoveOutcome> answered;
    connect(&edited, &EditedSchedule::moveAnswered, this, [&](const MoveOutcome& o) { answered.push_back(o); });
    QVERIFY(model.dropMimeData(mime.get(), Qt::MoveAction, 2, 0, {}));
    QCOMPARE(answered.size(), std::size_t(1));
    const MoveOutcome asked = answered.back();
    QVERIFY(asked.ok);
    QCOMPARE(asked.from, std::size_t(3));
    QCOMPARE(asked.to, std::size_t(2));
    QCOMPARE(edited.undoStack()->count(), 1);
    QCOMPARE(edited.undoStack()->undoText(), QStringLiteral("Move 'c' to position 2"));
    QCOMPARE(model.schedule()->profile(), kMovedProfile);
    // The same mime data is stale now: row 3 holds b, not c.
    QVERIFY(!model.decodePosition(mime.get()));
    QVERIFY(!model.dropMimeData(mime.get(), Qt::MoveAction, 1, 0, {}));
    QCOMPARE(edited.undoStack()->count(), 1);

    // Drag feedback: the legal range of c (row 2 now) is rows 2..3 (after a, before d).
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setDragSource(2);
    QCOMPARE(changed.count(), 1);
    QVariantList legal;
    for (int r = 0; r < 6; ++r) legal << model.index(r, 0).data(ScheduleModel::LegalDropRole);
    QCOMPARE(legal, (QVariantList{false, false, true, true, false, false}));
    model.setDragSource(std::nullopt);
    QVERIFY(!model.index(0, 0).data(ScheduleModel::LegalDropRole).isValid());
}

void TestScheduleModel::setOrderKeepsPersistentIndexes() {
    EditedSchedule edited;
    ScheduleModel model(&edited);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const auto analysis = schedtest::smallAnalysis();
    model.setAnalysis(analysis);
    const QPersistentModelIndex b(model.index(2, ScheduleModel::MemoryColumn));
    QSignalSpy layout(&model, &QAbstractItemModel::layoutChanged);
    const std::vector<fxmem::NodeId> moved = {fxmem::NodeId(0), fxmem::NodeId(1), fxmem::NodeId(3),
                                              fxmem::NodeId(2), fxmem::NodeId(4), fxmem::NodeId(5)};
    QVERIFY(edited.setOrder(moved, QStringLiteral("c first"), true).ok);
    QCOMPARE(edited.undoStack()->count(), 1);
    QCOMPARE(layout.count(), 1);
    QCOMPARE(b.row(), 3);
    QCOMPARE(b.column(), int(ScheduleModel::MemoryColumn));
    QCOMPARE(model.schedule()->profile(), kMovedProfile);
    // An illegal order is refused with core's reason and changes nothing.
    const std::vector<fxmem::NodeId> illegal = {fxmem::NodeId(0), fxmem::NodeId(3), fxmem::NodeId(1),
                                                fxmem::NodeId(2), fxmem::NodeId(4), fxmem::NodeId(5)};
    const MoveOutcome refused = edited.setOrder(illegal, QStringLiteral("illegal"), true);
    QVERIFY(!refused.ok);
    QVERIFY(!refused.why.isEmpty());
    QCOMPARE(edited.undoStack()->count(), 1);
    QCOMPARE(layout.count(), 1);
    QCOMPARE(model.schedule()->order(), moved);
    edited.undoStack()->undo();
    QCOMPARE(b.row(), 2);
    QCOMPARE(model.schedule()->order(), fxmem::original_order(analysis->graph()));
    QCOMPARE(model.schedule()->profile(), analysis->profile());
}

void TestScheduleModel::randomMovesMatchScoreSchedule_data() {
    QTest::addColumn<bool>("backward");
    QTest::addColumn<quint64>("seed");
    QTest::newRow("forward seed 3") << false << quint64(3);
    QTest::newRow("backward of a pair, seed 7") << true << quint64(7);
}

// Random legal moves on generated graphs (views, getitems, in-place nodes, CPU storages, a
// backward with do-not-delete placeholders and a baseline): after each move the model's profile
// agrees with an independent full MemoryTracker run over the new order.
void TestScheduleModel::randomMovesMatchScoreSchedule() {
    QFETCH(bool, backward);
    QFETCH(quint64, seed);
    fxmem::synth::Options options;
    options.nodes = 600;
    options.seed = seed;
    auto file = std::make_shared<const fxmem::GraphFile>(fxmem::synth::generate(options));
    const std::optional<fxmem::GraphId> graphIndex =
        file->find_graph(backward ? fxmem::synth::kBackwardName : fxmem::synth::kForwardName);
    QVERIFY(graphIndex.has_value());
    const auto analysis = GraphAnalysis::compute(file, *graphIndex);
    QCOMPARE(analysis->is_backward_of_pair(), backward);
    EditedSchedule edited;
    ScheduleModel model(&edited);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAnalysis(analysis);
    QCOMPARE(model.schedule()->profile(), analysis->profile());

    std::mt19937_64 rng(seed);
    const std::size_t n = model.size();
    int done = 0;
    for (int attempt = 0; attempt < 400 && done < 60; ++attempt) {
        const std::size_t from = rng() % n;
        const fxmem::IncrementalSchedule::LegalRange range = model.schedule()->legal_range(from);
        if (range.hi <= range.lo) continue;
        const std::size_t to = range.lo + rng() % (range.hi - range.lo + 1);
        if (to == from) continue;
        // Just outside the range is refused and names the blocker.
        if (range.lo > 0) {
            const auto check = model.checkMove(from, range.lo - 1);
            QVERIFY(!check.ok);
            QVERIFY(check.blocker.valid());
            QVERIFY(check.reason.find(analysis->graph().node(check.blocker).name) != std::string::npos);
        }
        QVERIFY(edited.move(from, to).ok);
        ++done;

        const std::vector<fxmem::NodeId> order = model.schedule()->order();
        const fxmem::ScheduleScore score = fxmem::score_schedule(analysis->file(), analysis->graph(), analysis->alias(),
                                                                 order, analysis->releasable(), analysis->counted());
        const std::vector<std::int64_t> profile = model.schedule()->profile();
        QCOMPARE(*std::max_element(profile.begin(), profile.end()), score.peak);
        QCOMPARE(model.schedule()->peak(), score.peak);
        std::size_t k = 0;
        for (std::size_t p = 0; p < order.size(); ++p) {
            QCOMPARE(bytesAt(model, static_cast<int>(p)), score.current[p]);
            const fxmem::OpKind op = analysis->graph().node(order[p]).op;
            if (!fxmem::has_profile_points(op)) continue;
            QCOMPARE(profile[static_cast<std::size_t>(fxmem::free_step(k))], score.current[p]);
            // Core's one step numbering (profile_steps.h), after moves too, both ways.
            QCOMPARE(model.profileStep(p), fxmem::alloc_step(k));
            QCOMPARE(model.positionOfProfileStep(fxmem::alloc_step(k)), p);
            QCOMPARE(model.positionOfProfileStep(fxmem::free_step(k)), p);
            ++k;
        }
        QCOMPARE(static_cast<std::int64_t>(profile.size()), fxmem::profile_size(k));
        QCOMPARE(model.profileStep(order.size() - 1), fxmem::profile_size(k) - 1); // the output node
    }
    QVERIFY(done >= 20);
}

// Graph g (test_schedule_graphs.h): x is a placeholder (step 0), a b c d are the profile's 4
// nodes (steps 1, 3, 5, 7), the output sits on the last step 8. Moving c before b swaps the two
// steps; positionOfProfileStep maps both points of a node (1 + 2k, 2 + 2k) back to its position.
void TestScheduleModel::positionsAndProfileStepsAreBothShown() {
    EditedSchedule edited;
    ScheduleModel model(&edited);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAnalysis(schedtest::smallAnalysis());
    QCOMPARE(model.headerData(ScheduleModel::StepColumn, Qt::Horizontal).toString(), QStringLiteral("Pos"));
    QCOMPARE(model.headerData(ScheduleModel::ProfileStepColumn, Qt::Horizontal).toString(), QStringLiteral("Step"));
    QVERIFY(model.headerData(ScheduleModel::ProfileStepColumn, Qt::Horizontal, Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("timeline")));
    const auto steps = [&] {
        QStringList out;
        for (int r = 0; r < model.rowCount(); ++r)
            out << model.index(r, ScheduleModel::ProfileStepColumn).data().toString();
        return out.join(QLatin1Char(','));
    };
    QCOMPARE(steps(), QStringLiteral("0,1,3,5,7,8"));
    QCOMPARE(model.index(3, 0).data(ScheduleModel::ProfileStepRole).toLongLong(), 5);
    QCOMPARE(model.positionOfProfileStep(0), std::size_t(0));
    QCOMPARE(model.positionOfProfileStep(1), std::size_t(1));
    QCOMPARE(model.positionOfProfileStep(2), std::size_t(1));
    QCOMPARE(model.positionOfProfileStep(5), std::size_t(3));
    QCOMPARE(model.positionOfProfileStep(6), std::size_t(3));
    QCOMPARE(model.positionOfProfileStep(7), std::size_t(4));
    QCOMPARE(model.positionOfProfileStep(99), std::size_t(5));
    QVERIFY(model.moveRows({}, 3, 1, {}, 2)); // c before b
    QCOMPARE(names(model), strings({"x", "a", "c", "b", "d", "output"}));
    QCOMPARE(steps(), QStringLiteral("0,1,3,5,7,8"));
    QCOMPARE(model.positionOfProfileStep(3), std::size_t(2)); // c now
    // The same steps as the profile the timeline draws: c's allocation is at profile index 3.
    QCOMPARE(model.schedule()->profile()[3], kMovedProfile[3]);
    QCOMPARE(model.index(2, ScheduleModel::NodeColumn)
                 .data(Qt::ToolTipRole)
                 .toString()
                 .contains(QStringLiteral("profile step 3")),
             true);
}

FXMEM_QTEST(TestScheduleModel)
#include "test_schedule_model.moc"
