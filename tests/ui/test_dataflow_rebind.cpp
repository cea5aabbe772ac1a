// A new binding of a capture's symbolic sizes (the Sizes bar) lays the Dataflow mode out again:
// the modules the user opened or closed stay so and the camera stays where it was, while a
// scene of another file opens at its overview. On the bundled llama_dynamic (batch s52, sequence
// s27), its forward bound at the hints and at s52=64, s27=1024; llama.fxmem.json is the other file.
#include "dataflow/dataflowview.h"
#include "loading/scene.h"
#include "qtest_registry.h"
#include "state/viewstate.h"
#include "ui_open.h"

#include <fxmem/io.h>

#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

#include <set>

namespace {

using Kind = fxmem::DataflowDrawing::Kind;

const QString kDynamic = QStringLiteral(FXMEM_EXAMPLES "/llama_dynamic.fxmem.json");

// The tree names of the modules open in segment 0.
std::set<std::string> openIn(const DataflowView& v) {
    std::set<std::string> out;
    const fxmem::DataflowLayout& l = *v.layouts()->piece(0).layout;
    for (std::uint32_t m = 1; m < l.tree().size(); ++m)
        if (l.expanded(m)) out.emplace(l.tree()[m].name);
    return out;
}

bool setAndWait(ViewState& state, DataflowView& view, std::shared_ptr<const Scene> scene) {
    QSignalSpy laid(&view, &DataflowView::layoutChanged);
    state.setScene(std::move(scene));
    return laid.wait(30000) && view.layouts();
}

} // namespace

class TestDataflowRebind : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void bindingKeepsOpenModulesAndCamera() {
        auto file = std::make_shared<const fxmem::GraphFile>(fxmem::load_file(kDynamic.toStdString()));
        QVERIFY(!file->symbolic.symbols.empty());
        SceneRequest r;
        r.graph = file->find_graph("forward")->value;
        QVERIFY(r.graph >= 0);
        const auto hints = buildScene(file, kDynamic, r);
        r.sizes = {64, 1024};
        const auto bound = buildScene(file, kDynamic, r, {}, file);
        QVERIFY(bound->sameGraphs(*hints));
        QVERIFY(bound->peak != hints->peak); // the binding changed the numbers

        ViewState state;
        DataflowView view(&state);
        view.resize(1200, 800);
        view.show();
        QVERIFY(setAndWait(state, view, hints));
        const std::set<std::string> overview = openIn(view);

        // The user opens two collapsed modules and closes an open one, then pans and zooms.
        std::vector<std::uint32_t> collapsed, open;
        for (const auto& b : view.layouts()->piece(0).drawing.boxes)
            if (b.kind == Kind::Module) (b.expanded ? open : collapsed).push_back(b.ref);
        QVERIFY(collapsed.size() >= 2);
        QVERIFY(!open.empty());
        QVERIFY(view.toggleModule(0, collapsed[0]));
        QVERIFY(view.toggleModule(0, collapsed[1]));
        QVERIFY(view.toggleModule(0, open.back()));
        view.zoomBy(1.7, {300, 200});
        const std::set<std::string> chosen = openIn(view);
        QVERIFY(chosen != overview);
        const DataflowCamera camera = view.camera();

        QVERIFY(setAndWait(state, view, bound));
        QCOMPARE(openIn(view), chosen);
        QCOMPARE(view.camera().origin, camera.origin);
        QCOMPARE(view.camera().scale, camera.scale);
        // The drawing is the one those modules give: each open one shows as an open frame.
        const fxmem::ModuleTree& tree = view.layouts()->piece(0).layout->tree();
        for (const std::string& name : chosen) {
            const std::uint32_t m = tree.find(name);
            const std::uint32_t box = view.layouts()->piece(0).moduleBox[m];
            if (box != DataflowLayouts::kNone) QVERIFY(view.layouts()->piece(0).drawing.boxes[box].expanded);
        }

        // Back at the hints: still the user's modules.
        QVERIFY(setAndWait(state, view, hints));
        QCOMPARE(openIn(view), chosen);

        // Another file: its own overview, fitted.
        const auto other = ui_open::sceneOfFile(ui_open::kLlama, "forward");
        QVERIFY(!other->sameGraphs(*hints));
        ViewState fresh;
        DataflowView reference(&fresh);
        reference.resize(1200, 800);
        reference.show();
        QVERIFY(setAndWait(fresh, reference, other));
        QVERIFY(setAndWait(state, view, other));
        QCOMPARE(openIn(view), openIn(reference));
        QCOMPARE(view.camera().scale, reference.camera().scale);
    }
};

FXMEM_QTEST(TestDataflowRebind)
#include "test_dataflow_rebind.moc"
