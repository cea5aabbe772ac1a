// Huge names in the schedule dock: a node name, a target and a schedule name of tens of MiB
// (a hostile file) are shown elided everywhere (model cells, tooltips, sort keys, undo texts, the
// picker, the compare list, the move-to completer), never converted whole into QStrings.
#include "qtest_registry.h"
#include "schedule/ordercompare.h"
#include "schedule/scheduleeditor.h"
#include "schedule/schedulemodel.h"
#include "util/text.h"

#include <fxmem/model.h>
#include <fxmem/schedule.h>

#include <QAbstractItemModel>
#include <QComboBox>
#include <QCompleter>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QTest>
#include <QUndoStack>

#include <string>

namespace {

constexpr std::size_t kHuge = 24u << 20; // 24 MiB
// Longest string any view may show for one name: the elided head plus a little text around it.
constexpr qsizetype kShort = static_cast<qsizetype>(kMaxShownNameBytes) + 200;

const std::string& hugeName() {
    static const std::string s(kHuge, 'n');
    return s;
}
const std::string& hugeTarget() {
    static const std::string s(kHuge, 't');
    return s;
}

// x; H = relu(x) with a huge name and target; b = mul(x); d = add(H, b); output(d).
// A schedule with a 1 MiB name puts b before H.
std::shared_ptr<const GraphAnalysis> hugeAnalysis() {
    using fxmem::OpKind;
    auto file = std::make_shared<fxmem::GraphFile>();
    file->source = "long-names";
    const auto s0 = file->add_storage(0, "cuda:0", 100);
    const auto s1 = file->add_storage(1, "cuda:0", 1000);
    const auto s2 = file->add_storage(2, "cuda:0", 2000);
    const auto s3 = file->add_storage(3, "cuda:0", 10);
    fxmem::GraphBuilder b(*file, "g", fxmem::GraphKind::Inference);
    b.add("x", OpKind::Placeholder, "x", {}, {s0});
    b.add(hugeName(), OpKind::CallFunction, hugeTarget(), {"x"}, {s1});
    b.add("b", OpKind::CallFunction, "aten.mul.Tensor", {"x"}, {s2});
    b.add("d", OpKind::CallFunction, "aten.add.Tensor", {hugeName(), "b"}, {s3});
    b.add("output", OpKind::Output, "output", {"d"}, {});
    b.finish();
    fxmem::NamedSchedule named;
    named.name = std::string(1u << 20, 's');
    named.source = std::string(1u << 20, 'p');
    named.graph = fxmem::GraphId(0);
    named.order = {fxmem::NodeId(0), fxmem::NodeId(2), fxmem::NodeId(1), fxmem::NodeId(3), fxmem::NodeId(4)};
    file->schedules.push_back(std::move(named));
    return GraphAnalysis::compute(file, fxmem::GraphId(0));
}

void checkShort(const QString& s, const char* what, qsizetype limit = kShort) {
    if (s.size() > limit) QFAIL(qPrintable(QStringLiteral("%1: %2 characters").arg(QLatin1String(what)).arg(s.size())));
}

void checkModel(const QAbstractItemModel& m, const char* what) {
    for (int r = 0; r < m.rowCount(); ++r)
        for (int c = 0; c < m.columnCount(); ++c)
            for (int role = 0; role < Qt::UserRole + 20; ++role) { // every role, the model's own ones too
                if (role == Qt::DecorationRole) continue;
                const QVariant v = m.index(r, c).data(role);
                if (v.typeId() == QMetaType::QString) checkShort(v.toString(), what);
            }
}

} // namespace

class TestScheduleLongNames : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QElapsedTimer t;
        t.start();
        analysis_ = hugeAnalysis();
        qInfo("analysis of a graph with a %zu MiB node name and target: %lld ms", kHuge >> 20, t.elapsed());
    }

    void scheduleModelElides() {
        QElapsedTimer t;
        t.start();
        EditedSchedule edited;
        ScheduleModel m(&edited);
        m.setAnalysis(analysis_);
        checkModel(m, "schedule model");
        const QString shown = m.index(1, ScheduleModel::NodeColumn).data().toString();
        QVERIFY(shown.startsWith(QStringLiteral("nnnn")));
        QVERIFY(shown.endsWith(QStringLiteral("…")));
        QCOMPARE(m.index(1, ScheduleModel::NodeColumn).data(ScheduleModel::SortRole).toString(), shown);
        const QString target = m.index(1, ScheduleModel::TargetColumn).data().toString();
        QVERIFY(target.startsWith(QStringLiteral("tttt")) && target.endsWith(QStringLiteral("…")));
        QVERIFY(
            m.index(1, ScheduleModel::NodeColumn).data(Qt::ToolTipRole).toString().contains(QStringLiteral("nnnn…")));
        qInfo("schedule model built and read: %lld ms", t.elapsed());
    }

    void compareModelElides() {
        const auto& a = *analysis_;
        const OrderComparison c =
            fxmem::compare_orders(a, fxmem::original_order(a.graph()), a.file().schedules[0].order);
        QVERIFY(!c.moved.empty());
        CompareModel m;
        m.setComparison(analysis_, std::make_shared<const OrderComparison>(c));
        checkModel(m, "compare model");
        bool sawHuge = false;
        for (int r = 0; r < m.rowCount(); ++r)
            sawHuge |= m.index(r, CompareModel::NodeColumn).data().toString().startsWith(QStringLiteral("nnnn"));
        QVERIFY(sawHuge);
    }

    void editorElides() {
        QElapsedTimer t;
        t.start();
        EditedSchedule edited;
        ScheduleEditor e(&edited);
        e.setAnalysis(analysis_);
        for (const QString& name : e.sourceNames()) checkShort(name, "picker entry");
        // Move the huge node (position 1) after b: the undo text names it.
        QString why;
        QVERIFY2(e.moveNodeToPosition(fxmem::NodeId(1), 2, &why), qPrintable(why));
        QCOMPARE(e.undoStack()->count(), 1);
        checkShort(e.undoStack()->text(0), "undo text");
        QVERIFY(e.undoStack()->text(0).contains(QStringLiteral("nnnn…")));
        e.refreshSuggestions();
        // "Just after node" mode builds the completer over every node name.
        for (QComboBox* box : e.findChildren<QComboBox*>()) {
            for (int i = 0; i < box->count(); ++i) {
                checkShort(box->itemText(i), "combo item");
                // A schedule's provenance (its tooltip) keeps a few lines.
                checkShort(box->itemData(i, Qt::ToolTipRole).toString(), "combo tooltip", 4 * kShort);
            }
            const int after = box->findText(QStringLiteral("just after node"));
            if (after >= 0) box->setCurrentIndex(after);
        }
        int completers = 0;
        for (QLineEdit* line : e.findChildren<QLineEdit*>())
            if (line->completer()) {
                ++completers;
                checkModel(*line->completer()->model(), "completer");
            }
        QVERIFY(completers > 0);
        for (QLabel* label : e.findChildren<QLabel*>()) {
            checkShort(label->text(), "label");
            checkShort(label->toolTip(), "label tooltip");
        }
        for (QListWidget* list : e.findChildren<QListWidget*>())
            for (int i = 0; i < list->count(); ++i) checkShort(list->item(i)->text(), "list item");
        qInfo("schedule editor opened, edited, suggestions and completer: %lld ms", t.elapsed());
    }

private:
    std::shared_ptr<const GraphAnalysis> analysis_;
};

FXMEM_QTEST(TestScheduleLongNames)
#include "test_schedule_longnames.moc"
