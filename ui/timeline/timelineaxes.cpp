#include "timeline/timelineaxes.h"

#include "timeline/bytesticker.h"
#include "timeline/stepticker.h"
#include "util/colors.h"

namespace TimelineAxes {

void setup(QCustomPlot* plot) {
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    QCPAxisRect* rect = plot->axisRect();
    rect->setRangeDrag(Qt::Horizontal);
    rect->setRangeZoom(Qt::Horizontal);
    rect->setRangeZoomFactor(0.8, 1.0);
    plot->setNoAntialiasingOnDrag(true);
    plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new BytesTicker));
    plot->yAxis->ticker()->setTickCount(4);
    plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new StepTicker));
    plot->xAxis->ticker()->setTickCount(8);
    plot->xAxis->setLabel(QObject::tr("profile step"));
    plot->yAxis->grid()->setSubGridVisible(false);
}

void applyPalette(QCustomPlot* plot, const QColor& base, const QColor& text) {
    plot->setBackground(base);
    for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
        axis->setBasePen(QPen(colors::mix(base, text, 0.5)));
        axis->setTickPen(QPen(colors::mix(base, text, 0.5)));
        axis->setSubTickPen(QPen(colors::mix(base, text, 0.3)));
        axis->setTickLabelColor(text);
        axis->setLabelColor(colors::mix(base, text, 0.75));
        axis->grid()->setPen(QPen(colors::mix(base, text, 0.12), 0, Qt::SolidLine));
        axis->grid()->setZeroLinePen(Qt::NoPen);
    }
}

} // namespace TimelineAxes
