#include "timeline/sectionmarkers.h"

#include "util/text.h"

#include <algorithm>

namespace {
constexpr double kTop = 0.02; // the labels' row starts this far down the plot (a fraction of it)
} // namespace

SectionMarkers::SectionMarkers(QCustomPlot* plot, QString layer) : plot_(plot), layer_(std::move(layer)) {}

void SectionMarkers::set(std::vector<timeline::Marker> markers) {
    for (QCPItemStraightLine* l : lines_) plot_->removeItem(l);
    for (QCPItemText* t : labels_) plot_->removeItem(t);
    lines_.clear();
    labels_.clear();
    markers_ = std::move(markers);
    // Segment names come from the file: escaped as every shown name is (elided()).
    for (timeline::Marker& m : markers_) m.label = elided(m.label);
    for (const timeline::Marker& m : markers_) {
        auto* line = new QCPItemStraightLine(plot_);
        line->point1->setCoords(static_cast<double>(m.step) - 0.5, 0);
        line->point2->setCoords(static_cast<double>(m.step) - 0.5, 1);
        line->setLayer(layer_);
        lines_.push_back(line);
        auto* label = new QCPItemText(plot_);
        label->setLayer(layer_);
        // Placed in pixels by layout().
        label->position->setTypeX(QCPItemPosition::ptAbsolute);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(0, kTop);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        label->setText(m.label);
        label->setPadding(QMargins(4, 0, 4, 2));
        labels_.push_back(label);
    }
}

void SectionMarkers::applyPalette(const QColor& line, const QColor& text) {
    for (QCPItemStraightLine* l : lines_) l->setPen(QPen(line, 1, Qt::DotLine));
    for (QCPItemText* t : labels_) t->setColor(text);
}

double SectionMarkers::rowBottom(double plotHeight) const {
    if (labels_.empty()) return 0;
    const QMargins pad = labels_.front()->padding();
    return kTop * plotHeight + QFontMetrics(labels_.front()->font()).height() + pad.top() + pad.bottom();
}

void SectionMarkers::layout(const QRectF& avoid) {
    // Each label is pinned to the plot's left edge while its section starts off-screen, and
    // elided (or hidden) when the section is narrower than the label.
    const QRect area = plot_->axisRect()->rect();
    const QCPAxis* x = plot_->xAxis;
    for (std::size_t i = 0; i < markers_.size(); ++i) {
        QCPItemText* label = labels_[i];
        const double start = x->coordToPixel(static_cast<double>(markers_[i].step) - 0.5);
        const double end = i + 1 < markers_.size() ? x->coordToPixel(static_cast<double>(markers_[i + 1].step) - 0.5)
                                                   : static_cast<double>(area.right());
        double left = std::max(start, static_cast<double>(area.left()));
        double right = std::min(end, static_cast<double>(area.right()));
        const QMargins pad = label->padding();
        const double top = area.top() + kTop * area.height();
        // Nor over the peak's label, which can reach the top row on a short plot: a label ends
        // before it, or starts after it when the peak label covers its start.
        if (!avoid.isNull() && avoid.top() < top + QFontMetrics(label->font()).height() + pad.top() + pad.bottom() &&
            avoid.bottom() > top && avoid.right() > left && avoid.left() < right) {
            // Before the peak label if the whole name fits there, else after it if there is more room.
            const double need =
                QFontMetrics(label->font()).horizontalAdvance(markers_[i].label) + pad.left() + pad.right() + 2;
            const double before = avoid.left() - 4 - left, after = right - (avoid.right() + 4);
            if (before >= need || before >= after)
                right = std::max(left, avoid.left() - 4);
            else
                left = avoid.right() + 4;
        }
        const int room = static_cast<int>(right - left) - pad.left() - pad.right() - 2;
        const QFontMetrics fm(label->font());
        const QString text = room > 0 ? fm.elidedText(markers_[i].label, Qt::ElideRight, room) : QString();
        const bool fits = !text.isEmpty() && text != QStringLiteral("…") && fm.horizontalAdvance(text) <= room;
        label->setText(text);
        label->setVisible(fits);
        label->position->setCoords(left + 1, kTop);
    }
}
