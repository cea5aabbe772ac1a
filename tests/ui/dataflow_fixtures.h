// Shared by the Dataflow view's pixel tests: llama's pair as the app builds it, a view shown at
// 1000x700 with its layouts delivered, and what a window shows now.
#pragma once
#include "dataflow/dataflowview.h"
#include "loading/scene.h"
#include "state/viewstate.h"
#include "ui_open.h"

#include <fxmem/io.h>

#include <QBackingStore>
#include <QSignalSpy>
#include <QTest>

namespace dataflow_fixtures {

using ui_open::kLlama;

// llama's forward and backward joined (its saved activations drawn across the two).
inline std::shared_ptr<const Scene> llamaPair() {
    auto file = std::make_shared<const fxmem::GraphFile>(fxmem::load_file(kLlama.toStdString()));
    SceneRequest request;
    request.pair = 0;
    return buildScene(file, kLlama, request);
}

// Shows `view` (bound to `state`) at 1000x700, gives the state `scene` unless it has it, and waits
// for the view's layouts; false when they did not come.
inline bool showLaidOut(DataflowView& view, ViewState& state, const std::shared_ptr<const Scene>& scene) {
    view.resize(1000, 700);
    QSignalSpy laid(&view, &DataflowView::layoutChanged);
    view.show();
    if (!QTest::qWaitForWindowExposed(&view)) return false;
    if (state.scene() != scene) state.setScene(scene);
    return view.layouts() || laid.wait(20000);
}

// What the window shows now (its backing store), as RGB.
inline QImage shown(QWidget& view) {
    return static_cast<QImage*>(view.backingStore()->paintDevice())
        ->copy(view.rect())
        .convertToFormat(QImage::Format_RGB32);
}

} // namespace dataflow_fixtures
