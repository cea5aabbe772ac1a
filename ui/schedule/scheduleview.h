// The table of a ScheduleModel with drag-to-reorder. While a node is dragged the rows it may not
// reach are hatched (LegalDropRole) and every hover position is checked, so the user sees the
// legal range and why a spot is refused before dropping. Alt+Up / Alt+Down ask for one-step moves.
#pragma once
#include <QStyledItemDelegate>
#include <QTableView>

#include <cstddef>
#include <optional>

class ScheduleModel;

class ScheduleView : public QTableView {
    Q_OBJECT
public:
    explicit ScheduleView(QWidget* parent = nullptr);
    void setScheduleModel(ScheduleModel* model);
    ScheduleModel* scheduleModel() const { return model_; }

    // The insertion row (the node goes before it; rowCount() at the end) for a point in
    // viewport coordinates, as the drop indicator shows it.
    int insertRowAt(const QPoint& viewportPos) const;

signals:
    // Hovering a drop spot: `to` is the final position the dragged node would take.
    void dragHovered(std::size_t from, std::size_t to);
    void dragEnded();
    // Alt+Up (-1) or Alt+Down (+1) on the current row.
    void stepRequested(std::size_t from, int delta);

protected:
    void startDrag(Qt::DropActions supportedActions) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dragMoveEvent(QDragMoveEvent* event) override;
    void dragLeaveEvent(QDragLeaveEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    ScheduleModel* model_ = nullptr;
    void endDrag();
};

// Paints the drag feedback (hatched rows outside the legal range) and the peak marker, in the
// view's palette so a dark theme works.
class ScheduleDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override;
};
