// Over 400 lines because it is the remaining wiring: loading and showing a scene, the stacked
// bands job, the banner and the status bar. Actions and menus are in MainActions, schedule
// files and exports in FileCommands, the docks in DockLayout, the toolbar in MainToolbar.
#include "mainwindow/mainwindow.h"

#include "inspector/nodeinspector.h"
#include "jobs/jobtracker.h"
#include "mainwindow/appsettings.h"
#include "mainwindow/docklayout.h"
#include "mainwindow/filecommands.h"
#include "mainwindow/mainactions.h"
#include "mainwindow/maintoolbar.h"
#include "models/livestoragemodel.h"
#include "panels/breakdownpanel.h"
#include "panels/findbar.h"
#include "panels/livestoragepanel.h"
#include "panels/schedulepanel.h"
#include "panels/summarybar.h"
#include "recompute/livetablemenu.h"
#include "recompute/recomputepanel.h"
#include "schedule/ordercompare.h"
#include "schedule/scheduleeditor.h"
#include "state/viewstate.h"
#include "timeline/stackedbands.h"
#include "timeline/timelinebinding.h"
#include "timeline/timelinemodebar.h"
#include "timeline/timelineplot.h"
#include "util/colors.h"
#include "util/text.h"
#include "util/units.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLoggingCategory>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QToolBar>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>

// GUI-thread phases of showing a scene; enable with QT_LOGGING_RULES="fxmem.timing.debug=true".
Q_LOGGING_CATEGORY(lcTiming, "fxmem.timing", QtWarningMsg)

namespace {
// A label that never widens its window: elided text in, no minimum width of its own.
QLabel* shrinkingLabel() {
    auto* l = new QLabel;
    l->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    return l;
}
} // namespace

MainWindow::MainWindow(FileLoader loader, QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(QStringLiteral("fxmem"));
    setAcceptDrops(true);
    loader_ = new SceneLoader(std::move(loader), this);
    state_ = new ViewState(this);
    buildActions();
    buildWidgets();
    buildMenus();
    restoreSettings();

    connect(loader_, &SceneLoader::sceneReady, this, &MainWindow::onSceneReady);
    connect(loader_, &SceneLoader::failed, this, &MainWindow::onLoadFailed);
    connect(loader_, &SceneLoader::progress, this, [this](double fraction, const QString& stage) {
        progress_->setValue(static_cast<int>(fraction * 1000));
        progress_->setFormat(stage % QStringLiteral(" %p%"));
    });
    connect(loader_, &SceneLoader::busyChanged, this, [this](bool busy) {
        progress_->setVisible(busy);
        cancelButton_->setVisible(busy);
        if (busy) progress_->setValue(0);
    });
    connect(loader_, &SceneLoader::cancelled, this,
            [this] { statusBar()->showMessage(tr("Loading cancelled; still showing the previous graph."), 5000); });
    updateActions();
}

MainWindow::~MainWindow() = default;

std::shared_ptr<const Scene> MainWindow::scene() const { return state_->scene(); }
LiveStorageModel* MainWindow::liveModel() const { return livePanel_->model(); }
LiveStorageProxy* MainWindow::liveProxy() const { return livePanel_->proxy(); }
QLabel* MainWindow::summaryLabel() const { return summary_; }
QAction* MainWindow::undoAction() const { return actions_->undo; }
SidePanelWidth* MainWindow::sidePanelWidth() const { return docks_->sideWidth(); }
QComboBox* MainWindow::graphCombo() const { return toolbar_->graphCombo(); }
void MainWindow::setBundledExamplesDir(const QString& dir) { files_->setBundledExamplesDir(dir); }
QString MainWindow::scheduleDir() const { return files_->scheduleDir(); }
QAction* MainWindow::redoAction() const { return actions_->redo; }
QAction* MainWindow::resetScheduleAction() const { return actions_->resetSchedule; }
QLabel* MainWindow::liveTotalLabel() const { return livePanel_->footerLabel(); }
QLabel* MainWindow::liveHeaderLabel() const { return livePanel_->headerLabel(); }

void MainWindow::buildActions() {
    actions_ = new MainActions(this, state_->schedule()->undoStack());
    connect(actions_, &MainActions::openRequested, this, &MainWindow::openFile);
    connect(actions_->resetSchedule, &QAction::triggered, this, [this] { editor_->resetSchedule(); });
    connect(actions_->find, &QAction::triggered, this, [this] { findBar_->activate(); });
    connect(actions_->resetZoom, &QAction::triggered, this, [this] {
        graphView_->resetZoom(); // every lane in view
        timeline_->resetZoom();  // the whole time axis (the graph view follows)
    });
    connect(actions_, &MainActions::unitsChanged, this, [this] {
        timeline_->applyPalette();
        livePanel_->refresh();
        summary_->refresh();
        updateStatus();
    });
}

void MainWindow::buildWidgets() {
    toolbar_ = new MainToolbar(actions_, this);
    addToolBar(toolbar_);
    connect(toolbar_, &MainToolbar::graphChosen, this, &MainWindow::showGraph);
    connect(toolbar_, &MainToolbar::deviceFilterChosen, this, [this](DeviceFilter filter) {
        if (!scene()) return;
        SceneRequest r = scene()->request;
        r.filter = filter;
        requestScene(r);
    });
    connect(toolbar_, &MainToolbar::colorModeChosen, this,
            [this](NodeColorMode mode) { graphView_->setColorMode(mode); });

    // Centre: banner, summary, find bar, graph view over the timeline.
    auto* central = new QWidget;
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    banner_ = new QLabel;
    banner_->setWordWrap(true);
    banner_->setMargin(8);
    banner_->setVisible(false);
    banner_->setTextFormat(Qt::RichText);
    banner_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    connect(banner_, &QLabel::linkActivated, this, [this] {
        toolbar_->setDeviceFilter(DeviceFilter::All);
        if (!scene()) return;
        SceneRequest r = scene()->request;
        r.filter = DeviceFilter::All;
        requestScene(r);
    });
    layout->addWidget(banner_);
    summary_ = new SummaryBar(state_);
    layout->addWidget(summary_);
    findBar_ = new FindBar(state_);
    layout->addWidget(findBar_);

    splitter_ = new QSplitter(Qt::Vertical);
    splitter_->setObjectName(QStringLiteral("centralSplitter"));
    splitter_->setChildrenCollapsible(false);
    graphView_ = new GraphView;
    timeline_ = new TimelinePlot;
    timeline_->setMinimumHeight(160);
    splitter_->addWidget(graphView_);
    // The timeline with its mode bar (total, stacked by role, stacked by module) above it.
    auto* timelinePane = new QWidget;
    auto* tl = new QVBoxLayout(timelinePane);
    tl->setContentsMargins(0, 0, 0, 0);
    tl->setSpacing(0);
    modeBar_ = new TimelineModeBar;
    tl->addWidget(modeBar_);
    tl->addWidget(timeline_, 1);
    splitter_->addWidget(timelinePane);
    bandJobs_ = new JobTracker(this);
    connect(modeBar_, &TimelineModeBar::modeChanged, this, [this] { updateBands(); });
    connect(bandJobs_, &JobTracker::failed, this, [this](const QString& message) {
        statusBar()->showMessage(tr("Stacked timeline: %1").arg(elided(message, 300)), 8000);
    });
    splitter_->setStretchFactor(0, 3);
    splitter_->setStretchFactor(1, 2);
    layout->addWidget(splitter_, 1);
    setCentralWidget(central);

    graphView_->setState(state_);
    connect(timeline_, &TimelinePlot::xRangeChanged, graphView_, &GraphView::setXRange);
    connect(timeline_, &TimelinePlot::plotAreaChanged, graphView_, &GraphView::setPlotArea);
    connect(graphView_, &GraphView::xRangeChanged, timeline_, &TimelinePlot::setXRange);
    connect(graphView_, &GraphView::nodeHovered, this,
            [this](NodeRef ref) { timeline_->setCursorStep(graphView_->stepOf(ref)); });
    for (auto signal : {&GraphView::moveRequested, &GraphView::moveWithInputsRequested})
        connect(graphView_, signal, this, [this, signal](std::size_t from, std::size_t to) {
            QString why;
            const bool with = signal == &GraphView::moveWithInputsRequested;
            if (with ? editor_->moveNodeWithInputs(from, to, &why) : editor_->moveNode(from, to, &why)) return;
            // A view input that pins the node: Shift+drop takes it along.
            if (!with && !state_->schedule()->companionsToOffer(from, to).empty()) why += tr(" (Shift+drop)");
            graphView_->showRefusal(why);
            statusBar()->showMessage(why, 8000);
        });
    connect(findBar_, &FindBar::matchesChanged, graphView_,
            [this](const std::vector<NodeRef>& m) { graphView_->setSearchMatches(m); });
    connect(findBar_, &FindBar::dismissed, graphView_, qOverload<>(&QWidget::setFocus));

    // Right: the storages live at the cursor, then the inspector and the schedule dock.
    livePanel_ = new LiveStoragePanel(state_);
    connect(livePanel_, &LiveStoragePanel::rowsChanged, graphView_,
            [this] { graphView_->setLiveNodes(livePanel_->liveProducers()); });
    inspector_ = new NodeInspector;
    inspector_->setState(state_);
    editor_ = new ScheduleEditor(state_->schedule());
    schedulePanel_ = new SchedulePanel(state_, editor_);
    connect(schedulePanel_, &SchedulePanel::graphRequested, this, [this](int graph) { showGraph(graph); });
    breakdown_ = new BreakdownPanel(state_);
    docks_ = new DockLayout(this, livePanel_, inspector_, schedulePanel_, breakdown_);
    recompute_ = new RecomputePanel(state_);
    docks_->addRecompute(recompute_);
    connect(recompute_, &RecomputePanel::pairRequested, this,
            [this](std::shared_ptr<const fxmem::GraphFile> file, int pair) {
                if (!scene() || !files_->maybeKeepSchedule()) return;
                SceneRequest r = scene()->request;
                r.graph = -1;
                r.pair = pair;
                loader_->rebuild(std::move(file), scene()->path, r);
            });
    connect(recompute_, &RecomputePanel::rematEdited, this,
            [this](const QString& message) { statusBar()->showMessage(message, 10000); });
    attachRematMenu(livePanel_->table(), recompute_);
    inspector_->setNote([this](const Scene& scene, NodeRef ref) { return recompute_->recomputedNote(scene, ref); });
    const auto markRecomputed = [this] {
        if (const auto& s = scene()) graphView_->setRecomputedNodes(recompute_->recomputedNodes(*s));
    };
    connect(state_, &ViewState::sceneChanged, this, markRecomputed);
    connect(recompute_, &RecomputePanel::pointsChanged, this, markRecomputed);
    files_ = new FileCommands(this, state_, editor_, timeline_);
    connect(actions_->saveSchedule, &QAction::triggered, files_, &FileCommands::saveSchedule);
    connect(actions_->openSchedule, &QAction::triggered, files_, &FileCommands::openSchedule);
    connect(actions_->exportPlot, &QAction::triggered, files_, &FileCommands::exportPlot);
    connect(actions_->exportCsv, &QAction::triggered, files_, &FileCommands::exportCsv);
    connect(state_, &ViewState::orderChanged, this, &MainWindow::onScheduleChanged);
    editor_->setState(state_);
    bindTimeline(timeline_, state_, editor_);
    connect(editor_->undoStack(), &QUndoStack::cleanChanged, this, [this](bool clean) { setWindowModified(!clean); });
    connect(state_, &ViewState::orderedLiveFailed, this, [this](const QString& message) {
        statusBar()->showMessage(tr("Live storages of the edited order: %1").arg(elided(message, 300)), 8000);
    });

    // Status bar: file, then loading progress with Cancel.
    statusFile_ = shrinkingLabel();
    statusBar()->addPermanentWidget(statusFile_, 1);
    progress_ = new QProgressBar;
    progress_->setRange(0, 1000);
    progress_->setMaximumWidth(220);
    progress_->setVisible(false);
    statusBar()->addPermanentWidget(progress_);
    cancelButton_ = new QToolButton;
    cancelButton_->setText(tr("Cancel"));
    cancelButton_->setVisible(false);
    connect(cancelButton_, &QToolButton::clicked, loader_, &SceneLoader::cancel);
    statusBar()->addPermanentWidget(cancelButton_);
}

void MainWindow::buildMenus() { actions_->buildMenus(docks_->toggleActions()); }

void MainWindow::restoreSettings() {
    graphView_->setColorMode(toolbar_->colorMode());
    AppSettings::forgetDeviceFilter();
    const AppSettings::Layout saved = AppSettings::layout();
    if (!restoreGeometry(saved.geometry)) {
        // A first start: most of the screen, never more than it.
        const QSize avail = screen() ? screen()->availableSize() : QSize(1366, 768);
        resize(std::min(1600, avail.width() * 9 / 10), std::min(1000, avail.height() * 9 / 10));
    }
    restoreState(saved.windowState);
    if (!splitter_->restoreState(saved.splitter)) splitter_->setSizes({560, 340});
}

void MainWindow::showEmptyHint(const QString& hint) {
    summary_->showHint(hint);
    timeline_->clearProfile();
}

void MainWindow::openFile(const QString& path) {
    if (!files_->maybeKeepSchedule()) return;
    SceneRequest r;
    r.filter = DeviceFilter::NonCpu; // per file: a new file starts as PyTorch counts
    statusBar()->showMessage(tr("Loading %1…").arg(elided(QFileInfo(path).fileName(), 80)));
    loader_->open(path, r);
}

void MainWindow::requestScene(SceneRequest request) {
    if (!scene()) return;
    if (!files_->maybeKeepSchedule()) {
        toolbar_->showScene(scene().get()); // back to what is shown
        return;
    }
    loader_->rebuild(scene()->file, scene()->path, request);
}

void MainWindow::showGraph(int graph, int pair) {
    if (!scene()) return;
    SceneRequest r = scene()->request;
    r.graph = pair >= 0 ? -1 : graph;
    r.pair = pair;
    requestScene(r);
}

void MainWindow::onLoadFailed(const QString& path, const QString& message) {
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
    const bool newFile = !state_->scene() || state_->scene()->file != scene->file;
    applyingScene_ = true;
    if (newFile) actions_->addRecent(scene->path);
    setWindowFilePath(scene->path);
    setWindowTitle(elided(QFileInfo(scene->path).fileName(), 80) % QStringLiteral("[*] — fxmem"));

    const bool single = !scene->empty() && !scene->joined();
    editor_->setEnabled(single);
    state_->setScene(scene); // the schedule, the views and the panels follow
    toolbar_->showScene(scene.get());
    {
        // Stacked by role by default for a real model that says (or lets us derive) what its
        // storages are; the plain curve for small graphs.
        std::uint32_t depth = 0;
        bool modules = false;
        for (const Segment& s : scene->segments) {
            depth = std::max(depth, s.attribution->tree().max_depth());
            modules = modules || s.attribution->tree().size() > 1;
        }
        const bool roles = scene->roles && scene->roles->source != fxmem::RoleSource::Derived;
        modeBar_->setMaxDepth(static_cast<int>(depth));
        const QSignalBlocker block(modeBar_);
        if (newFile) {
            modeBar_->setMode(TimelineModeBar::defaultFor(scene->nodeCount(), roles || modules));
            modeBar_->setDepth(static_cast<int>(std::max(1u, scene->layerDepth())));
        }
        updateBands();
    }
    phase("views");
    applyingScene_ = false;
    updateBanner();
    updateStatus();
    updateActions();
    // Start where the question usually is: the peak, and the node that makes it.
    state_->setCursorStep(static_cast<std::int64_t>(scene->peakStep));
    if (const Scene::Where w = scene->locate(static_cast<std::int64_t>(scene->peakStep)); w.segment >= 0 && w.step > 0)
        state_->selectNode({w.segment, state_->nodeAt(w)}, false);
    phase("live table at the peak");
    statusBar()->showMessage(tr("Loaded %1").arg(elided(QFileInfo(scene->path).fileName(), 80)), 4000);
    timeline_->setFocus();
    emit sceneShown();
}

void MainWindow::updateBands() {
    const auto& scene = state_->scene();
    const TimelineModeBar::Mode mode = modeBar_->mode();
    if (!scene || scene->empty() || !scene->roles || mode == TimelineModeBar::Mode::Total) {
        bandJobs_->cancel();
        timeline_->clearStackedBands();
        return;
    }
    // O(N + S + P * groups): off the GUI thread; a newer scene or mode supersedes it.
    const fxmem::GroupBy by = mode == TimelineModeBar::Mode::ByRole ? fxmem::GroupBy::Role : fxmem::GroupBy::Module;
    const auto depth = static_cast<std::uint32_t>(modeBar_->depth());
    bandJobs_->start<std::vector<TimelinePlot::Band>>(
        [scene, by, depth](JobContext& job) {
            job.throwIfCancelled();
            return std::make_shared<const std::vector<TimelinePlot::Band>>(
                StackedBands::forScene(*scene, *scene->roles, by, depth));
        },
        [this, scene](std::shared_ptr<const std::vector<TimelinePlot::Band>> bands) {
            if (scene != state_->scene()) return;
            timeline_->setStackedBands(*bands);
        });
}

void MainWindow::updateBanner() {
    const auto& scene = state_->scene();
    bool counted = false;
    if (scene)
        for (const Segment& s : scene->segments) counted = counted || s.analysis->hasCountedStorage();
    banner_->setVisible(scene && !scene->empty() && !counted);
    if (!banner_->isVisible()) return;
    const QPalette pal = palette();
    const QColor bg = colors::mix(pal.color(QPalette::Window), colors::live(pal), 0.3);
    banner_->setStyleSheet(
        QStringLiteral("background:%1; color:%2").arg(bg.name(), pal.color(QPalette::WindowText).name()));
    banner_->setText(scene->request.filter == DeviceFilter::NonCpu
                         ? tr("<b>This graph holds only CPU storages.</b> PyTorch's estimator counts non-CPU storages "
                              "only, so every number here is 0. <a href=\"all\">Count all devices</a>")
                         : tr("<b>This graph allocates no storage.</b>"));
}

void MainWindow::setCursorStep(std::int64_t step) { state_->setCursorStep(step); }

QString MainWindow::applyViewOptions(const ViewOptions& options) {
    const auto& scene = state_->scene();
    if (!scene) return tr("no graph is shown");
    if (options.timelineMode) {
        if (options.depth) modeBar_->setDepth(*options.depth);
        modeBar_->setMode(*options.timelineMode);
    }
    if (options.collapseDepth) graphView_->setGroupDepth(*options.collapseDepth);
    if (options.step) setCursorStep(*options.step);
    if (!options.selectModule.isEmpty()) {
        const std::string wanted = options.selectModule.toStdString();
        bool known = false;
        for (const Segment& seg : scene->segments)
            known = known || seg.attribution->tree().find(wanted) != fxmem::ModuleTree::npos;
        if (!known) return tr("the shown graph has no module named '%1'").arg(options.selectModule);
        state_->selectModule(options.selectModule);
    }
    const auto noSchedule = [this](const QString& name) {
        return tr("the shown graph has no schedule named '%1' (it has: %2)")
            .arg(name, editor_->sourceNames().join(QStringLiteral(", ")));
    };
    if (!options.schedule.isEmpty() && !editor_->pickSchedule(options.schedule)) return noSchedule(options.schedule);
    if (!options.compare.isEmpty()) {
        const int b = static_cast<int>(editor_->sourceNames().indexOf(options.compare));
        if (b < 0) return noSchedule(options.compare);
        editor_->setComparison(0, b);
    }
    if (options.tab) docks_->raise(*options.tab);
    if (options.findPlan) {
        const auto& graphs = scene->file->graphs;
        if (std::none_of(graphs.begin(), graphs.end(),
                         [](const fxmem::Graph& g) { return g.kind == fxmem::GraphKind::Joint; }))
            return tr("the file has no joint graph to search a recompute plan on (fxmem_export.sweep writes one)");
        recompute_->findPlan(-1, true);
    }
    return {};
}

void MainWindow::onScheduleChanged() {
    if (!applyingScene_) updateActions();
}

void MainWindow::updateStatus() {
    const auto& scene = state_->scene();
    if (!scene) {
        statusFile_->clear();
        return;
    }
    statusFile_->setText(tr("%1 · %2 · %L3 nodes · peak %4")
                             .arg(elided(QFileInfo(scene->path).fileName(), 60), elided(scene->title(), 60))
                             .arg(scene->nodeCount())
                             .arg(formatBytes(scene->peak)));
    statusFile_->setToolTip(elided(scene->path, 1000));
}

void MainWindow::updateActions() {
    const auto& scene = state_->scene();
    const bool any = scene && !scene->empty();
    actions_->update(any, any && !scene->joined(), state_->orderEdited());
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!files_->maybeKeepSchedule()) {
        event->ignore();
        return;
    }
    AppSettings::setLayout({saveGeometry(), saveState(), splitter_->saveState()});
    loader_->cancel();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls() && !event->mimeData()->urls().isEmpty() &&
        event->mimeData()->urls().first().isLocalFile())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.first().isLocalFile()) return;
    event->acceptProposedAction();
    openFile(urls.first().toLocalFile());
}

void MainWindow::changeEvent(QEvent* event) {
    QMainWindow::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        updateBanner();
        livePanel_->refresh();
    }
}
