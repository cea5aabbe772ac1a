#include "util/cachedcelldelegate.h"

#include <QApplication>
#include <QDataStream>
#include <QIODevice>
#include <QPainter>
#include <QStyle>

#include <algorithm>

namespace {
// Everything the drawn pixels depend on, as bytes; empty when the cell is not cached.
QByteArray keyOf(const QStyleOptionViewItem& o, qreal dpr) {
    if (!o.icon.isNull() ||
        (o.features & (QStyleOptionViewItem::HasCheckIndicator | QStyleOptionViewItem::HasDecoration)))
        return {};
    QByteArray key;
    QDataStream s(&key, QIODevice::WriteOnly);
    s << o.text << o.rect.size() << dpr << int(o.state) << int(o.features) << int(o.displayAlignment)
      << int(o.textElideMode) << int(o.direction) << o.font.key() << o.backgroundBrush;
    // The colours the style reads; a palette changed by the model's roles is a new palette object.
    for (const QPalette::ColorGroup g : {QPalette::Active, QPalette::Inactive, QPalette::Disabled})
        for (const QPalette::ColorRole r : {QPalette::Text, QPalette::HighlightedText, QPalette::Highlight,
                                            QPalette::Base, QPalette::AlternateBase, QPalette::WindowText})
            s << o.palette.color(g, r).rgba();
    return key;
}
} // namespace

CachedCellDelegate::CachedCellDelegate(QObject* parent) : QStyledItemDelegate(parent) {
    cache_.setMaxCost(16 * 1024); // KiB of pixels: several screens of a wide table, both row parities
}

void CachedCellDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const {
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const qreal dpr = painter->device()->devicePixelRatioF();
    const QByteArray key = opt.rect.isEmpty() ? QByteArray() : keyOf(opt, dpr);
    if (key.isEmpty()) return QStyledItemDelegate::paint(painter, option, index);
    if (const QPixmap* cached = cache_.object(key)) {
        painter->drawPixmap(option.rect.topLeft(), *cached);
        return;
    }
    // What the view drew under the cell: the viewport's base and the row's panel (the alternate
    // colour), then the cell as the plain delegate draws it.
    auto* pixmap = new QPixmap(option.rect.size() * dpr);
    pixmap->setDevicePixelRatio(dpr);
    {
        QPainter p(pixmap);
        QStyleOptionViewItem local = option;
        local.rect = QRect(QPoint(0, 0), option.rect.size());
        const QWidget* widget = option.widget;
        p.fillRect(local.rect, (widget ? widget->palette() : local.palette).brush(QPalette::Base));
        QStyle* style = widget ? widget->style() : QApplication::style();
        style->drawPrimitive(QStyle::PE_PanelItemViewRow, &local, &p, widget);
        QStyledItemDelegate::paint(&p, local, index);
    }
    ++drawn_;
    painter->drawPixmap(option.rect.topLeft(), *pixmap);
    cache_.insert(key, pixmap, std::max(1, int(qint64(pixmap->width()) * pixmap->height() * 4 / 1024)));
}
