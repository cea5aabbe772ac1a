// The Compare list of the schedule editor sorts by any column and opens sorted by |effect|, the
// moves that change A's peak first: on the bundled fsdp example's backward, its one move that
// changes the peak (+2 MiB, of 77 moved nodes) was the last row, its name cut.
#include "qtest_registry.h"
#include "schedule/ordercompare.h"
#include "schedule/scheduleeditor.h"

#include <fxmem/io.h>

#include <QHeaderView>
#include <QTableView>
#include <QtTest>

#include <cstdlib>

class TestCompareList : public QObject {
    Q_OBJECT
private slots:
    void opensSortedByEffectAndSortsByAnyColumn();
};

void TestCompareList::opensSortedByEffectAndSortsByAnyColumn() {
    auto file = std::make_shared<const fxmem::GraphFile>(fxmem::load_file(FXMEM_EXAMPLES "/fsdp.fxmem.json"));
    // The backward's inductor-overlap order: +2 MiB over the original (fxmem-cli schedules).
    const fxmem::NamedSchedule* found = nullptr;
    for (const fxmem::NamedSchedule& named : file->schedules)
        if (file->graph(named.graph).name == "backward") found = &named;
    QVERIFY(found);
    const fxmem::NamedSchedule& stored = *found;
    EditedSchedule edited;
    ScheduleEditor editor(&edited);
    editor.setAnalysis(GraphAnalysis::compute(file, stored.graph));
    editor.setComparison(0, editor.sourceNames().indexOf(QString::fromStdString(stored.name)));
    const auto c = editor.comparison();
    QVERIFY(c && !c->moved.empty());
    // Core's list: the effects in ascending order, so a move that raises the peak comes last.
    int changing = 0;
    for (const auto& m : c->moved) changing += m.effect && *m.effect != 0;
    QVERIFY(changing >= 1);

    auto* list = editor.findChild<QTableView*>(QStringLiteral("compareList"));
    QVERIFY(list);
    QAbstractItemModel* m = list->model();
    QCOMPARE(m->rowCount(), static_cast<int>(c->moved.size()));
    QVERIFY(list->isSortingEnabled());
    QCOMPARE(list->horizontalHeader()->sortIndicatorSection(), int(CompareModel::EffectColumn));
    QCOMPARE(list->horizontalHeader()->sortIndicatorOrder(), Qt::DescendingOrder);
    const auto effect = [&](int row) {
        return m->index(row, CompareModel::EffectColumn).data(CompareModel::EffectRole);
    };
    // Opens with the peak-changing moves on top, largest |effect| first, then the rest.
    for (int r = 0; r < changing; ++r)
        QVERIFY2(effect(r).isValid() && effect(r).toLongLong() != 0, qPrintable(QString::number(r)));
    for (int r = changing; r < m->rowCount(); ++r) QVERIFY(!effect(r).isValid() || effect(r).toLongLong() == 0);
    for (int r = 1; r < changing; ++r)
        QVERIFY(std::llabs(effect(r - 1).toLongLong()) >= std::llabs(effect(r).toLongLong()));
    qInfo("%d moved, %d change the peak; top row %s %s", m->rowCount(), changing,
          qPrintable(m->index(0, CompareModel::NodeColumn).data().toString()),
          qPrintable(m->index(0, CompareModel::EffectColumn).data().toString()));

    // Any column: bytes allocated, descending; positions in B, ascending; names.
    list->sortByColumn(CompareModel::AllocatesColumn, Qt::DescendingOrder);
    for (int r = 1; r < m->rowCount(); ++r)
        QVERIFY(m->index(r - 1, 0).data(CompareModel::BytesRole).toLongLong() >=
                m->index(r, 0).data(CompareModel::BytesRole).toLongLong());
    list->sortByColumn(CompareModel::PositionBColumn, Qt::AscendingOrder);
    for (int r = 1; r < m->rowCount(); ++r)
        QVERIFY(m->index(r - 1, CompareModel::PositionBColumn).data().toULongLong() <
                m->index(r, CompareModel::PositionBColumn).data().toULongLong());
    list->sortByColumn(CompareModel::NodeColumn, Qt::AscendingOrder);
    for (int r = 1; r < m->rowCount(); ++r)
        QVERIFY(m->index(r - 1, CompareModel::NodeColumn).data().toString() <=
                m->index(r, CompareModel::NodeColumn).data().toString());
}

FXMEM_QTEST(TestCompareList)
#include "test_compare_list.moc"
