// Every setting the app remembers, typed, each QSettings key written once (here). Values read
// back are checked: an unknown or out-of-range value gives the default.
#pragma once
#include "analysis/graphanalysis.h"
#include "graphview/colormode.h"
#include "util/units.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace AppSettings {

ByteUnits units();
void setUnits(ByteUnits units);
// The device choice is per file (each opens counting as PyTorch does); versions before that
// kept it across sessions under this key, which is removed so it cannot come back.
void forgetDeviceFilter();
NodeColorMode nodeColorMode();
void setNodeColorMode(NodeColorMode mode);
// The graph view's mode: Dataflow (true) or Time.
bool dataflowMode();
void setDataflowMode(bool dataflow);

QString scheduleDir(); // where the last schedule was saved or opened
void setScheduleDir(const QString& dir);
QString lastDir(); // where the last graph file was opened
// Most recent first, at most `max`; adding one also makes its folder lastDir().
QStringList recentFiles();
void addRecentFile(const QString& absolutePath, int max);
void clearRecentFiles();

// The window's layout (QMainWindow::saveGeometry/saveState, the central splitter's state) and
// the side docks' share of the window width (0: none saved).
struct Layout {
    QByteArray geometry, windowState, splitter;
};
Layout layout();
void setLayout(const Layout& layout);
double sidePanelFraction();
void setSidePanelFraction(double fraction);

} // namespace AppSettings
