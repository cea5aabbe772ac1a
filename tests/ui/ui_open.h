// Opening a file in the real main window from a QtTest: the loader that reads the file as the app
// does, and a wait for the scene to be shown (false when loading failed or `msecs` ran out).
#pragma once
#include "mainwindow/mainwindow.h"

#include <fxmem/io.h>

#include <QSignalSpy>
#include <QTest>

namespace ui_open {

inline FileLoader realLoader() {
    return [](const std::string& path, const LoadControl& control) { return fxmem::load_file(path, control); };
}

inline bool openAndWait(MainWindow& w, const QString& path, int msecs = 60000) {
    QSignalSpy shown(&w, &MainWindow::sceneShown);
    QSignalSpy failed(&w, &MainWindow::loadFailed);
    w.openFile(path);
    return QTest::qWaitFor([&] { return shown.count() > 0 || failed.count() > 0; }, msecs) && shown.count() > 0;
}

} // namespace ui_open
