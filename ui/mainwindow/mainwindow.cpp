// The remaining wiring: loading and showing a scene, the central area, closing. Actions and menus
// are in MainActions, schedule files and exports in FileCommands, the docks in DockLayout, the
// toolbar in MainToolbar, the views' ties to each other in ViewBinding, the timeline's bands in
// TimelineBands, the status bar in StatusLine.
#include "mainwindow/mainwindow.h"

#include "dataflow/dataflowbinding.h"
#include "fxmem/capture_info.h"
#include "graphview/graphview.h"
#include "inspector/nodeinspector.h"
#include "mainwindow/appsettings.h"
#include "mainwindow/centralarea.h"
#include "mainwindow/docklayout.h"
#include "mainwindow/filecommands.h"
#include "mainwindow/loadbanner.h"
#include "mainwindow/mainactions.h"
#include "mainwindow/maintoolbar.h"
#include "mainwindow/statusline.h"
#include "mainwindow/viewbinding.h"
#include "panels/breakdownpanel.h"
#include "panels/findbar.h"
#include "panels/livestoragepanel.h"
#include "panels/schedulepanel.h"
#include "panels/summarybar.h"
#include "recompute/recomputepanel.h"
#include "schedule/scheduleeditor.h"
#include "sizes/sizesbar.h"
#include "state/viewstate.h"
#include "timeline/qcp.h"
#include "timeline/timelinebinding.h"
#include "timeline/timelinemodebar.h"
#include "timeline/timelineplot.h"
#include "util/text.h"

#include <QAction>
#include <QCloseEvent>
#include <QDragEnterEvent>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QMessageBox>
#include <QMimeData>
#include <QScreen>
#include <QStatusBar>
#include <QUndoStack>

#include <algorithm>

// GUI-thread phases of showing a scene; enable with QT_LOGGING_RULES="fxmem.timing.debug=true".
Q_LOGGING_CATEGORY(lcTiming, "fxmem.timing", QtWarningMsg)

MainWindow::MainWindow(FileLoader loader, QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(QStringLiteral("fxmem"));
    setAcceptDrops(true);
    parts_.loader = new SceneLoader(std::move(loader), this);
    state_ = new ViewState(this);
    buildActions();
    buildWidgets();
    parts_.actions->buildMenus(parts_.docks->toggleActions());
    restoreSettings();

    connect(parts_.loader, &SceneLoader::sceneReady, this, &MainWindow::onSceneReady);
    connect(parts_.loader, &SceneLoader::failed, this, &MainWindow::onLoadFailed);
    connect(parts_.loader, &SceneLoader::cancelled, this,
            [this] { statusBar()->showMessage(tr("Loading cancelled; still showing the previous graph."), 5000); });
    updateActions();
}

MainWindow::~MainWindow() = default;

std::shared_ptr<const Scene> MainWindow::scene() const { return state_->scene(); }
void MainWindow::setBundledExamplesDir(const QString& dir) { files_->setBundledExamplesDir(dir); }
QString MainWindow::scheduleDir() const { return files_->scheduleDir(); }
void MainWindow::setCursorStep(std::int64_t step) { state_->setCursorStep(step); }

QString MainWindow::applyViewOptions(const ViewOptions& options) { return ::applyViewOptions(options, parts_, state_); }

ViewOptionsSettled MainWindow::viewOptionsSettled(const ViewOptions& options) const {
    return ::viewOptionsSettled(options, parts_, state_);
}

void MainWindow::buildActions() {
    auto* actions = parts_.actions = new MainActions(this, state_->history());
    connect(actions, &MainActions::openRequested, this, &MainWindow::openFile);
    connect(actions->resetSchedule, &QAction::triggered, this, [this] { parts_.editor->resetSchedule(); });
    connect(actions->find, &QAction::triggered, this, [this] { parts_.findBar->activate(); });
    connect(actions->resetZoom, &QAction::triggered, this, [this] {
        parts_.graphView->resetZoom(); // every lane in view
        parts_.timeline->resetZoom();  // the whole time axis (the graph view follows)
    });
    state_->setUnits(AppSettings::units());
    connect(actions, &MainActions::unitsChosen, state_, &ViewState::setUnits);
    // Every view that shows bytes follows unitsChanged where it binds to the state; the status
    // line is the window's own.
    connect(state_, &ViewState::unitsChanged, this, [this] { statusLine_->showScene(scene().get()); });
}

void MainWindow::buildWidgets() {
    WindowParts& p = parts_;
    p.toolbar = new MainToolbar(p.actions, this);
    addToolBar(p.toolbar);
    connect(p.toolbar, &MainToolbar::graphChosen, this, &MainWindow::showGraph);
    connect(p.toolbar, &MainToolbar::deviceFilterChosen, this, [this](DeviceFilter filter) {
        if (!scene()) return;
        SceneRequest r = scene()->request;
        r.filter = filter;
        requestScene(r);
    });
    connect(p.toolbar, &MainToolbar::colorModeChosen, this,
            [this](NodeColorMode mode) { parts_.graphView->setColorMode(mode); });
    centre_ = new CentralArea(state_, p);
    setCentralWidget(centre_);
    connect(centre_->banner(), &LoadBanner::countAllDevicesRequested, this, &MainWindow::requestAllDevices);
    connect(p.sizes, &SizesBar::bindingRequested, this, &MainWindow::rebindSizes);
    connect(p.sizes, &SizesBar::deviceMemoryChanged, p.timeline, &TimelinePlot::setDeviceMemory);
    bands_ = new TimelineBands(state_, p.modeBar, p.timeline, this);
    connect(bands_, &TimelineBands::failed, this, [this](const QString& message) {
        statusBar()->showMessage(tr("Stacked timeline: %1").arg(elided(message, 300)), 8000);
    });

    // Right: the side panels and their docks, as the table in sidetabs.cpp lists them.
    p.docks = new DockLayout(this, state_, p);
    connect(p.schedulePanel, &SchedulePanel::graphRequested, this, [this](int graph) { showGraph(graph); });
    connect(p.recompute, &RecomputePanel::pairRequested, this,
            [this](std::shared_ptr<const fxmem::GraphFile> file, int pair) {
                if (!scene() || !files_->maybeKeepSchedule()) return;
                SceneRequest r = scene()->request;
                r.graph = -1;
                r.pair = pair;
                parts_.loader->rebuild(std::move(file), scene()->path, r);
            });

    files_ = p.files = new FileCommands(this, state_, p.editor, p.timeline, p.recompute);
    connect(p.actions->saveSchedule, &QAction::triggered, files_, &FileCommands::saveSchedule);
    connect(p.actions->savePlan, &QAction::triggered, files_, &FileCommands::savePlan);
    connect(p.recompute, &RecomputePanel::currentPlanChanged, this,
            [this] { parts_.actions->savePlan->setEnabled(parts_.recompute->currentPlan() != nullptr); });
    connect(p.actions->openSchedule, &QAction::triggered, files_, &FileCommands::openSchedule);
    connect(p.actions->exportPlot, &QAction::triggered, files_, &FileCommands::exportPlot);
    connect(p.actions->exportCsv, &QAction::triggered, files_, &FileCommands::exportCsv);
    connect(p.actions->exportMemoryViz, &QAction::triggered, files_, &FileCommands::exportMemoryViz);
    connect(p.actions->exportPerfetto, &QAction::triggered, files_, &FileCommands::exportPerfetto);
    connect(state_, &ViewState::orderChanged, this, [this] {
        if (!applyingScene_) updateActions();
    });
    auto* binding = new ViewBinding(p, state_, this);
    connect(binding, &ViewBinding::message, statusBar(), &QStatusBar::showMessage);
    bindDataflow(p, state_);
    connect(p.editor->undoStack(), &QUndoStack::cleanChanged, this, [this](bool clean) { setWindowModified(!clean); });
    connect(state_, &ViewState::orderedLiveFailed, this, [this](const QString& message) {
        statusBar()->showMessage(tr("Live storages of the edited order: %1").arg(elided(message, 300)), 8000);
    });
    statusLine_ = new StatusLine(statusBar(), p.loader);
}

void MainWindow::restoreSettings() {
    parts_.graphView->setColorMode(parts_.toolbar->colorMode());
    AppSettings::forgetDeviceFilter();
    const AppSettings::Layout saved = AppSettings::layout();
    if (!restoreGeometry(saved.geometry)) {
        // A first start: most of the screen, never more than it.
        const QSize avail = screen() ? screen()->availableSize() : QSize(1366, 768);
        resize(std::min(1600, avail.width() * 9 / 10), std::min(1000, avail.height() * 9 / 10));
    }
    restoreState(saved.windowState);
    centre_->restoreSplitter(saved.splitter);
}

void MainWindow::showEmptyHint(const QString& hint) {
    parts_.summary->showHint(hint);
    parts_.timeline->clearProfile();
}

void MainWindow::openFile(const QString& path) {
    if (!files_->maybeKeepSchedule()) return;
    SceneRequest r;
    r.filter = DeviceFilter::NonCpu; // per file: a new file starts as PyTorch counts
    statusBar()->showMessage(tr("Loading %1…").arg(elided(QFileInfo(path).fileName(), 80)));
    rebinding_ = false;
    parts_.loader->open(path, r);
}

void MainWindow::requestScene(SceneRequest request) {
    if (!scene()) return;
    if (!files_->maybeKeepSchedule()) {
        parts_.toolbar->showScene(scene().get()); // back to what is shown
        return;
    }
    rebinding_ = false;
    parts_.loader->rebuild(scene()->file, scene()->path, request, scene()->loaded);
}

void MainWindow::rebindSizes(const std::vector<std::int64_t>& sizes) {
    if (!scene() || !files_->maybeKeepSchedule()) {
        parts_.sizes->bindingFailed(QString());
        return;
    }
    SceneRequest r = scene()->request;
    r.sizes = sizes;
    rebinding_ = true;
    parts_.loader->rebuild(scene()->file, scene()->path, r, scene()->loaded);
}

void MainWindow::requestAllDevices() {
    parts_.toolbar->setDeviceFilter(DeviceFilter::All);
    if (!scene()) return;
    SceneRequest r = scene()->request;
    r.filter = DeviceFilter::All;
    requestScene(r);
}

void MainWindow::showGraph(int graph, int pair) {
    if (!scene()) return;
    SceneRequest r = scene()->request;
    r.graph = pair >= 0 ? -1 : graph;
    r.pair = pair;
    requestScene(r);
}

void MainWindow::onLoadFailed(const QString& path, const QString& message) {
    if (std::exchange(rebinding_, false)) {
        // A size the file's expressions refuse (an overflow, say): said in the bar, the view stays.
        parts_.sizes->bindingFailed(message);
        statusBar()->showMessage(tr("Sizes: %1").arg(elided(message, 300)), 8000);
        emit loadFailed(message);
        return;
    }
    statusBar()->showMessage(tr("Could not open %1").arg(elided(QFileInfo(path).fileName(), 80)), 8000);
    // Not exec(): a nested event loop would stall scrubbing and tests; the window stays usable.
    auto* box = new QMessageBox(QMessageBox::Critical, tr("Cannot open file"),
                                path.isEmpty() ? tr("The graph could not be analysed.")
                                               : tr("Cannot open %1").arg(elided(path, 300)),
                                QMessageBox::Ok, this);
    box->setInformativeText(elided(message, 2000));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowModality(Qt::WindowModal);
    box->open();
    emit loadFailed(message);
}

void MainWindow::onSceneReady(std::shared_ptr<const Scene> scene) {
    Q_ASSERT(QThread::currentThread() == thread());
    QElapsedTimer clock;
    clock.start();
    auto phase = [&](const char* what) {
        qCDebug(lcTiming, "%s: %lld ms", what, static_cast<long long>(clock.restart()));
    };
    rebinding_ = false;
    const std::shared_ptr<const Scene> previous = state_->scene();
    const bool newFile = !previous || previous->loaded != scene->loaded;
    // Other sizes of the graphs shown: the cursor, the selection and the zoom stay where they are.
    const bool rebound = previous && previous->sameGraphs(*scene);
    const std::int64_t keepCursor = state_->cursorStep();
    const NodeRef keepNode = state_->selectedNode();
    const QString keepModule = state_->selectedModule();
    const QCPRange keepRange = parts_.timeline->chart()->xAxis->range();
    applyingScene_ = true;
    if (newFile) parts_.actions->addRecent(scene->path);
    setWindowFilePath(scene->path);
    const std::string target = scene->file ? fxmem::capture_info(*scene->file).summary() : std::string();
    setWindowTitle(elided(QFileInfo(scene->path).fileName(), 80) % QStringLiteral("[*]") %
                   (target.empty() ? QString() : QStringLiteral(" (") % QString::fromStdString(target) % u')') %
                   QStringLiteral(" — fxmem"));

    parts_.editor->setEnabled(!scene->empty() && !scene->joined());
    state_->setScene(scene); // the schedule, the views and the panels follow
    parts_.toolbar->showScene(scene.get());
    bands_->showScene(*scene, newFile, rebound);
    phase("views");
    applyingScene_ = false;
    centre_->banner()->showScene(scene);
    statusLine_->showScene(scene.get());
    updateActions();
    // Sizes whose FLOPs pass 2^61 are shown (the memory is exact), with what is unknown.
    if (const std::string& warning = scene->file->symbolic.bind_warning; !warning.empty())
        statusBar()->showMessage(tr("Sizes: %1").arg(elided(warning, 400)), 10000);
    if (rebound) {
        parts_.timeline->setXRange(keepRange.lower, keepRange.upper);
        if (!keepModule.isNull()) state_->selectModule(keepModule);
        if (keepNode.valid()) state_->selectNode(keepNode, false);
        state_->setCursorStep(keepCursor >= 0 ? keepCursor : static_cast<std::int64_t>(scene->peakStep));
        emit sceneShown();
        return;
    }
    // Start where the question usually is: the peak, and the node that makes it.
    state_->setCursorStep(static_cast<std::int64_t>(scene->peakStep));
    if (const Scene::Where w = scene->locate(static_cast<std::int64_t>(scene->peakStep)); w.segment >= 0 && w.step > 0)
        state_->selectNode({w.segment, state_->nodeAt(w)}, false);
    phase("live table at the peak");
    statusBar()->showMessage(tr("Loaded %1").arg(elided(QFileInfo(scene->path).fileName(), 80)), 4000);
    parts_.timeline->setFocus();
    emit sceneShown();
}

void MainWindow::updateActions() {
    const auto& scene = state_->scene();
    const bool any = scene && !scene->empty();
    parts_.actions->update(any, any && !scene->joined(), state_->orderEdited());
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!files_->maybeKeepSchedule()) {
        event->ignore();
        return;
    }
    AppSettings::setLayout({saveGeometry(), saveState(), centre_->saveSplitter()});
    parts_.loader->cancel();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.first().isLocalFile()) return;
    event->acceptProposedAction();
    openFile(urls.first().toLocalFile());
}

void MainWindow::changeEvent(QEvent* event) {
    QMainWindow::changeEvent(event);
    if (event->type() != QEvent::PaletteChange) return;
    centre_->banner()->showScene(scene());
    parts_.livePanel->refresh();
}
