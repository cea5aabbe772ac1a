#include "recompute/recomputepanel.h"

#include "jobs/jobtracker.h"
#include "loading/scene.h"
#include "recompute/recomputeplot.h"
#include "recompute/recomputetable.h"
#include "state/viewstate.h"
#include "util/text.h"
#include "util/units.h"

#include <QAction>
#include <QDoubleSpinBox>
#include <QFile>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>

#include <fxmem/error.h>

#include <utility>

using Kind = RecomputePoint::Kind;

RecomputePanel::RecomputePanel(ViewState* state, QWidget* parent) : QWidget(parent), state_(state) {
    setObjectName(QStringLiteral("recomputePanel"));
    jobs_ = new JobTracker(this);
    scoring_ = new JobTracker(this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    summary_ = new QLabel;
    summary_->setWordWrap(true);
    summary_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    layout->addWidget(summary_);
    auto* bar = new QHBoxLayout;
    find_ = new QPushButton(tr("Find plan"));
    find_->setToolTip(tr("Search the saved activations for the lowest pair peak (fxmem's frontier)"));
    bar->addWidget(find_);
    // The limit fxmem-cli remat --max-extra-percent takes; its lowest value means none.
    auto* limitLabel = new QLabel(tr("FLOPs ≤"));
    bar->addWidget(limitLabel);
    limit_ = new QDoubleSpinBox;
    limit_->setObjectName(QStringLiteral("recomputeFlopsLimit"));
    limit_->setRange(-1, 10000);
    limit_->setDecimals(1);
    limit_->setSingleStep(1);
    limit_->setSpecialValueText(tr("no limit"));
    limit_->setPrefix(QStringLiteral("+"));
    limit_->setSuffix(QStringLiteral(" %"));
    limit_->setValue(-1);
    limit_->setAccelerated(true);
    limit_->setToolTip(tr("Find plan's limit on extra FLOPs, in % of the baseline pair's (budget 1.0): "
                          "the lowest peak within it (fxmem-cli remat --max-extra-percent)"));
    limitLabel->setToolTip(limit_->toolTip());
    limitLabel->setBuddy(limit_);
    bar->addWidget(limit_);
    progress_ = new QProgressBar;
    progress_->setRange(0, 1000);
    progress_->setVisible(false);
    bar->addWidget(progress_, 1);
    cancel_ = new QToolButton;
    cancel_->setText(tr("Cancel"));
    cancel_->setVisible(false);
    bar->addWidget(cancel_);
    bar->addStretch();
    // The live table's Recompute/Save edits (its context menu) are undone here, or by the window's
    // Edit ▸ Undo while a pair is shown (ViewState::history).
    QUndoStack* edits = state_->pairEdits();
    for (QAction* a : {edits->createUndoAction(this, tr("Undo")), edits->createRedoAction(this, tr("Redo"))}) {
        auto* b = new QToolButton;
        b->setDefaultAction(a);
        bar->addWidget(b);
    }
    layout->addLayout(bar);

    auto* split = new QSplitter(Qt::Vertical);
    split->setChildrenCollapsible(false);
    plot_ = new RecomputePlot;
    split->addWidget(plot_);
    model_ = new RecomputeTableModel(this);
    proxy_ = new QSortFilterProxyModel(this);
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(RecomputeTableModel::SortRole);
    table_ = new QTableView;
    table_->setObjectName(QStringLiteral("recomputeTable"));
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(-1, Qt::AscendingOrder); // file order until a header is clicked
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->verticalHeader()->setVisible(false);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    // The numbers whole at any dock width and the name column given what is left: at 1366x768
    // the stretched last column ("Saved") was cut and "Extra FLOPs" narrower than its header.
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(RecomputeTableModel::Point, QHeaderView::Stretch);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    split->addWidget(table_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);

    connect(find_, &QPushButton::clicked, this, [this] { findPlan(); });
    connect(cancel_, &QToolButton::clicked, this, [this] {
        jobs_->cancel();
        openPlan_ = false;
    });
    connect(jobs_, &JobTracker::busyChanged, this, [this](bool busy) {
        progress_->setVisible(busy);
        cancel_->setVisible(busy);
        find_->setEnabled(!busy && file_);
        if (busy) progress_->setValue(0);
    });
    connect(jobs_, &JobTracker::progress, this, [this](double fraction, const QString& stage) {
        progress_->setValue(static_cast<int>(fraction * 1000));
        progress_->setFormat(stage % QStringLiteral(" %p%"));
    });
    connect(jobs_, &JobTracker::failed, this, [this](const QString& message) {
        error_ = tr("No plan: %1").arg(elided(message, 400));
        openPlan_ = false;
        updateSummary();
        emit planReady(error_);
    });
    connect(scoring_, &JobTracker::failed, this, [this](const QString& message) {
        error_ = tr("Budget pairs: %1").arg(elided(message, 400));
        updateSummary();
    });
    connect(plot_, &RecomputePlot::pointClicked, this, &RecomputePanel::openPoint);
    connect(table_, &QTableView::activated, this,
            [this](const QModelIndex& index) { openPoint(index.data(RecomputeTableModel::IndexRole).toInt()); });
    connect(state_, &ViewState::sceneChanged, this, [this](const std::shared_ptr<const Scene>& scene) {
        onScene(scene);
        emit currentPlanChanged(); // the pair shown decides which plan is current
    });
    connect(state_, &ViewState::unitsChanged, this, [this] {
        model_->refreshBytes();
        updateSummary();
    });
    connect(limit_, &QDoubleSpinBox::valueChanged, this, [this] { plot_->setLimit(maxExtraPercent()); });
    find_->setEnabled(false);
    updateSummary();
}

const RecomputePoints& RecomputePanel::points() const { return model_->points(); }

QUndoStack* RecomputePanel::undoStack() const { return state_->pairEdits(); }

void RecomputePanel::onScene(const std::shared_ptr<const Scene>& scene) {
    if (scene && file_ && (scene->file == file_ || isMade(scene->file))) {
        updateCurrent();
        return;
    }
    // A simulated pair made here stays out of it; any other file replaces the points.
    jobs_->cancel();
    pendingFind_ = false;
    plan_.reset();
    made_.clear();
    state_->pairEdits()->clear();
    lastEdit_ = nullptr;
    error_.clear();
    file_.reset();
    showPoints({});
    if (!scene || !scene->file) return;
    auto file = scene->file;
    bool any = false;
    for (const auto& g : file->graphs) any = any || g.kind == fxmem::GraphKind::Joint;
    for (const auto& p : file->pairs) any = any || p.budget.has_value();
    if (!any) {
        updateSummary();
        return;
    }
    file_ = file;
    scoring_->start<RecomputePoints>(
        [file](JobContext& job) {
            job.throwIfCancelled();
            return std::make_shared<const RecomputePoints>(budgetPoints(*file));
        },
        [this, file](std::shared_ptr<const RecomputePoints> points) {
            if (file != file_) return;
            showPoints(*points);
            if (std::exchange(pendingFind_, false)) findPlan(pendingPeak_, openPlan_);
        });
}

void RecomputePanel::showPoints(const RecomputePoints& points) {
    model_->setPoints(points);
    plot_->setPoints(points);
    find_->setEnabled(file_ && points.joint >= 0 && !jobs_->busy());
    updateCurrent();
    updateSummary();
    emit pointsChanged();
}

void RecomputePanel::updateCurrent() {
    const auto& scene = state_->scene();
    int current = -1;
    const auto& pts = points().points;
    for (int i = 0; scene && i < static_cast<int>(pts.size()); ++i) {
        const RecomputePoint& p = pts[static_cast<std::size_t>(i)];
        if ((p.kind == Kind::Budget && scene->file == file_ && scene->request.pair == p.pair) ||
            (p.kind == Kind::Plan && plan_ && scene->file == plan_->pairFile) ||
            (p.kind == Kind::Edit && p.made >= 0 && p.made < static_cast<int>(made_.size()) &&
             scene->file == made_[static_cast<std::size_t>(p.made)].file))
            current = i;
    }
    plot_->setCurrent(current);
}

void RecomputePanel::updateSummary() {
    QString text;
    const RecomputePoints& pts = points();
    if (!file_) {
        text = tr("The file has no joint graph and no budget pairs (fxmem_export.sweep writes them).");
    } else {
        const auto lowest =
            std::find_if(pts.points.begin(), pts.points.end(), [](const RecomputePoint& p) { return p.lowest; });
        int budgets = 0;
        for (const RecomputePoint& p : pts.points) budgets += p.kind == Kind::Budget;
        text = tr("%n PyTorch budget pair(s)", nullptr, budgets);
        if (pts.joint < 0) text += tr("; no joint graph, so no plan can be searched");
        if (lowest != pts.points.end())
            text += tr(". Lowest peak: %1 at +%2 % FLOPs (%3).")
                        .arg(formatBytes(lowest->peak))
                        .arg(pts.percent(lowest->extraFlops), 0, 'f', 1)
                        .arg(lowest->kind == Kind::Budget
                                 ? tr("budget %1").arg(QString::fromStdString(budgetText(lowest->budget)))
                             : lowest->kind == Kind::Frontier ? tr("fxmem frontier")
                             : lowest->kind == Kind::Edit     ? tr("your edit")
                                                              : tr("fxmem plan"));
        if (plan_)
            text += tr(" Plan: %1 at +%2 % FLOPs%3, %L4 partitions scored.")
                        .arg(formatBytes(plan_->result.peak.peak))
                        .arg(pts.percent(plan_->result.extra_flops), 0, 'f', 1)
                        .arg(plan_->maxExtraPercent >= 0 ? tr(" (limit +%1 %)").arg(plan_->maxExtraPercent, 0, 'f', 1)
                                                         : QString())
                        .arg(static_cast<qulonglong>(plan_->result.evaluations));
    }
    if (lastEdit_) text += QLatin1Char(' ') + lastEdit_();
    if (!error_.isEmpty()) text += QLatin1Char(' ') + error_;
    summary_->setText(text);
}

void RecomputePanel::findPlan(std::int64_t targetPeak, bool show) {
    openPlan_ = show;
    const RecomputePoints& pts = points();
    if (file_ && scoring_->busy()) {
        pendingFind_ = true;
        pendingPeak_ = targetPeak;
        return;
    }
    if (!file_ || pts.joint < 0) return;
    error_.clear();
    fxmem::RematOptions options;
    // At most one limit applies in core: a frontier point's peak, else the FLOPs limit.
    if (targetPeak >= 0)
        options.target_peak = targetPeak;
    else if (const double limit = maxExtraPercent(); limit >= 0)
        options.max_extra_percent = limit;
    auto file = file_;
    const int joint = pts.joint;
    jobs_->start<RecomputePlan>(
        [file, joint, options](JobContext& job) mutable {
            options.cancelled = job.cancelCheck();
            options.progress = [&job](double f) { job.report(f, QObject::tr("Searching")); };
            return searchPlan(file, joint, options);
        },
        [this](std::shared_ptr<const RecomputePlan> plan) {
            if (plan->file != file_) return;
            plan_ = std::move(plan);
            made_.push_back({plan_->pairFile, plan_->result.saved, plan_->planFile});
            RecomputePoints pts = points();
            addPlan(pts, *plan_);
            showPoints(pts);
            emit planReady({});
            emit currentPlanChanged();
            if (openPlan_) emit pairRequested(plan_->pairFile, 0);
            openPlan_ = false;
        });
}

void RecomputePanel::openPoint(int index) {
    const auto& pts = points().points;
    if (index < 0 || index >= static_cast<int>(pts.size())) return;
    const RecomputePoint& p = pts[static_cast<std::size_t>(index)];
    switch (p.kind) {
    case Kind::Budget: emit pairRequested(file_, p.pair); break;
    case Kind::Plan:
        if (plan_) emit pairRequested(plan_->pairFile, 0);
        break;
    case Kind::Edit:
        if (p.made >= 0 && p.made < static_cast<int>(made_.size()))
            emit pairRequested(made_[static_cast<std::size_t>(p.made)].file, 0);
        break;
    case Kind::Frontier:
        // The frontier keeps peaks and FLOPs only: the cheapest plan at that peak is searched again.
        findPlan(p.peak, true);
        break;
    }
}

double RecomputePanel::maxExtraPercent() const { return limit_->value() < 0 ? -1.0 : limit_->value(); }

void RecomputePanel::setMaxExtraPercent(double percent) { limit_->setValue(percent < 0 ? -1.0 : percent); }

std::shared_ptr<const fxmem::RematPlan> RecomputePanel::currentPlan() const {
    if (const auto& scene = state_->scene())
        for (const Made& m : made_)
            if (m.file == scene->file) return m.plan;
    return plan_ ? plan_->planFile : nullptr;
}

bool RecomputePanel::savePlan(const QString& path, QString* error) const {
    const std::shared_ptr<const fxmem::RematPlan> plan = currentPlan();
    if (!plan) {
        *error = tr("There is no plan to save: find one, or edit a pair of the joint graph.");
        return false;
    }
    try {
        fxmem::save_plan(*plan, QFile::encodeName(path).toStdString());
    } catch (const fxmem::Error& e) {
        *error = elided(std::string_view(e.what()), 2000);
        return false;
    }
    return true;
}
