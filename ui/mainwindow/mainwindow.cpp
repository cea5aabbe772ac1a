#include "mainwindow/mainwindow.h"

#include "timeline/plotexport.h"

#include "inspector/nodeinspector.h"
#include "models/livestoragemodel.h"
#include "schedule/scheduleeditor.h"
#include "timeline/timelineplot.h"
#include "util/colors.h"
#include "util/text.h"
#include "util/units.h"

#include <fxmem/schedule.h>

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLoggingCategory>
#include <QElapsedTimer>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QSaveFile>
#include <QSettings>
#include <QShortcut>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
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
} // namespace

MainWindow::MainWindow(FileLoader loader, QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(QStringLiteral("fxmem"));
    setAcceptDrops(true);
    loader_ = new SceneLoader(std::move(loader), this);
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
    updateSummary();
}

MainWindow::~MainWindow() = default;

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
    connect(findAction_, &QAction::triggered, this, [this] {
        findBar_->show();
        findEdit_->setFocus();
        findEdit_->selectAll();
    });
    resetZoomAction_ = new QAction(themedIcon(QStringLiteral("zoom-original")), tr("Reset &Zoom"), this);
    resetZoomAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    resetZoomAction_->setToolTip(tr("Show the whole timeline (Ctrl+0; R in the plot)"));
    connect(resetZoomAction_, &QAction::triggered, this, [this] { timeline_->resetZoom(); });

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
            onCursor(timeline_->cursorStep());
            updateSummary();
            updateStatus();
        });
    }
}

void MainWindow::buildWidgets() {
    // Toolbar: what to show and how.
    QToolBar* tb = addToolBar(tr("Main"));
    tb->setObjectName(QStringLiteral("mainToolbar"));
    tb->setMovable(false);
    tb->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    tb->addAction(openAction_);
    tb->addSeparator();
    tb->addWidget(new QLabel(tr(" Graph ")));
    graphCombo_ = new QComboBox;
    graphCombo_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
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
        QSettings().setValue(QStringLiteral("deviceFilter"), deviceCombo_->currentIndex());
        if (!scene_) return;
        SceneRequest r = scene_->request;
        r.filter = deviceCombo_->currentIndex() == 1 ? DeviceFilter::All : DeviceFilter::NonCpu;
        requestScene(r);
    });
    tb->addWidget(new QLabel(tr("  Colour ")));
    colorCombo_ = new QComboBox;
    colorCombo_->addItem(tr("By op kind"));
    colorCombo_->addItem(tr("By memory change"));
    tb->addWidget(colorCombo_);
    connect(colorCombo_, &QComboBox::currentIndexChanged, this, [this](int i) {
        graphView_->setColorMode(i == 1 ? GraphView::ColorMode::MemoryChange : GraphView::ColorMode::OpKind);
        QSettings().setValue(QStringLiteral("colorMode"), i);
    });
    tb->addSeparator();
    tb->addAction(resetZoomAction_);
    tb->addAction(exportPlotAction_);

    // Centre: banner, summary, graph view over the timeline.
    auto* central = new QWidget;
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    banner_ = new QLabel;
    banner_->setWordWrap(true);
    banner_->setMargin(8);
    banner_->setVisible(false);
    banner_->setTextFormat(Qt::RichText);
    connect(banner_, &QLabel::linkActivated, this, [this] {
        deviceCombo_->setCurrentIndex(1);
        emit deviceCombo_->activated(1);
    });
    layout->addWidget(banner_);
    summary_ = new QLabel;
    summary_->setTextFormat(Qt::RichText);
    summary_->setMargin(8);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont headline = summary_->font();
    headline.setPointSizeF(headline.pointSizeF() * 1.15);
    summary_->setFont(headline);
    layout->addWidget(summary_);

    findBar_ = new QWidget;
    auto* fl = new QHBoxLayout(findBar_);
    fl->setContentsMargins(8, 2, 8, 2);
    findEdit_ = new QLineEdit;
    findEdit_->setPlaceholderText(tr("Find nodes by name or target (Enter: next, Shift+Enter: previous, Esc: close)"));
    findEdit_->setClearButtonEnabled(true);
    findCount_ = new QLabel;
    auto* findClose = new QToolButton;
    findClose->setText(QStringLiteral("✕"));
    findClose->setAutoRaise(true);
    fl->addWidget(new QLabel(tr("Find")));
    fl->addWidget(findEdit_, 1);
    fl->addWidget(findCount_);
    fl->addWidget(findClose);
    findBar_->setVisible(false);
    findTimer_ = new QTimer(this);
    findTimer_->setSingleShot(true);
    findTimer_->setInterval(250);
    connect(findEdit_, &QLineEdit::textChanged, findTimer_, qOverload<>(&QTimer::start));
    connect(findTimer_, &QTimer::timeout, this, &MainWindow::runSearch);
    connect(findEdit_, &QLineEdit::returnPressed, this, [this] {
        if (findTimer_->isActive()) {
            findTimer_->stop();
            runSearch();
        }
        stepSearch(QApplication::keyboardModifiers() & Qt::ShiftModifier ? -1 : 1);
    });
    auto closeFind = [this] {
        findBar_->hide();
        findEdit_->clear();
        graphView_->setSearchMatches({});
        graphView_->setFocus();
    };
    connect(findClose, &QToolButton::clicked, this, closeFind);
    auto* esc = new QShortcut(QKeySequence(Qt::Key_Escape), findEdit_);
    esc->setContext(Qt::WidgetShortcut);
    connect(esc, &QShortcut::activated, this, closeFind);
    layout->addWidget(findBar_);

    splitter_ = new QSplitter(Qt::Vertical);
    splitter_->setObjectName(QStringLiteral("centralSplitter"));
    splitter_->setChildrenCollapsible(false);
    graphView_ = new GraphView;
    timeline_ = new TimelinePlot;
    timeline_->setMinimumHeight(160);
    splitter_->addWidget(graphView_);
    splitter_->addWidget(timeline_);
    splitter_->setStretchFactor(0, 3);
    splitter_->setStretchFactor(1, 2);
    layout->addWidget(splitter_, 1);
    setCentralWidget(central);

    timeline_->setStepDescriber([this](std::int64_t step, bool edited) { return describeStep(step, edited); });
    connect(timeline_, &TimelinePlot::cursorMoved, this, &MainWindow::onCursor);
    connect(timeline_, &TimelinePlot::xRangeChanged, graphView_, &GraphView::setXRange);
    connect(timeline_, &TimelinePlot::plotAreaChanged, graphView_, &GraphView::setPlotArea);
    connect(graphView_, &GraphView::xRangeChanged, timeline_, &TimelinePlot::setXRange);
    connect(timeline_, &TimelinePlot::stepActivated, this, [this](std::int64_t step) {
        if (!scene_) return;
        const Scene::Where w = scene_->locate(step);
        if (w.segment < 0 || w.step == 0) return;
        const fxmem::NodeId n = nodeAt(w);
        if (n.valid()) onNodeChosen({w.segment, n}, true);
    });
    connect(graphView_, &GraphView::nodeHovered, this, [this](NodeRef ref) { timeline_->setCursorStep(graphView_->stepOf(ref)); });
    connect(graphView_, &GraphView::nodeClicked, this, [this](NodeRef ref) { onNodeChosen(ref, false); });
    connect(graphView_, &GraphView::moveRequested, this, [this](std::size_t from, std::size_t to) {
        QString why;
        if (!editor_->moveNode(from, to, &why)) {
            graphView_->showRefusal(why);
            statusBar()->showMessage(why, 8000);
        }
    });

    // Right: the storages live at the cursor, then the inspector and the schedule editor.
    auto* livePanel = new QWidget;
    auto* ll = new QVBoxLayout(livePanel);
    ll->setContentsMargins(4, 4, 4, 4);
    liveHeader_ = new QLabel;
    liveHeader_->setTextFormat(Qt::RichText);
    ll->addWidget(liveHeader_);
    liveFilter_ = new QLineEdit;
    liveFilter_->setPlaceholderText(tr("Filter by name, device, dtype, reason…"));
    liveFilter_->setClearButtonEnabled(true);
    ll->addWidget(liveFilter_);
    liveModel_ = new LiveStorageModel(this);
    liveProxy_ = new LiveStorageProxy(this);
    liveProxy_->setSourceModel(liveModel_);
    liveTable_ = new QTableView;
    liveTable_->setModel(liveProxy_);
    liveTable_->setSortingEnabled(true);
    liveTable_->sortByColumn(LiveStorageModel::SizeColumn, Qt::DescendingOrder);
    liveTable_->setSelectionBehavior(QAbstractItemView::SelectRows);
    liveTable_->setSelectionMode(QAbstractItemView::SingleSelection);
    liveTable_->verticalHeader()->hide();
    liveTable_->verticalHeader()->setDefaultSectionSize(liveTable_->fontMetrics().height() + 6);
    liveTable_->horizontalHeader()->setStretchLastSection(true);
    liveTable_->setAlternatingRowColors(true);
    liveTable_->setWordWrap(false);
    // Column widths from the first rows only: measuring tens of thousands of live rows would
    // stall the GUI thread for half a second.
    liveTable_->horizontalHeader()->setResizeContentsPrecision(64);
    ll->addWidget(liveTable_, 1);
    liveTotal_ = new QLabel;
    liveTotal_->setTextFormat(Qt::RichText);
    ll->addWidget(liveTotal_);
    liveFilterTimer_ = new QTimer(this);
    liveFilterTimer_->setSingleShot(true);
    liveFilterTimer_->setInterval(300);  // debounce typing
    connect(liveFilter_, &QLineEdit::textChanged, liveFilterTimer_, qOverload<>(&QTimer::start));
    connect(liveFilterTimer_, &QTimer::timeout, this, [this] { liveProxy_->setFilterText(liveFilter_->text()); });
    connect(liveTable_, &QTableView::clicked, this, [this](const QModelIndex& index) {
        const QModelIndex src = liveProxy_->mapToSource(index);
        const int seg = liveModel_->data(src, LiveStorageModel::SegmentRole).toInt();
        const fxmem::NodeId n(liveModel_->data(src, LiveStorageModel::AllocatorRole).toInt());
        if (n.valid()) onNodeChosen({seg, n}, true);
    });

    auto* liveDock = new QDockWidget(tr("Live storages"), this);
    liveDock->setObjectName(QStringLiteral("liveDock"));
    liveDock->setWidget(livePanel);
    addDockWidget(Qt::RightDockWidgetArea, liveDock);
    inspector_ = new NodeInspector;
    inspector_->setStepOf([this](NodeRef ref) { return graphView_->stepOf(ref); });
    auto* inspectorDock = new QDockWidget(tr("Node"), this);
    inspectorDock->setObjectName(QStringLiteral("inspectorDock"));
    inspectorDock->setWidget(inspector_);
    addDockWidget(Qt::RightDockWidgetArea, inspectorDock);
    editor_ = new ScheduleEditor;
    orderedLive_ = new OrderedLiveBuilder(this);
    connect(orderedLive_, &OrderedLiveBuilder::ready, this, [this](std::shared_ptr<const OrderedLive> live) {
        if (!scene_ || scene_->joined() || scene_->empty() || live->analysis != scene_->segments.front().analysis) return;
        liveModel_->setOrderedLive(std::move(live));
        onCursor(timeline_->cursorStep());
    });
    connect(orderedLive_, &OrderedLiveBuilder::failed, this, [this](const QString& message) {
        statusBar()->showMessage(tr("Live storages of the edited order: %1").arg(message), 8000);
        onCursor(timeline_->cursorStep());
    });
    auto* editorDock = new QDockWidget(tr("Schedule"), this);
    editorDock->setObjectName(QStringLiteral("scheduleDock"));
    editorDock->setWidget(editor_);
    addDockWidget(Qt::RightDockWidgetArea, editorDock);
    tabifyDockWidget(inspectorDock, editorDock);
    inspectorDock->raise();
    resizeDocks({liveDock}, {620}, Qt::Horizontal);
    resizeDocks({liveDock, inspectorDock}, {430, 330}, Qt::Vertical);
    connect(inspector_, &NodeInspector::nodeActivated, this, [this](NodeRef ref) { onNodeChosen(ref, true); });
    connect(editor_, &ScheduleEditor::scheduleChanged, this, &MainWindow::onScheduleChanged);
    connect(editor_, &ScheduleEditor::nodeSelected, this, [this](fxmem::NodeId n) {
        if (scene_ && !scene_->joined() && !scene_->empty()) onNodeChosen({0, n}, true);
    });
    connect(editor_->undoStack(), &QUndoStack::cleanChanged, this, [this](bool clean) { setWindowModified(!clean); });

    undoAction_ = editor_->undoStack()->createUndoAction(this, tr("&Undo"));
    undoAction_->setShortcut(QKeySequence::Undo);
    redoAction_ = editor_->undoStack()->createRedoAction(this, tr("&Redo"));
    redoAction_->setShortcuts({QKeySequence::Redo, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z)});

    // Status bar: file, then loading progress with Cancel.
    statusFile_ = new QLabel;
    statusBar()->addPermanentWidget(statusFile_);
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

    for (QDockWidget* d : {liveDock, inspectorDock, editorDock}) d->toggleViewAction()->setObjectName(d->objectName());
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
    deviceCombo_->setCurrentIndex(std::clamp(s.value(QStringLiteral("deviceFilter"), 0).toInt(), 0, 1));
    colorCombo_->setCurrentIndex(std::clamp(s.value(QStringLiteral("colorMode"), 0).toInt(), 0, 1));
    if (!restoreGeometry(s.value(QStringLiteral("geometry")).toByteArray())) resize(1600, 1000);
    restoreState(s.value(QStringLiteral("windowState")).toByteArray());
    if (!splitter_->restoreState(s.value(QStringLiteral("splitter")).toByteArray())) splitter_->setSizes({560, 340});
}

void MainWindow::showEmptyHint(const QString& hint) {
    summary_->setText(hint);
    timeline_->clearProfile();
}

void MainWindow::openFile(const QString& path) {
    if (!maybeKeepSchedule()) return;
    pendingPath_ = path;
    SceneRequest r;
    r.filter = deviceCombo_->currentIndex() == 1 ? DeviceFilter::All : DeviceFilter::NonCpu;
    statusBar()->showMessage(tr("Loading %1…").arg(QFileInfo(path).fileName()));
    loader_->open(path, r);
}

void MainWindow::requestScene(SceneRequest request) {
    if (!scene_) return;
    if (!maybeKeepSchedule()) {
        fillGraphCombo();  // back to what is shown
        return;
    }
    loader_->rebuild(scene_->file, scene_->path, request);
}

void MainWindow::showGraph(int graph, int pair) {
    if (!scene_) return;
    SceneRequest r = scene_->request;
    r.graph = pair >= 0 ? -1 : graph;
    r.pair = pair;
    requestScene(r);
}

void MainWindow::onLoadFailed(const QString& path, const QString& message) {
    statusBar()->showMessage(tr("Could not open %1").arg(QFileInfo(path).fileName()), 8000);
    // Not exec(): a nested event loop would stall scrubbing and tests; the window stays usable.
    auto* box = new QMessageBox(QMessageBox::Critical, tr("Cannot open file"),
                                path.isEmpty() ? tr("The graph could not be analysed.") : tr("Cannot open %1").arg(path),
                                QMessageBox::Ok, this);
    box->setInformativeText(message);
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
    const bool newFile = !scene_ || scene_->file != scene->file;
    scene_ = std::move(scene);
    applyingScene_ = true;
    if (newFile) addRecent(scene_->path);
    setWindowFilePath(scene_->path);
    setWindowTitle(QFileInfo(scene_->path).fileName() % QStringLiteral("[*] — fxmem"));
    fillGraphCombo();
    deviceCombo_->setCurrentIndex(scene_->request.filter == DeviceFilter::All ? 1 : 0);

    graphView_->setScene(scene_);
    orderedLive_->cancel();
    liveModel_->setScene(scene_);
    inspector_->setScene(scene_);
    std::vector<TimelinePlot::Marker> sections;
    if (scene_->joined())
        for (const Segment& s : scene_->segments)
            sections.push_back({s.offset, QString::fromStdString(s.analysis->graph().name)});
    timeline_->setProfile(scene_->profile, scene_->peakStep, std::move(sections));
    phase("views");

    const bool single = !scene_->empty() && !scene_->joined();
    editor_->setAnalysis(single ? scene_->segments.front().analysis : nullptr);
    editor_->setEnabled(single);
    phase("schedule editor");
    if (single) graphView_->setSchedule(editor_->order(), true);

    bool counted = false;
    for (const Segment& s : scene_->segments) counted = counted || s.analysis->hasCountedStorage();
    banner_->setVisible(!scene_->empty() && !counted);
    if (banner_->isVisible()) {
        const QPalette pal = palette();
        const QColor bg = colors::mix(pal.color(QPalette::Window), colors::live(pal), 0.3);
        banner_->setStyleSheet(QStringLiteral("background:%1; color:%2").arg(bg.name(), pal.color(QPalette::WindowText).name()));
        banner_->setText(scene_->request.filter == DeviceFilter::NonCpu
                             ? tr("<b>This graph holds only CPU storages.</b> PyTorch's estimator counts non-CPU storages "
                                  "only, so every number here is 0. <a href=\"all\">Count all devices</a>")
                             : tr("<b>This graph allocates no storage.</b>"));
    }
    applyingScene_ = false;
    updateSummary();
    updateStatus();
    updateActions();
    if (!findEdit_->text().isEmpty()) runSearch();
    // Start where the question usually is: the peak.
    // setCursorStep() reports a move through cursorMoved -> onCursor; fill the table here only
    // when the cursor was already there (filling it twice cost a 27k-row reset at 100k nodes).
    const std::int64_t before = timeline_->cursorStep();
    timeline_->setCursorStep(static_cast<std::int64_t>(scene_->peakStep));
    if (timeline_->cursorStep() == before) onCursor(before);
    if (const Scene::Where w = scene_->locate(static_cast<std::int64_t>(scene_->peakStep)); w.segment >= 0 && w.step > 0)
        onNodeChosen({w.segment, nodeAt(w)}, false);
    liveTable_->resizeColumnsToContents();
    phase("live table at the peak");
    statusBar()->showMessage(tr("Loaded %1").arg(QFileInfo(scene_->path).fileName()), 4000);
    timeline_->setFocus();
    emit sceneShown();
}

void MainWindow::fillGraphCombo() {
    graphCombo_->clear();
    if (!scene_) return;
    const fxmem::GraphFile& f = *scene_->file;
    for (std::size_t g = 0; g < f.graphs.size(); ++g)
        graphCombo_->addItem(tr("%1  (%2, %L3 nodes)")
                                 .arg(QString::fromStdString(f.graphs[g].name),
                                      QString::fromStdString(std::string(fxmem::to_string(f.graphs[g].kind))))
                                 .arg(f.graphs[g].size()),
                             QPoint(static_cast<int>(g), -1));
    for (std::size_t p = 0; p < f.pairs.size(); ++p)
        graphCombo_->addItem(tr("%1 + %2  (pair, joined)")
                                 .arg(QString::fromStdString(f.graphs[f.pairs[p].forward].name),
                                      QString::fromStdString(f.graphs[f.pairs[p].backward].name)),
                             QPoint(-1, static_cast<int>(p)));
    const QPoint current(scene_->request.pair >= 0 ? -1 : scene_->request.graph, scene_->request.pair);
    graphCombo_->setCurrentIndex(std::max(0, graphCombo_->findData(current)));
}

fxmem::NodeId MainWindow::nodeAt(const Scene::Where& where, bool edited) const {
    if (!scene_ || where.segment < 0) return {};
    const Segment& seg = scene_->segments[static_cast<std::size_t>(where.segment)];
    const OrderedLive* ordered = edited ? liveModel_->orderedLive() : nullptr;
    const fxmem::LiveSetIndex& index =
        ordered && !scene_->joined() && ordered->analysis == seg.analysis ? ordered->index : seg.analysis->live();
    const auto step = static_cast<std::size_t>(where.step);
    return step < index.profile_size() ? index.node_at(step) : fxmem::NodeId{};
}

bool MainWindow::liveIsStale() const { return orderedLive_->pending(); }

QString MainWindow::describeStep(std::int64_t step, bool edited) const {
    if (!scene_) return {};
    const Scene::Where w = scene_->locate(step);
    if (w.segment < 0) return {};
    const Segment& seg = scene_->segments[static_cast<std::size_t>(w.segment)];
    if (w.step == 0) return scene_->joined() ? tr("%1 start").arg(QString::fromStdString(seg.analysis->graph().name)) : tr("start");
    const fxmem::NodeId n = nodeAt(w, edited);
    if (!n.valid()) return {};
    const QString phase = w.step % 2 == 1 ? tr("after alloc") : tr("after free");
    return QString::fromStdString(seg.analysis->graph().node(n).name) % QStringLiteral(" (") % phase % QLatin1Char(')');
}

void MainWindow::setCursorStep(std::int64_t step) { timeline_->setCursorStep(step); }

void MainWindow::onCursor(std::int64_t step) {
    if (!scene_ || step < 0) return;
    QElapsedTimer clock;
    clock.start();
    liveModel_->setStep(step);
    qCDebug(lcTiming, "live rows at step %lld: %d in %lld ms", static_cast<long long>(step), liveModel_->rowCount(),
            static_cast<long long>(clock.elapsed()));
    graphView_->setCursorStep(step);
    std::vector<NodeRef> producers;
    producers.reserve(static_cast<std::size_t>(liveModel_->rowCount()));
    for (int r = 0; r < liveModel_->rowCount(); ++r) producers.push_back({liveModel_->row(r).segment, liveModel_->row(r).allocator});
    graphView_->setLiveNodes(std::move(producers));
    // The live table describes the edited order once its index is ready: compare with that
    // curve, the overlay (read in place: this runs on every cursor move).
    const bool edited = liveModel_->orderedLive() && timeline_->hasOverlay();
    const std::vector<std::int64_t>& curve = edited ? timeline_->overlay() : scene_->profile;
    const std::int64_t plotted = static_cast<std::size_t>(step) < curve.size() ? curve[static_cast<std::size_t>(step)] : 0;
    liveHeader_->setText(tr("<b>Step %1</b> · %2").arg(step).arg(describeStep(step).toHtmlEscaped()));
    QString total = tr("<b>%1</b> in %L2 storages").arg(formatBytes(liveModel_->totalBytes())).arg(liveModel_->rowCount());
    if (liveModel_->totalBytes() != plotted) total += tr(" <span style='color:red'>(plot: %1)</span>").arg(formatBytes(plotted));
    if (liveIsStale())
        total += tr("<br><i>Updating for the edited order…</i>");
    else if (liveModel_->orderedLive())
        total += tr("<br><i>Live storages of the edited order (the overlay curve).</i>");
    liveTotal_->setText(total);
}

void MainWindow::onNodeChosen(NodeRef ref, bool center) {
    if (!scene_ || !ref.valid()) return;
    graphView_->selectNode(ref);
    if (center) graphView_->centerOn(ref);
    inspector_->showNode(ref);
    if (!scene_->joined() && ref.segment == 0) {
        const QSignalBlocker block(editor_);
        editor_->selectNode(ref.node);
    }
}

std::vector<std::int64_t> MainWindow::editedProfile() const {
    if (!scene_ || scene_->joined() || scene_->empty() || !editor_->isEnabled()) return {};
    return editor_->profile();
}

void MainWindow::onScheduleChanged() {
    if (applyingScene_ || !scene_ || scene_->joined() || scene_->empty()) return;
    std::vector<fxmem::NodeId> order = editor_->order();
    graphView_->setSchedule(order, true);
    const auto& analysis = scene_->segments.front().analysis;
    const bool changed = order != fxmem::original_order(analysis->graph());
    if (changed) {
        const std::int64_t edited = editor_->peak(), original = editor_->originalPeak();
        timeline_->setOverlay(editor_->profile(), editor_->peakStep(),
                              tr("edited peak %1 · %2").arg(formatBytes(edited), formatDelta(edited - original, original)));
        // The live table follows once the edited order's index is built (off this thread).
        orderedLive_->request(analysis, std::move(order));
    } else {
        timeline_->clearOverlay();
        orderedLive_->cancel();
        liveModel_->setOrderedLive(nullptr);
    }
    updateSummary();
    updateActions();
    onCursor(timeline_->cursorStep());
    if (inspector_->node().valid()) inspector_->showNode(inspector_->node());  // its step may have moved
}

void MainWindow::updateSummary() {
    if (!scene_ || scene_->empty()) {
        if (!scene_) return;
        summary_->setText(tr("<b>%1</b> holds no graph.").arg(QFileInfo(scene_->path).fileName().toHtmlEscaped()));
        return;
    }
    const QPalette pal = palette();
    const QString dim = colors::mix(pal.color(QPalette::Window), pal.color(QPalette::WindowText), 0.6).name();
    QString h = tr("<span>Peak <b style='color:%1'>%2</b></span> "
                   "<span style='color:%3'>at step %4 · %5</span>")
                    .arg(colors::peak(pal).name(), formatBytes(scene_->peak), dim)
                    .arg(scene_->peakStep)
                    .arg(describeStep(static_cast<std::int64_t>(scene_->peakStep), false).toHtmlEscaped());
    if (timeline_->hasOverlay()) {
        const std::int64_t edited = editor_->peak(), original = editor_->originalPeak();
        h += tr("&nbsp;&nbsp;│&nbsp;&nbsp;<span>Edited <b style='color:%1'>%2</b></span> "
                "<span style='color:%1'>%3</span>")
                 .arg(colors::edited(pal).name(), formatBytes(edited), formatDelta(edited - original, original));
    }
    if (scene_->pairPeak) {
        const fxmem::PeakMemory& pm = *scene_->pairPeak;
        h += tr("&nbsp;&nbsp;│&nbsp;&nbsp;Pair peak <b>%1</b> <span style='color:%2'>(forward %3, backward %4 incl. "
                "baseline %5)</span>")
                 .arg(formatBytes(pm.peak), dim, formatBytes(pm.forward_peak), formatBytes(pm.backward_peak),
                      formatBytes(pm.backward_baseline));
        // An edited forward or backward moves the pair's peak too: get_peak_memory on the graph
        // reordered (apply_schedule) profiles that order, whose peak is the editor's; the
        // baseline does not depend on the order.
        if (timeline_->hasOverlay() && !scene_->joined()) {
            const bool backward = scene_->segments.front().analysis->isBackwardOfPair();
            const std::int64_t editedPair = backward ? std::max(pm.forward_peak, pm.backward_baseline + editor_->peak())
                                                     : std::max(editor_->peak(), pm.backward_peak);
            h += tr(" <span style='color:%1'>→ edited <b>%2</b> %3</span>")
                     .arg(colors::edited(pal).name(), formatBytes(editedPair), formatDelta(editedPair - pm.peak, pm.peak));
        }
    } else if (scene_->segments.front().analysis->isBackwardOfPair()) {
        h += tr("&nbsp;&nbsp;│&nbsp;&nbsp;baseline %1").arg(formatBytes(scene_->segments.front().analysis->baseline()));
    }
    summary_->setText(h);
}

void MainWindow::updateStatus() {
    if (!scene_) {
        statusFile_->clear();
        return;
    }
    statusFile_->setText(tr("%1 · %2 · %L3 nodes · peak %4")
                             .arg(QFileInfo(scene_->path).fileName(), scene_->title())
                             .arg(scene_->nodeCount())
                             .arg(formatBytes(scene_->peak)));
}

void MainWindow::updateActions() {
    const bool single = scene_ && !scene_->empty() && !scene_->joined();
    saveScheduleAction_->setEnabled(single);
    openScheduleAction_->setEnabled(single);
    resetScheduleAction_->setEnabled(single && timeline_->hasOverlay());
    exportPlotAction_->setEnabled(scene_ && !scene_->empty());
    exportCsvAction_->setEnabled(scene_ && !scene_->empty());
    findAction_->setEnabled(scene_ && !scene_->empty());
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
        QAction* a = recentMenu_->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName()));
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

void MainWindow::runSearch() {
    matches_.clear();
    matchIndex_ = -1;
    const QString text = findEdit_->text().trimmed();
    if (scene_ && !text.isEmpty()) {
        const std::string needle = text.toLower().toStdString();
        auto contains = [&needle](std::string_view hay) {
            return std::search(hay.begin(), hay.end(), needle.begin(), needle.end(),
                               [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; }) != hay.end();
        };
        for (std::size_t s = 0; s < scene_->segments.size(); ++s) {
            const fxmem::Graph& g = scene_->segments[s].analysis->graph();
            for (std::size_t i = 0; i < g.size(); ++i)
                if (contains(g.nodes[i].name) || contains(g.targets[g.nodes[i].target]))
                    matches_.push_back({static_cast<int>(s), fxmem::NodeId(static_cast<std::int32_t>(i))});
        }
    }
    graphView_->setSearchMatches(matches_);
    findCount_->setText(text.isEmpty() ? QString() : matches_.empty() ? tr("no match") : tr("%L1 matches").arg(matches_.size()));
}

void MainWindow::stepSearch(int delta) {
    if (matches_.empty()) return;
    const int n = static_cast<int>(matches_.size());
    matchIndex_ = ((matchIndex_ < 0 && delta < 0 ? 0 : matchIndex_ + delta) % n + n) % n;
    const NodeRef ref = matches_[static_cast<std::size_t>(matchIndex_)];
    onNodeChosen(ref, true);
    timeline_->setCursorStep(graphView_->stepOf(ref));
    findCount_->setText(tr("%L1 of %L2").arg(matchIndex_ + 1).arg(n));
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

void MainWindow::saveSchedule() {
    if (!scene_ || scene_->joined()) return;
    const QString suggested = QFileInfo(scene_->path).absolutePath() % QLatin1Char('/') %
                              QString::fromStdString(scene_->segments.front().analysis->graph().name) %
                              QStringLiteral(".schedule.json");
    const QString path = QFileDialog::getSaveFileName(this, tr("Save schedule"), suggested, tr("Schedules (*.json)"));
    if (path.isEmpty()) return;
    QString error;
    if (!editor_->saveSchedule(path, &error)) QMessageBox::critical(this, tr("Cannot save schedule"), error);
    else statusBar()->showMessage(tr("Schedule saved to %1").arg(path), 5000);
}

void MainWindow::openSchedule() {
    if (!scene_ || scene_->joined() || !maybeKeepSchedule()) return;
    const QString path = QFileDialog::getOpenFileName(this, tr("Open schedule"), QFileInfo(scene_->path).absolutePath(),
                                                      tr("Schedules (*.json);;All files (*)"));
    if (path.isEmpty()) return;
    QString error;
    if (!editor_->openSchedule(path, &error)) QMessageBox::critical(this, tr("Cannot open schedule"), error);
}

void MainWindow::exportPlot() {
    if (!scene_) return;
    QString selected;
    const QString base = QFileInfo(scene_->path).completeBaseName().section(QLatin1Char('.'), 0, 0);
    const QString path = QFileDialog::getSaveFileName(this, tr("Export plot"), base % QStringLiteral("-memory.png"),
                                                      PlotExport::filters(), &selected);
    if (path.isEmpty()) return;
    QString error;
    const bool ok = PlotExport::save(*timeline_, path, &error);
    if (!ok) QMessageBox::critical(this, tr("Export failed"), error);
    else statusBar()->showMessage(tr("Plot exported to %1").arg(path), 5000);
}

void MainWindow::exportCsv() {
    if (!scene_) return;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export profile"), QStringLiteral("profile.csv"), tr("CSV (*.csv)"));
    if (path.isEmpty()) return;
    QSaveFile out(path);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Text)) {
        QMessageBox::critical(this, tr("Export failed"), out.errorString());
        return;
    }
    const std::vector<std::int64_t> edited = timeline_->hasOverlay() ? editedProfile() : std::vector<std::int64_t>{};
    // With an edited schedule, its curve and the node it runs at each step (another node than the
    // original order's at the same step).
    QByteArray csv = edited.empty() ? "step,graph,node,phase,bytes\n" : "step,graph,node,phase,bytes,edited_bytes,edited_node\n";
    std::vector<fxmem::NodeId> editedNodes;  // per edited profile index: two per running node
    if (!edited.empty()) {
        const fxmem::Graph& g = scene_->segments.front().analysis->graph();
        editedNodes.emplace_back();
        for (fxmem::NodeId n : editor_->order()) {
            const fxmem::OpKind op = g.node(n).op;
            if (op == fxmem::OpKind::Placeholder || op == fxmem::OpKind::GetAttr || op == fxmem::OpKind::Output) continue;
            editedNodes.push_back(n);
            editedNodes.push_back(n);
        }
    }
    for (std::size_t i = 0; i < scene_->profile.size(); ++i) {
        const Scene::Where w = scene_->locate(static_cast<std::int64_t>(i));
        const Segment& seg = scene_->segments[static_cast<std::size_t>(w.segment)];
        const fxmem::NodeId n = w.step == 0 ? fxmem::NodeId{} : nodeAt(w, false);
        csv += QByteArray::number(static_cast<qulonglong>(i)) + ',' + QByteArray::fromStdString(seg.analysis->graph().name) + ',' +
               (n.valid() ? QByteArray::fromStdString(seg.analysis->graph().node(n).name) : QByteArray()) + ',' +
               (w.step == 0 ? "start" : w.step % 2 == 1 ? "after_alloc" : "after_free") + ',' +
               QByteArray::number(static_cast<qlonglong>(scene_->profile[i]));
        if (!edited.empty() && i < edited.size()) {
            const fxmem::NodeId e = i < editedNodes.size() ? editedNodes[i] : fxmem::NodeId{};
            csv += ',' + QByteArray::number(static_cast<qlonglong>(edited[i])) + ',' +
                   (e.valid() ? QByteArray::fromStdString(seg.analysis->graph().node(e).name) : QByteArray());
        }
        csv += '\n';
    }
    out.write(csv);
    if (!out.commit()) QMessageBox::critical(this, tr("Export failed"), out.errorString());
    else statusBar()->showMessage(tr("Profile exported to %1").arg(path), 5000);
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
        updateSummary();
        if (scene_) onCursor(timeline_->cursorStep());
    }
}
