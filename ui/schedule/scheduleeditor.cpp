#include "schedule/scheduleeditor.h"

#include "schedule/schedulecommands.h"
#include "schedule/schedulemodel.h"
#include "schedule/scheduleview.h"
#include "util/colors.h"
#include "util/units.h"

#include <fxmem/error.h>
#include <fxmem/schedule.h>

#include <QCursor>
#include <QEvent>
#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFrame>
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
    QUndoStack* stack = nullptr;
    std::vector<QLabel*> captions;
    mutable std::optional<std::vector<std::int64_t>> profile;  // cached until the order changes
    bool selecting = false;  // selectNode() in progress: do not echo nodeSelected
};

namespace {

QString nodeName(const ScheduleModel* model, fxmem::NodeId node) {
    return QString::fromStdString(model->analysis()->graph().node(node).name);
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
    grid->setHorizontalSpacing(18);
    grid->setVerticalSpacing(0);
    originalLabel_ = addFigure(grid, 0, tr("Original peak"), QStringLiteral("1023 MiB"), d_->captions);
    editedLabel_ = addFigure(grid, 1, tr("Edited peak"), QStringLiteral("1023 MiB"), d_->captions);
    changeLabel_ = addFigure(grid, 2, tr("Change"), QStringLiteral("-1023 MiB (-100.0 %)"), d_->captions);
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
    resetButton_ = makeButton(tr("Reset"), QStyle::SP_BrowserReload, 6, Qt::ToolButtonTextBesideIcon);
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
    statusLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    statusLabel_->setContentsMargins(4, 2, 4, 2);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(strip);
    layout->addWidget(view_, 1);
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
            showStatus(tr("Move '%1' to step %2 (it may go to steps %3–%4)").arg(name).arg(to).arg(range.lo).arg(range.hi),
                       false);
            QToolTip::hideText();
        } else {
            const QString why = QString::fromStdString(check.reason);
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

void ScheduleEditor::setAnalysis(std::shared_ptr<const GraphAnalysis> analysis) {
    d_->stack->clear();
    statusLabel_->clear();
    model_->setAnalysis(std::move(analysis));
    view_->scrollToTop();
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
        const QString why = QString::fromStdString(check.reason);
        if (whyRefused) *whyRefused = why;
        showStatus(tr("Refused: %1").arg(why), true);
        return false;
    }
    if (whyRefused) whyRefused->clear();
    if (from == to) return true;
    const fxmem::NodeId node = model_->schedule()->at(from);
    const std::int64_t before = peak();
    d_->stack->push(new MoveNodeCommand(model_, from, to, stepwise));
    showStatus(tr("Moved '%1' from step %2 to %3: peak %4 → %5")
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
        if (error) *error = QString::fromStdString(e.what());
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
        const QString why = QString::fromStdString(e.what());
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
    updateSummary();
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
                                            : tr("Reached at step %1 ('%2'): %3 bytes")
                                                  .arg(s->peak_position())
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
