// Writes a plot to an image or document file, the format chosen by the file's suffix:
// .png, .jpg/.jpeg (bitmaps at twice the widget's resolution), .pdf and .svg (vector).
#pragma once
#include <QString>

class QCustomPlot;
class TimelinePlot;

namespace PlotExport {
QString filters(); // for QFileDialog, PNG first
bool save(QCustomPlot& plot, const QString& path, QString* error);
// The timeline as a reader of the file needs it: its title and legend, without the hover cursor.
bool save(TimelinePlot& plot, const QString& path, QString* error);
} // namespace PlotExport
