#include "mainwindow/mainwindow.h"

#include "export/profilecsv.h"
#include "inspector/nodeinspector.h"
#include "models/livestoragemodel.h"
#include "panels/breakdownpanel.h"
#include "panels/findbar.h"
#include "panels/livestoragepanel.h"
#include "panels/schedulepanel.h"
#include "panels/summarybar.h"
#include "schedule/ordercompare.h"
#include "schedule/scheduleeditor.h"
#include "state/viewstate.h"
#include "jobs/jobtracker.h"
#include "timeline/plotexport.h"
#include "timeline/stackedbands.h"
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
#include <QSettings>
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
constexpr int kMaxRecent = 8;
// The desktop theme's icon, else ours from the app's resources (absent in the tests).
QIcon themedIcon(const QString& name) {
    const QString bundled = QStringLiteral(":/icons/") % name % QStringLiteral(".svg");
    return QIcon::fromTheme(name, QFile::exists(bundled) ? QIcon(bundled) : QIcon());
}
// A label that never widens its window: elided text in, no minimum width of its own.
QLabel* shrinkingLabel() {
    auto* l = new QLabel;
    l->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    return l;
}
// The module depth that shows a model's layers: the shallowest with six modules or more in one
// graph (the rule the graph view's layer shading follows), else the deepest. For a decoder,
// "layers.0" … rather than "layers" holding everything.
int layerDepth(const Scene& scene) {
    std::uint32_t deepest = 1;
    std::vector<std::size_t> count;
    std::uint32_t best = 0;
    for (const Segment& s : scene.segments) {
        const fxmem::ModuleTree& tree = s.attribution->tree();
        deepest = std::max(deepest, tree.max_depth());
        count.assign(tree.max_depth() + 1, 0);
        for (std::uint32_t m = 0; m < tree.size(); ++m) ++count[tree[m].depth];
        for (std::uint32_t d = 1; d < count.size(); ++d)
            if (count[d] >= 6) {
                best = best == 0 ? d : std::min(best, d);
                break;
            }
    }
    return static_cast<int>(best == 0 ? deepest : best);
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
QLabel* MainWindow::liveTotalLabel() const { return livePanel_->footerLabel(); }
QLabel* MainWindow::liveHeaderLabel() const { return livePanel_->headerLabel(); }

void MainWindow::buildActions() {
    openAction_ = new QAction(themedIcon(QStringLiteral("document-open")), tr("&Open…"), this);
    openAction_->setShortcut(QKeySequence::Open);
    openAction_->setToolTip(tr("Open an fxmem graph file (Ctrl+O)"));
    connect(openAction_, &QAction::triggered, this, [this] {
        QSettings s;
        const QString path = QFileDialog::getOpenFileName(this, tr("Open graph file"), s.value(QStringLiteral("lastDir")).toString(),
                                                          tr("fxmem graphs (*.fxmem.json *.json);;All files (*)"));
        if (!path.isEmpty()) openFile(path);
    });
    saveScheduleAction_ = new QAction(tr("&Save Schedule…"), this);
    saveScheduleAction_->setShortcut(QKeySequence::Save);
    connect(saveScheduleAction_, &QAction::triggered, this, &MainWindow::saveSchedule);
    openScheduleAction_ = new QAction(tr("Open Sc&hedule…"), this);
    openScheduleAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    connect(openScheduleAction_, &QAction::triggered, this, &MainWindow::openSchedule);
    exportPlotAction_ = new QAction(themedIcon(QStringLiteral("document-export")), tr("&Export Plot…"), this);
    exportPlotAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    connect(exportPlotAction_, &QAction::triggered, this, &MainWindow::exportPlot);
    exportCsvAction_ = new QAction(tr("Export Profile as &CSV…"), this);
    connect(exportCsvAction_, &QAction::triggered, this, &MainWindow::exportCsv);
    quitAction_ = new QAction(tr("&Quit"), this);
    quitAction_->setShortcut(QKeySequence::Quit);
    connect(quitAction_, &QAction::triggered, this, &QWidget::close);

    resetScheduleAction_ = new QAction(tr("&Reset Schedule"), this);
    connect(resetScheduleAction_, &QAction::triggered, this, [this] { editor_->resetSchedule(); });
    findAction_ = new QAction(themedIcon(QStringLiteral("edit-find")), tr("&Find Node…"), this);
    findAction_->setShortcut(QKeySequence::Find);
    connect(findAction_, &QAction::triggered, this, [this] { findBar_->activate(); });
    resetZoomAction_ = new QAction(themedIcon(QStringLiteral("zoom-original")), tr("Reset &Zoom"), this);
    resetZoomAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    resetZoomAction_->setToolTip(tr("Show the whole timeline (Ctrl+0; R in the plot)"));
    connect(resetZoomAction_, &QAction::triggered, this, [this] {
        graphView_->resetZoom();  // every lane in view
        timeline_->resetZoom();   // the whole time axis (the graph view follows)
    });

    auto* units = new QActionGroup(this);
    binaryUnitsAction_ = new QAction(tr("&Binary (KiB, MiB, GiB)"), units);
    decimalUnitsAction_ = new QAction(tr("&Decimal (kB, MB, GB)"), units);
    for (QAction* a : {binaryUnitsAction_, decimalUnitsAction_}) {
        a->setCheckable(true);
        connect(a, &QAction::triggered, this, [this] {
            setByteUnits(decimalUnitsAction_->isChecked() ? ByteUnits::Decimal : ByteUnits::Binary);
            QSettings().setValue(QStringLiteral("units"), decimalUnitsAction_->isChecked() ? QStringLiteral("decimal")
                                                                                          : QStringLiteral("binary"));
            timeline_->applyPalette();
            livePanel_->refresh();
            summary_->refresh();
            updateStatus();
        });
    }
}

void MainWindow::buildWidgets() {
    // Toolbar: what to show and how. Combos size to a few characters, not to the longest name.
    QToolBar* tb = addToolBar(tr("Main"));
    tb->setObjectName(QStringLiteral("mainToolbar"));
    tb->setMovable(false);
    tb->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    tb->addAction(openAction_);
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
    // The choice is per file: not saved, and every file opens counting as PyTorch does.
    connect(deviceCombo_, &QComboBox::activated, this, [this] {
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
        QSettings().setValue(QStringLiteral("nodeColorMode"), colorCombo_->itemData(i).toInt());
    });
    tb->addSeparator();
    tb->addAction(resetZoomAction_);
    tb->addAction(exportPlotAction_);

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

    // The graph view and the timeline predate the shared state: wired here, to it.
    state_->setStepProvider([this](NodeRef ref) { return graphView_->stepOf(ref); });
    timeline_->setStepDescriber([this](std::int64_t step, bool edited) { return state_->describeStep(step, edited); });
    connect(timeline_, &TimelinePlot::cursorMoved, state_, &ViewState::setCursorStep);
    connect(state_, &ViewState::cursorStepChanged, timeline_, &TimelinePlot::setCursorStep);
    connect(state_, &ViewState::cursorStepChanged, graphView_, &GraphView::setCursorStep);
    // Keyboard scrubbing (←/→, P) walks node by node: the inspector follows; hovering does not.
    connect(timeline_, &TimelinePlot::steppedByKey, this, [this](std::int64_t step) {
        if (!scene()) return;
        const Scene::Where w = scene()->locate(step);
        if (w.segment < 0 || w.step == 0) return;
        if (const fxmem::NodeId n = state_->nodeAt(w); n.valid()) state_->selectNode({w.segment, n}, false);
    });
    connect(timeline_, &TimelinePlot::xRangeChanged, graphView_, &GraphView::setXRange);
    connect(timeline_, &TimelinePlot::plotAreaChanged, graphView_, &GraphView::setPlotArea);
    connect(graphView_, &GraphView::xRangeChanged, timeline_, &TimelinePlot::setXRange);
    connect(timeline_, &TimelinePlot::stepActivated, this, [this](std::int64_t step) {
        if (!scene()) return;
        const Scene::Where w = scene()->locate(step);
        if (w.segment < 0 || w.step == 0) return;
        if (const fxmem::NodeId n = state_->nodeAt(w); n.valid()) state_->selectNode({w.segment, n}, true);
    });
    connect(graphView_, &GraphView::nodeHovered, this, [this](NodeRef ref) { timeline_->setCursorStep(graphView_->stepOf(ref)); });
    connect(graphView_, &GraphView::nodeClicked, this, [this](NodeRef ref) { state_->selectNode(ref, false); });
    connect(graphView_, &GraphView::moveRequested, this, [this](std::size_t from, std::size_t to) {
        QString why;
        if (!editor_->moveNode(from, to, &why)) {
            graphView_->showRefusal(why);
            statusBar()->showMessage(why, 8000);
        }
    });
    connect(findBar_, &FindBar::matchesChanged, graphView_, [this](const std::vector<NodeRef>& m) { graphView_->setSearchMatches(m); });
    connect(findBar_, &FindBar::dismissed, graphView_, qOverload<>(&QWidget::setFocus));
    connect(state_, &ViewState::nodeSelected, this, &MainWindow::onNodeSelected);
    // A module selected anywhere (breakdown tree, graph view) is outlined in the graph view.
    connect(state_, &ViewState::moduleSelected, graphView_, [this](const QString& module) {
        graphView_->setHighlightedModuleName(module.isNull() ? QString() : module);
    });
    connect(graphView_, &GraphView::moduleClicked, this, [this](int segment, std::uint32_t module) {
        const auto& scene = state_->scene();
        if (!scene || segment < 0 || static_cast<std::size_t>(segment) >= scene->segments.size()) return;
        const fxmem::ModuleTree& tree = scene->segments[static_cast<std::size_t>(segment)].attribution->tree();
        if (module >= tree.size() || module == fxmem::ModuleTree::kRoot) {
            state_->selectModule(QString());
            return;
        }
        state_->selectModule(toQString(tree[module].name));
    });

    // Right: the storages live at the cursor, then the inspector and the schedule dock.
    livePanel_ = new LiveStoragePanel(state_);
    connect(livePanel_, &LiveStoragePanel::rowsChanged, graphView_, [this] { graphView_->setLiveNodes(livePanel_->liveProducers()); });
    auto* liveDock = new QDockWidget(tr("Live storages"), this);
    liveDock->setObjectName(QStringLiteral("liveDock"));
    liveDock->setWidget(livePanel_);
    addDockWidget(Qt::RightDockWidgetArea, liveDock);
    inspector_ = new NodeInspector;
    inspector_->setStepOf([this](NodeRef ref) { return state_->stepOf(ref); });
    auto* inspectorDock = new QDockWidget(tr("Node"), this);
    inspectorDock->setObjectName(QStringLiteral("inspectorDock"));
    inspectorDock->setWidget(inspector_);
    addDockWidget(Qt::RightDockWidgetArea, inspectorDock);
    editor_ = new ScheduleEditor;
    schedulePanel_ = new SchedulePanel(state_, editor_);
    connect(schedulePanel_, &SchedulePanel::graphRequested, this, [this](int graph) { showGraph(graph); });
    auto* editorDock = new QDockWidget(tr("Schedule"), this);
    editorDock->setObjectName(QStringLiteral("scheduleDock"));
    editorDock->setWidget(schedulePanel_);
    addDockWidget(Qt::RightDockWidgetArea, editorDock);
    tabifyDockWidget(inspectorDock, editorDock);
    breakdown_ = new BreakdownPanel(state_);
    auto* breakdownDock = new QDockWidget(tr("Breakdown"), this);
    breakdownDock->setObjectName(QStringLiteral("breakdownDock"));
    breakdownDock->setWidget(breakdown_);
    addDockWidget(Qt::RightDockWidgetArea, breakdownDock);
    tabifyDockWidget(editorDock, breakdownDock);
    inspectorDock->raise();
    resizeDocks({liveDock}, {560}, Qt::Horizontal);
    resizeDocks({liveDock, inspectorDock}, {400, 300}, Qt::Vertical);
    connect(inspector_, &NodeInspector::nodeActivated, this, [this](NodeRef ref) { state_->selectNode(ref, true); });
    connect(editor_, &ScheduleEditor::scheduleChanged, this, &MainWindow::onScheduleChanged);
    connect(editor_, &ScheduleEditor::nodeSelected, this, [this](fxmem::NodeId n) {
        if (scene() && !scene()->joined() && !scene()->empty()) state_->selectNode({0, n}, true);
    });
    connect(editor_->undoStack(), &QUndoStack::cleanChanged, this, [this](bool clean) { setWindowModified(!clean); });
    // The schedule dock's comparison of two orders and the optimizer's lower bound, on the timeline.
    connect(editor_, &ScheduleEditor::comparisonChanged, this, [this] {
        const std::shared_ptr<const OrderComparison> c = editor_->comparison();
        if (!c) timeline_->clearComparison();
        else
            timeline_->setComparison({editor_->comparisonName(0), c->profileA, c->peakStepA},
                                     {editor_->comparisonName(1), c->profileB, c->peakStepB});
        if (!applyingScene_) updateOverlay();  // hidden while compared, back afterwards
    });
    connect(editor_, &ScheduleEditor::lowerBoundChanged, timeline_, [this](qint64 bytes) { timeline_->setLowerBound(bytes); });
    connect(state_, &ViewState::orderedLiveFailed, this, [this](const QString& message) {
        statusBar()->showMessage(tr("Live storages of the edited order: %1").arg(elided(message, 300)), 8000);
    });

    undoAction_ = editor_->undoStack()->createUndoAction(this, tr("&Undo"));
    undoAction_->setShortcut(QKeySequence::Undo);
    // Both common redo keys, each bound once (binding one twice makes Qt call it ambiguous).
    redoAction_ = editor_->undoStack()->createRedoAction(this, tr("&Redo"));
    redoAction_->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)});

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

    for (QDockWidget* d : {liveDock, inspectorDock, editorDock, breakdownDock}) d->toggleViewAction()->setObjectName(d->objectName());
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(openAction_);
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    file->addSeparator();
    file->addAction(openScheduleAction_);
    file->addAction(saveScheduleAction_);
    file->addSeparator();
    file->addAction(exportPlotAction_);
    file->addAction(exportCsvAction_);
    file->addSeparator();
    file->addAction(quitAction_);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(undoAction_);
    edit->addAction(redoAction_);
    edit->addAction(resetScheduleAction_);
    edit->addSeparator();
    edit->addAction(findAction_);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(resetZoomAction_);
    QMenu* units = view->addMenu(tr("&Units"));
    units->addAction(binaryUnitsAction_);
    units->addAction(decimalUnitsAction_);
    view->addSeparator();
    for (QDockWidget* d : findChildren<QDockWidget*>()) view->addAction(d->toggleViewAction());

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About fxmem"), this, [this] {
        QMessageBox::about(this, tr("About fxmem"),
                           tr("<b>fxmem</b> shows where the GPU memory of PyTorch FX graphs goes, with the numbers "
                              "of Inductor's memory_estimator.py, and lets you reorder a graph to cut its peak.<br><br>"
                              "Timeline: hover to scrub, ←/→ step, P jumps to the peak, wheel zooms, drag pans, R resets.<br>"
                              "Graph: wheel zooms, Shift+wheel scrolls, Ctrl+wheel changes lane height, drag a node "
                              "along time to reschedule it."));
    });
    updateRecentMenu();
}

void MainWindow::restoreSettings() {
    QSettings s;
    const bool decimal = s.value(QStringLiteral("units")).toString() == QLatin1String("decimal");
    setByteUnits(decimal ? ByteUnits::Decimal : ByteUnits::Binary);
    (decimal ? decimalUnitsAction_ : binaryUnitsAction_)->setChecked(true);
    s.remove(QStringLiteral("deviceFilter"));  // older versions kept the device choice across sessions
    deviceCombo_->setCurrentIndex(0);
    {
        // "nodeColorMode" holds the mode itself (the old "colorMode" held a combo index).
        const int i = colorCombo_->findData(s.value(QStringLiteral("nodeColorMode"), static_cast<int>(GraphView::ColorMode::OpCategory)).toInt());
        colorCombo_->setCurrentIndex(std::max(i, 0));
        graphView_->setColorMode(static_cast<GraphView::ColorMode>(colorCombo_->currentData().toInt()));
    }
    scheduleDir_ = s.value(QStringLiteral("scheduleDir")).toString();
    if (!restoreGeometry(s.value(QStringLiteral("geometry")).toByteArray())) {
        // A first start: most of the screen, never more than it.
        const QSize avail = screen() ? screen()->availableSize() : QSize(1366, 768);
        resize(std::min(1600, avail.width() * 9 / 10), std::min(1000, avail.height() * 9 / 10));
    }
    restoreState(s.value(QStringLiteral("windowState")).toByteArray());
    if (!splitter_->restoreState(s.value(QStringLiteral("splitter")).toByteArray())) splitter_->setSizes({560, 340});
}

void MainWindow::showEmptyHint(const QString& hint) {
    summary_->showHint(hint);
    timeline_->clearProfile();
}

void MainWindow::openFile(const QString& path) {
    if (!maybeKeepSchedule()) return;
    SceneRequest r;
    r.filter = DeviceFilter::NonCpu;  // per file: a new file starts as PyTorch counts
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
    if (newFile) addRecent(scene->path);
    setWindowFilePath(scene->path);
    setWindowTitle(elided(QFileInfo(scene->path).fileName(), 80) % QStringLiteral("[*] — fxmem"));

    const bool single = !scene->empty() && !scene->joined();
    timeline_->clearComparison();  // both belong to the previous graph's orders
    timeline_->setLowerBound(-1);
    editor_->setAnalysis(single ? scene->segments.front().analysis : nullptr);
    editor_->setEnabled(single);
    phase("schedule editor");
    graphView_->setScene(scene);
    inspector_->setScene(scene);
    state_->setScene(scene);  // the panels follow
    fillGraphCombo();
    deviceCombo_->setCurrentIndex(scene->request.filter == DeviceFilter::All ? 1 : 0);
    std::vector<TimelinePlot::Marker> sections;
    if (scene->joined())
        for (const Segment& s : scene->segments) sections.push_back({s.offset, elided(s.analysis->graph().name, 60)});
    timeline_->setProfile(scene->profile, scene->peakStep, std::move(sections));
    // Exported plots say what they show: the file and the graph (or pair).
    timeline_->setTitle(elided(QFileInfo(scene->path).fileName(), 80) % QStringLiteral(" · ") % elided(scene->title(), 80));
    if (single) graphView_->setSchedule(editor_->order(), true);
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
            modeBar_->setDepth(layerDepth(*scene));
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

void MainWindow::onNodeSelected(NodeRef ref, bool center) {
    const auto& scene = state_->scene();
    if (!scene || !ref.valid()) return;
    graphView_->selectNode(ref);
    if (center) graphView_->centerOn(ref);
    inspector_->showNode(ref);
    if (!scene->joined() && ref.segment == 0) {
        const QSignalBlocker block(editor_);
        editor_->selectNode(ref.node);
    }
}

void MainWindow::onScheduleChanged() {
    const auto& scene = state_->scene();
    if (applyingScene_ || !scene || scene->joined() || scene->empty()) return;
    std::vector<fxmem::NodeId> order = editor_->order();
    graphView_->setSchedule(order, true);
    state_->setEditedOrder(std::move(order), editor_->profile());
    updateOverlay();
    updateActions();
    if (inspector_->node().valid()) inspector_->showNode(inspector_->node());  // its step may have moved
}

void MainWindow::updateOverlay() {
    // While two orders are compared, their curves say it all: the edited overlay would repeat one.
    if (state_->orderEdited() && !editor_->comparison()) {
        const std::int64_t edited = editor_->peak(), original = editor_->originalPeak();
        timeline_->setOverlay(state_->editedProfile(), editor_->peakStep(),
                              tr("edited peak %1 · %2").arg(formatBytes(edited), formatDelta(edited - original, original)));
    } else {
        timeline_->clearOverlay();
    }
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
    const bool single = any && !scene->joined();
    saveScheduleAction_->setEnabled(single);
    openScheduleAction_->setEnabled(single);
    resetScheduleAction_->setEnabled(single && state_->orderEdited());
    exportPlotAction_->setEnabled(any);
    exportCsvAction_->setEnabled(any);
    findAction_->setEnabled(any);
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
    schedulePanel_->markSaved();
    scheduleDir_ = QFileInfo(path).absolutePath();
    QSettings().setValue(QStringLiteral("scheduleDir"), scheduleDir_);
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
    schedulePanel_->markSaved();
    scheduleDir_ = QFileInfo(path).absolutePath();
    QSettings().setValue(QStringLiteral("scheduleDir"), scheduleDir_);
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
    QSettings s;
    s.setValue(QStringLiteral("geometry"), saveGeometry());
    s.setValue(QStringLiteral("windowState"), saveState());
    s.setValue(QStringLiteral("splitter"), splitter_->saveState());
    loader_->cancel();
    event->accept();
}

void MainWindow::addRecent(const QString& path) {
    if (path.isEmpty() || !QFileInfo::exists(path)) return;
    QSettings s;
    QStringList recent = s.value(QStringLiteral("recentFiles")).toStringList();
    const QString abs = QFileInfo(path).absoluteFilePath();
    recent.removeAll(abs);
    recent.prepend(abs);
    while (recent.size() > kMaxRecent) recent.removeLast();
    s.setValue(QStringLiteral("recentFiles"), recent);
    s.setValue(QStringLiteral("lastDir"), QFileInfo(abs).absolutePath());
    updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
    recentMenu_->clear();
    const QStringList recent = QSettings().value(QStringLiteral("recentFiles")).toStringList();
    for (int i = 0; i < recent.size(); ++i) {
        const QString path = recent[i];
        QAction* a = recentMenu_->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(elided(QFileInfo(path).fileName(), 80)));
        a->setToolTip(path);
        a->setStatusTip(path);
        connect(a, &QAction::triggered, this, [this, path] { openFile(path); });
    }
    if (!recent.isEmpty()) recentMenu_->addSeparator();
    QAction* clear = recentMenu_->addAction(tr("Clear List"), this, [this] {
        QSettings().remove(QStringLiteral("recentFiles"));
        updateRecentMenu();
    });
    clear->setEnabled(!recent.isEmpty());
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
