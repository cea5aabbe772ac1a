#include "timeline/plotexport.h"

#include "timeline/qcp.h"
#include "timeline/timelineplot.h"

#include <QFileInfo>
#include <QSvgGenerator>

namespace PlotExport {

QString filters() {
    return QObject::tr("PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf);;JPEG image (*.jpg)");
}

namespace {

// QCustomPlot has no SVG writer; its painter draws onto any QPaintDevice, QSvgGenerator included.
bool saveSvg(QCustomPlot& plot, const QString& path) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(plot.size());
    svg.setViewBox(QRect(QPoint(0, 0), plot.size()));
    svg.setTitle(QStringLiteral("fxmem memory timeline")); // metadata; the drawn title is the plot's
    QCPPainter painter;
    if (!painter.begin(&svg)) return false;
    plot.toPainter(&painter, plot.width(), plot.height());
    return painter.end();
}

} // namespace

bool save(QCustomPlot& plot, const QString& path, QString* error) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    bool ok = false;
    if (suffix == QLatin1String("svg"))
        ok = saveSvg(plot, path);
    else if (suffix == QLatin1String("pdf"))
        ok = plot.savePdf(path);
    else if (suffix == QLatin1String("jpg") || suffix == QLatin1String("jpeg"))
        ok = plot.saveJpg(path, 0, 0, 2.0);
    else if (suffix == QLatin1String("png"))
        ok = plot.savePng(path, 0, 0, 2.0);
    else {
        if (error) *error = QObject::tr("Unknown image type '.%1': use .png, .svg, .pdf or .jpg.").arg(suffix);
        return false;
    }
    if (!ok && error) *error = QObject::tr("Could not write %1.").arg(path);
    return ok;
}

bool save(TimelinePlot& plot, const QString& path, QString* error) {
    plot.setExportMode(true);
    const bool ok = save(*plot.chart(), path, error);
    plot.setExportMode(false);
    return ok;
}

} // namespace PlotExport
