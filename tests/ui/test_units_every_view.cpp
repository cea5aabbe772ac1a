// A change of byte units (ViewState::setUnits) reaches every view that shows bytes at once: the
// summary and the status line, the timeline (y axis, its labels, the cursor box), the live table,
// the breakdown, the inspector, the schedule dock (peaks, list, comparison, suggestions), the
// Recompute view, the Sizes bar's fit answer, and a repaint of the Dataflow view. Per view: every
// text with a size read in binary units, then again after the switch to decimal, where none may
// be binary any more; item models must announce it (dataChanged, a reset or a layout change), since
// their data reads anew anyway. Some sizes are checked against the file's own storage sizes,
// formatted here by hand.
#include "dataflow/dataflowview.h"
#include "dataflow/graphmodepane.h"
#include "inspector/nodeinspector.h"
#include "mainwindow/mainwindow.h"
#include "models/livestoragemodel.h"
#include "panels/breakdownpanel.h"
#include "panels/livestoragepanel.h"
#include "panels/summarybar.h"
#include "qtest_registry.h"
#include "recompute/recomputepanel.h"
#include "recompute/recomputepoints.h"
#include "schedule/scheduleeditor.h"
#include "schedule/schedulepicker.h"
#include "sizes/sizesbar.h"
#include "state/viewstate.h"
#include "timeline/qcp.h"
#include "timeline/timelineplot.h"
#include "ui_open.h"
#include "ui_settle.h"

#include <QAbstractItemView>
#include <QCoreApplication>
#include <QDockWidget>
#include <QLabel>
#include <QListWidget>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTextEdit>
#include <QToolButton>
#include <QtTest>

#include <cmath>
#include <map>
#include <memory>
#include <vector>

class TestUnitsEveryView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void everyViewFollowsTheUnits();
    void sizesBarFitAnswerFollowsTheUnits();
    void recomputeEditSummaryFollowsTheUnits();
};

namespace {

const QRegularExpression kBinary(QStringLiteral("\\d (KiB|MiB|GiB|TiB)\\b"));
const QRegularExpression kDecimal(QStringLiteral("\\d (kB|MB|GB|TB)\\b"));
const QRegularExpression kAnyUnit(QStringLiteral("\\d (KiB|MiB|GiB|TiB|kB|MB|GB|TB)\\b"));

// By hand: three significant digits in powers of 1000, rounding carried into the next unit.
QString decimalBytes(std::int64_t bytes) {
    static const char* names[] = {"B", "kB", "MB", "GB", "TB"};
    double v = static_cast<double>(bytes);
    int p = 0;
    while (v >= 1000 && p < 4) {
        v /= 1000;
        ++p;
    }
    if (p == 0) return QString::number(bytes) + QStringLiteral(" B");
    int decimals = v < 10 ? 2 : v < 100 ? 1 : 0;
    if (std::round(v * std::pow(10, decimals)) / std::pow(10, decimals) >= 1000) {
        v /= 1000;
        ++p;
        decimals = 2;
    }
    return QString::number(v, 'f', decimals) + QLatin1Char(' ') + QLatin1String(names[p]);
}

void modelTexts(const QAbstractItemModel* m, const QModelIndex& parent, QStringList& out) {
    for (int r = 0; r < m->rowCount(parent); ++r)
        for (int c = 0; c < m->columnCount(parent); ++c) {
            const QModelIndex i = m->index(r, c, parent);
            for (int role : {int(Qt::DisplayRole), int(Qt::ToolTipRole)})
                if (const QString t = i.data(role).toString(); kAnyUnit.match(t).hasMatch()) out << t;
            if (c == 0 && m->hasChildren(i)) modelTexts(m, i, out);
        }
}

// The texts of a view that show a size: its labels (text and tooltip), text browsers, list items,
// the data of its item views' models; for the timeline, what the chart draws.
QStringList byteTexts(QWidget* view) {
    QStringList out;
    auto keep = [&](const QString& t) {
        if (kAnyUnit.match(t).hasMatch()) out << t;
    };
    QList<QLabel*> labels = view->findChildren<QLabel*>();
    if (auto* l = qobject_cast<QLabel*>(view)) labels.prepend(l);
    for (QLabel* l : labels) {
        keep(l->text());
        keep(l->toolTip());
    }
    QList<QTextEdit*> edits = view->findChildren<QTextEdit*>();
    if (auto* e = qobject_cast<QTextEdit*>(view)) edits.prepend(e);
    for (QTextEdit* e : edits) keep(e->toPlainText());
    for (QListWidget* list : view->findChildren<QListWidget*>())
        for (int i = 0; i < list->count(); ++i) keep(list->item(i)->text());
    for (QAbstractItemView* v : view->findChildren<QAbstractItemView*>())
        if (v->model() && !qobject_cast<QListWidget*>(v)) modelTexts(v->model(), {}, out);
    if (auto* plot = qobject_cast<TimelinePlot*>(view)) {
        QCustomPlot* chart = plot->chart();
        chart->replot(QCustomPlot::rpImmediateRefresh); // its queued replot, now: the axis's ticks are laid out
        for (const QString& t : chart->yAxis->tickVectorLabels()) keep(t);
        for (int i = 0; i < chart->itemCount(); ++i)
            if (auto* item = qobject_cast<QCPItemText*>(chart->item(i)); item && item->visible()) keep(item->text());
        keep(plot->cursorText());
    }
    return out;
}

// Counts what a view's models announce: a change of data, a reset, a layout change.
struct ModelSpies {
    std::vector<std::unique_ptr<QSignalSpy>> spies;
    explicit ModelSpies(QWidget* view) {
        for (QAbstractItemView* v : view->findChildren<QAbstractItemView*>()) {
            if (!v->model() || qobject_cast<QListWidget*>(v)) continue;
            const QAbstractItemModel* m = v->model();
            QStringList texts;
            modelTexts(m, {}, texts);
            if (texts.isEmpty()) continue; // shows no size (a combo box's list)
            spies.push_back(std::make_unique<QSignalSpy>(m, &QAbstractItemModel::dataChanged));
            spies.push_back(std::make_unique<QSignalSpy>(m, &QAbstractItemModel::modelReset));
            spies.push_back(std::make_unique<QSignalSpy>(m, &QAbstractItemModel::layoutChanged));
        }
    }
    // Per item view, whether its model announced something.
    bool everyModelAnnounced() const {
        for (std::size_t i = 0; i < spies.size(); i += 3)
            if (spies[i]->count() + spies[i + 1]->count() + spies[i + 2]->count() == 0) return false;
        return true;
    }
};

// Repaints of a widget.
struct PaintCounter : QObject {
    int paints = 0;
    bool eventFilter(QObject* o, QEvent* e) override {
        if (e->type() == QEvent::Paint) ++paints;
        return QObject::eventFilter(o, e);
    }
};

QString joined(const QStringList& l) { return l.join(QStringLiteral(" | ")).left(2000); }

} // namespace

void TestUnitsEveryView::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("fxmem-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("test_units_every_view"));
    QSettings().clear();
    QCOMPARE(decimalBytes(999), QStringLiteral("999 B"));
    QCOMPARE(decimalBytes(2080000), QStringLiteral("2.08 MB"));
    QCOMPARE(decimalBytes(999999), QStringLiteral("1.00 MB"));
    QCOMPARE(decimalBytes(123456789), QStringLiteral("123 MB"));
}

void TestUnitsEveryView::everyViewFollowsTheUnits() {
    MainWindow w(ui_open::realLoader());
    w.resize(1600, 1000);
    w.show();
    const QString path = QStringLiteral(FXMEM_EXAMPLES "/llama_sweep.fxmem.json");
    QVERIFY(ui_open::openAndWait(w, path));
    ViewState* state = w.state();
    state->setUnits(ByteUnits::Binary);
    const WindowParts& p = w.parts();

    // The Recompute view scores the file's budget pairs.
    auto* recomputeDock = w.findChild<QDockWidget*>(QStringLiteral("recomputeDock"));
    QVERIFY(recomputeDock);
    recomputeDock->raise();
    QVERIFY(QTest::qWaitFor([&] { return !p.recompute->points().points.empty(); }, 30000));

    // The forward graph alone: the schedule dock edits it.
    QSignalSpy shown(&w, &MainWindow::sceneShown);
    w.showGraph(0);
    QVERIFY(QTest::qWaitFor([&] { return shown.count() > 0; }, 30000));
    QVERIFY(p.editor->isEnabled());
    const std::int64_t peak = w.scene()->peak;
    QVERIFY(peak > 1000 * 1000); // MiB and MB differ in their digits as well as the name

    // One edit (the first legal swap), so that the edited peak, its curve and the list's deltas
    // show; the comparison of the original with it; the suggestions.
    ScheduleEditor* editor = p.editor;
    bool moved = false;
    for (std::size_t i = 1; i + 1 < 200 && !moved; ++i) moved = editor->moveNode(i, i + 1);
    QVERIFY(moved);
    QVERIFY(editor->sourceNames().size() >= 2);
    editor->setComparison(0, static_cast<int>(editor->sourceNames().size()) - 1);
    auto* picker = editor->findChild<SchedulePicker*>();
    QVERIFY(picker);
    picker->suggest->setChecked(true);
    QVERIFY(!editor->findChild<QListWidget*>()->findItems(QStringLiteral("peak"), Qt::MatchContains).isEmpty());

    // The cursor at the peak step, a node selected, the breakdown shown.
    auto* breakdownDock = w.findChild<QDockWidget*>(QStringLiteral("breakdownDock"));
    if (breakdownDock) breakdownDock->raise();
    p.breakdown->show();
    state->setCursorStep(static_cast<std::int64_t>(w.scene()->peakStep));
    QVERIFY(p.livePanel->model()->rowCount() > 0);
    const fxmem::NodeId allocator = p.livePanel->model()->row(0).allocator;
    state->selectNode({0, allocator});
    p.breakdown->refresh();
    QVERIFY(settle::jobsUnder(&w)); // the edited order's live set, the inspector's after-paint page

    // The views, and the status line's labels.
    std::map<QString, QWidget*> views = {
        {QStringLiteral("summary"), p.summary},      {QStringLiteral("status line"), w.statusBar()},
        {QStringLiteral("timeline"), p.timeline},    {QStringLiteral("live storages"), p.livePanel},
        {QStringLiteral("breakdown"), p.breakdown},  {QStringLiteral("inspector"), p.inspector},
        {QStringLiteral("schedule dock"), p.editor}, {QStringLiteral("recompute"), p.recompute},
    };
    std::map<QString, QStringList> before;
    std::map<QString, std::unique_ptr<ModelSpies>> spies;
    for (const auto& [name, view] : views) {
        before[name] = byteTexts(view);
        QVERIFY2(!before[name].isEmpty(), qPrintable(name + QStringLiteral(": no size shown")));
        for (const QString& t : before[name])
            QVERIFY2(!kDecimal.match(t).hasMatch(), qPrintable(name + QStringLiteral(": ") + t));
        QVERIFY2(kBinary.match(before[name].join(u' ')).hasMatch(),
                 qPrintable(name + QStringLiteral(": ") + joined(before[name])));
        spies[name] = std::make_unique<ModelSpies>(view);
    }

    // The Dataflow view paints its boxes' sizes: it must repaint. Shown and painted first.
    PaintCounter painted;
    p.dataflow->installEventFilter(&painted);
    p.graphModes->setMode(GraphModePane::Mode::Dataflow);
    QVERIFY(QTest::qWaitFor([&] { return painted.paints > 0; }, 10000));
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
    painted.paints = 0;

    // Every text is read right after the switch: the views follow at once.
    state->setUnits(ByteUnits::Decimal);

    QStringList stale;
    for (const auto& [name, view] : views) {
        const QStringList after = byteTexts(view);
        QStringList binary;
        for (const QString& t : after)
            if (kBinary.match(t).hasMatch()) binary << t;
        if (!binary.isEmpty()) stale << name + QStringLiteral(": still binary: ") + joined(binary);
        if (!spies[name]->everyModelAnnounced())
            stale << name + QStringLiteral(": a model did not announce the change");
        // The same texts, but the y axis may have another number of ticks.
        const bool sameCount = view == p.timeline || after.size() == before[name].size();
        if (!sameCount || !kDecimal.match(after.join(u' ')).hasMatch())
            stale << name + QStringLiteral(": %1 sizes before, %2 after: ").arg(before[name].size()).arg(after.size()) +
                         joined(after);
    }
    if (!QTest::qWaitFor([&] { return painted.paints > 0; }, 3000)) stale << QStringLiteral("dataflow: not repainted");
    QVERIFY2(stale.isEmpty(), qPrintable(stale.join(QStringLiteral("\n"))));

    // Sizes by hand from the file: the live table's rows are the storages' sizes.
    const fxmem::GraphFile& file = *w.scene()->file;
    LiveStorageModel* live = p.livePanel->model();
    for (int r = 0; r < std::min(live->rowCount(), 8); ++r)
        QCOMPARE(live->index(r, LiveStorageModel::SizeColumn).data().toString(),
                 decimalBytes(file.nbytes(live->row(r).storage)));
    QVERIFY2(p.summary->text().contains(decimalBytes(peak)), qPrintable(p.summary->text()));
    QVERIFY2(p.timeline->peakText().contains(decimalBytes(peak)), qPrintable(p.timeline->peakText()));
    state->setUnits(ByteUnits::Binary);
}

void TestUnitsEveryView::sizesBarFitAnswerFollowsTheUnits() {
    MainWindow w(ui_open::realLoader());
    w.resize(1600, 1000);
    w.show();
    QVERIFY(ui_open::openAndWait(w, QStringLiteral(FXMEM_EXAMPLES "/llama_dynamic.fxmem.json")));
    ViewState* state = w.state();
    state->setUnits(ByteUnits::Binary);
    SizesBar* sizes = w.parts().sizes;
    QVERIFY(sizes->isVisible());
    QSignalSpy fitted(sizes, &SizesBar::fitFinished);
    sizes->fitLargest(0);
    QVERIFY(QTest::qWaitFor([&] { return fitted.count() > 0; }, 60000));
    const QString binary = sizes->message();
    QVERIFY2(kBinary.match(binary).hasMatch(), qPrintable(binary));
    state->setUnits(ByteUnits::Decimal);
    const QString decimal = sizes->message();
    QVERIFY2(!kBinary.match(decimal).hasMatch() && kDecimal.match(decimal).hasMatch(), qPrintable(decimal));
    // The device's size as the bar names it, by hand.
    QVERIFY2(decimal.contains(decimalBytes(sizes->deviceMemory())) || decimal.contains(QStringLiteral(" GB")),
             qPrintable(decimal));
    state->setUnits(ByteUnits::Binary);
    QCOMPARE(sizes->message(), binary);
}

void TestUnitsEveryView::recomputeEditSummaryFollowsTheUnits() {
    MainWindow w(ui_open::realLoader());
    w.resize(1600, 1000);
    w.show();
    QVERIFY(ui_open::openAndWait(w, QStringLiteral(FXMEM_EXAMPLES "/llama_sweep.fxmem.json")));
    ViewState* state = w.state();
    state->setUnits(ByteUnits::Binary);
    auto* dock = w.findChild<QDockWidget*>(QStringLiteral("recomputeDock"));
    QVERIFY(dock);
    dock->raise();
    RecomputePanel* panel = w.parts().recompute;
    QVERIFY(QTest::qWaitFor([&] { return !panel->points().points.empty(); }, 30000));
    // Budget 1.0's pair, then one saved value recomputed in the backward: the summary names the
    // pair's peak before and after the edit.
    int budget = -1;
    for (std::size_t i = 0; i < panel->points().points.size(); ++i)
        if (panel->points().points[i].kind == RecomputePoint::Kind::Budget && panel->points().points[i].budget == 1.0)
            budget = static_cast<int>(i);
    QVERIFY(budget >= 0);
    QSignalSpy shown(&w, &MainWindow::sceneShown);
    panel->openPoint(budget);
    QVERIFY(QTest::qWaitFor([&] { return shown.count() > 0; }, 30000));
    const fxmem::JointGraph& joint = *panel->points().jointGraph;
    std::vector<fxmem::NodeId> saved;
    QVERIFY(panel->shownSaved(&saved));
    fxmem::StorageId storage;
    for (fxmem::NodeId n : saved)
        if (!joint.g().outputs(n).empty() && joint.flops[n.index()] > 0 &&
            panel->actionFor(joint.g().outputs(n)[0]) == QStringLiteral("Recompute in backward")) {
            storage = joint.g().outputs(n)[0];
            break;
        }
    QVERIFY(storage.valid());
    const std::int64_t pairPeak = w.scene()->pairPeak->peak;
    shown.clear();
    QString why;
    QVERIFY2(panel->toggleStorage(storage, &why), qPrintable(why));
    QVERIFY(QTest::qWaitFor([&] { return shown.count() > 0; }, 30000));
    const QString binary = byteTexts(panel).join(u'|');
    QVERIFY2(binary.contains(QStringLiteral("pair peak ")), qPrintable(binary));
    state->setUnits(ByteUnits::Decimal);
    const QStringList after = byteTexts(panel);
    for (const QString& t : after) QVERIFY2(!kBinary.match(t).hasMatch(), qPrintable(t));
    // The pair's peak before the edit, by hand.
    QVERIFY2(after.join(u'|').contains(QStringLiteral("pair peak ") + decimalBytes(pairPeak)),
             qPrintable(after.join(u'|')));
    state->setUnits(ByteUnits::Binary);
    QCOMPARE(byteTexts(panel).join(u'|'), binary);
}

FXMEM_QTEST(TestUnitsEveryView)
#include "test_units_every_view.moc"
