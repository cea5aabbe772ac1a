#include "mainwindow/mainactions.h"

#include "mainwindow/appsettings.h"
#include "util/text.h"
#include "util/units.h"

#include <QAction>
#include <QActionGroup>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenuBar>
#include <QMessageBox>
#include <QUndoGroup>

namespace {
constexpr int kMaxRecent = 8;
// The desktop theme's icon, else ours from the app's resources (absent in the tests).
QIcon themedIcon(const QString& name) {
    const QString bundled = QStringLiteral(":/icons/") % name % QStringLiteral(".svg");
    return QIcon::fromTheme(name, QFile::exists(bundled) ? QIcon(bundled) : QIcon());
}
} // namespace

MainActions::MainActions(QMainWindow* window, QUndoGroup* history) : QObject(window), window_(window) {
    open = new QAction(themedIcon(QStringLiteral("document-open")), tr("&Open…"), window);
    open->setShortcut(QKeySequence::Open);
    open->setToolTip(tr("Open an fxmem graph file (Ctrl+O)"));
    connect(open, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getOpenFileName(window_, tr("Open graph file"), AppSettings::lastDir(),
                                                          tr("fxmem graphs (*.fxmem.json *.json);;All files (*)"));
        if (!path.isEmpty()) emit openRequested(path);
    });
    saveSchedule = new QAction(tr("&Save Schedule…"), window);
    saveSchedule->setShortcut(QKeySequence::Save);
    openSchedule = new QAction(tr("Open Sc&hedule…"), window);
    openSchedule->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    savePlan = new QAction(tr("Save &Plan…"), window);
    savePlan->setStatusTip(tr("Write the recompute plan shown (found, or your edit) as fxmem-cli remat -o does"));
    savePlan->setEnabled(false);
    exportPlot = new QAction(themedIcon(QStringLiteral("document-export")), tr("&Export Plot…"), window);
    exportPlot->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    exportCsv = new QAction(tr("Export Profile as &CSV…"), window);
    exportMemoryViz = new QAction(tr("&memory_viz Snapshot…"), window);
    exportMemoryViz->setStatusTip(tr("The view as a PyTorch memory snapshot (pickle) for pytorch.org/memory_viz, "
                                     "as fxmem-cli export --memory-viz writes it"));
    exportPerfetto = new QAction(tr("&Perfetto Trace…"), window);
    exportPerfetto->setStatusTip(tr("The view as Chrome-trace JSON for ui.perfetto.dev, as fxmem-cli export "
                                    "--perfetto writes it"));
    quit = new QAction(tr("&Quit"), window);
    quit->setShortcut(QKeySequence::Quit);
    connect(quit, &QAction::triggered, window, &QWidget::close);

    undo = history->createUndoAction(window, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    // Both common redo keys, each bound once (binding one twice makes Qt call it ambiguous).
    redo = history->createRedoAction(window, tr("&Redo"));
    redo->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)});
    resetSchedule = new QAction(tr("&Reset Schedule"), window);
    find = new QAction(themedIcon(QStringLiteral("edit-find")), tr("&Find Node…"), window);
    find->setShortcut(QKeySequence::Find);
    resetZoom = new QAction(themedIcon(QStringLiteral("zoom-original")), tr("Reset &Zoom"), window);
    resetZoom->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    resetZoom->setToolTip(tr("Show the whole timeline (Ctrl+0; R in the plot)"));
    dataflowMode = new QAction(tr("&Dataflow Graph"), window);
    dataflowMode->setCheckable(true);
    dataflowMode->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    dataflowMode->setStatusTip(tr("Show the graph as layered dataflow by module instead of along the timeline"));

    auto* units = new QActionGroup(this);
    binaryUnits = new QAction(tr("&Binary (KiB, MiB, GiB)"), units);
    decimalUnits = new QAction(tr("&Decimal (kB, MB, GB)"), units);
    const bool decimal = AppSettings::units() == ByteUnits::Decimal;
    for (QAction* a : {binaryUnits, decimalUnits}) {
        a->setCheckable(true);
        connect(a, &QAction::triggered, this, [this] {
            const ByteUnits chosen = decimalUnits->isChecked() ? ByteUnits::Decimal : ByteUnits::Binary;
            AppSettings::setUnits(chosen);
            emit unitsChosen(chosen);
        });
    }
    (decimal ? decimalUnits : binaryUnits)->setChecked(true);
}

void MainActions::buildMenus(const QList<QAction*>& panels) {
    QMenuBar* bar = window_->menuBar();
    QMenu* file = bar->addMenu(tr("&File"));
    file->addAction(open);
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    file->addSeparator();
    file->addAction(openSchedule);
    file->addAction(saveSchedule);
    file->addAction(savePlan);
    file->addSeparator();
    file->addAction(exportPlot);
    file->addAction(exportCsv);
    QMenu* exports = file->addMenu(tr("E&xport"));
    exports->addAction(exportMemoryViz);
    exports->addAction(exportPerfetto);
    file->addSeparator();
    file->addAction(quit);

    QMenu* edit = bar->addMenu(tr("&Edit"));
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addAction(resetSchedule);
    edit->addSeparator();
    edit->addAction(find);

    QMenu* view = bar->addMenu(tr("&View"));
    view->addAction(resetZoom);
    view->addAction(dataflowMode);
    QMenu* units = view->addMenu(tr("&Units"));
    units->addAction(binaryUnits);
    units->addAction(decimalUnits);
    view->addSeparator();
    for (QAction* panel : panels) view->addAction(panel);

    QMenu* help = bar->addMenu(tr("&Help"));
    help->addAction(tr("&About fxmem"), window_, [this] {
        QMessageBox::about(
            window_, tr("About fxmem"),
            tr("<b>fxmem</b> shows where the GPU memory of PyTorch FX graphs goes, with the numbers "
               "of Inductor's memory_estimator.py, and lets you reorder a graph to cut its peak.<br><br>"
               "Timeline: hover to scrub, ←/→ step, P jumps to the peak, wheel zooms, drag pans, R resets.<br>"
               "Graph: wheel zooms, Shift+wheel scrolls, Ctrl+wheel changes lane height, drag a node "
               "along time to reschedule it (Shift+drop takes its single-use views along)."));
    });
    updateRecentMenu();
}

void MainActions::update(bool any, bool single, bool edited) {
    saveSchedule->setEnabled(single);
    openSchedule->setEnabled(single);
    resetSchedule->setEnabled(single && edited);
    exportPlot->setEnabled(any);
    exportCsv->setEnabled(any);
    exportMemoryViz->setEnabled(any);
    exportPerfetto->setEnabled(any);
    find->setEnabled(any);
}

void MainActions::addRecent(const QString& path) {
    if (path.isEmpty() || !QFileInfo::exists(path)) return;
    AppSettings::addRecentFile(QFileInfo(path).absoluteFilePath(), kMaxRecent);
    updateRecentMenu();
}

void MainActions::updateRecentMenu() {
    if (!recentMenu_) return;
    recentMenu_->clear();
    const QStringList recent = AppSettings::recentFiles();
    for (int i = 0; i < recent.size(); ++i) {
        const QString path = recent[i];
        QAction* a =
            recentMenu_->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(elided(QFileInfo(path).fileName(), 80)));
        a->setToolTip(path);
        a->setStatusTip(path);
        connect(a, &QAction::triggered, this, [this, path] { emit openRequested(path); });
    }
    if (!recent.isEmpty()) recentMenu_->addSeparator();
    QAction* clear = recentMenu_->addAction(tr("Clear List"), this, [this] {
        AppSettings::clearRecentFiles();
        updateRecentMenu();
    });
    clear->setEnabled(!recent.isEmpty());
}
