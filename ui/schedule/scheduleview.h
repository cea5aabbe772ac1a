// The table of a ScheduleModel with drag-to-reorder. While a node is dragged the rows it may not
// reach are hatched (LegalDropRole) and every hover position is checked, so the user sees the
// legal range and why a spot is refused before dropping. Alt+Up / Alt+Down ask for one-step moves.
// Dragging near an edge scrolls: faster the deeper the pointer is in the edge band (up to half a
// page per tick), and never past the dragged node's legal range, so a long drag reaches a far
// target quickly and can never carry the list away from where a drop is possible. A refused
// drop leaves the list where it was.
#pragma once
#include "util/cachedcelldelegate.h"

#include <QTableView>
#include <QTimer>

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

    // Rows per autoscroll tick for a pointer `depth` pixels into an edge band `band` pixels
    // high (depth > band: beyond the edge): 0 outside the band, 1 at its inner edge, growing
    // quadratically to maxRows at the outer edge and beyond.
    static int autoScrollRows(int depth, int band, int maxRows);
    // The scroll value (first visible row) clamped so that some row of [lo, hi] stays visible
    // in a viewport showing `visibleRows` rows.
    static int clampToRange(int value, std::size_t lo, std::size_t hi, int visibleRows);

signals:
    // Hovering a drop spot: where the dragged node may go, or why not there (a refusal, also
    // shown as a tooltip at the cursor while the drag lasts).
    void dragStatus(const QString& text, bool refusal);
    void dragEnded();
    // Alt+Up (-1) or Alt+Down (+1) on the current row.
    void stepRequested(std::size_t from, int delta);

protected:
    void explainDrag(std::size_t from, std::size_t to);
    void startDrag(Qt::DropActions supportedActions) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dragMoveEvent(QDragMoveEvent* event) override;
    void dragLeaveEvent(QDragLeaveEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    ScheduleModel* model_ = nullptr;
    QTimer dragScroll_{this};             // ticks while the pointer is in an edge band during a drag
    int dragScrollRows_ = 0;              // signed rows per tick
    QPoint dragPos_;                      // the last hover position (viewport coordinates)
    const QMimeData* dragMime_ = nullptr; // valid while a drag hovers this view
    void endDrag();
    void onDragScrollTick();
    void updateDragScroll(const QPoint& pos);
};

// Paints the drag feedback (hatched rows outside the legal range) and the peak marker, in the
// view's palette so a dark theme works, over cells kept as pixmaps (a drop repaints the whole
// visible list, whose cells mostly just changed rows).
class ScheduleDelegate : public CachedCellDelegate {
    Q_OBJECT
public:
    using CachedCellDelegate::CachedCellDelegate;
    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override;
};
