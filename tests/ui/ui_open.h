// Opening a file in the real main window from a QtTest: the loader that reads the file as the app
// does, and a wait for the scene to be shown (false when loading failed or `msecs` ran out); and
// a file's scene built directly, without a window.
#pragma once
#include "loading/scene.h"
#include "mainwindow/mainwindow.h"

#include <fxmem/io.h>

#include <QSignalSpy>
#include <QTest>

namespace ui_open {

// The bundled llama example, which many view tests open.
inline const QString kLlama = QStringLiteral(FXMEM_EXAMPLES "/llama.fxmem.json");

inline FileLoader realLoader() {
    return [](const std::string& path, const LoadControl& control) { return fxmem::load_file(path, control); };
}

inline bool openAndWait(MainWindow& w, const QString& path, int msecs = 60000) {
    QSignalSpy shown(&w, &MainWindow::sceneShown);
    QSignalSpy failed(&w, &MainWindow::loadFailed);
    w.openFile(path);
    return QTest::qWaitFor([&] { return shown.count() > 0 || failed.count() > 0; }, msecs) && shown.count() > 0;
}

// The scene of graph `graph` of the file at `path` (null: the default view, the whole step when
// the file has one), as the app builds it.
inline std::shared_ptr<const Scene> sceneOfFile(const QString& path, const char* graph = nullptr) {
    auto file = std::make_shared<const fxmem::GraphFile>(fxmem::load_file(path.toStdString()));
    SceneRequest r;
    if (graph) {
        const std::optional<fxmem::GraphId> g = file->find_graph(graph);
        r.graph = g ? g->value : -1;
    }
    return buildScene(file, path, r);
}

// llama's forward graph as the app shows it.
inline std::shared_ptr<const Scene> llamaForward() { return sceneOfFile(kLlama, "forward"); }

// `file` as the app shows it (the default view unless `request` says otherwise), named by its source.
inline std::shared_ptr<const Scene> sceneOfGraphFile(fxmem::GraphFile file, SceneRequest request = {}) {
    auto shared = std::make_shared<const fxmem::GraphFile>(std::move(file));
    return buildScene(shared, QString::fromStdString(shared->source), request);
}

} // namespace ui_open
