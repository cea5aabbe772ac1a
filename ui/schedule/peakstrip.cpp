#include "schedule/peakstrip.h"

#include "state/editedschedule.h"
#include "util/colors.h"
#include "util/text.h"
#include "util/units.h"

#include <QEvent>
#include <QFontDatabase>
#include <QGridLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>
#include <QUndoStack>

namespace {
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

PeakStrip::PeakStrip(EditedSchedule* edited, QWidget* parent) : QFrame(parent), edited_(edited) {
    setFrameShape(QFrame::StyledPanel);
    auto* grid = new QGridLayout(this);
    grid->setContentsMargins(8, 4, 8, 4);
    grid->setHorizontalSpacing(10);
    grid->setVerticalSpacing(0);
    original_ = addFigure(grid, 0, tr("Original peak"), QStringLiteral("1023 MiB"), captions_);
    editedPeak_ = addFigure(grid, 1, tr("Edited peak"), QStringLiteral("1023 MiB"), captions_);
    change_ = addFigure(grid, 2, tr("Change"), QStringLiteral("-1023 MiB (-10.0 %)"), captions_);
    grid->setColumnStretch(3, 1);
    original_->setObjectName(QStringLiteral("originalPeak"));
    editedPeak_->setObjectName(QStringLiteral("editedPeak"));
    change_->setObjectName(QStringLiteral("peakChange"));

    auto makeButton = [&](const QString& text, QStyle::StandardPixmap icon, int column) {
        auto* b = new QToolButton(this);
        b->setText(text);
        b->setToolTip(text);
        b->setIcon(style()->standardIcon(icon));
        b->setToolButtonStyle(Qt::ToolButtonIconOnly);
        b->setAutoRaise(true);
        grid->addWidget(b, 0, column, 2, 1);
        return b;
    };
    QToolButton* undo = makeButton(tr("Undo"), QStyle::SP_ArrowBack, 4);
    QToolButton* redo = makeButton(tr("Redo"), QStyle::SP_ArrowForward, 5);
    reset_ = makeButton(tr("Reset"), QStyle::SP_BrowserReload, 6);
    reset_->setToolTip(tr("Back to the graph's original order (undoable)"));
    QUndoStack* stack = edited_->undoStack();
    connect(undo, &QToolButton::clicked, stack, &QUndoStack::undo);
    connect(redo, &QToolButton::clicked, stack, &QUndoStack::redo);
    connect(reset_, &QToolButton::clicked, this, &PeakStrip::resetRequested);
    connect(stack, &QUndoStack::canUndoChanged, undo, &QWidget::setEnabled);
    connect(stack, &QUndoStack::canRedoChanged, redo, &QWidget::setEnabled);
    connect(stack, &QUndoStack::undoTextChanged, undo,
            [undo](const QString& t) { undo->setToolTip(t.isEmpty() ? tr("Undo") : tr("Undo %1").arg(t)); });
    connect(stack, &QUndoStack::redoTextChanged, redo,
            [redo](const QString& t) { redo->setToolTip(t.isEmpty() ? tr("Redo") : tr("Redo %1").arg(t)); });
    undo->setEnabled(false);
    redo->setEnabled(false);
    applyPalette();
}

void PeakStrip::refresh() {
    const fxmem::IncrementalSchedule* s = edited_->schedule();
    reset_->setEnabled(s != nullptr);
    if (!s) {
        original_->setText(QStringLiteral("—"));
        editedPeak_->setText(QStringLiteral("—"));
        change_->setText(QStringLiteral("—"));
        change_->setPalette(palette());
        return;
    }
    const std::int64_t original = edited_->originalPeak(), edited = edited_->peak(), delta = edited - original;
    original_->setText(formatBytes(original));
    editedPeak_->setText(formatBytes(edited));
    editedPeak_->setToolTip(s->size() == 0
                                ? QString()
                                : tr("Reached at position %1, profile step %2 ('%3'): %4 bytes")
                                      .arg(s->peak_position())
                                      .arg(edited_->profileStep(s->peak_position()))
                                      .arg(elided(edited_->analysis()->graph().node(s->at(s->peak_position())).name))
                                      .arg(edited));
    original_->setToolTip(tr("%1 bytes, in the graph's original order").arg(original));
    change_->setText(formatDelta(delta, original));
    change_->setToolTip(tr("%1 bytes").arg(delta));
    // Green when the edit lowers the peak, red when it raises it, from the palette (dark themes).
    QPalette p = palette();
    if (delta != 0) p.setColor(QPalette::WindowText, colors::deltaColor(delta > 0 ? 1.0 : -1.0, palette()));
    change_->setPalette(p);
}

void PeakStrip::applyPalette() {
    // Captions half-way between text and background: secondary, and readable on any theme.
    QPalette dim = palette();
    dim.setColor(QPalette::WindowText,
                 colors::mix(palette().color(QPalette::WindowText), palette().color(QPalette::Window), 0.4));
    for (QLabel* caption : captions_) caption->setPalette(dim);
    refresh();
}

void PeakStrip::changeEvent(QEvent* event) {
    QFrame::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) applyPalette();
}
