#include "schedule/scheduleview.h"

#include "schedule/schedulemodel.h"
#include "util/colors.h"
#include "util/text.h"

#include <QCursor>
#include <QDrag>
#include <QDragEnterEvent>
#include <QHeaderView>
#include <QKeyEvent>
#include <QMimeData>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>

#include <algorithm>
#include <cmath>

ScheduleView::ScheduleView(QWidget* parent) : QTableView(parent) {
    setSelectionMode(SingleSelection);
    setSelectionBehavior(SelectRows);
    setDragEnabled(true);
    setAcceptDrops(true);
    setDragDropMode(InternalMove);
    setDefaultDropAction(Qt::MoveAction);
    // Insert between rows rather than onto them.
    setDragDropOverwriteMode(false);
    setDropIndicatorShown(true);
    setAlternatingRowColors(true);
    setWordWrap(false);
    setTextElideMode(Qt::ElideMiddle);
    setHorizontalScrollMode(ScrollPerPixel);
    verticalHeader()->hide();
    // Uniform row heights: 100k rows must not be measured one by one.
    verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    horizontalHeader()->setHighlightSections(false);
    setItemDelegate(new ScheduleDelegate(this));
    dragScroll_.setObjectName(QStringLiteral("dragScroll")); // a child, so tests can count its ticks
    dragScroll_.setInterval(40);
    connect(&dragScroll_, &QTimer::timeout, this, &ScheduleView::onDragScrollTick);
}

int ScheduleView::autoScrollRows(int depth, int band, int maxRows) {
    if (depth <= 0 || band <= 0) return 0;
    const double t = std::min(1.0, static_cast<double>(depth) / band);
    return std::max(1, static_cast<int>(std::lround(1 + (std::max(maxRows, 1) - 1) * t * t)));
}

int ScheduleView::clampToRange(int value, std::size_t lo, std::size_t hi, int visibleRows) {
    const int first = std::max(0, static_cast<int>(lo) - std::max(visibleRows, 1) + 1);
    return std::clamp(value, first, std::max(first, static_cast<int>(hi)));
}

void ScheduleView::updateDragScroll(const QPoint& pos) {
    const int h = viewport()->height();
    const int row = std::max(1, verticalHeader()->defaultSectionSize());
    const int band = std::clamp(h / 6, 2 * row, 6 * row);
    const int maxRows = std::max(1, h / row / 2);
    int rows = 0;
    if (pos.y() < band)
        rows = -autoScrollRows(band - pos.y(), band, maxRows);
    else if (pos.y() > h - band)
        rows = autoScrollRows(pos.y() - (h - band), band, maxRows);
    dragScrollRows_ = rows;
    if (rows == 0)
        dragScroll_.stop();
    else if (!dragScroll_.isActive())
        dragScroll_.start();
}

void ScheduleView::onDragScrollTick() {
    if (!model_ || !model_->dragSource() || dragScrollRows_ == 0) {
        dragScroll_.stop();
        return;
    }
    QScrollBar* bar = verticalScrollBar();
    const auto range = model_->schedule()->legal_range(*model_->dragSource());
    const int visible = std::max(1, viewport()->height() / std::max(1, verticalHeader()->defaultSectionSize()));
    const int value = clampToRange(bar->value() + dragScrollRows_, range.lo, range.hi, visible);
    if (value == bar->value()) return;
    bar->setValue(value);
    // The row under the pointer changed: refresh the indicator and the hover message as a move
    // of the pointer would.
    if (dragMime_) {
        QDragMoveEvent again(dragPos_, Qt::MoveAction, dragMime_, Qt::LeftButton, Qt::NoModifier);
        dragMoveEvent(&again);
    }
}

void ScheduleView::setScheduleModel(ScheduleModel* model) {
    model_ = model;
    setModel(model);
    QHeaderView* h = horizontalHeader();
    h->setSectionResizeMode(QHeaderView::Interactive);
    h->setStretchLastSection(false);
    const int digit = fontMetrics().horizontalAdvance(QLatin1Char('0'));
    h->resizeSection(ScheduleModel::StepColumn, digit * 7);
    h->resizeSection(ScheduleModel::ProfileStepColumn, digit * 7);
    h->resizeSection(ScheduleModel::NodeColumn, digit * 20);
    h->resizeSection(ScheduleModel::TargetColumn, digit * 24);
    h->resizeSection(ScheduleModel::DuringColumn, digit * 11);
    h->resizeSection(ScheduleModel::MemoryColumn, digit * 11);
    h->resizeSection(ScheduleModel::DeltaColumn, digit * 11);
    h->resizeSection(ScheduleModel::OriginalStepColumn, digit * 7);
    // The memory columns right after the node name, the op/target (the widest text) last: on a
    // laptop-width dock what a move changes stays in view without scrolling sideways.
    h->moveSection(h->visualIndex(ScheduleModel::TargetColumn), ScheduleModel::ColumnCount - 1);
    h->setStretchLastSection(true);
}

int ScheduleView::insertRowAt(const QPoint& viewportPos) const {
    const int rows = model_ ? model_->rowCount() : 0;
    const QModelIndex index = indexAt(viewportPos);
    if (!index.isValid()) return viewportPos.y() < 0 ? 0 : rows;
    // Same split as QAbstractItemView's indicator for items that take no drops onto them.
    const QRect rect = visualRect(index);
    return viewportPos.y() < rect.center().y() ? index.row() : index.row() + 1;
}

void ScheduleView::startDrag(Qt::DropActions) {
    const QModelIndex current = currentIndex();
    if (!model_ || !current.isValid() || !(model_->flags(current) & Qt::ItemIsDragEnabled)) return;
    QMimeData* mime = model_->mimeData({current});
    if (!mime) return;
    model_->setDragSource(static_cast<std::size_t>(current.row()));
    // Our own QDrag so the move happens in dropEvent only: the base class would ask the model
    // to remove the source rows after a MoveAction.
    auto* drag = new QDrag(this);
    drag->setMimeData(mime);
    const QString name = model_->index(current.row(), ScheduleModel::NodeColumn).data().toString();
    QPixmap pixmap(fontMetrics().horizontalAdvance(name) + 16, fontMetrics().height() + 8);
    pixmap.fill(palette().color(QPalette::Highlight));
    {
        QPainter p(&pixmap);
        p.setPen(palette().color(QPalette::HighlightedText));
        p.drawText(pixmap.rect(), Qt::AlignCenter, name);
    }
    drag->setPixmap(pixmap);
    drag->exec(Qt::MoveAction, Qt::MoveAction);
    endDrag();
}

void ScheduleView::dragEnterEvent(QDragEnterEvent* event) {
    const std::optional<std::size_t> from = model_ ? model_->decodePosition(event->mimeData()) : std::nullopt;
    if (!from) {
        event->ignore();
        return;
    }
    model_->setDragSource(*from);
    setState(DraggingState);
    // Our own edge scrolling (bounded by the legal range) replaces the base class's.
    setAutoScroll(false);
    event->setDropAction(Qt::MoveAction);
    event->accept();
}

void ScheduleView::dragMoveEvent(QDragMoveEvent* event) {
    const std::optional<std::size_t> from = model_ ? model_->decodePosition(event->mimeData()) : std::nullopt;
    if (!from) {
        event->ignore();
        return;
    }
    model_->setDragSource(*from);
    // The base class draws the insertion line and scrolls near the edges; it asks the model's
    // canDropMimeData, which applies the same legality as check_move.
    QTableView::dragMoveEvent(event);
    const QPoint pos = event->position().toPoint();
    dragPos_ = pos;
    dragMime_ = event->mimeData();
    updateDragScroll(pos);
    const auto insertRow = static_cast<std::size_t>(insertRowAt(pos));
    const std::size_t to = ScheduleModel::targetPosition(*from, insertRow);
    explainDrag(*from, to);
    if (model_->checkMove(*from, to).ok) {
        event->setDropAction(Qt::MoveAction);
        event->accept();
    } else {
        event->ignore();
    }
}

void ScheduleView::explainDrag(std::size_t from, std::size_t to) {
    const fxmem::IncrementalSchedule::MoveCheck check = model_->checkMove(from, to);
    if (check.ok) {
        const fxmem::IncrementalSchedule::LegalRange range = model_->schedule()->legal_range(from);
        const QString name = elided(model_->analysis()->graph().node(model_->schedule()->at(from)).name);
        emit dragStatus(
            tr("Move '%1' to position %2 (it may go to positions %3–%4)").arg(name).arg(to).arg(range.lo).arg(range.hi),
            false);
        QToolTip::hideText();
    } else {
        // Core's messages quote node names whole: their head only (a name may be 100 MB).
        const QString why = elided(std::string_view(check.reason), 4 * kMaxShownNameBytes);
        emit dragStatus(why, true);
        QToolTip::showText(QCursor::pos(), why, this);
    }
}

void ScheduleView::dragLeaveEvent(QDragLeaveEvent* event) {
    QTableView::dragLeaveEvent(event);
    endDrag();
}

void ScheduleView::dropEvent(QDropEvent* event) {
    dragScroll_.stop();
    const int scrolled = verticalScrollBar()->value();
    const std::optional<std::size_t> from = model_ ? model_->decodePosition(event->mimeData()) : std::nullopt;
    bool moved = false;
    if (from) {
        const int insertRow = insertRowAt(event->position().toPoint());
        // The model routes the move to the editor, which checks it, explains a refusal and
        // pushes the undo command. A refused drop is ignored so the drag reports no move.
        if (model_->dropMimeData(event->mimeData(), Qt::MoveAction, insertRow, -1, {})) {
            moved = true;
            event->setDropAction(Qt::MoveAction);
            event->accept();
        } else {
            event->ignore();
        }
    } else {
        event->ignore();
    }
    stopAutoScroll();
    setState(NoState);
    endDrag();
    // A refused drop changes nothing, the view included: the user stays where they dropped.
    if (!moved) verticalScrollBar()->setValue(scrolled);
}

void ScheduleView::endDrag() {
    dragScroll_.stop();
    dragScrollRows_ = 0;
    dragMime_ = nullptr;
    setAutoScroll(true);
    if (model_ && model_->dragSource()) {
        model_->setDragSource(std::nullopt);
        QToolTip::hideText();
        emit dragEnded();
    }
    viewport()->update();
}

void ScheduleView::keyPressEvent(QKeyEvent* event) {
    const bool alt =
        event->modifiers() == Qt::AltModifier || event->modifiers() == (Qt::AltModifier | Qt::KeypadModifier);
    if (alt && (event->key() == Qt::Key_Up || event->key() == Qt::Key_Down) && currentIndex().isValid()) {
        emit stepRequested(static_cast<std::size_t>(currentIndex().row()), event->key() == Qt::Key_Up ? -1 : 1);
        event->accept();
        return;
    }
    QTableView::keyPressEvent(event);
}

void ScheduleDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const {
    CachedCellDelegate::paint(painter, option, index);
    const QVariant legal = index.data(ScheduleModel::LegalDropRole);
    if (legal.isValid() && !legal.toBool()) {
        // Hatched and dimmed: the dragged node cannot go here.
        QColor dim = option.palette.color(QPalette::Window);
        dim.setAlpha(150);
        painter->fillRect(option.rect, dim);
        QColor hatch = option.palette.color(QPalette::Text);
        hatch.setAlpha(60);
        painter->fillRect(option.rect, QBrush(hatch, Qt::BDiagPattern));
    }
    if (index.column() == 0 && index.data(ScheduleModel::IsPeakRole).toBool()) {
        // A bar at the row's start marks the peak of the edited order.
        const QRect bar(option.rect.left(), option.rect.top() + 1, 4, option.rect.height() - 2);
        painter->fillRect(bar, colors::peak(option.palette));
    }
}

void ScheduleDelegate::initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const {
    QStyledItemDelegate::initStyleOption(option, index);
    if (index.column() != ScheduleModel::DeltaColumn) return;
    const qlonglong delta = index.data(ScheduleModel::DeltaRole).toLongLong();
    if (delta == 0 || (option->state & QStyle::State_Selected)) return;
    // Growth red, release green, as the timeline colours them.
    option->palette.setColor(QPalette::Text, colors::deltaColor(delta > 0 ? 0.7 : -0.7, option->palette));
}
