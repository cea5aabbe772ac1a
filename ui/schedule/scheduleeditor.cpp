// The editor composes the dock: PeakStrip, SchedulePicker (the sources), OptimizeBar (the
// optimizer and its result), MoveToRow, the schedule list, ComparePanel and SuggestionList each own
// their part. What stays here is moving nodes with their refusal messages, save and open.
#include "schedule/scheduleeditor.h"

#include "schedule/comparepanel.h"
#include "schedule/movetorow.h"
#include "schedule/optimizebar.h"
#include "schedule/peakstrip.h"
#include "schedule/schedulefiles.h"
#include "schedule/schedulemodel.h"
#include "schedule/schedulepicker.h"
#include "schedule/schedulestatus.h"
#include "schedule/scheduleview.h"
#include "schedule/suggestionlist.h"
#include "state/editedschedule.h"
#include "state/viewstate.h"
#include "util/colors.h"
#include "util/text.h"
#include "util/units.h"

#include <fxmem/schedule.h>

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QSignalBlocker>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>

ScheduleEditor::ScheduleEditor(EditedSchedule* schedule, QWidget* parent) : QWidget(parent), edited_(schedule) {
    model_ = new ScheduleModel(edited_, this);
    view_ = new ScheduleView(this);
    view_->setObjectName(QStringLiteral("scheduleView"));
    view_->setScheduleModel(model_);

    strip_ = new PeakStrip(edited_, this);
    connect(strip_, &PeakStrip::resetRequested, this, &ScheduleEditor::resetSchedule);

    status_ = new ScheduleStatus(this);

    // "Move to": the selected node to a position, a profile step, or just after a named node.
    moveRow_ = new MoveToRow(this);
    connect(moveRow_, &MoveToRow::moveRequested, this, &ScheduleEditor::runMoveCommand);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(strip_);
    buildSourceRow();
    layout->addWidget(pickerRow_);
    layout->addWidget(optimizeRow_);
    layout->addWidget(moveRow_);
    layout->addWidget(view_, 3);
    layout->addWidget(comparePanel_, 2);
    layout->addWidget(suggestionList_, 1);
    layout->addWidget(status_);

    // Every move's outcome, whichever view asked (the list, the graph view, Move to, a suggestion).
    connect(edited_, &EditedSchedule::moveAnswered, this, &ScheduleEditor::showOutcome);
    // A new graph: what belonged to the previous one goes before the rows change.
    connect(edited_, &EditedSchedule::analysisAboutToChange, this, [this] {
        status_->clear();
        if (isOptimizing()) cancelOptimize();
        clearComparison();
        pickerRow_->clear();
    });
    connect(edited_, &EditedSchedule::analysisChanged, this, &ScheduleEditor::onAnalysisChanged);
    connect(model_, &ScheduleModel::orderChanged, this, &ScheduleEditor::onOrderChanged);
    connect(view_, &ScheduleView::stepRequested, this, [this](std::size_t from, int delta) {
        if ((delta < 0 && from == 0) || (delta > 0 && from + 1 >= model_->size())) return;
        move(from, delta < 0 ? from - 1 : from + 1, nullptr, true);
    });
    connect(view_, &ScheduleView::dragStatus, this, &ScheduleEditor::showStatus);
    connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
        if (selecting_ || !current.isValid()) return;
        emit nodeSelected(fxmem::NodeId(current.data(ScheduleModel::NodeIdRole).toInt()));
    });
    strip_->refresh();
}

ScheduleEditor::~ScheduleEditor() = default;

ScheduleEditor::ScheduleEditor(ViewState* state, QWidget* parent) : ScheduleEditor(state->schedule(), parent) {
    bindState(state);
}

void ScheduleEditor::bindState(ViewState* state) {
    const auto single = [state] { return state->scene() && !state->scene()->joined() && !state->scene()->empty(); };
    connect(state, &ViewState::nodeSelected, this, [this, single](NodeRef ref) {
        if (!single() || ref.segment != 0) return;
        const QSignalBlocker block(this);
        selectNode(ref.node);
    });
    connect(this, &ScheduleEditor::nodeSelected, state, [state, single](fxmem::NodeId n) {
        if (single()) state->selectNode({0, n}, true);
    });
    // The dock's sizes in the new units. The status line keeps what an action reported, except
    // the comparison's summary, which describes what is shown.
    connect(state, &ViewState::unitsChanged, this, [this] {
        strip_->refresh();
        model_->refreshBytes();
        comparePanel_->refreshUnits(status_->text());
        suggestionList_->refreshUnits(*edited_);
    });
}

void ScheduleEditor::buildSourceRow() {
    pickerRow_ = new SchedulePicker(edited_, this);
    connect(pickerRow_->combo, &QComboBox::activated, this, [this](int index) { pickSource(index); });

    // Optimize: progress and Cancel while the worker runs; the result is the bar's to apply.
    optimizeRow_ = new OptimizeBar(edited_, this);
    connect(pickerRow_->optimize, &QToolButton::clicked, this, [this] { optimize(); });
    connect(optimizeRow_, &OptimizeBar::status, this, &ScheduleEditor::showStatus);
    connect(optimizeRow_, &OptimizeBar::boundChanged, this, &ScheduleEditor::lowerBoundChanged);
    connect(optimizeRow_, &OptimizeBar::done, this, [this](bool applied) {
        pickerRow_->optimize->setEnabled(model_->schedule() != nullptr);
        emit optimizeFinished(applied);
    });

    // Compare: A and B, and the moved nodes.
    comparePanel_ = new ComparePanel(edited_, pickerRow_, this);
    connect(pickerRow_->compare, &QToolButton::toggled, this, [this](bool on) {
        if (!on) return clearComparison();
        const int current = std::max(sourceIndex(), 0);
        setComparison(0, current == 0 && pickerRow_->count() > 2 ? 1 : current);
    });
    connect(comparePanel_, &ComparePanel::pairPicked, this, &ScheduleEditor::setComparison);
    connect(comparePanel_, &ComparePanel::status, this, &ScheduleEditor::showStatus);
    connect(comparePanel_, &ComparePanel::changed, this, &ScheduleEditor::comparisonChanged);
    connect(comparePanel_, &ComparePanel::nodeClicked, this, [this](fxmem::NodeId node) {
        selectNode(node);
        emit nodeSelected(node);
    });

    // Suggestions: one click applies one.
    suggestionList_ = new SuggestionList(this);
    suggestionList_->hide();
    connect(pickerRow_->suggest, &QToolButton::toggled, this, [this](bool on) {
        suggestionList_->setVisible(on);
        if (on) refreshSuggestions();
    });
    connect(suggestionList_, &SuggestionList::suggestionClicked, this, &ScheduleEditor::applySuggestion);
}

// ---- the pieces' logic, as the editor's API ----

QStringList ScheduleEditor::sourceNames() const { return pickerRow_->names(); }

int ScheduleEditor::sourceIndex() const { return pickerRow_->current(); }

bool ScheduleEditor::pickSource(int index) {
    QString status;
    const bool picked = pickerRow_->pick(index, &status);
    if (!status.isEmpty()) showStatus(status, false);
    if (!picked) pickerRow_->sync(isOptimizing());
    return picked;
}

bool ScheduleEditor::pickSchedule(const QString& name) {
    const int i = pickerRow_->find(name);
    return i >= 0 && pickSource(i);
}

void ScheduleEditor::setComparison(int a, int b) {
    comparePanel_->compare(a, b);
    const QSignalBlocker block(pickerRow_->compare);
    pickerRow_->compare->setChecked(comparePanel_->isOn());
}

void ScheduleEditor::clearComparison() {
    comparePanel_->clear();
    const QSignalBlocker block(pickerRow_->compare);
    pickerRow_->compare->setChecked(false);
}

std::shared_ptr<const OrderComparison> ScheduleEditor::comparison() const { return comparePanel_->comparison(); }

QString ScheduleEditor::comparisonName(int which) const { return comparePanel_->name(which); }

void ScheduleEditor::optimize(double timeLimitSeconds) {
    if (!model_->analysis() || isOptimizing()) return;
    pickerRow_->optimize->setEnabled(false);
    optimizeRow_->start(timeLimitSeconds);
}

void ScheduleEditor::cancelOptimize() { optimizeRow_->cancel(); }

bool ScheduleEditor::isOptimizing() const { return optimizeRow_->isRunning(); }

std::int64_t ScheduleEditor::lowerBound() const { return optimizeRow_->lowerBound(); }

std::vector<fxmem::MoveSuggestion> ScheduleEditor::suggestions() const { return suggestionList_->moves(); }

void ScheduleEditor::refreshSuggestions() { suggestionList_->refresh(*edited_); }

bool ScheduleEditor::applySuggestion(std::size_t index) {
    if (index >= suggestionList_->moves().size()) return false;
    const fxmem::MoveSuggestion m = suggestionList_->moves()[index];
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
    suggestionList_->forget(*edited_);
    optimizeRow_->forgetBound();
    pickerRow_->rebuild();
    pickerRow_->sync(isOptimizing());
}

fxmem::NodeId ScheduleEditor::currentNode() const {
    const QModelIndex current = view_->currentIndex();
    return current.isValid() ? fxmem::NodeId(current.data(ScheduleModel::NodeIdRole).toInt()) : fxmem::NodeId();
}

void ScheduleEditor::runMoveCommand(MoveToRow::Kind kind, const QString& text) {
    const fxmem::NodeId node = currentNode();
    if (!model_->schedule()) return;
    if (!node.valid()) return showStatus(tr("Select the node to move first."), true);
    const MoveToRow::Target target = MoveToRow::read(kind, text, *edited_);
    if (!target.error.isEmpty()) return showStatus(target.error, true);
    if (kind == MoveToRow::Kind::AfterNode)
        moveNodeAfter(node, target.after);
    else
        moveNodeToPosition(node, target.position);
}

namespace {
bool shown(const MoveOutcome& out, QString* whyRefused) {
    if (whyRefused) *whyRefused = out.ok ? QString() : out.why;
    return out.ok;
}
} // namespace

bool ScheduleEditor::moveNodeToPosition(fxmem::NodeId node, std::size_t position, QString* whyRefused) {
    const bool moved = shown(edited_->moveNodeTo(node, position), whyRefused);
    if (moved) selectNode(node); // keep the moved node in view wherever it went
    return moved;
}

bool ScheduleEditor::moveNodeToProfileStep(fxmem::NodeId node, std::int64_t step, QString* whyRefused) {
    if (!model_->schedule()) return moveNodeToPosition(node, 0, whyRefused);
    return moveNodeToPosition(node, model_->positionOfProfileStep(step), whyRefused);
}

bool ScheduleEditor::moveNodeAfter(fxmem::NodeId node, fxmem::NodeId after, QString* whyRefused) {
    const bool moved = shown(edited_->moveNodeAfter(node, after), whyRefused);
    if (moved) selectNode(node);
    return moved;
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
    return shown(edited_->moveWithInputs(from, to), whyRefused);
}

bool ScheduleEditor::move(std::size_t from, std::size_t to, QString* whyRefused, bool stepwise) {
    return shown(edited_->move(from, to, stepwise), whyRefused);
}

void ScheduleEditor::showOutcome(const MoveOutcome& out) {
    if (out.ok) {
        if (!out.done.isEmpty()) showStatus(out.done, false);
        // Taken along with its inputs: keep the node in view wherever it went.
        if (out.withInputs && !out.done.isEmpty()) selectNode(out.node);
        return;
    }
    showStatus(out.hint.isEmpty() ? tr("Refused: %1").arg(out.why) : tr("Refused: %1; %2.").arg(out.why, out.hint),
               true);
    if (!out.offer.empty())
        status_->offer(out.offerText.left(1).toUpper() % out.offerText.mid(1),
                       [this, from = out.from, to = out.to] { moveNodeWithInputs(from, to); });
}

bool ScheduleEditor::saveSchedule(const QString& path, QString* error) {
    QString why;
    if (!ScheduleFiles::save(*edited_, path, &why)) {
        if (error) *error = why;
        return false;
    }
    showStatus(tr("Saved schedule to %1").arg(QFileInfo(path).fileName()), false);
    return true;
}

bool ScheduleEditor::openSchedule(const QString& path, QString* error) {
    QString why;
    if (!ScheduleFiles::open(*edited_, path, &why)) {
        if (error) *error = why;
        if (edited_->schedule()) showStatus(tr("Could not open the schedule: %1").arg(why), true);
        return false;
    }
    showStatus(tr("Opened schedule %1").arg(QFileInfo(path).fileName()), false);
    return true;
}

void ScheduleEditor::resetSchedule() {
    if (!model_->schedule()) return;
    if (!edited_->isEdited()) {
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
    selecting_ = true;
    view_->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    selecting_ = false;
    view_->scrollTo(index);
}

void ScheduleEditor::onOrderChanged() {
    if (pickerRow_->count() > 0) pickerRow_->sync(isOptimizing());
    strip_->refresh();
    if (comparePanel_->comparison()) comparePanel_->refresh();
    if (suggestionList_->isVisible()) refreshSuggestions();
    emit scheduleChanged();
}

void ScheduleEditor::showStatus(const QString& text, bool refusal) { status_->say(text, refusal); }
