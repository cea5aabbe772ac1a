#include "mainwindow/appsettings.h"

#include <QFileInfo>
#include <QSettings>

#include <algorithm>

namespace AppSettings {
namespace {
// The keys, once.
const QString kUnits = QStringLiteral("units");
const QString kDeviceFilter = QStringLiteral("deviceFilter");
// Holds the mode itself (an older "colorMode" held a combo index and is ignored).
const QString kNodeColorMode = QStringLiteral("nodeColorMode");
const QString kScheduleDir = QStringLiteral("scheduleDir");
const QString kDataflowMode = QStringLiteral("graphDataflowMode");
const QString kLastDir = QStringLiteral("lastDir");
const QString kRecentFiles = QStringLiteral("recentFiles");
const QString kGeometry = QStringLiteral("geometry");
const QString kWindowState = QStringLiteral("windowState");
const QString kSplitter = QStringLiteral("splitter");
const QString kSidePanelFraction = QStringLiteral("sidePanelFraction");
} // namespace

ByteUnits units() {
    return QSettings().value(kUnits).toString() == QLatin1String("decimal") ? ByteUnits::Decimal : ByteUnits::Binary;
}
void setUnits(ByteUnits units) {
    QSettings().setValue(kUnits, units == ByteUnits::Decimal ? QStringLiteral("decimal") : QStringLiteral("binary"));
}

void forgetDeviceFilter() { QSettings().remove(kDeviceFilter); }

NodeColorMode nodeColorMode() {
    const int saved = QSettings().value(kNodeColorMode, static_cast<int>(NodeColorMode::OpCategory)).toInt();
    for (NodeColorMode m : kNodeColorModes)
        if (static_cast<int>(m) == saved) return m;
    return NodeColorMode::OpCategory;
}
void setNodeColorMode(NodeColorMode mode) { QSettings().setValue(kNodeColorMode, static_cast<int>(mode)); }
bool dataflowMode() { return QSettings().value(kDataflowMode, false).toBool(); }
void setDataflowMode(bool dataflow) { QSettings().setValue(kDataflowMode, dataflow); }

QString scheduleDir() { return QSettings().value(kScheduleDir).toString(); }
void setScheduleDir(const QString& dir) { QSettings().setValue(kScheduleDir, dir); }
QString lastDir() { return QSettings().value(kLastDir).toString(); }

QStringList recentFiles() { return QSettings().value(kRecentFiles).toStringList(); }
void addRecentFile(const QString& absolutePath, int max) {
    QSettings s;
    QStringList recent = s.value(kRecentFiles).toStringList();
    recent.removeAll(absolutePath);
    recent.prepend(absolutePath);
    while (recent.size() > max) recent.removeLast();
    s.setValue(kRecentFiles, recent);
    s.setValue(kLastDir, QFileInfo(absolutePath).absolutePath());
}
void clearRecentFiles() { QSettings().remove(kRecentFiles); }

Layout layout() {
    QSettings s;
    return {s.value(kGeometry).toByteArray(), s.value(kWindowState).toByteArray(), s.value(kSplitter).toByteArray()};
}
void setLayout(const Layout& layout) {
    QSettings s;
    s.setValue(kGeometry, layout.geometry);
    s.setValue(kWindowState, layout.windowState);
    s.setValue(kSplitter, layout.splitter);
}

double sidePanelFraction() { return QSettings().value(kSidePanelFraction, 0.0).toDouble(); }
void setSidePanelFraction(double fraction) { QSettings().setValue(kSidePanelFraction, fraction); }

} // namespace AppSettings
