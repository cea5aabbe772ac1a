#include "timeline/peakmark.h"

#include <algorithm>

PeakMark::PeakMark(QCustomPlot* plot, double dotSize)
    : plot_(plot), dot_(new QCPItemTracer(plot)), label_(new QCPItemText(plot)) {
    dot_->setStyle(QCPItemTracer::tsCircle);
    dot_->setSize(dotSize);
    dot_->setVisible(false);
    label_->setPadding(QMargins(6, 2, 6, 2));
    label_->setVisible(false);
}

void PeakMark::setLayer(const QString& layer) {
    dot_->setLayer(layer);
    label_->setLayer(layer);
}

void PeakMark::setColours(const QColor& colour, const QColor& labelBackground) {
    dot_->setPen(QPen(colour, 2));
    dot_->setBrush(colour);
    label_->setBrush(labelBackground);
    label_->setPen(QPen(colour));
    label_->setColor(colour);
}

void PeakMark::place(std::size_t step, std::int64_t bytes, const QString& text, bool below, double gap,
                     bool hideOutOfView) {
    const auto x = static_cast<double>(step), y = static_cast<double>(bytes);
    dot_->position->setCoords(x, y);
    dot_->setVisible(true);
    // No wider than the plot: a long node name is elided in the middle (its ends say most).
    text_ = text;
    const QMargins pad = label_->padding();
    const int room = plot_->axisRect()->width() - pad.left() - pad.right() - 2;
    const QFontMetrics fm(label_->font());
    label_->setText(fm.horizontalAdvance(text) <= room ? text
                                                       : fm.elidedText(text, Qt::ElideMiddle, std::max(room, 0)));
    label_->position->setCoords(x, y);
    const QCPRange r = plot_->xAxis->range();
    const double rel = (x - r.lower) / std::max(r.size(), 1.0);
    const Qt::Alignment h = rel < 0.3 ? Qt::AlignLeft : rel > 0.7 ? Qt::AlignRight : Qt::AlignHCenter;
    label_->setPositionAlignment(h | (below ? Qt::AlignTop : Qt::AlignBottom));
    label_->setVisible(!hideOutOfView || (x >= r.lower && x <= r.upper));
    QPointF at = label_->position->pixelPosition() + QPointF(0, below ? gap : -gap);
    if (const QRectF box = labelBox(); !box.isNull()) {
        const QRect area = plot_->axisRect()->rect();
        const double shift = box.left() < area.left() ? area.left() - box.left()
                             : box.right() > area.right()
                                 ? std::max(area.right() - box.right(), area.left() - box.left())
                                 : 0.0;
        at.rx() += shift;
    }
    label_->position->setPixelPosition(at);
}

int PeakMark::labelHeight() const {
    const QMargins pad = label_->padding();
    return QFontMetrics(label_->font()).height() + pad.top() + pad.bottom();
}

void PeakMark::hide() {
    dot_->setVisible(false);
    label_->setVisible(false);
}

QRectF PeakMark::labelBox() const {
    if (!label_->visible() || label_->text().isEmpty()) return {};
    const QFontMetrics fm(label_->font());
    const QMargins pad = label_->padding();
    QRectF box(QPointF(), QSizeF(fm.horizontalAdvance(label_->text()) + pad.left() + pad.right(),
                                 fm.height() + pad.top() + pad.bottom()));
    const QPointF at = label_->position->pixelPosition();
    const Qt::Alignment a = label_->positionAlignment();
    if (a & Qt::AlignLeft)
        box.moveLeft(at.x());
    else if (a & Qt::AlignRight)
        box.moveRight(at.x());
    else
        box.moveLeft(at.x() - box.width() / 2);
    if (a & Qt::AlignTop)
        box.moveTop(at.y());
    else
        box.moveBottom(at.y());
    return box;
}
