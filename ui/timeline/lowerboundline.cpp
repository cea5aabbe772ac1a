#include "timeline/lowerboundline.h"

#include "util/units.h"

LowerBoundLine::LowerBoundLine(QCustomPlot* plot)
    : plot_(plot), line_(new QCPItemStraightLine(plot)), label_(new QCPItemText(plot)) {
    line_->setVisible(false);
    label_->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    label_->position->setTypeY(QCPItemPosition::ptPlotCoords);
    label_->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
    label_->setPadding(QMargins(4, 1, 4, 1));
    label_->setVisible(false);
}

void LowerBoundLine::applyPalette(const QColor& line, const QColor& text, const QColor& labelBackground) {
    line_->setPen(QPen(line, 1.2, Qt::DashDotLine));
    label_->setBrush(labelBackground);
    label_->setColor(text);
}

void LowerBoundLine::update(bool hasProfile) {
    const bool on = bytes_ >= 0 && hasProfile;
    line_->setVisible(on);
    label_->setVisible(on);
    if (!on) return;
    const auto y = static_cast<double>(bytes_);
    line_->point1->setCoords(plot_->xAxis->range().lower, y);
    line_->point2->setCoords(plot_->xAxis->range().upper, y);
    label_->setText(QObject::tr("no order can go below %1").arg(formatBytes(bytes_)));
    label_->position->setCoords(0.99, y);
}
