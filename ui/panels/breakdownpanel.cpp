#include "panels/breakdownpanel.h"

#include "analysis/liveatstep.h"
#include "models/breakdownmodels.h"
#include "state/viewstate.h"
#include "util/text.h"
#include "util/units.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

BreakdownPanel::BreakdownPanel(ViewState* state, QWidget* parent) : QWidget(parent), state_(state) {
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(4, 4, 4, 4);
    auto* top = new QHBoxLayout;
    header_ = new QLabel;
    header_->setTextFormat(Qt::RichText);
    header_->setWordWrap(true);
    header_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    clear_ = new QToolButton;
    clear_->setText(tr("Clear"));
    clear_->setToolTip(tr("Show every module's storages in the live table"));
    clear_->setEnabled(false);
    top->addWidget(header_, 1);
    top->addWidget(clear_);
    l->addLayout(top);

    auto* split = new QSplitter(Qt::Vertical);
    split->setChildrenCollapsible(false);
    roles_ = new RoleBreakdownModel(this);
    roleProxy_ = new QSortFilterProxyModel(this);
    roleProxy_->setSourceModel(roles_);
    roleProxy_->setSortRole(RoleBreakdownModel::SortRole);
    roleTable_ = new QTableView;
    roleTable_->setModel(roleProxy_);
    roleTable_->setSortingEnabled(true);
    roleTable_->sortByColumn(RoleBreakdownModel::BytesColumn, Qt::DescendingOrder);
    roleTable_->verticalHeader()->hide();
    roleTable_->verticalHeader()->setDefaultSectionSize(roleTable_->fontMetrics().height() + 6);
    roleTable_->horizontalHeader()->setStretchLastSection(true);
    roleTable_->setSelectionMode(QAbstractItemView::NoSelection);
    split->addWidget(roleTable_);

    modules_ = new ModuleBreakdownModel(this);
    moduleProxy_ = new BreakdownProxy(this);
    moduleProxy_->setSourceModel(modules_);
    tree_ = new QTreeView;
    tree_->setModel(moduleProxy_);
    tree_->setSortingEnabled(true);
    tree_->sortByColumn(ModuleBreakdownModel::BytesColumn, Qt::DescendingOrder);
    tree_->setUniformRowHeights(true);
    tree_->setAlternatingRowColors(true);
    tree_->setSelectionMode(QAbstractItemView::SingleSelection);
    tree_->setSelectionBehavior(QAbstractItemView::SelectRows);
    tree_->header()->setStretchLastSection(false);
    tree_->header()->setSectionResizeMode(ModuleBreakdownModel::ModuleColumn, QHeaderView::Stretch);
    split->addWidget(tree_);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    l->addWidget(split, 1);

    connect(tree_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
        if (selecting_ || !current.isValid()) return;
        const QModelIndex src = moduleProxy_->mapToSource(current);
        const bool root = modules_->data(src, ModuleBreakdownModel::ModuleIndexRole).toUInt() == 0;
        const auto& scene = state_->scene();
        if (root || !scene || segment_ < 0 || static_cast<std::size_t>(segment_) >= scene->segments.size())
            return state_->selectModule(QString());
        // Qualified from the model's root, as the live table names it: the whole step's tree names
        // modules so already; a graph's tree by the run's prefix.
        const QString name = modules_->data(src, ModuleBreakdownModel::NameRole).toString();
        state_->selectModule(stepModules_ ? name
                                          : scene->moduleName(static_cast<std::size_t>(segment_), name.toStdString()));
    });
    connect(clear_, &QToolButton::clicked, this, [this] { state_->selectModule(QString()); });
    connect(state_, &ViewState::moduleSelected, this, [this](const QString& module) {
        clear_->setEnabled(!module.isNull());
        selectInTree(module);
    });
    auto invalidate = [this] {
        stale_ = true;
        if (isVisible()) refresh();
    };
    connect(state_, &ViewState::sceneChanged, this, invalidate);
    connect(state_, &ViewState::cursorStepChanged, this, invalidate);
    connect(state_, &ViewState::orderedLiveChanged, this, invalidate);
    // The cells format bytes when read; the header is rewritten by refresh.
    connect(state_, &ViewState::unitsChanged, this, [this, invalidate] {
        roles_->refreshBytes();
        modules_->refreshBytes();
        invalidate();
    });
}

void BreakdownPanel::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (stale_) refresh();
}

void BreakdownPanel::refresh() {
    stale_ = false;
    const auto& scene = state_->scene();
    const std::int64_t step = state_->cursorStep();
    // The live set the other panels use too: worked out once per step.
    live_ = state_->liveAtCursor();
    const LiveAtStep& at = *live_;
    if (!scene || at.where.segment < 0) {
        segment_ = -1;
        stepModules_.reset();
        stepModulesScene_.reset();
        roles_->setLive(nullptr, {});
        modules_->setLive(nullptr, {});
        header_->clear();
        return;
    }
    segment_ = at.where.segment;
    const Segment& seg = scene->segments[static_cast<std::size_t>(at.where.segment)];
    // A joined backward's baseline storages (the forward outputs it keeps) count too.
    roles_->setLive(seg.attribution.get(), at.live);
    // The whole step: the running graph's storages and every carried one, each under the module
    // that made it (core's rule, breakdown --whole-step --by module's), in one tree of the model's
    // modules made once per run.
    modules_->setRootName(
        scene->wholeStep()
            ? tr("(%1 and carried)").arg(elided(scene->segmentName(static_cast<std::size_t>(at.where.segment)), 60))
            : QString());
    if (scene->wholeStep()) {
        const auto segment = static_cast<std::uint32_t>(at.where.segment);
        if (!stepModules_ || stepModulesScene_.lock() != scene || stepModulesSegment_ != segment) {
            stepModules_ = wholeStepModules(*scene, segment, at.carried);
            stepModulesScene_ = scene;
            stepModulesSegment_ = segment;
        }
        modules_->setModules(std::shared_ptr<const fxmem::ModuleTree>(stepModules_, &stepModules_->tree()),
                             stepModules_->totals(at.live, at.baselineBegin));
    } else {
        stepModules_.reset();
        stepModulesScene_.reset();
        modules_->setLive(seg.attribution, at.live);
    }
    tree_->expandToDepth(1);
    selectInTree(state_->selectedModule());
    header_->setText(
        tr("<b>Step %1</b> · %2 in %L3 storages").arg(step).arg(formatBytes(roles_->total())).arg(at.live.size()));
}

void BreakdownPanel::selectInTree(const QString& module) {
    selecting_ = true;
    const fxmem::ModuleTree* a = modules_->tree();
    const auto& scene = state_->scene();
    const std::uint32_t m =
        module.isNull() || !a || !scene || segment_ < 0 || static_cast<std::size_t>(segment_) >= scene->segments.size()
            ? fxmem::ModuleTree::npos
        : stepModules_ ? a->find(module.toStdString())
                       : scene->findModule(static_cast<std::size_t>(segment_), module);
    const QModelIndex i =
        m == fxmem::ModuleTree::npos ? QModelIndex() : moduleProxy_->mapFromSource(modules_->indexOf(m));
    if (i.isValid()) {
        tree_->selectionModel()->setCurrentIndex(i, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        tree_->scrollTo(i);
    } else {
        tree_->selectionModel()->setCurrentIndex(QModelIndex(), QItemSelectionModel::Clear);
    }
    selecting_ = false;
}
