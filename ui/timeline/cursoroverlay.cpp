#include "timeline/cursoroverlay.h"

#include <algorithm>

CursorOverlay::CursorOverlay(QCustomPlot* plot)
    : plot_(plot), line_(new QCPItemStraightLine(plot)), box_(new QCPItemText(plot)) {
    box_->position->setTypeX(QCPItemPosition::ptPlotCoords);
    box_->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    box_->setPadding(QMargins(6, 3, 6, 3));
    line_->setVisible(false);
    box_->setVisible(false);
    plot->addLayer(QStringLiteral("cursor"), plot->layer(QStringLiteral("main")), QCustomPlot::limAbove);
    layer_ = plot->layer(QStringLiteral("cursor"));
    layer_->setMode(QCPLayer::lmBuffered);
    line_->setLayer(layer_);
    box_->setLayer(layer_);
}

void CursorOverlay::applyPalette(const QColor& cursor, const QColor& text, const QColor& labelBackground) {
    line_->setPen(QPen(cursor, 1, Qt::DashLine));
    box_->setBrush(labelBackground);
    box_->setColor(text);
    box_->setPen(QPen(cursor));
}

void CursorOverlay::show(double x, const QString& text, bool box) {
    line_->point1->setCoords(x, 0);
    line_->point2->setCoords(x, 1);
    line_->setVisible(true);
    box_->setText(text);
    const QCPRange r = plot_->xAxis->range();
    const bool right = (x - r.lower) / std::max(r.size(), 1.0) > 0.6;
    // At the bottom: the peak label owns the top of the plot.
    box_->setPositionAlignment((right ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignBottom);
    box_->position->setCoords(x, 0.97);
    box_->setVisible(box);
}

void CursorOverlay::hide() {
    line_->setVisible(false);
    box_->setVisible(false);
}
