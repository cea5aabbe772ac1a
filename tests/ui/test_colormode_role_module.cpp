// The graph view's colour modes by role and by module, as both views draw them (NodeColors, the
// Dataflow mode's boxes): on the bundled llama's forward, a node's colour is its first output
// storage's role colour (the roles resolved from the file here), and by module the nodes of one
// layer share a shade that the next layer does not, nodes outside the layers neutral.
#include "dataflow/dataflowview.h"
#include "graphview/colormode.h"
#include "graphview/nodecolors.h"
#include "loading/scene.h"
#include "qtest_registry.h"
#include "state/viewstate.h"
#include "timeline/stackedbands.h"
#include "ui_open.h"
#include "util/colors.h"

#include <fxmem/attribution.h>
#include <fxmem/io.h>
#include <fxmem/op_category.h>

#include <QSignalSpy>
#include <QtTest>

#include <algorithm>
#include <map>
#include <set>

namespace {

NodeRef ref(std::uint32_t v) { return {0, fxmem::NodeId(static_cast<std::int32_t>(v))}; }

} // namespace

class TestColorModeRoleModule : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { scene_ = ui_open::llamaForward(); }

    void listedInTheChooser() {
        QCOMPARE(std::count(kNodeColorModes.begin(), kNodeColorModes.end(), NodeColorMode::Role), 1);
        QCOMPARE(std::count(kNodeColorModes.begin(), kNodeColorModes.end(), NodeColorMode::Module), 1);
        QCOMPARE(colorModeName(NodeColorMode::Role), QStringLiteral("By role"));
        QCOMPARE(colorModeName(NodeColorMode::Module), QStringLiteral("By module"));
    }

    void byRoleIsTheFirstOutputsRole() {
        const fxmem::Graph& g = scene_->segments[0].analysis->graph();
        const fxmem::RoleAssignment roles = fxmem::resolve_roles(*scene_->file);
        std::vector<std::vector<fxmem::OpCategory>> categories{fxmem::target_categories(g)};
        NodeColors colors;
        const QPalette pal;
        colors.sync(*scene_, NodeColorMode::Role, pal, categories);
        std::set<fxmem::StorageRole> seen;
        for (std::uint32_t v = 0; v < g.size(); ++v) {
            const auto outs = g.outputs(ref(v).node);
            const fxmem::StorageRole role =
                outs.empty() ? fxmem::StorageRole::Unknown : roles.role[static_cast<std::size_t>(outs.front().index())];
            seen.insert(role);
            QCOMPARE(colors.compute(ref(v)), roleNodeColor(role, pal));
        }
        // llama's forward has parameters and activations at least, in the timeline's colours.
        QVERIFY(seen.count(fxmem::StorageRole::Parameter));
        QVERIFY(seen.count(fxmem::StorageRole::Activation));
        QCOMPARE(roleNodeColor(fxmem::StorageRole::Parameter, pal),
                 StackedBands::roleColour(fxmem::StorageRole::Parameter));
        QVERIFY(roleNodeColor(fxmem::StorageRole::Parameter, pal) !=
                roleNodeColor(fxmem::StorageRole::Activation, pal));
    }

    void byModuleAlternatesTheLayers() {
        const fxmem::Graph& g = scene_->segments[0].analysis->graph();
        std::vector<std::vector<fxmem::OpCategory>> categories{fxmem::target_categories(g)};
        NodeColors colors;
        const QPalette pal;
        colors.sync(*scene_, NodeColorMode::Module, pal, categories);
        // Which layers.K each node is in, by its module's qualified name.
        const fxmem::ModuleTree tree(g);
        std::map<int, QColor> layer;
        int outside = 0;
        for (std::uint32_t v = 0; v < g.size(); ++v) {
            const std::uint32_t m = tree.node_module(ref(v).node);
            const std::string name = m == fxmem::ModuleTree::npos ? std::string() : std::string(tree[m].name);
            const QColor c = colors.compute(ref(v));
            if (name.rfind("layers.", 0) != 0) {
                QCOMPARE(c, moduleShadeColor(-1, pal));
                ++outside;
                continue;
            }
            const int k = std::stoi(name.substr(7));
            if (const auto it = layer.find(k); it != layer.end())
                QCOMPARE(c, it->second);
            else
                layer[k] = c;
        }
        QVERIFY(outside > 0);
        QVERIFY(layer.size() >= 2);
        for (const auto& [k, c] : layer) {
            QCOMPARE(c, moduleShadeColor(k % 2, pal));
            if (layer.count(k + 1)) QVERIFY(c != layer.at(k + 1));
        }
    }

    // The Dataflow mode paints a node box's fill from the same colour: a parameter placeholder's
    // box, inside its bottom-left corner, is the parameter colour mixed into the base as drawn.
    void dataflowBoxFilledByRole() {
        ViewState state;
        DataflowView view(&state);
        view.resize(1200, 800);
        view.show();
        QSignalSpy laid(&view, &DataflowView::layoutChanged);
        state.setScene(scene_);
        if (!view.layouts()) QVERIFY(laid.wait(20000));
        view.setColorMode(NodeColorMode::Role);
        const DataflowPiece& piece = view.layouts()->piece(0);
        const fxmem::Graph& g = scene_->segments[0].analysis->graph();
        const fxmem::RoleAssignment roles = fxmem::resolve_roles(*scene_->file);
        std::uint32_t box = DataflowLayouts::kNone;
        for (std::uint32_t b = 0; b < piece.drawing.boxes.size() && box == DataflowLayouts::kNone; ++b) {
            const auto& bx = piece.drawing.boxes[b];
            if (bx.kind != fxmem::DataflowDrawing::Kind::Node) continue;
            const auto outs = g.outputs(ref(bx.ref).node);
            if (!outs.empty() &&
                roles.role[static_cast<std::size_t>(outs.front().index())] == fxmem::StorageRole::Parameter)
                box = b;
        }
        QVERIFY(box != DataflowLayouts::kNone);
        const auto& bx = piece.drawing.boxes[box];
        view.zoomBy(1.0 / view.camera().scale, {0, 0}); // scale 1: the box many pixels wide
        view.centerOn(ref(bx.ref));
        const double s = view.camera().scale;
        const QPointF c = view.boxCenter(0, box);
        const QPoint inside = (c + QPointF(-bx.w * s / 2 + 5, bx.h * s / 2 - 5)).toPoint();
        QVERIFY(view.rect().contains(inside));
        const QImage image = view.grab().toImage();
        const QColor expected = colors::mix(view.palette().color(QPalette::Base),
                                            StackedBands::roleColour(fxmem::StorageRole::Parameter), 0.55);
        const QColor got = image.pixelColor(inside * image.devicePixelRatio());
        QVERIFY2(std::abs(got.red() - expected.red()) <= 2 && std::abs(got.green() - expected.green()) <= 2 &&
                     std::abs(got.blue() - expected.blue()) <= 2,
                 qPrintable(got.name() + QStringLiteral(" != ") + expected.name()));
    }

private:
    std::shared_ptr<const Scene> scene_;
};

FXMEM_QTEST(TestColorModeRoleModule)
#include "test_colormode_role_module.moc"
