#include "timeline/devicememoryline.h"

#include "util/units.h"

DeviceMemoryLine::DeviceMemoryLine(QCustomPlot* plot)
    : plot_(plot), line_(new QCPItemStraightLine(plot)), label_(new QCPItemText(plot)) {
    line_->setVisible(false);
    label_->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    label_->position->setTypeY(QCPItemPosition::ptPlotCoords);
    label_->setPadding(QMargins(4, 1, 4, 1));
    label_->setVisible(false);
}

void DeviceMemoryLine::set(std::int64_t bytes, const QString& name) {
    bytes_ = bytes;
    name_ = name;
}

void DeviceMemoryLine::applyPalette(const QColor& fits, const QColor& over, const QColor& text,
                                    const QColor& labelBackground) {
    fits_ = fits;
    over_ = over;
    label_->setBrush(labelBackground);
    label_->setColor(text);
}

void DeviceMemoryLine::update(bool hasProfile, std::int64_t peak) {
    const bool on = bytes_ >= 0 && hasProfile;
    line_->setVisible(on);
    label_->setVisible(on);
    if (!on) return;
    const auto y = static_cast<double>(bytes_);
    line_->setPen(QPen(peak > bytes_ ? over_ : fits_, 1.6));
    line_->point1->setCoords(plot_->xAxis->range().lower, y);
    line_->point2->setCoords(plot_->xAxis->range().upper, y);
    const QString size = formatBytes(bytes_);
    const QString text = name_.isEmpty() || name_ == size ? QObject::tr("device memory %1").arg(size)
                                                          : QObject::tr("device memory %1 (%2)").arg(name_, size);
    // Far above the curve the axis does not reach it; the peak's label still says what is free.
    const bool above = y > plot_->yAxis->range().upper;
    line_->setVisible(!above);
    label_->setVisible(!above);
    label_->setText(text);
    // At the right end, on the side of the line away from the peak, whose label sits above it.
    label_->setPositionAlignment(Qt::AlignRight | (peak > bytes_ ? Qt::AlignTop : Qt::AlignBottom));
    label_->position->setCoords(0.99, y);
}

QString fitsText(std::int64_t peak, std::int64_t capacity) {
    if (peak <= capacity) return QObject::tr("fits, %1 free").arg(formatBytes(capacity - peak));
    return QObject::tr("over by %1").arg(formatBytes(peak - capacity));
}
