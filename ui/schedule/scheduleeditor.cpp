#include "schedule/scheduleeditor.h"

#include "schedule/optimizerjob.h"
#include "schedule/schedulecommands.h"
#include "schedule/schedulemodel.h"
#include "schedule/scheduleview.h"
#include "util/colors.h"
#include "util/text.h"
#include "util/units.h"

#include <fxmem/error.h>
#include <fxmem/schedule.h>

#include <QComboBox>
#include <QCompleter>
#include <QCursor>
#include <QHeaderView>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QTableView>
#include <QSignalBlocker>
#include <QStandardItemModel>
#include <QStringListModel>
#include <QEvent>
#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFrame>
#include <QHBoxLayout>
#include <QGridLayout>
#include <QItemSelectionModel>
#include <QLabel>
#include <QStyle>
#include <QToolButton>
#include <QToolTip>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>
#include <optional>

struct ScheduleEditor::State {
    struct Source {
        QString name;
        std::vector<fxmem::NodeId> order;  // empty for "Your edit" until there is one
        bool isEdit = false;
        QString source;  // where a stored schedule comes from (tooltip)
    };
    std::vector<Source> sources;  // original, named ones, your edit (last)
    std::vector<fxmem::NodeId> userEdit;
    bool applyingSource = false;  // a pick in progress: the new order is not the user's edit
    int compareA = -1, compareB = -1;
    std::shared_ptr<const OrderComparison> comparison;
    CompareModel* compareModel = nullptr;
    OptimizerJob* optimizer = nullptr;
    std::int64_t lowerBound = -1;
    std::vector<fxmem::MoveSuggestion> suggestions;
    QUndoStack* stack = nullptr;
    std::vector<QLabel*> captions;
    mutable std::optional<std::vector<std::int64_t>> profile;  // cached until the order changes
    bool selecting = false;  // selectNode() in progress: do not echo nodeSelected
};

namespace {

// Core's messages quote node names whole: show their head only (a name may be 100 MB).
QString messageText(std::string_view message) { return elided(message, 4 * kMaxShownNameBytes); }

QString nodeName(const ScheduleModel* model, fxmem::NodeId node) {
    return elided(model->analysis()->graph().node(node).name);
}

// A caption over a value, the value in fixed-width digits.
QLabel* addFigure(QGridLayout* grid, int column, const QString& caption, const QString& widest,
                  std::vector<QLabel*>& captions) {
    auto* title = new QLabel(caption);
    QFont small = title->font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    title->setFont(small);
    captions.push_back(title);
    auto* value = new QLabel(QStringLiteral("—"));
    QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    fixed.setBold(true);
    value->setFont(fixed);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Room for the widest figure, so the strip does not jump as the numbers change.
    value->setMinimumWidth(QFontMetrics(fixed).horizontalAdvance(widest));
    grid->addWidget(title, 0, column);
    grid->addWidget(value, 1, column);
    return value;
}

} // namespace

ScheduleEditor::ScheduleEditor(QWidget* parent) : QWidget(parent), d_(std::make_unique<State>()) {
    d_->stack = new QUndoStack(this);
    model_ = new ScheduleModel(this);
    view_ = new ScheduleView(this);
    view_->setObjectName(QStringLiteral("scheduleView"));
    view_->setScheduleModel(model_);

    // Summary strip: original and edited peak, the change, and the editing buttons.
    auto* strip = new QFrame(this);
    strip->setFrameShape(QFrame::StyledPanel);
    auto* grid = new QGridLayout(strip);
    grid->setContentsMargins(8, 4, 8, 4);
    grid->setHorizontalSpacing(10);
    grid->setVerticalSpacing(0);
    originalLabel_ = addFigure(grid, 0, tr("Original peak"), QStringLiteral("1023 MiB"), d_->captions);
    editedLabel_ = addFigure(grid, 1, tr("Edited peak"), QStringLiteral("1023 MiB"), d_->captions);
    changeLabel_ = addFigure(grid, 2, tr("Change"), QStringLiteral("-1023 MiB (-10.0 %)"), d_->captions);
    grid->setColumnStretch(3, 1);
    originalLabel_->setObjectName(QStringLiteral("originalPeak"));
    editedLabel_->setObjectName(QStringLiteral("editedPeak"));
    changeLabel_->setObjectName(QStringLiteral("peakChange"));

    // Undo and redo as icons (their tooltips name the command), so the strip fits a narrow dock.
    auto makeButton = [&](const QString& text, QStyle::StandardPixmap icon, int column, Qt::ToolButtonStyle look) {
        auto* b = new QToolButton(strip);
        b->setText(text);
        b->setToolTip(text);
        b->setIcon(style()->standardIcon(icon));
        b->setToolButtonStyle(look);
        b->setAutoRaise(true);
        grid->addWidget(b, 0, column, 2, 1);
        return b;
    };
    undoButton_ = makeButton(tr("Undo"), QStyle::SP_ArrowBack, 4, Qt::ToolButtonIconOnly);
    redoButton_ = makeButton(tr("Redo"), QStyle::SP_ArrowForward, 5, Qt::ToolButtonIconOnly);
    resetButton_ = makeButton(tr("Reset"), QStyle::SP_BrowserReload, 6, Qt::ToolButtonIconOnly);
    resetButton_->setToolTip(tr("Back to the graph's original order (undoable)"));
    connect(undoButton_, &QToolButton::clicked, d_->stack, &QUndoStack::undo);
    connect(redoButton_, &QToolButton::clicked, d_->stack, &QUndoStack::redo);
    connect(resetButton_, &QToolButton::clicked, this, &ScheduleEditor::resetSchedule);
    connect(d_->stack, &QUndoStack::canUndoChanged, undoButton_, &QWidget::setEnabled);
    connect(d_->stack, &QUndoStack::canRedoChanged, redoButton_, &QWidget::setEnabled);
    connect(d_->stack, &QUndoStack::undoTextChanged, undoButton_,
            [this](const QString& t) { undoButton_->setToolTip(t.isEmpty() ? tr("Undo") : tr("Undo %1").arg(t)); });
    connect(d_->stack, &QUndoStack::redoTextChanged, redoButton_,
            [this](const QString& t) { redoButton_->setToolTip(t.isEmpty() ? tr("Redo") : tr("Redo %1").arg(t)); });
    undoButton_->setEnabled(false);
    redoButton_->setEnabled(false);

    statusLabel_ = new QLabel(this);
    statusLabel_->setObjectName(QStringLiteral("scheduleStatus"));
    statusLabel_->setWordWrap(true);
    // A long node name must not widen the dock (issue 11 item 1): the label takes the width it
    // is given and clips; the tooltip keeps the whole text.
    statusLabel_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    statusLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    statusLabel_->setContentsMargins(4, 2, 4, 2);

    // "Move to": the selected node to a position, a profile step, or just after a named node.
    auto* moveRow = new QHBoxLayout;
    moveRow->setContentsMargins(4, 0, 4, 0);
    auto* moveCaption = new QLabel(tr("Move selected to"), this);
    moveKind_ = new QComboBox(this);
    moveKind_->setObjectName(QStringLiteral("moveKind"));
    moveKind_->addItem(tr("position"));
    moveKind_->addItem(tr("profile step"));
    moveKind_->addItem(tr("just after node"));
    moveKind_->setToolTip(tr("Position: in this order (the Pos column). Profile step: the timeline's numbering "
                             "(the Step column). Just after node: type a node's name."));
    moveTarget_ = new QLineEdit(this);
    moveTarget_->setObjectName(QStringLiteral("moveTarget"));
    moveTarget_->setClearButtonEnabled(true);
    moveTarget_->setPlaceholderText(tr("number"));
    moveButton_ = new QToolButton(this);
    moveButton_->setText(tr("Move"));
    moveButton_->setToolTip(tr("Move the selected node (Enter in the field does the same)"));
    moveRow->addWidget(moveCaption);
    moveRow->addWidget(moveKind_);
    moveRow->addWidget(moveTarget_, 1);
    moveRow->addWidget(moveButton_);
    connect(moveButton_, &QToolButton::clicked, this, &ScheduleEditor::runMoveCommand);
    connect(moveTarget_, &QLineEdit::returnPressed, this, &ScheduleEditor::runMoveCommand);
    connect(moveKind_, &QComboBox::currentIndexChanged, this, [this](int kind) {
        // A number typed for one mode means nothing in another (and a name typed after it
        // would read "100view_3").
        moveTarget_->clear();
        moveTarget_->setPlaceholderText(kind == 2 ? tr("node name") : tr("number"));
        updateMoveCompleter();
    });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(strip);
    buildSourceRow();
    layout->addWidget(picker_->parentWidget());
    layout->addWidget(optimizeRow_);
    layout->addLayout(moveRow);
    layout->addWidget(view_, 3);
    layout->addWidget(comparePanel_, 2);
    layout->addWidget(suggestionList_, 1);
    layout->addWidget(statusLabel_);

    model_->setMoveHandler([this](std::size_t from, std::size_t to) { return move(from, to, nullptr, false); });
    connect(model_, &ScheduleModel::orderChanged, this, &ScheduleEditor::onOrderChanged);
    connect(view_, &ScheduleView::stepRequested, this, [this](std::size_t from, int delta) {
        if ((delta < 0 && from == 0) || (delta > 0 && from + 1 >= model_->size())) return;
        move(from, delta < 0 ? from - 1 : from + 1, nullptr, true);
    });
    connect(view_, &ScheduleView::dragHovered, this, [this](std::size_t from, std::size_t to) {
        const fxmem::IncrementalSchedule::MoveCheck check = model_->checkMove(from, to);
        const fxmem::IncrementalSchedule::LegalRange range = model_->schedule()->legal_range(from);
        const QString name = nodeName(model_, model_->schedule()->at(from));
        if (check.ok) {
            showStatus(tr("Move '%1' to position %2 (it may go to positions %3–%4)")
                           .arg(name)
                           .arg(to)
                           .arg(range.lo)
                           .arg(range.hi),
                       false);
            QToolTip::hideText();
        } else {
            const QString why = messageText(check.reason);
            showStatus(why, true);
            QToolTip::showText(QCursor::pos(), why, view_);
        }
    });
    connect(view_, &ScheduleView::dragEnded, this, [] { QToolTip::hideText(); });
    connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
        if (d_->selecting || !current.isValid()) return;
        emit nodeSelected(fxmem::NodeId(current.data(ScheduleModel::NodeIdRole).toInt()));
    });
    applyPalette();
}

ScheduleEditor::~ScheduleEditor() {
    // Commands point at the model; drop them before the model goes.
    d_->stack->clear();
}

void ScheduleEditor::buildSourceRow() {
    auto* row = new QWidget(this);
    auto* h = new QHBoxLayout(row);
    h->setContentsMargins(4, 0, 4, 0);
    picker_ = new QComboBox(row);
    picker_->setObjectName(QStringLiteral("schedulePicker"));
    picker_->setToolTip(tr("Which order to edit: the graph's original order, a schedule stored in the file, or your edit"));
    picker_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    picker_->setMinimumContentsLength(8);
    compareButton_ = new QToolButton(row);
    compareButton_->setText(tr("Compare"));
    compareButton_->setCheckable(true);
    compareButton_->setToolTip(tr("Overlay two orders on the timeline and list the nodes that moved"));
    optimizeButton_ = new QToolButton(row);
    optimizeButton_->setText(tr("Optimize"));
    optimizeButton_->setToolTip(tr("Search an order with a lower peak (exact on small graphs); the result is one undoable edit"));
    suggestButton_ = new QToolButton(row);
    suggestButton_->setText(tr("Suggest"));
    suggestButton_->setCheckable(true);
    suggestButton_->setToolTip(tr("The single moves that lower the current peak most; click one to apply it"));
    h->addWidget(new QLabel(tr("Schedule"), row));
    h->addWidget(picker_, 1);
    h->addWidget(compareButton_);
    h->addWidget(optimizeButton_);
    h->addWidget(suggestButton_);
    connect(picker_, &QComboBox::activated, this, [this](int index) { pickSource(index); });

    // Optimize progress: a bar and Cancel, shown while the worker runs.
    optimizeRow_ = new QWidget(this);
    auto* o = new QHBoxLayout(optimizeRow_);
    o->setContentsMargins(4, 0, 4, 0);
    optimizeProgress_ = new QProgressBar(optimizeRow_);
    optimizeProgress_->setObjectName(QStringLiteral("optimizeProgress"));
    optimizeProgress_->setRange(0, 1000);
    auto* cancel = new QToolButton(optimizeRow_);
    cancel->setObjectName(QStringLiteral("optimizeCancel"));
    cancel->setText(tr("Cancel"));
    cancel->setToolTip(tr("Stop the search; the order stays as it is"));
    o->addWidget(optimizeProgress_, 1);
    o->addWidget(cancel);
    optimizeRow_->hide();
    d_->optimizer = new OptimizerJob(this);
    connect(optimizeButton_, &QToolButton::clicked, this, [this] { optimize(); });
    connect(cancel, &QToolButton::clicked, this, &ScheduleEditor::cancelOptimize);
    connect(d_->optimizer, &OptimizerJob::progress, this,
            [this](double fraction, qint64 best, qint64 bound, const QString& phase) {
                optimizeProgress_->setValue(static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 1000));
                optimizeProgress_->setFormat(tr("%1: best %2, bound %3").arg(phase, formatBytes(std::int64_t(best)),
                                                                           formatBytes(std::int64_t(bound))));
            });
    connect(d_->optimizer, &OptimizerJob::finished, this, &ScheduleEditor::onOptimizeFinished);
    connect(d_->optimizer, &OptimizerJob::failed, this, [this](const QString& why) {
        optimizeRow_->hide();
        optimizeButton_->setEnabled(true);
        showStatus(tr("Optimize failed: %1").arg(why), true);
        emit optimizeFinished(false);
    });

    // Compare: A and B, and the moved nodes.
    comparePanel_ = new QWidget(this);
    auto* c = new QVBoxLayout(comparePanel_);
    c->setContentsMargins(4, 0, 4, 0);
    auto* pick = new QHBoxLayout;
    compareA_ = new QComboBox(comparePanel_);
    compareA_->setObjectName(QStringLiteral("compareA"));
    compareB_ = new QComboBox(comparePanel_);
    compareB_->setObjectName(QStringLiteral("compareB"));
    for (QComboBox* box : {compareA_, compareB_}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(8);
    }
    pick->addWidget(new QLabel(tr("A"), comparePanel_));
    pick->addWidget(compareA_, 1);
    pick->addWidget(new QLabel(tr("B"), comparePanel_));
    pick->addWidget(compareB_, 1);
    c->addLayout(pick);
    d_->compareModel = new CompareModel(this);
    compareView_ = new QTableView(comparePanel_);
    compareView_->setObjectName(QStringLiteral("compareList"));
    compareView_->setModel(d_->compareModel);
    compareView_->verticalHeader()->hide();
    compareView_->setSelectionBehavior(QAbstractItemView::SelectRows);
    compareView_->setSelectionMode(QAbstractItemView::SingleSelection);
    compareView_->horizontalHeader()->setStretchLastSection(true);
    compareView_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    c->addWidget(compareView_);
    comparePanel_->hide();
    connect(compareButton_, &QToolButton::toggled, this, [this](bool on) {
        if (!on) return clearComparison();
        const int current = std::max(sourceIndex(), 0);
        setComparison(0, current == 0 && d_->sources.size() > 2 ? 1 : current);
    });
    const auto onPick = [this] { setComparison(compareA_->currentIndex(), compareB_->currentIndex()); };
    connect(compareA_, &QComboBox::activated, this, onPick);
    connect(compareB_, &QComboBox::activated, this, onPick);
    connect(compareView_, &QTableView::clicked, this, [this](const QModelIndex& index) {
        const fxmem::NodeId node(index.data(CompareModel::NodeIdRole).toInt());
        selectNode(node);
        emit nodeSelected(node);
    });

    // Suggestions: one click applies one.
    suggestionList_ = new QListWidget(this);
    suggestionList_->setObjectName(QStringLiteral("suggestionList"));
    suggestionList_->setToolTip(tr("Click a move to apply it (undoable)"));
    // One line per move, elided in the middle (the numbers at the end stay): no sideways scrolling.
    suggestionList_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    suggestionList_->setTextElideMode(Qt::ElideMiddle);
    suggestionList_->hide();
    connect(suggestButton_, &QToolButton::toggled, this, [this](bool on) {
        suggestionList_->setVisible(on);
        if (on) refreshSuggestions();
    });
    connect(suggestionList_, &QListWidget::itemClicked, this,
            [this](QListWidgetItem* item) { applySuggestion(static_cast<std::size_t>(suggestionList_->row(item))); });
}

// ---- sources (the picker) ----

void ScheduleEditor::rebuildSources() {
    d_->sources.clear();
    d_->userEdit.clear();
    const auto& a = model_->analysis();
    if (a) {
        d_->sources.push_back({tr("Original order"), fxmem::original_order(a->graph()), false, tr("The graph's own order")});
        // The name only: a schedule's `source` can be a long provenance line (the pass and its
        // options), shown as the item's tooltip.
        for (const fxmem::NamedSchedule& named : a->file().schedules)
            if (static_cast<int>(named.graph) == a->graphIndex())
                d_->sources.push_back({elided(named.name), named.order, false, elided(named.source, 4 * kMaxShownNameBytes)});
        d_->sources.push_back({tr("Your edit"), {}, true, tr("The last order you made by moving nodes")});
    }
    for (QComboBox* box : {picker_, compareA_, compareB_}) {
        const QSignalBlocker block(box);
        box->clear();
        for (const auto& src : d_->sources) {
            box->addItem(src.name);
            box->setItemData(box->count() - 1, src.source, Qt::ToolTipRole);
        }
    }
    syncPicker();
}

QStringList ScheduleEditor::sourceNames() const {
    QStringList out;
    for (const auto& src : d_->sources) out << src.name;
    return out;
}

int ScheduleEditor::sourceIndex() const {
    if (!model_->schedule()) return -1;
    const std::vector<fxmem::NodeId>& now = model_->schedule()->order();
    for (std::size_t i = 0; i + 1 < d_->sources.size(); ++i)
        if (d_->sources[i].order == now) return static_cast<int>(i);
    return static_cast<int>(d_->sources.size()) - 1;  // your edit
}

void ScheduleEditor::syncPicker() {
    const QSignalBlocker block(picker_);
    picker_->setCurrentIndex(sourceIndex());
    // "Your edit" can be picked only once there is one.
    for (QComboBox* box : {picker_, compareA_, compareB_}) {
        if (auto* items = qobject_cast<QStandardItemModel*>(box->model()); items && box->count() > 0)
            if (QStandardItem* edit = items->item(box->count() - 1)) edit->setEnabled(!d_->userEdit.empty());
    }
    picker_->setEnabled(model_->schedule() != nullptr);
    compareButton_->setEnabled(model_->schedule() != nullptr);
    optimizeButton_->setEnabled(model_->schedule() != nullptr && !isOptimizing());
    suggestButton_->setEnabled(model_->schedule() != nullptr);
}

bool ScheduleEditor::pickSource(int index) {
    if (!model_->schedule() || index < 0 || index >= static_cast<int>(d_->sources.size())) return false;
    const auto& src = d_->sources[static_cast<std::size_t>(index)];
    const std::vector<fxmem::NodeId>& order = src.isEdit ? d_->userEdit : src.order;
    if (order.empty()) {
        syncPicker();
        return false;
    }
    if (order == model_->schedule()->order()) return true;
    d_->applyingSource = true;
    d_->stack->push(new SetOrderCommand(model_, order, tr("Use %1").arg(src.isEdit ? tr("your edit") : tr("schedule '%1'").arg(src.name))));
    d_->applyingSource = false;
    showStatus(tr("Now editing %1: peak %2").arg(src.name, formatBytes(peak())), false);
    return true;
}

bool ScheduleEditor::pickSchedule(const QString& name) {
    for (std::size_t i = 1; i + 1 < d_->sources.size(); ++i)
        if (d_->sources[i].name == name) return pickSource(static_cast<int>(i));
    return false;
}

// ---- compare ----

void ScheduleEditor::setComparison(int a, int b) {
    const int n = static_cast<int>(d_->sources.size());
    if (!model_->schedule() || a < 0 || b < 0 || a >= n || b >= n) return clearComparison();
    d_->compareA = a;
    d_->compareB = b;
    {
        const QSignalBlocker blockA(compareA_), blockB(compareB_), blockButton(compareButton_);
        compareA_->setCurrentIndex(a);
        compareB_->setCurrentIndex(b);
        compareButton_->setChecked(true);
    }
    comparePanel_->show();
    updateComparison();
}

void ScheduleEditor::clearComparison() {
    const bool had = d_->comparison != nullptr;
    d_->compareA = d_->compareB = -1;
    d_->comparison.reset();
    d_->compareModel->setComparison(nullptr, nullptr);
    {
        const QSignalBlocker block(compareButton_);
        compareButton_->setChecked(false);
    }
    comparePanel_->hide();
    if (had) emit comparisonChanged();
}

std::shared_ptr<const OrderComparison> ScheduleEditor::comparison() const { return d_->comparison; }

QString ScheduleEditor::comparisonName(int which) const {
    const int i = which == 0 ? d_->compareA : d_->compareB;
    if (i < 0 || i >= static_cast<int>(d_->sources.size())) return {};
    return (which == 0 ? QStringLiteral("A: ") : QStringLiteral("B: ")) % d_->sources[static_cast<std::size_t>(i)].name;
}

void ScheduleEditor::updateComparison() {
    if (d_->compareA < 0 || !model_->schedule()) return;
    const auto orderOf = [&](int i) -> std::vector<fxmem::NodeId> {
        const auto& src = d_->sources[static_cast<std::size_t>(i)];
        if (!src.isEdit) return src.order;
        // "Your edit": the user's last order; the current order while it is the edit.
        return d_->userEdit.empty() ? model_->schedule()->order() : d_->userEdit;
    };
    try {
        d_->comparison = std::make_shared<const OrderComparison>(
            compareOrders(*model_->analysis(), orderOf(d_->compareA), orderOf(d_->compareB)));
    } catch (const fxmem::Error& e) {
        d_->comparison.reset();
        showStatus(tr("Cannot compare: %1").arg(messageText(e.what())), true);
    }
    d_->compareModel->setComparison(model_->analysis(), d_->comparison);
    if (d_->comparison && d_->comparison->moved.empty() && d_->comparison->profileA == d_->comparison->profileB)
        showStatus(tr("%1 and %2 are the same order: pick another B (a schedule of the file, or your edit after a move).")
                       .arg(comparisonName(0), comparisonName(1)),
                   false);
    else if (d_->comparison)
        showStatus(tr("%1 peak %2 · %3 peak %4 · %n node(s) moved", nullptr, static_cast<int>(d_->comparison->moved.size()))
                       .arg(comparisonName(0), formatBytes(d_->comparison->peakA), comparisonName(1),
                            formatBytes(d_->comparison->peakB)),
                   false);
    emit comparisonChanged();
}

// ---- optimize ----

void ScheduleEditor::optimize(double timeLimitSeconds) {
    if (!model_->analysis() || isOptimizing()) return;
    optimizeProgress_->setValue(0);
    optimizeProgress_->setFormat(tr("starting…"));
    optimizeRow_->show();
    optimizeButton_->setEnabled(false);
    showStatus(tr("Optimizing (at most %1 s)…").arg(timeLimitSeconds), false);
    d_->optimizer->start(model_->analysis(), timeLimitSeconds);
}

void ScheduleEditor::cancelOptimize() { d_->optimizer->cancel(); }

bool ScheduleEditor::isOptimizing() const { return d_->optimizer->isRunning(); }

std::int64_t ScheduleEditor::lowerBound() const { return d_->lowerBound; }

void ScheduleEditor::onOptimizeFinished(std::shared_ptr<const fxmem::OptimizeResult> result,
                                        std::shared_ptr<const GraphAnalysis> analysis) {
    optimizeRow_->hide();
    optimizeButton_->setEnabled(model_->schedule() != nullptr);
    if (analysis != model_->analysis() || !model_->schedule()) {
        emit optimizeFinished(false);
        return;  // another graph is open now
    }
    d_->lowerBound = result->lower_bound;
    emit lowerBoundChanged(result->lower_bound);
    // The one definition of a backward's peak (docs/estimator.md): in its pair, as fxmem-cli scores it.
    const QString bound = tr("no order can go below %1").arg(formatBytes(result->lower_bound)) +
                          (analysis->isBackwardOfPair()
                               ? tr(" (the backward in its pair, as fxmem-cli scores it: primal and tangent inputs kept; "
                                    "the forward's baseline of %1 comes on top)")
                                     .arg(formatBytes(analysis->baseline()))
                               : QString());
    if (result->cancelled) {
        showStatus(tr("Optimize cancelled; the best order found so far (peak %1) was not applied; %2.")
                       .arg(formatBytes(result->peak), bound),
                   false);
        emit optimizeFinished(false);
        return;
    }
    const std::int64_t before = peak();
    const bool better = result->peak < before && result->order != model_->schedule()->order();
    if (better)
        d_->stack->push(new SetOrderCommand(model_, result->order,
                                            tr("Optimize: peak %1 → %2 (%3)").arg(formatBytes(before), formatBytes(result->peak), formatDelta(result->peak - before, before))));
    const QString how = result->exact ? tr("the exact optimum") : tr("the best order found (%1)").arg(QString::fromStdString(result->method));
    if (better)
        // The change spelled out: on a large peak both ends can round to the same "113 GiB".
        showStatus(tr("Optimized: peak %1 → %2 (%3), %4; %5.")
                       .arg(formatBytes(before), formatBytes(result->peak), formatDelta(result->peak - before, before), how, bound),
                   false);
    else if (before <= result->lower_bound)
        showStatus(tr("This order is already optimal: no order can go below its peak %1.").arg(formatBytes(before)), false);
    else
        showStatus(tr("No order found below the current peak %1 (%2); %3.").arg(formatBytes(before), how, bound), false);
    emit optimizeFinished(better);
}

// ---- suggestions ----

std::vector<fxmem::MoveSuggestion> ScheduleEditor::suggestions() const { return d_->suggestions; }

void ScheduleEditor::refreshSuggestions() {
    d_->suggestions.clear();
    if (model_->schedule()) d_->suggestions = fxmem::suggest_moves(*model_->schedule(), 5);
    fillSuggestionList();
}

void ScheduleEditor::fillSuggestionList() {
    suggestionList_->clear();
    const std::int64_t now = peak();
    for (const fxmem::MoveSuggestion& m : d_->suggestions)
        suggestionList_->addItem(tr("Move '%1' from position %2 to %3: peak %4 → %5 (%6)")
                                     .arg(nodeName(model_, m.node))
                                     .arg(m.from)
                                     .arg(m.to)
                                     .arg(formatBytes(now), formatBytes(m.peak_after), formatDelta(m.peak_after - now, now)));
    if (d_->suggestions.empty() && model_->schedule())
        suggestionList_->addItem(tr("No single move near the peak lowers it."));
    // As tall as its lines (5 at most): a one-line answer must not take the schedule's rows.
    const int rows = std::clamp(suggestionList_->count(), 1, 5);
    const int row = suggestionList_->count() > 0 ? suggestionList_->sizeHintForRow(0) : suggestionList_->fontMetrics().height();
    suggestionList_->setFixedHeight(rows * row + 2 * suggestionList_->frameWidth());
}

bool ScheduleEditor::applySuggestion(std::size_t index) {
    if (index >= d_->suggestions.size()) return false;
    const fxmem::MoveSuggestion m = d_->suggestions[index];
    if (!model_->schedule() || m.from >= model_->size() || model_->schedule()->at(m.from) != m.node) return false;
    const bool moved = move(m.from, m.to, nullptr, false);
    if (moved) selectNode(m.node);
    return moved;
}

void ScheduleEditor::setAnalysis(std::shared_ptr<const GraphAnalysis> analysis) {
    d_->stack->clear();
    statusLabel_->clear();
    if (isOptimizing()) cancelOptimize();
    // Sources and comparison belong to the previous graph: drop them before the model changes.
    clearComparison();
    d_->sources.clear();
    d_->userEdit.clear();
    model_->setAnalysis(std::move(analysis));
    view_->scrollToTop();
    updateMoveCompleter();
    d_->suggestions.clear();
    fillSuggestionList();
    if (d_->lowerBound >= 0) {
        d_->lowerBound = -1;
        emit lowerBoundChanged(-1);
    }
    rebuildSources();
}

void ScheduleEditor::updateMoveCompleter() {
    // Node names complete only in "just after node" mode, built when that mode is chosen.
    if (moveKind_->currentIndex() != 2 || !model_->analysis()) {
        moveTarget_->setCompleter(nullptr);
        return;
    }
    QStringList names;
    const fxmem::Graph& g = model_->analysis()->graph();
    names.reserve(static_cast<qsizetype>(g.size()));
    for (std::size_t n = 0; n < g.size(); ++n)
        names << elided(g.node(fxmem::NodeId(static_cast<std::int32_t>(n))).name);
    auto* completer = new QCompleter(names, moveTarget_);
    completer->setCaseSensitivity(Qt::CaseSensitive);
    completer->setFilterMode(Qt::MatchContains);
    moveTarget_->setCompleter(completer);
}

fxmem::NodeId ScheduleEditor::currentNode() const {
    const QModelIndex current = view_->currentIndex();
    return current.isValid() ? fxmem::NodeId(current.data(ScheduleModel::NodeIdRole).toInt()) : fxmem::NodeId();
}

void ScheduleEditor::runMoveCommand() {
    const fxmem::NodeId node = currentNode();
    if (!model_->schedule()) return;
    if (!node.valid()) {
        showStatus(tr("Select the node to move first."), true);
        return;
    }
    const QString text = moveTarget_->text().trimmed();
    bool ok = false;
    switch (moveKind_->currentIndex()) {
    case 0: {
        const qulonglong position = text.toULongLong(&ok);
        if (!ok) return showStatus(tr("'%1' is not a position (a number from 0 to %2).").arg(elided(text)).arg(model_->size() - 1), true);
        moveNodeToPosition(node, static_cast<std::size_t>(position));
        break;
    }
    case 1: {
        const qlonglong step = text.toLongLong(&ok);
        if (!ok || step < 0) return showStatus(tr("'%1' is not a profile step (a number from 0 to %2).").arg(elided(text)).arg(model_->profileStep(model_->size() - 1)), true);
        moveNodeToProfileStep(node, step);
        break;
    }
    default: {
        const fxmem::NodeId after = model_->analysis()->graph().find(text.toStdString());
        if (!after.valid()) return showStatus(tr("No node named '%1' in this graph.").arg(elided(text)), true);
        moveNodeAfter(node, after);
        break;
    }
    }
}

bool ScheduleEditor::moveNodeToPosition(fxmem::NodeId node, std::size_t position, QString* whyRefused) {
    const fxmem::IncrementalSchedule* s = model_->schedule();
    if (!s || !node.valid() || node.index() >= s->size()) {
        if (whyRefused) *whyRefused = tr("no such node");
        return false;
    }
    const std::size_t from = s->position_of(node);
    const bool moved = move(from, position, whyRefused, false);
    if (moved) selectNode(node);  // keep the moved node in view wherever it went
    return moved;
}

bool ScheduleEditor::moveNodeToProfileStep(fxmem::NodeId node, std::int64_t step, QString* whyRefused) {
    if (!model_->schedule()) return moveNodeToPosition(node, 0, whyRefused);
    return moveNodeToPosition(node, model_->positionOfProfileStep(step), whyRefused);
}

bool ScheduleEditor::moveNodeAfter(fxmem::NodeId node, fxmem::NodeId after, QString* whyRefused) {
    const fxmem::IncrementalSchedule* s = model_->schedule();
    if (!s || !node.valid() || !after.valid() || node.index() >= s->size() || after.index() >= s->size()) {
        if (whyRefused) *whyRefused = tr("no such node");
        return false;
    }
    if (node == after) {
        const QString why = tr("'%1' cannot go after itself").arg(nodeName(model_, node));
        if (whyRefused) *whyRefused = why;
        showStatus(tr("Refused: %1").arg(why), true);
        return false;
    }
    // Final position: where `after` ends up once the node has left its place, plus one.
    const std::size_t from = s->position_of(node), pa = s->position_of(after);
    return moveNodeToPosition(node, pa > from ? pa : pa + 1, whyRefused);
}

void ScheduleEditor::clear() { setAnalysis(nullptr); }

std::shared_ptr<const GraphAnalysis> ScheduleEditor::analysis() const { return model_->analysis(); }

QUndoStack* ScheduleEditor::undoStack() const { return d_->stack; }

bool ScheduleEditor::isModified() const { return !d_->stack->isClean(); }

std::int64_t ScheduleEditor::peak() const { return model_->schedule() ? model_->schedule()->peak() : 0; }

std::int64_t ScheduleEditor::originalPeak() const { return model_->analysis() ? model_->analysis()->peak() : 0; }

std::vector<std::int64_t> ScheduleEditor::profile() const {
    if (!d_->profile) d_->profile = model_->profile();
    return *d_->profile;
}

std::size_t ScheduleEditor::peakStep() const {
    if (!d_->profile) d_->profile = model_->profile();
    const auto& p = *d_->profile;
    return p.empty() ? 0 : static_cast<std::size_t>(std::max_element(p.begin(), p.end()) - p.begin());
}

std::vector<fxmem::NodeId> ScheduleEditor::order() const {
    return model_->schedule() ? model_->schedule()->order() : std::vector<fxmem::NodeId>{};
}

bool ScheduleEditor::moveNode(std::size_t from, std::size_t to, QString* whyRefused) {
    return move(from, to, whyRefused, false);
}

bool ScheduleEditor::move(std::size_t from, std::size_t to, QString* whyRefused, bool stepwise) {
    const fxmem::IncrementalSchedule::MoveCheck check = model_->checkMove(from, to);
    if (!check.ok) {
        const QString why = messageText(check.reason);
        if (whyRefused) *whyRefused = why;
        // Where it may go instead, so the next try need not be a guess.
        if (from < model_->size() && model_->analysis()->graph().node(model_->schedule()->at(from)).op != fxmem::OpKind::Output) {
            const fxmem::IncrementalSchedule::LegalRange range = model_->schedule()->legal_range(from);
            showStatus(tr("Refused: %1; it may go to positions %2–%3.").arg(why).arg(range.lo).arg(range.hi), true);
        } else {
            showStatus(tr("Refused: %1").arg(why), true);
        }
        return false;
    }
    if (whyRefused) whyRefused->clear();
    if (from == to) return true;
    const fxmem::NodeId node = model_->schedule()->at(from);
    const std::int64_t before = peak();
    d_->stack->push(new MoveNodeCommand(model_, from, to, stepwise));
    showStatus(tr("Moved '%1' from position %2 to %3: peak %4 → %5")
                   .arg(nodeName(model_, node))
                   .arg(from)
                   .arg(to)
                   .arg(formatBytes(before), formatBytes(peak())),
               false);
    return true;
}

bool ScheduleEditor::saveSchedule(const QString& path, QString* error) {
    if (!model_->schedule()) {
        if (error) *error = tr("No graph is open.");
        return false;
    }
    try {
        fxmem::save_schedule(model_->analysis()->graph(), model_->schedule()->order(),
                             QFile::encodeName(path).toStdString());
    } catch (const fxmem::Error& e) {
        if (error) *error = messageText(e.what());
        return false;
    }
    d_->stack->setClean();
    showStatus(tr("Saved schedule to %1").arg(QFileInfo(path).fileName()), false);
    return true;
}

bool ScheduleEditor::openSchedule(const QString& path, QString* error) {
    if (!model_->schedule()) {
        if (error) *error = tr("No graph is open.");
        return false;
    }
    const std::shared_ptr<const GraphAnalysis>& a = model_->analysis();
    fxmem::Schedule schedule;
    try {
        // The graph name makes a schedule of another graph an error naming both.
        schedule = fxmem::load_schedule(a->file(), QFile::encodeName(path).toStdString(), a->graph().name);
        if (schedule.graph != a->graphIndex())
            throw fxmem::Error(QFile::encodeName(path).toStdString() + ": the schedule is for graph '" +
                               a->file().graphs[static_cast<std::size_t>(schedule.graph)].name + "', not '" +
                               a->graph().name + "'");
    } catch (const fxmem::Error& e) {
        const QString why = messageText(e.what());
        if (error) *error = why;
        showStatus(tr("Could not open the schedule: %1").arg(why), true);
        return false;
    }
    if (schedule.order != model_->schedule()->order())
        d_->stack->push(new OpenScheduleCommand(model_, std::move(schedule.order), QFileInfo(path).fileName()));
    d_->stack->setClean();
    showStatus(tr("Opened schedule %1").arg(QFileInfo(path).fileName()), false);
    return true;
}

void ScheduleEditor::resetSchedule() {
    if (!model_->schedule()) return;
    if (model_->schedule()->order() == fxmem::original_order(model_->analysis()->graph())) {
        showStatus(tr("The schedule already is the graph's original order."), false);
        return;
    }
    d_->stack->push(new ResetScheduleCommand(model_));
    showStatus(tr("Back to the original order."), false);
}

void ScheduleEditor::selectNode(fxmem::NodeId node) {
    const fxmem::IncrementalSchedule* s = model_->schedule();
    if (!s || !node.valid() || node.index() >= s->size()) return;
    const QModelIndex index = model_->index(static_cast<int>(s->position_of(node)), ScheduleModel::NodeColumn);
    d_->selecting = true;
    view_->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    d_->selecting = false;
    view_->scrollTo(index);
}

void ScheduleEditor::onOrderChanged() {
    d_->profile.reset();
    // An order the user made (not a pick of a stored one) becomes "Your edit".
    if (!d_->applyingSource && model_->schedule() && !d_->sources.empty()) {
        const std::vector<fxmem::NodeId>& now = model_->schedule()->order();
        bool stored = false;
        for (std::size_t i = 0; i + 1 < d_->sources.size(); ++i) stored = stored || d_->sources[i].order == now;
        if (!stored) d_->userEdit = now;
    }
    if (!d_->sources.empty()) syncPicker();
    updateSummary();
    if (d_->comparison) updateComparison();
    if (suggestionList_ && suggestionList_->isVisible()) refreshSuggestions();
    emit scheduleChanged();
}

void ScheduleEditor::applyPalette() {
    // Captions half-way between text and background: secondary, and readable on any theme.
    QPalette dim = palette();
    dim.setColor(QPalette::WindowText,
                 colors::mix(palette().color(QPalette::WindowText), palette().color(QPalette::Window), 0.4));
    for (QLabel* caption : d_->captions) caption->setPalette(dim);
    updateSummary();
}

void ScheduleEditor::updateSummary() {
    const bool open = model_->schedule() != nullptr;
    resetButton_->setEnabled(open);
    if (!open) {
        originalLabel_->setText(QStringLiteral("—"));
        editedLabel_->setText(QStringLiteral("—"));
        changeLabel_->setText(QStringLiteral("—"));
        changeLabel_->setPalette(palette());
        return;
    }
    const std::int64_t original = originalPeak(), edited = peak(), delta = edited - original;
    originalLabel_->setText(formatBytes(original));
    editedLabel_->setText(formatBytes(edited));
    const fxmem::IncrementalSchedule* s = model_->schedule();
    editedLabel_->setToolTip(s->size() == 0 ? QString()
                                            : tr("Reached at position %1, profile step %2 ('%3'): %4 bytes")
                                                  .arg(s->peak_position())
                                                  .arg(model_->profileStep(s->peak_position()))
                                                  .arg(nodeName(model_, s->at(s->peak_position())))
                                                  .arg(edited));
    originalLabel_->setToolTip(tr("%1 bytes, in the graph's original order").arg(original));
    changeLabel_->setText(formatDelta(delta, original));
    changeLabel_->setToolTip(tr("%1 bytes").arg(delta));
    // Green when the edit lowers the peak, red when it raises it, from the palette (dark themes).
    QPalette p = palette();
    if (delta != 0) p.setColor(QPalette::WindowText, colors::deltaColor(delta > 0 ? 1.0 : -1.0, palette()));
    changeLabel_->setPalette(p);
}

void ScheduleEditor::showStatus(const QString& text, bool refusal) {
    statusLabel_->setText(text);
    statusLabel_->setToolTip(text);
    QPalette p = palette();
    if (refusal) p.setColor(QPalette::WindowText, colors::deltaColor(1.0, palette()));
    statusLabel_->setPalette(p);
}

void ScheduleEditor::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) applyPalette();
}
