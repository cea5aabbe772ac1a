#include "mainwindow/mainwindow.h"

#include "export/profilecsv.h"
#include "inspector/nodeinspector.h"
#include "models/livestoragemodel.h"
#include "panels/breakdownpanel.h"
#include "panels/findbar.h"
#include "panels/livestoragepanel.h"
#include "panels/schedulepanel.h"
#include "panels/summarybar.h"
#include "recompute/livetablemenu.h"
#include "recompute/recomputepanel.h"
#include "mainwindow/appsettings.h"
#include "mainwindow/docklayout.h"
#include "mainwindow/mainactions.h"
#include "schedule/ordercompare.h"
#include "schedule/scheduleeditor.h"
#include "state/viewstate.h"
#include "jobs/jobtracker.h"
#include "timeline/plotexport.h"
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
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLoggingCategory>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QSaveFile>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QToolBar>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>

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
QAction* MainWindow::redoAction() const { return actions_->redo; }
QAction* MainWindow::resetScheduleAction() const { return actions_->resetSchedule; }
QLabel* MainWindow::liveTotalLabel() const { return livePanel_->footerLabel(); }
QLabel* MainWindow::liveHeaderLabel() const { return livePanel_->headerLabel(); }

void MainWindow::buildActions() {
    actions_ = new MainActions(this, state_->schedule()->undoStack());
    connect(actions_, &MainActions::openRequested, this, &MainWindow::openFile);
    connect(actions_->saveSchedule, &QAction::triggered, this, &MainWindow::saveSchedule);
    connect(actions_->openSchedule, &QAction::triggered, this, &MainWindow::openSchedule);
    connect(actions_->exportPlot, &QAction::triggered, this, &MainWindow::exportPlot);
    connect(actions_->exportCsv, &QAction::triggered, this, &MainWindow::exportCsv);
    connect(actions_->resetSchedule, &QAction::triggered, this, [this] { editor_->resetSchedule(); });
    connect(actions_->find, &QAction::triggered, this, [this] { findBar_->activate(); });
    connect(actions_->resetZoom, &QAction::triggered, this, [this] {
        graphView_->resetZoom();  // every lane in view
        timeline_->resetZoom();   // the whole time axis (the graph view follows)
    });
    connect(actions_, &MainActions::unitsChanged, this, [this] {
        timeline_->applyPalette();
        livePanel_->refresh();
        summary_->refresh();
        updateStatus();
    });
}

void MainWindow::buildWidgets() {
    // Toolbar: what to show and how. Combos size to a few characters, not to the longest name.
    QToolBar* tb = addToolBar(tr("Main"));
    tb->setObjectName(QStringLiteral("mainToolbar"));
    tb->setMovable(false);
    tb->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    tb->addAction(actions_->open);
    tb->addSeparator();
    tb->addWidget(new QLabel(tr(" Graph ")));
    graphCombo_ = new QComboBox;
    graphCombo_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    graphCombo_->setMinimumContentsLength(22);
    graphCombo_->setToolTip(tr("Graph of the file to show; a forward/backward pair can be shown joined"));
    tb->addWidget(graphCombo_);
    connect(graphCombo_, &QComboBox::activated, this, [this](int index) {
        const QPoint choice = graphCombo_->itemData(index).toPoint();
        showGraph(choice.x(), choice.y());
    });
    tb->addWidget(new QLabel(tr("  Devices ")));
    deviceCombo_ = new QComboBox;
    deviceCombo_->addItem(tr("Non-CPU (as PyTorch)"));
    deviceCombo_->addItem(tr("All devices"));
    deviceCombo_->setToolTip(tr("Which storages count: PyTorch's estimator ignores CPU storages"));
    tb->addWidget(deviceCombo_);
    connect(deviceCombo_, &QComboBox::activated, this, [this] {
        AppSettings::setDeviceFilter(deviceCombo_->currentIndex() == 1 ? DeviceFilter::All : DeviceFilter::NonCpu);
        if (!scene()) return;
        SceneRequest r = scene()->request;
        r.filter = deviceCombo_->currentIndex() == 1 ? DeviceFilter::All : DeviceFilter::NonCpu;
        requestScene(r);
    });
    tb->addWidget(new QLabel(tr("  Colour ")));
    colorCombo_ = new QComboBox;
    colorCombo_->setObjectName(QStringLiteral("colorCombo"));
    // The graph view's modes, its default (op category) first.
    colorCombo_->addItem(tr("By op category"), QVariant::fromValue(static_cast<int>(GraphView::ColorMode::OpCategory)));
    colorCombo_->addItem(tr("By op kind"), QVariant::fromValue(static_cast<int>(GraphView::ColorMode::OpKind)));
    colorCombo_->addItem(tr("By memory change"), QVariant::fromValue(static_cast<int>(GraphView::ColorMode::MemoryChange)));
    colorCombo_->setToolTip(tr("How the graph view colours its nodes (the legend under it says what each colour means)"));
    tb->addWidget(colorCombo_);
    connect(colorCombo_, &QComboBox::currentIndexChanged, this, [this](int i) {
        graphView_->setColorMode(static_cast<GraphView::ColorMode>(colorCombo_->itemData(i).toInt()));
        AppSettings::setNodeColorMode(static_cast<NodeColorMode>(colorCombo_->itemData(i).toInt()));
    });
    tb->addSeparator();
    tb->addAction(actions_->resetZoom);
    tb->addAction(actions_->exportPlot);

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
        deviceCombo_->setCurrentIndex(1);
        emit deviceCombo_->activated(1);
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
    connect(graphView_, &GraphView::nodeHovered, this, [this](NodeRef ref) { timeline_->setCursorStep(graphView_->stepOf(ref)); });
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
    connect(findBar_, &FindBar::matchesChanged, graphView_, [this](const std::vector<NodeRef>& m) { graphView_->setSearchMatches(m); });
    connect(findBar_, &FindBar::dismissed, graphView_, qOverload<>(&QWidget::setFocus));

    // Right: the storages live at the cursor, then the inspector and the schedule dock.
    livePanel_ = new LiveStoragePanel(state_);
    connect(livePanel_, &LiveStoragePanel::rowsChanged, graphView_, [this] { graphView_->setLiveNodes(livePanel_->liveProducers()); });
    inspector_ = new NodeInspector;
    inspector_->setState(state_);
    editor_ = new ScheduleEditor(state_->schedule());
    schedulePanel_ = new SchedulePanel(state_, editor_);
    connect(schedulePanel_, &SchedulePanel::graphRequested, this, [this](int graph) { showGraph(graph); });
    breakdown_ = new BreakdownPanel(state_);
    docks_ = new DockLayout(this, livePanel_, inspector_, schedulePanel_, breakdown_);
    recompute_ = new RecomputePanel(state_);
    docks_->addRecompute(recompute_);
    connect(recompute_, &RecomputePanel::pairRequested, this, [this](std::shared_ptr<const fxmem::GraphFile> file, int pair) {
        if (!scene() || !maybeKeepSchedule()) return;
        SceneRequest r = scene()->request;
        r.graph = -1;
        r.pair = pair;
        loader_->rebuild(std::move(file), scene()->path, r);
    });
    connect(recompute_, &RecomputePanel::rematEdited, this, [this](const QString& message) { statusBar()->showMessage(message, 10000); });
    attachRematMenu(livePanel_->table(), recompute_);
    inspector_->setNote([this](const Scene& scene, NodeRef ref) { return recompute_->recomputedNote(scene, ref); });
    const auto markRecomputed = [this] {
        if (const auto& s = scene()) graphView_->setRecomputedNodes(recompute_->recomputedNodes(*s));
    };
    connect(state_, &ViewState::sceneChanged, this, markRecomputed);
    connect(recompute_, &RecomputePanel::pointsChanged, this, markRecomputed);
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

void MainWindow::buildMenus() {
    actions_->buildMenus(docks_->toggleActions());
}

void MainWindow::restoreSettings() {
    deviceCombo_->setCurrentIndex(AppSettings::deviceFilter() == DeviceFilter::All ? 1 : 0);
    colorCombo_->setCurrentIndex(std::max(colorCombo_->findData(static_cast<int>(AppSettings::nodeColorMode())), 0));
    graphView_->setColorMode(static_cast<GraphView::ColorMode>(colorCombo_->currentData().toInt()));
    scheduleDir_ = AppSettings::scheduleDir();
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
    if (!maybeKeepSchedule()) return;
    SceneRequest r;
    r.filter = deviceCombo_->currentIndex() == 1 ? DeviceFilter::All : DeviceFilter::NonCpu;
    statusBar()->showMessage(tr("Loading %1…").arg(elided(QFileInfo(path).fileName(), 80)));
    loader_->open(path, r);
}

void MainWindow::requestScene(SceneRequest request) {
    if (!scene()) return;
    if (!maybeKeepSchedule()) {
        fillGraphCombo();  // back to what is shown
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
                                path.isEmpty() ? tr("The graph could not be analysed.") : tr("Cannot open %1").arg(elided(path, 300)),
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
    auto phase = [&](const char* what) { qCDebug(lcTiming, "%s: %lld ms", what, static_cast<long long>(clock.restart())); };
    const bool newFile = !state_->scene() || state_->scene()->file != scene->file;
    applyingScene_ = true;
    if (newFile) actions_->addRecent(scene->path);
    setWindowFilePath(scene->path);
    setWindowTitle(elided(QFileInfo(scene->path).fileName(), 80) % QStringLiteral("[*] — fxmem"));

    const bool single = !scene->empty() && !scene->joined();
    editor_->setEnabled(single);
    state_->setScene(scene);  // the schedule, the views and the panels follow
    fillGraphCombo();
    deviceCombo_->setCurrentIndex(scene->request.filter == DeviceFilter::All ? 1 : 0);
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
            return std::make_shared<const std::vector<TimelinePlot::Band>>(StackedBands::forScene(*scene, *scene->roles, by, depth));
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
    banner_->setStyleSheet(QStringLiteral("background:%1; color:%2").arg(bg.name(), pal.color(QPalette::WindowText).name()));
    banner_->setText(scene->request.filter == DeviceFilter::NonCpu
                         ? tr("<b>This graph holds only CPU storages.</b> PyTorch's estimator counts non-CPU storages "
                              "only, so every number here is 0. <a href=\"all\">Count all devices</a>")
                         : tr("<b>This graph allocates no storage.</b>"));
}

void MainWindow::fillGraphCombo() {
    graphCombo_->clear();
    if (!scene()) return;
    const fxmem::GraphFile& f = *scene()->file;
    for (std::size_t g = 0; g < f.graphs.size(); ++g)
        graphCombo_->addItem(tr("%1  (%2, %L3 nodes)")
                                 .arg(elided(f.graphs[g].name, 60), toQString(fxmem::to_string(f.graphs[g].kind)))
                                 .arg(f.graphs[g].size()),
                             QPoint(static_cast<int>(g), -1));
    for (std::size_t p = 0; p < f.pairs.size(); ++p)
        graphCombo_->addItem(tr("%1 + %2  (pair, joined)")
                                 .arg(elided(f.graphs[f.pairs[p].forward].name, 40), elided(f.graphs[f.pairs[p].backward].name, 40)),
                             QPoint(-1, static_cast<int>(p)));
    const QPoint current(scene()->request.pair >= 0 ? -1 : scene()->request.graph, scene()->request.pair);
    graphCombo_->setCurrentIndex(std::max(0, graphCombo_->findData(current)));
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
        for (const Segment& seg : scene->segments) known = known || seg.attribution->tree().find(wanted) != fxmem::ModuleTree::npos;
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
    if (options.findPlan) recompute_->findPlan(-1, true);
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

bool MainWindow::maybeKeepSchedule() {
    if (!editor_->isModified()) return true;
    const auto answer = QMessageBox::warning(this, tr("Unsaved schedule"),
                                             tr("The edited schedule has not been saved. Save it first?"),
                                             QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Cancel) return false;
    if (answer == QMessageBox::Save) {
        saveSchedule();
        return !editor_->isModified();
    }
    return true;
}

QString MainWindow::scheduleDir() const {
    if (!scheduleDir_.isEmpty() && QFileInfo(scheduleDir_).isDir()) return scheduleDir_;
    const auto& scene = state_->scene();
    if (scene && !scene->path.isEmpty()) {
        const QFileInfo dir(QFileInfo(scene->path).absolutePath());
        const bool bundled = !bundledDir_.isEmpty() && dir.canonicalFilePath() == QFileInfo(bundledDir_).canonicalFilePath();
        if (dir.isDir() && dir.isWritable() && !bundled) return dir.absoluteFilePath();
    }
    return QDir::homePath();
}

void MainWindow::saveSchedule() {
    const auto& scene = state_->scene();
    if (!scene || scene->joined() || scene->empty()) return;
    const QString suggested = scheduleDir() % QLatin1Char('/') % elided(scene->segments.front().analysis->graph().name, 60) %
                              QStringLiteral(".schedule.json");
    const QString path = QFileDialog::getSaveFileName(this, tr("Save schedule"), suggested, tr("Schedules (*.json)"));
    if (path.isEmpty()) return;
    QString error;
    if (!editor_->saveSchedule(path, &error)) {
        QMessageBox::critical(this, tr("Cannot save schedule"), elided(error, 2000));
        return;
    }
    scheduleDir_ = QFileInfo(path).absolutePath();
    AppSettings::setScheduleDir(scheduleDir_);
    statusBar()->showMessage(tr("Schedule saved to %1").arg(elided(path, 200)), 5000);
}

void MainWindow::openSchedule() {
    const auto& scene = state_->scene();
    if (!scene || scene->joined() || scene->empty() || !maybeKeepSchedule()) return;
    const QString path = QFileDialog::getOpenFileName(this, tr("Open schedule"), scheduleDir(),
                                                      tr("Schedules (*.json);;All files (*)"));
    if (path.isEmpty()) return;
    QString error;
    if (!editor_->openSchedule(path, &error)) {
        QMessageBox::critical(this, tr("Cannot open schedule"), elided(error, 2000));
        return;
    }
    scheduleDir_ = QFileInfo(path).absolutePath();
    AppSettings::setScheduleDir(scheduleDir_);
}

void MainWindow::exportCsv() {
    const auto& scene = state_->scene();
    if (!scene) return;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export profile"), scheduleDir() % QStringLiteral("/profile.csv"),
                                                      tr("CSV (*.csv)"));
    if (path.isEmpty()) return;
    QSaveFile out(path);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Text)) {
        QMessageBox::critical(this, tr("Export failed"), out.errorString());
        return;
    }
    out.write(profileCsv(*scene, state_->editedProfile(), state_->editedOrder()));
    if (!out.commit()) QMessageBox::critical(this, tr("Export failed"), out.errorString());
    else statusBar()->showMessage(tr("Profile exported to %1").arg(elided(path, 200)), 5000);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!maybeKeepSchedule()) {
        event->ignore();
        return;
    }
    AppSettings::setLayout({saveGeometry(), saveState(), splitter_->saveState()});
    loader_->cancel();
    event->accept();
}

void MainWindow::exportPlot() {
    if (!scene()) return;
    QString selected;
    const QString base = QFileInfo(scene()->path).completeBaseName().section(QLatin1Char('.'), 0, 0);
    const QString path = QFileDialog::getSaveFileName(this, tr("Export plot"), scheduleDir() % QLatin1Char('/') % base % QStringLiteral("-memory.png"),
                                                      PlotExport::filters(), &selected);
    if (path.isEmpty()) return;
    QString error;
    const bool ok = PlotExport::save(*timeline_, path, &error);
    if (!ok) QMessageBox::critical(this, tr("Export failed"), error);
    else statusBar()->showMessage(tr("Plot exported to %1").arg(path), 5000);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls() && !event->mimeData()->urls().isEmpty() && event->mimeData()->urls().first().isLocalFile())
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
