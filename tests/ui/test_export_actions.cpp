// File > Export > memory_viz Snapshot… and Perfetto Trace… (FileCommands::exportMemoryVizTo /
// exportPerfettoTo, past their dialogs) write the very bytes fxmem-cli export writes for the view
// shown: a graph in its edited order (fsdp's backward in Inductor's overlap order, scored as in
// its pair: --graph backward --in-pair --schedule-name inductor-overlap), a joined pair (--pair 0)
// and the whole step (--whole-step, with every device counted too). A write that fails shows an
// error naming the path and leaves nothing behind.
#include "mainwindow/filecommands.h"
#include "mainwindow/mainactions.h"
#include "mainwindow/maintoolbar.h"
#include "mainwindow/mainwindow.h"
#include "qtest_registry.h"
#include "state/editedschedule.h"
#include "state/viewstate.h"
#include "ui_open.h"
#include "util/units.h"

#include <fxmem/io.h>

#include <QAction>
#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

class TestExportActions : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void editedGraphEqualsTheCli();
    void pairEqualsTheCli();
    void wholeStepEqualsTheCli();
    void failuresNameThePath();
};

namespace {

using ui_open::realLoader;

bool waitShown(MainWindow& w, const std::function<void()>& request) {
    QSignalSpy shown(&w, &MainWindow::sceneShown);
    QSignalSpy failed(&w, &MainWindow::loadFailed);
    request();
    return QTest::qWaitFor([&] { return shown.count() > 0 || failed.count() > 0; }, 60000) && shown.count() > 0;
}

QByteArray contents(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// fxmem-cli export FILE ARGS --perfetto/--memory-viz OUT; empty on failure.
QByteArray cliExport(const QString& file, const QStringList& args, const QString& format, const QString& out) {
    QProcess p;
    p.start(QStringLiteral(FXMEM_CLI_PATH),
            QStringList{QStringLiteral("export"), file} + args + QStringList{format, out});
    if (!p.waitForFinished(120000) || p.exitCode() != 0) {
        qWarning().noquote() << args.join(QLatin1Char(' ')) << "failed:" << p.readAllStandardError();
        return {};
    }
    return contents(out);
}

// Both of the window's exports of what it shows equal the CLI's for `args`.
void expectBothEqualTheCli(MainWindow& w, const QString& file, const QStringList& args) {
    QTemporaryDir dir;
    const QString appTrace = dir.filePath(QStringLiteral("app.json")),
                  appSnap = dir.filePath(QStringLiteral("app.pickle"));
    QVERIFY(w.parts().files->exportPerfettoTo(appTrace));
    QVERIFY(w.parts().files->exportMemoryVizTo(appSnap));
    QVERIFY(!w.findChild<QMessageBox*>());
    const QByteArray trace = contents(appTrace), snap = contents(appSnap);
    QVERIFY(trace.startsWith("{\"displayTimeUnit\""));
    QVERIFY(snap.startsWith("\x80\x02}"));
    QCOMPARE(trace, cliExport(file, args, QStringLiteral("--perfetto"), dir.filePath(QStringLiteral("cli.json"))));
    QCOMPARE(snap, cliExport(file, args, QStringLiteral("--memory-viz"), dir.filePath(QStringLiteral("cli.pickle"))));
}

const QString kFsdp = QStringLiteral(FXMEM_EXAMPLES "/fsdp.fxmem.json");

} // namespace

void TestExportActions::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("fxmem-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("test_export_actions"));
    QSettings().clear();
    ViewState().setUnits(ByteUnits::Binary);
}

void TestExportActions::editedGraphEqualsTheCli() {
    MainWindow w(realLoader());
    QVERIFY(waitShown(w, [&] { w.openFile(kFsdp); }));
    // The actions sit in File > Export, enabled once a view is shown.
    QMenu* exports = nullptr;
    for (QAction* a : w.menuBar()->actions())
        if (a->menu())
            for (QAction* b : a->menu()->actions())
                if (b->menu() && b->menu()->actions().contains(w.parts().actions->exportMemoryViz)) exports = b->menu();
    QVERIFY(exports);
    QVERIFY(exports->actions().contains(w.parts().actions->exportPerfetto));
    QVERIFY(w.parts().actions->exportMemoryViz->isEnabled() && w.parts().actions->exportPerfetto->isEnabled());

    const fxmem::GraphFile& file = *w.scene()->file;
    int backward = -1;
    for (std::size_t g = 0; g < file.graphs.size(); ++g)
        if (file.graphs[g].name == "backward") backward = static_cast<int>(g);
    QVERIFY(backward >= 0);
    QVERIFY(waitShown(w, [&] { w.showGraph(backward); }));
    const QStringList graph = {QStringLiteral("--graph"), QStringLiteral("backward"), QStringLiteral("--in-pair")};
    expectBothEqualTheCli(w, kFsdp, graph); // the graph's own order
    const fxmem::NamedSchedule* overlap = nullptr;
    for (const fxmem::NamedSchedule& s : file.schedules)
        if (s.graph.value == backward) overlap = &s;
    QVERIFY(overlap);
    QVERIFY(w.state()->schedule()->setOrder(overlap->order, QStringLiteral("inductor-overlap"), false).ok);
    QVERIFY(w.state()->orderEdited());
    expectBothEqualTheCli(w, kFsdp,
                          graph + QStringList{QStringLiteral("--schedule-name"), QStringLiteral("inductor-overlap")});
}

void TestExportActions::pairEqualsTheCli() {
    const QString gpt = QStringLiteral(FXMEM_EXAMPLES "/gpt.fxmem.json");
    MainWindow w(realLoader());
    QVERIFY(waitShown(w, [&] { w.openFile(gpt); }));
    QVERIFY(waitShown(w, [&] { w.showGraph(-1, 0); }));
    QVERIFY(w.scene()->joined() && !w.scene()->wholeStep());
    expectBothEqualTheCli(w, gpt, {QStringLiteral("--pair"), QStringLiteral("0")});
}

void TestExportActions::wholeStepEqualsTheCli() {
    const QString step = QStringLiteral(FXMEM_EXAMPLES "/gpt_break.fxmem.json");
    MainWindow w(realLoader());
    QVERIFY(waitShown(w, [&] { w.openFile(step); }));
    QVERIFY(w.scene()->wholeStep());
    expectBothEqualTheCli(w, step, {QStringLiteral("--whole-step")});
    // Every device counted (the toolbar's device choice): the CPU storages too.
    QVERIFY(waitShown(w, [&] { emit w.parts().toolbar->deviceFilterChosen(DeviceFilter::All); }));
    QCOMPARE(w.scene()->request.filter, DeviceFilter::All);
    expectBothEqualTheCli(w, step,
                          {QStringLiteral("--whole-step"), QStringLiteral("--devices"), QStringLiteral("all")});
}

void TestExportActions::failuresNameThePath() {
    QTemporaryDir dir;
    const QString graph = dir.filePath(QStringLiteral("gpt.fxmem.json"));
    QVERIFY(QFile::copy(QStringLiteral(FXMEM_EXAMPLES "/gpt.fxmem.json"), graph));
    MainWindow w(realLoader());
    QVERIFY(waitShown(w, [&] { w.openFile(graph); }));
    const QString nowhere = dir.filePath(QStringLiteral("no/such/dir/trace.json"));
    for (const bool perfetto : {true, false}) {
        QVERIFY(perfetto ? !w.parts().files->exportPerfettoTo(nowhere) : !w.parts().files->exportMemoryVizTo(nowhere));
        auto* box = w.findChild<QMessageBox*>();
        QVERIFY(box);
        QVERIFY2(box->text().contains(nowhere) && box->informativeText().contains(nowhere),
                 qPrintable(box->text() + QLatin1Char('\n') + box->informativeText()));
        QVERIFY(!QFileInfo::exists(nowhere));
        box->close();
        QTRY_VERIFY(!w.findChild<QMessageBox*>());
    }
    // The graph file shown is never overwritten.
    const QByteArray before = contents(graph);
    QVERIFY(!w.parts().files->exportMemoryVizTo(graph));
    auto* box = w.findChild<QMessageBox*>();
    QVERIFY(box);
    QVERIFY2(box->informativeText().contains(QStringLiteral("graph file")), qPrintable(box->informativeText()));
    QCOMPARE(contents(graph), before);
    box->close();
}

FXMEM_QTEST(TestExportActions)
#include "test_export_actions.moc"
