// An item delegate for tables whose cells are repainted far more often than they change (the live
// table repaints on every cursor step while most of its visible rows stay): each plain text cell is
// drawn once into a pixmap, as QStyledItemDelegate draws it over the row's background, and blitted
// from then on, so its text is laid out and elided once rather than on every paint. Cells with an
// icon or a check box are drawn directly. The pixels are the same as without the cache.
#pragma once
#include <QCache>
#include <QPixmap>
#include <QStyledItemDelegate>

class CachedCellDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    explicit CachedCellDelegate(QObject* parent = nullptr);
    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
    // Cells drawn into the cache so far (a count for tests: a repaint of unchanged cells draws none).
    int cellsDrawn() const { return drawn_; }

private:
    mutable QCache<QByteArray, QPixmap> cache_;
    mutable int drawn_ = 0;
};
