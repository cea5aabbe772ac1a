// Over 400 lines because it holds the dock's logic, not its widgets (those are ComparePanel,
// OptimizeBar, SchedulePicker, SuggestionList and MoveToRow): the sources and "Your edit", the
// comparison, the optimizer's result, moves with their refusal messages, save and open.
#include "schedule/scheduleeditor.h"

#include "schedule/comparepanel.h"
#include "schedule/movetorow.h"
#include "schedule/optimizebar.h"
#include "schedule/schedulemodel.h"
#include "schedule/schedulepicker.h"
#include "schedule/scheduleview.h"
#include "schedule/suggestionlist.h"
#include "state/editedschedule.h"
#include "state/viewstate.h"
#include "util/colors.h"
#include "util/text.h"
#include "util/units.h"

#include <fxmem/error.h>
#include <fxmem/schedule.h>

#include <QComboBox>
#include <QCursor>
#include <QEvent>
#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFrame>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QStandardItemModel>
#include <QStringListModel>
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
        std::vector<fxmem::NodeId> order; // empty for "Your edit" until there is one
        bool isEdit = false;
        QString source; // where a stored schedule comes from (tooltip)
    };
    std::vector<Source> sources; // original, named ones, your edit (last)
    int compareA = -1, compareB = -1;
    std::shared_ptr<const OrderComparison> comparison;
    std::int64_t lowerBound = -1;
    std::vector<fxmem::MoveSuggestion> suggestions;
    std::vector<QLabel*> captions;
    bool selecting = false; // selectNode() in progress: do not echo nodeSelected
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

ScheduleEditor::ScheduleEditor(QWidget* parent) : ScheduleEditor(nullptr, parent) {}

ScheduleEditor::ScheduleEditor(EditedSchedule* schedule, QWidget* parent)
    : QWidget(parent), d_(std::make_unique<State>()), edited_(schedule ? schedule : new EditedSchedule(this)) {
    model_ = new ScheduleModel(edited_, this);
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
    connect(undoButton_, &QToolButton::clicked, edited_->undoStack(), &QUndoStack::undo);
    connect(redoButton_, &QToolButton::clicked, edited_->undoStack(), &QUndoStack::redo);
    connect(resetButton_, &QToolButton::clicked, this, &ScheduleEditor::resetSchedule);
    connect(edited_->undoStack(), &QUndoStack::canUndoChanged, undoButton_, &QWidget::setEnabled);
    connect(edited_->undoStack(), &QUndoStack::canRedoChanged, redoButton_, &QWidget::setEnabled);
    connect(edited_->undoStack(), &QUndoStack::undoTextChanged, undoButton_,
            [this](const QString& t) { undoButton_->setToolTip(t.isEmpty() ? tr("Undo") : tr("Undo %1").arg(t)); });
    connect(edited_->undoStack(), &QUndoStack::redoTextChanged, redoButton_,
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
    moveRow_ = new MoveToRow(this);
    connect(moveRow_, &MoveToRow::moveRequested, this, &ScheduleEditor::runMoveCommand);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(strip);
    buildSourceRow();
    layout->addWidget(pickerRow_);
    layout->addWidget(optimizeRow_);
    layout->addWidget(moveRow_);
    layout->addWidget(view_, 3);
    layout->addWidget(comparePanel_, 2);
    layout->addWidget(suggestionList_, 1);
    auto* statusRow = new QHBoxLayout;
    statusRow->setContentsMargins(0, 0, 4, 0);
    statusRow->addWidget(statusLabel_, 1);
    moveWithButton_ = new QToolButton(this);
    moveWithButton_->setObjectName(QStringLiteral("moveWithInputs"));
    moveWithButton_->hide();
    statusRow->addWidget(moveWithButton_);
    layout->addLayout(statusRow);

    model_->setMoveHandler([this](std::size_t from, std::size_t to) { return move(from, to, nullptr, false); });
    // A new graph: what belonged to the previous one goes before the rows change.
    connect(edited_, &EditedSchedule::analysisAboutToChange, this, [this] {
        statusLabel_->clear();
        if (isOptimizing()) cancelOptimize();
        clearComparison();
        d_->sources.clear();
    });
    connect(edited_, &EditedSchedule::analysisChanged, this, &ScheduleEditor::onAnalysisChanged);
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

ScheduleEditor::~ScheduleEditor() = default;

void ScheduleEditor::setState(ViewState* state) {
    const auto single = [state] { return state->scene() && !state->scene()->joined() && !state->scene()->empty(); };
    connect(state, &ViewState::nodeSelected, this, [this, single](NodeRef ref) {
        if (!single() || ref.segment != 0) return;
        const QSignalBlocker block(this);
        selectNode(ref.node);
    });
    connect(this, &ScheduleEditor::nodeSelected, state, [state, single](fxmem::NodeId n) {
        if (single()) state->selectNode({0, n}, true);
    });
}

void ScheduleEditor::buildSourceRow() {
    pickerRow_ = new SchedulePicker(this);
    picker_ = pickerRow_->combo;
    compareButton_ = pickerRow_->compare;
    optimizeButton_ = pickerRow_->optimize;
    suggestButton_ = pickerRow_->suggest;
    connect(picker_, &QComboBox::activated, this, [this](int index) { pickSource(index); });

    // Optimize progress: a bar and Cancel, shown while the worker runs.
    optimizeRow_ = new OptimizeBar(this);
    connect(optimizeButton_, &QToolButton::clicked, this, [this] { optimize(); });
    connect(optimizeRow_, &OptimizeBar::finished, this, &ScheduleEditor::onOptimizeFinished);
    connect(optimizeRow_, &OptimizeBar::failed, this, [this](const QString& why) {
        optimizeButton_->setEnabled(true);
        showStatus(tr("Optimize failed: %1").arg(why), true);
        emit optimizeFinished(false);
    });

    // Compare: A and B, and the moved nodes.
    comparePanel_ = new ComparePanel(this);
    comparePanel_->hide();
    connect(compareButton_, &QToolButton::toggled, this, [this](bool on) {
        if (!on) return clearComparison();
        const int current = std::max(sourceIndex(), 0);
        setComparison(0, current == 0 && d_->sources.size() > 2 ? 1 : current);
    });
    connect(comparePanel_, &ComparePanel::pairPicked, this, &ScheduleEditor::setComparison);
    connect(comparePanel_, &ComparePanel::nodeClicked, this, [this](fxmem::NodeId node) {
        selectNode(node);
        emit nodeSelected(node);
    });

    // Suggestions: one click applies one.
    suggestionList_ = new SuggestionList(this);
    suggestionList_->hide();
    connect(suggestButton_, &QToolButton::toggled, this, [this](bool on) {
        suggestionList_->setVisible(on);
        if (on) refreshSuggestions();
    });
    connect(suggestionList_, &SuggestionList::suggestionClicked, this, &ScheduleEditor::applySuggestion);
}

// ---- sources (the picker) ----

void ScheduleEditor::rebuildSources() {
    d_->sources.clear();
    const auto& a = model_->analysis();
    if (a) {
        d_->sources.push_back(
            {tr("Original order"), fxmem::original_order(a->graph()), false, tr("The graph's own order")});
        // The name only: a schedule's `source` can be a long provenance line (the pass and its
        // options), shown as the item's tooltip.
        for (const fxmem::NamedSchedule& named : a->file().schedules)
            if (static_cast<int>(named.graph) == a->graphIndex())
                d_->sources.push_back(
                    {elided(named.name), named.order, false, elided(named.source, 4 * kMaxShownNameBytes)});
        d_->sources.push_back({tr("Your edit"), {}, true, tr("The last order you made by moving nodes")});
    }
    for (QComboBox* box : {picker_, comparePanel_->boxA(), comparePanel_->boxB()}) {
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
    return static_cast<int>(d_->sources.size()) - 1; // your edit
}

void ScheduleEditor::syncPicker() {
    const QSignalBlocker block(picker_);
    picker_->setCurrentIndex(sourceIndex());
    // "Your edit" can be picked only once there is one.
    for (QComboBox* box : {picker_, comparePanel_->boxA(), comparePanel_->boxB()}) {
        if (auto* items = qobject_cast<QStandardItemModel*>(box->model()); items && box->count() > 0)
            if (QStandardItem* edit = items->item(box->count() - 1)) edit->setEnabled(!edited_->userEdit().empty());
    }
    picker_->setEnabled(model_->schedule() != nullptr);
    compareButton_->setEnabled(model_->schedule() != nullptr);
    optimizeButton_->setEnabled(model_->schedule() != nullptr && !isOptimizing());
    suggestButton_->setEnabled(model_->schedule() != nullptr);
}

bool ScheduleEditor::pickSource(int index) {
    if (!model_->schedule() || index < 0 || index >= static_cast<int>(d_->sources.size())) return false;
    const auto& src = d_->sources[static_cast<std::size_t>(index)];
    const std::vector<fxmem::NodeId> order = src.isEdit ? edited_->userEdit() : src.order;
    if (order.empty()) {
        syncPicker();
        return false;
    }
    if (order == model_->schedule()->order()) return true;
    edited_->replaceOrder(order, tr("Use %1").arg(src.isEdit ? tr("your edit") : tr("schedule '%1'").arg(src.name)),
                          false);
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
        const QSignalBlocker blockButton(compareButton_);
        comparePanel_->setPair(a, b);
        compareButton_->setChecked(true);
    }
    comparePanel_->show();
    updateComparison();
}

void ScheduleEditor::clearComparison() {
    const bool had = d_->comparison != nullptr;
    d_->compareA = d_->compareB = -1;
    d_->comparison.reset();
    comparePanel_->setComparison(nullptr, nullptr);
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
        return edited_->userEdit().empty() ? model_->schedule()->order() : edited_->userEdit();
    };
    try {
        d_->comparison = std::make_shared<const OrderComparison>(
            fxmem::compare_orders(*model_->analysis(), orderOf(d_->compareA), orderOf(d_->compareB)));
    } catch (const fxmem::Error& e) {
        d_->comparison.reset();
        showStatus(tr("Cannot compare: %1").arg(messageText(e.what())), true);
    }
    comparePanel_->setComparison(model_->analysis(), d_->comparison);
    if (d_->comparison && d_->comparison->moved.empty() && d_->comparison->profileA == d_->comparison->profileB)
        showStatus(
            tr("%1 and %2 are the same order: pick another B (a schedule of the file, or your edit after a move).")
                .arg(comparisonName(0), comparisonName(1)),
            false);
    else if (d_->comparison)
        showStatus(
            tr("%1 peak %2 · %3 peak %4 · %n node(s) moved", nullptr, static_cast<int>(d_->comparison->moved.size()))
                .arg(comparisonName(0), formatBytes(d_->comparison->peakA), comparisonName(1),
                     formatBytes(d_->comparison->peakB)),
            false);
    emit comparisonChanged();
}

// ---- optimize ----

void ScheduleEditor::optimize(double timeLimitSeconds) {
    if (!model_->analysis() || isOptimizing()) return;
    optimizeButton_->setEnabled(false);
    showStatus(tr("Optimizing (at most %1 s)…").arg(timeLimitSeconds), false);
    optimizeRow_->start(model_->analysis(), timeLimitSeconds);
}

void ScheduleEditor::cancelOptimize() { optimizeRow_->cancel(); }

bool ScheduleEditor::isOptimizing() const { return optimizeRow_->isRunning(); }

std::int64_t ScheduleEditor::lowerBound() const { return d_->lowerBound; }

void ScheduleEditor::onOptimizeFinished(std::shared_ptr<const fxmem::OptimizeResult> result,
                                        std::shared_ptr<const GraphAnalysis> analysis) {
    optimizeButton_->setEnabled(model_->schedule() != nullptr);
    if (analysis != model_->analysis() || !model_->schedule()) {
        emit optimizeFinished(false);
        return; // another graph is open now
    }
    d_->lowerBound = result->lower_bound;
    emit lowerBoundChanged(result->lower_bound);
    // The one definition of a backward's peak (docs/estimator.md): in its pair, as fxmem-cli scores it.
    const QString bound =
        tr("no order can go below %1").arg(formatBytes(result->lower_bound)) +
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
        edited_->replaceOrder(
            result->order,
            tr("Optimize: peak %1 → %2 (%3)")
                .arg(formatBytes(before), formatBytes(result->peak), formatDelta(result->peak - before, before)),
            true);
    const QString how = result->exact ? tr("the exact optimum")
                                      : tr("the best order found (%1)").arg(QString::fromStdString(result->method));
    if (better)
        // The change spelled out: on a large peak both ends can round to the same "113 GiB".
        showStatus(tr("Optimized: peak %1 → %2 (%3), %4; %5.")
                       .arg(formatBytes(before), formatBytes(result->peak), formatDelta(result->peak - before, before),
                            how, bound),
                   false);
    else if (before <= result->lower_bound)
        showStatus(tr("This order is already optimal: no order can go below its peak %1.").arg(formatBytes(before)),
                   false);
    else
        showStatus(tr("No order found below the current peak %1 (%2); %3.").arg(formatBytes(before), how, bound),
                   false);
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
    suggestionList_->showMoves(d_->suggestions, model_->analysis() ? &model_->analysis()->graph() : nullptr, peak());
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
    edited_->setAnalysis(std::move(analysis));
}

void ScheduleEditor::onAnalysisChanged() {
    view_->scrollToTop();
    moveRow_->setGraph(model_->analysis() ? &model_->analysis()->graph() : nullptr);
    d_->suggestions.clear();
    fillSuggestionList();
    if (d_->lowerBound >= 0) {
        d_->lowerBound = -1;
        emit lowerBoundChanged(-1);
    }
    rebuildSources();
}

fxmem::NodeId ScheduleEditor::currentNode() const {
    const QModelIndex current = view_->currentIndex();
    return current.isValid() ? fxmem::NodeId(current.data(ScheduleModel::NodeIdRole).toInt()) : fxmem::NodeId();
}

void ScheduleEditor::runMoveCommand(MoveToRow::Kind kind, const QString& text) {
    const fxmem::NodeId node = currentNode();
    if (!model_->schedule()) return;
    if (!node.valid()) {
        showStatus(tr("Select the node to move first."), true);
        return;
    }
    bool ok = false;
    switch (kind) {
    case MoveToRow::Kind::Position: {
        const qulonglong position = text.toULongLong(&ok);
        if (!ok)
            return showStatus(
                tr("'%1' is not a position (a number from 0 to %2).").arg(elided(text)).arg(model_->size() - 1), true);
        moveNodeToPosition(node, static_cast<std::size_t>(position));
        break;
    }
    case MoveToRow::Kind::ProfileStep: {
        const qlonglong step = text.toLongLong(&ok);
        if (!ok || step < 0)
            return showStatus(tr("'%1' is not a profile step (a number from 0 to %2).")
                                  .arg(elided(text))
                                  .arg(model_->profileStep(model_->size() - 1)),
                              true);
        moveNodeToProfileStep(node, step);
        break;
    }
    case MoveToRow::Kind::AfterNode: {
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
    if (moved) selectNode(node); // keep the moved node in view wherever it went
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

QUndoStack* ScheduleEditor::undoStack() const { return edited_->undoStack(); }

bool ScheduleEditor::isModified() const { return edited_->isModified(); }

std::int64_t ScheduleEditor::peak() const { return edited_->peak(); }

std::int64_t ScheduleEditor::originalPeak() const { return edited_->originalPeak(); }

std::vector<std::int64_t> ScheduleEditor::profile() const { return edited_->profile(); }

std::size_t ScheduleEditor::peakStep() const { return edited_->peakStep(); }

std::vector<fxmem::NodeId> ScheduleEditor::order() const { return edited_->order(); }

bool ScheduleEditor::moveNode(std::size_t from, std::size_t to, QString* whyRefused) {
    return move(from, to, whyRefused, false);
}

bool ScheduleEditor::moveNodeWithInputs(std::size_t from, std::size_t to, QString* whyRefused) {
    if (!model_->schedule() || from >= model_->size()) return move(from, to, whyRefused, false);
    const fxmem::NodeId node = model_->schedule()->at(from);
    const std::int64_t before = peak();
    fxmem::IncrementalSchedule::MoveCheck check;
    if (!edited_->moveWithInputs(from, to, &check)) {
        const QString why = messageText(check.reason);
        if (whyRefused) *whyRefused = why;
        showStatus(tr("Refused: %1").arg(why), true);
        return false;
    }
    if (whyRefused) whyRefused->clear();
    showStatus(tr("Moved '%1' with its inputs to position %2: peak %3 → %4")
                   .arg(nodeName(model_, node))
                   .arg(model_->schedule()->position_of(node))
                   .arg(formatBytes(before), formatBytes(peak())),
               false);
    selectNode(node);
    return true;
}

bool ScheduleEditor::move(std::size_t from, std::size_t to, QString* whyRefused, bool stepwise) {
    const fxmem::IncrementalSchedule::MoveCheck check = model_->checkMove(from, to);
    if (!check.ok) {
        QString why = messageText(check.reason);
        // Pinned by its own single-use views: offer to take them along.
        const std::vector<fxmem::NodeId> with = edited_->companionsToOffer(from, to);
        if (!with.empty()) {
            QStringList names;
            for (fxmem::NodeId n : with) names << QLatin1Char('\'') % nodeName(model_, n) % QLatin1Char('\'');
            const QString offer = tr("move with %1").arg(names.join(QStringLiteral(", ")));
            why += QStringLiteral("; ") % offer;
            moveWithButton_->setText(offer.left(1).toUpper() % offer.mid(1));
            disconnect(moveWithButton_, &QToolButton::clicked, this, nullptr);
            connect(moveWithButton_, &QToolButton::clicked, this, [this, from, to] { moveNodeWithInputs(from, to); });
        }
        if (whyRefused) *whyRefused = why;
        // Where it may go instead, so the next try need not be a guess.
        if (from < model_->size() &&
            model_->analysis()->graph().node(model_->schedule()->at(from)).op != fxmem::OpKind::Output) {
            const fxmem::IncrementalSchedule::LegalRange range = model_->schedule()->legal_range(from);
            showStatus(tr("Refused: %1; it may go to positions %2–%3.").arg(why).arg(range.lo).arg(range.hi), true);
        } else {
            showStatus(tr("Refused: %1").arg(why), true);
        }
        moveWithButton_->setVisible(!with.empty());
        return false;
    }
    if (whyRefused) whyRefused->clear();
    if (from == to) return true;
    const fxmem::NodeId node = model_->schedule()->at(from);
    const std::int64_t before = peak();
    edited_->move(from, to, stepwise);
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
    edited_->markSaved();
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
    edited_->replaceOrder(std::move(schedule.order), tr("Open schedule '%1'").arg(QFileInfo(path).fileName()), true);
    edited_->markSaved();
    showStatus(tr("Opened schedule %1").arg(QFileInfo(path).fileName()), false);
    return true;
}

void ScheduleEditor::resetSchedule() {
    if (!model_->schedule()) return;
    if (model_->schedule()->order() == fxmem::original_order(model_->analysis()->graph())) {
        showStatus(tr("The schedule already is the graph's original order."), false);
        return;
    }
    edited_->resetToOriginal();
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
    // An offer belongs to the refusal that made it (move() shows it again right after this).
    moveWithButton_->hide();
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
