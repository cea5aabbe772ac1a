// The graph view's Dataflow mode (ui/dataflow) on the bundled llama: a double-click opens a
// module in place and a second one closes it back to every box as it was; a click in the view
// selects the node or module in the shared ViewState (what the inspector, the breakdown and the
// live table follow) and a selection made there is drawn in the view; at a cursor step the nodes
// holding live storages, the node running and each layer's live bytes are fxmem-cli's (`live`
// and `breakdown --by module`), computed by the CLI's own process, not read back from the view.
#include "cli_json.h"
#include "dataflow/dataflowlabels.h"
#include "dataflow/dataflowview.h"
#include "dataflow/graphmodepane.h"
#include "loading/scene.h"
#include "qtest_registry.h"
#include "state/viewstate.h"
#include "ui_fixtures.h"
#include "ui_open.h"
#include "util/units.h"

#include <fxmem/dataflow_sizes.h>
#include <fxmem/io.h>

#include <QAction>
#include <QJsonArray>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QToolButton>
#include <QtTest>

#include <map>
#include <set>

namespace {

using Box = fxmem::DataflowDrawing::Box;
using Kind = fxmem::DataflowDrawing::Kind;

// A view bound to a state, shown, with the scene's layouts delivered.
struct Fixture {
    ViewState state;
    DataflowView view{&state};
    std::shared_ptr<const Scene> scene;
    explicit Fixture(std::shared_ptr<const Scene> s) : scene(std::move(s)) {
        view.resize(1200, 800);
        view.show();
        QSignalSpy laid(&view, &DataflowView::layoutChanged);
        state.setScene(scene);
        if (!view.layouts()) QVERIFY(laid.wait(20000));
    }
    const DataflowPiece& piece() const { return view.layouts()->piece(0); }
    const fxmem::Graph& graph() const { return scene->segments[0].analysis->graph(); }
    std::uint32_t module(const char* name) const { return piece().layout->tree().find(name); }
    // Puts the box in the middle of the widget at a readable zoom, then returns its centre.
    QPoint show(std::uint32_t box) {
        view.zoomBy(1.0 / view.camera().scale, {0, 0}); // scale 1
        const QPoint delta = (QPointF(600, 400) - view.boxCenter(0, box)).toPoint();
        // Pan with the mouse: a drag moves the drawing by the same pixels.
        QTest::mousePress(&view, Qt::LeftButton, {}, QPoint(600, 400));
        QMouseEvent move(QEvent::MouseMove, QPointF(600, 400) + delta, view.mapToGlobal(QPointF(600, 400) + delta),
                         Qt::NoButton, Qt::LeftButton, {});
        QCoreApplication::sendEvent(&view, &move);
        QTest::mouseRelease(&view, Qt::LeftButton, {}, (QPointF(600, 400) + delta).toPoint());
        return view.boxCenter(0, box).toPoint();
    }
};

bool sameBox(const Box& a, const Box& b) {
    return a.kind == b.kind && a.ref == b.ref && a.parent == b.parent && a.expanded == b.expanded && a.x == b.x &&
           a.y == b.y && a.w == b.w && a.h == b.h;
}

} // namespace

class TestDataflowView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    // fxmem-cli layout exports the drawing the view shows: on llama's pair, at the view's depth
    // (the CLI's default), the same boxes in the same order at the same places and sizes, and
    // the same edges with the same points, the pair's forward beside its backward.
    void cliLayoutIsTheDrawing() {
        const auto file = std::make_shared<const fxmem::GraphFile>(fxmem::load_file(ui_open::kLlama.toStdString()));
        SceneRequest request;
        request.pair = 0;
        const auto layouts = DataflowLayouts::build(*buildScene(file, ui_open::kLlama, request));
        const QJsonObject cli = cliJson({QStringLiteral("layout"), ui_open::kLlama, QStringLiteral("--pair"),
                                         QStringLiteral("0"), QStringLiteral("--json")});
        const QJsonArray boxes = cli[QStringLiteral("boxes")].toArray(), edges = cli[QStringLiteral("edges")].toArray();
        qsizetype box = 0, edge = 0;
        for (std::size_t s = 0; s < layouts->size(); ++s) {
            const DataflowPiece& p = layouts->piece(s);
            for (const Box& b : p.drawing.boxes) {
                QVERIFY(box < boxes.size());
                const QJsonObject j = boxes[box++].toObject();
                QCOMPARE(j[QStringLiteral("kind")].toString(),
                         b.kind == Kind::Module ? QStringLiteral("module") : QStringLiteral("node"));
                QCOMPARE(j[QStringLiteral("x")].toDouble(), p.x + b.x);
                QCOMPARE(j[QStringLiteral("y")].toDouble(), p.top + b.y);
                QCOMPARE(j[QStringLiteral("w")].toDouble(), b.w);
                QCOMPARE(j[QStringLiteral("h")].toDouble(), b.h);
            }
            for (const fxmem::DataflowDrawing::Edge& e : p.drawing.edges) {
                QVERIFY(edge < edges.size());
                const QJsonArray points = edges[edge++].toObject()[QStringLiteral("points")].toArray();
                QCOMPARE(points.size(), static_cast<qsizetype>(e.points.size()));
                for (qsizetype k = 0; k < points.size(); ++k) {
                    QCOMPARE(points[k].toArray()[0].toDouble(), p.x + e.points[static_cast<std::size_t>(k)].x);
                    QCOMPARE(points[k].toArray()[1].toDouble(), p.top + e.points[static_cast<std::size_t>(k)].y);
                }
            }
        }
        QCOMPARE(box, boxes.size());
        QVERIFY(box > 20);
        // The inputs are drawn narrower than the nodes, and collapsed modules wider.
        std::set<double> widths;
        for (const QJsonValue& b : boxes) widths.insert(b.toObject()[QStringLiteral("w")].toDouble());
        QVERIFY(widths.count(fxmem::kDrawnInput.w) && widths.count(fxmem::kDrawnNode.w) &&
                widths.count(fxmem::kDrawnModule.w));
    }

    // Double-click on layers.3 (collapsed at the layer depth) opens it: its children appear, it
    // becomes a frame, and nothing above its row moves; a double-click on its frame's header
    // closes it and every box is back where it was, exactly.
    void expandCollapseRoundTrip() {
        Fixture f(ui_open::llamaForward());
        const std::vector<Box> before = f.piece().drawing.boxes;
        const std::uint32_t m = f.module("layers.3");
        QVERIFY(m != fxmem::ModuleTree::npos);
        const std::uint32_t box = f.piece().moduleBox[m];
        QVERIFY(box != DataflowLayouts::kNone);
        QVERIFY(!f.piece().drawing.boxes[box].expanded);
        // Core shifts what lies right of the module in each enclosing module's row and the rows
        // below: in each enclosing module (the whole drawing, then layers), what lies above the
        // row of its child toward layers.3 stays.
        const auto inside = [&](std::uint32_t b, std::optional<std::uint32_t> a) {
            if (!a) return true;
            for (std::optional<std::uint32_t> p = before[b].parent; p; p = before[*p].parent)
                if (*p == *a) return true;
            return false;
        };
        std::vector<std::uint32_t> stays;
        for (std::uint32_t toward = box;;) {
            const std::optional<std::uint32_t> a = before[toward].parent;
            for (std::uint32_t b = 0; b < before.size(); ++b)
                if (inside(b, a) && before[b].y + before[b].h < before[toward].y) stays.push_back(b);
            if (!a) break;
            toward = *a;
        }
        std::sort(stays.begin(), stays.end());
        stays.erase(std::unique(stays.begin(), stays.end()), stays.end());

        const QPoint at = f.show(box);
        QCOMPARE(f.view.boxAt(at).box, box);
        QTest::mouseDClick(&f.view, Qt::LeftButton, {}, at);
        const std::vector<Box>& open = f.piece().drawing.boxes;
        QVERIFY(open.size() > before.size());
        const std::uint32_t openBox = f.piece().moduleBox[m];
        QVERIFY(open[openBox].expanded);
        std::size_t children = 0;
        for (const Box& b : open) children += b.parent == openBox ? 1 : 0;
        QVERIFY(children >= 2);
        std::map<std::pair<int, std::uint32_t>, const Box*> after;
        for (const Box& b : open) after[{static_cast<int>(b.kind), b.ref}] = &b;
        for (const std::uint32_t b : stays) {
            const auto it = after.find({static_cast<int>(before[b].kind), before[b].ref});
            QVERIFY(it != after.end());
            QVERIFY(sameBox(before[b], *it->second));
        }
        // Above layers: the embedding's frame with its node, the tokens and the table inside it,
        // and one more input; inside layers: layers.0 to layers.2.
        QVERIFY(stays.size() >= 8);

        // Its header: inside the frame, above its children.
        const Box& frame = open[openBox];
        const QPointF header = f.view.boxCenter(0, openBox) - QPointF(0, frame.h * f.view.camera().scale / 2 - 6);
        QCOMPARE(f.view.boxAt(header).box, openBox);
        QTest::mouseDClick(&f.view, Qt::LeftButton, {}, header.toPoint());
        const std::vector<Box>& closed = f.piece().drawing.boxes;
        QCOMPARE(closed.size(), before.size());
        for (std::size_t i = 0; i < before.size(); ++i)
            QVERIFY2(sameBox(before[i], closed[i]), qPrintable(QString::number(i)));
    }

    // A click on a node box selects the node in the state; a click on a module box selects the
    // module by its qualified name; a selection made in the state is drawn on the node's box, and
    // a module selected there is outlined.
    void selectionBothWays() {
        Fixture f(ui_open::llamaForward());
        const fxmem::NodeId sum = f.graph().find("sum_1");
        QVERIFY(sum.valid());
        const std::uint32_t sumBox = f.piece().nodeBox[sum.index()];
        QCOMPARE(f.piece().drawing.boxes[sumBox].kind, Kind::Node);
        QTest::mouseClick(&f.view, Qt::LeftButton, {}, f.show(sumBox));
        QCOMPARE(f.state.selectedNode(), (NodeRef{0, sum}));
        QVERIFY(f.view.boxFlags(0, sumBox) & kBoxSelected);

        const std::uint32_t layer = f.piece().moduleBox[f.module("layers.5")];
        QTest::mouseClick(&f.view, Qt::LeftButton, {}, f.show(layer));
        QCOMPARE(f.state.selectedModule(), QStringLiteral("layers.5"));
        QVERIFY(f.view.boxFlags(0, layer) & kBoxModule);

        // From the state (the inspector's link, the find bar, the live table): a node inside a
        // collapsed layer marks the layer's box; the path marks its producers.
        const fxmem::NodeId inner = f.graph().find("mm_4"); // layers.0.feed_forward.w1
        QVERIFY(inner.valid());
        f.state.selectNode({0, inner});
        QCOMPARE(f.view.selectedNode(), (NodeRef{0, inner}));
        const std::uint32_t layer0 = f.piece().moduleBox[f.module("layers.0")];
        QCOMPARE(f.piece().nodeBox[inner.index()], layer0);
        QVERIFY(f.view.boxFlags(0, layer0) & kBoxSelected);
        QVERIFY(!(f.view.boxFlags(0, sumBox) & kBoxSelected));
        QVERIFY(f.view.boxFlags(0, sumBox) & kBoxPath); // sum_1 depends on layer 0's output
        // Selected and centred (the find bar's match): its layer opens down to it, in the middle.
        f.state.selectNode({0, inner}, true);
        const std::uint32_t own = f.piece().nodeBox[inner.index()];
        QCOMPARE(f.piece().drawing.boxes[own].kind, Kind::Node);
        QCOMPARE(f.view.boxAt({f.view.width() / 2.0, f.view.height() / 2.0}).box, own);
        QVERIFY(f.view.boxFlags(0, own) & kBoxSelected);
        f.state.selectModule(QStringLiteral("layers.2"));
        QVERIFY(f.view.boxFlags(0, f.piece().moduleBox[f.module("layers.2")]) & kBoxModule);
        QVERIFY(!(f.view.boxFlags(0, f.piece().moduleBox[f.module("layers.5")]) & kBoxModule));
        // A module found by name (the find bar) inside a collapsed layer: the layer opens to it,
        // and the view is centred on its box, outlined.
        const std::uint32_t attention = f.module("layers.6.attention");
        QVERIFY(attention != fxmem::ModuleTree::npos);
        QCOMPARE(f.piece().moduleBox[attention], DataflowLayouts::kNone);
        f.state.selectModule(QStringLiteral("layers.6.attention"));
        const std::uint32_t found = f.piece().moduleBox[attention];
        QVERIFY(found != DataflowLayouts::kNone);
        QVERIFY(f.view.boxFlags(0, found) & kBoxModule);
        QCOMPARE(f.view.boxAt({f.view.width() / 2.0, f.view.height() / 2.0}).box, found);
    }

    // At three steps, the nodes marked live are the allocators of `fxmem-cli live`'s storages,
    // the executing node is its node, and each collapsed layer's live bytes are `breakdown
    // --by module --depth 2`'s group.
    void liveHighlightIsTheCliLiveSet() {
        Fixture f(ui_open::llamaForward());
        for (int step : {100, 600, 1259}) {
            f.state.setCursorStep(step);
            const QJsonObject live =
                cliJson({QStringLiteral("live"), ui_open::kLlama, QStringLiteral("--graph"), QStringLiteral("forward"),
                         QStringLiteral("--step"), QString::number(step), QStringLiteral("--json")});
            QVERIFY(!live.isEmpty());
            std::set<std::string> expected, marked;
            for (const QJsonValue& s : live[QStringLiteral("storages")].toArray())
                expected.insert(s[QStringLiteral("allocator")].toString().toStdString());
            const DataflowMarks& m = f.view.marks();
            QCOMPARE(m.segment, 0);
            for (std::uint32_t v = 0; v < m.liveNode.size(); ++v)
                if (m.liveNode[v]) marked.insert(f.graph().node(fxmem::NodeId(static_cast<std::int32_t>(v))).name);
            QVERIFY(!expected.empty());
            QCOMPARE(marked, expected);
            QVERIFY(m.executing.valid());
            QCOMPARE(QString::fromStdString(f.graph().node(m.executing).name), live[QStringLiteral("node")].toString());
            QCOMPARE(m.executingBox, f.piece().nodeBox[m.executing.index()]);
            // Every live edge leaves a box that draws a live node.
            std::size_t liveEdges = 0;
            for (std::size_t e = 0; e < m.liveEdge.size(); ++e)
                if (m.liveEdge[e]) {
                    QVERIFY(m.liveBox[f.piece().drawing.edges[e].from]);
                    ++liveEdges;
                }
            QVERIFY(liveEdges > 0);

            const QJsonObject by = cliJson({QStringLiteral("breakdown"), ui_open::kLlama, QStringLiteral("--graph"),
                                            QStringLiteral("forward"), QStringLiteral("--step"), QString::number(step),
                                            QStringLiteral("--by"), QStringLiteral("module"), QStringLiteral("--depth"),
                                            QStringLiteral("2"), QStringLiteral("--json")});
            std::size_t layers = 0;
            for (const QJsonValue& g : by[QStringLiteral("groups")].toArray()) {
                const std::string key = g[QStringLiteral("key")].toString().toStdString();
                if (key.rfind("layers.", 0) != 0) continue;
                const std::uint32_t mod = f.module(key.c_str());
                QVERIFY(mod != fxmem::ModuleTree::npos);
                QCOMPARE(m.moduleLive[mod], static_cast<std::int64_t>(g[QStringLiteral("bytes")].toDouble()));
                ++layers;
            }
            QVERIFY(layers > 0);
        }
    }

    // An edge between two node boxes carries its producer's counted output bytes (summed here
    // from the file), and hovering it says so.
    void edgeBytesOnHover() {
        Fixture f(ui_open::llamaForward());
        const fxmem::GraphFile& file = f.scene->segments[0].analysis->file();
        const auto& counted = f.scene->segments[0].analysis->counted();
        const auto& d = f.piece().drawing;
        std::size_t checked = 0;
        bool hovered = false;
        for (const auto& e : d.edges) {
            const Box &from = d.boxes[e.from], &to = d.boxes[e.to];
            if (from.kind != Kind::Node || to.kind != Kind::Node || e.points.size() < 2) continue;
            std::int64_t bytes = 0;
            for (fxmem::StorageId s : f.graph().outputs(fxmem::NodeId(static_cast<std::int32_t>(from.ref))))
                if (counted[s.index()]) bytes += file.nbytes(s);
            QCOMPARE(e.bytes, bytes);
            ++checked;
            if (hovered || bytes == 0) continue;
            // The middle of its first leg, at scale 1 in the middle of the widget.
            f.view.zoomBy(1.0 / f.view.camera().scale, {0, 0});
            const QPointF mid((e.points[0].x + e.points[1].x) / 2, (e.points[0].y + e.points[1].y) / 2);
            const QPointF at = f.view.camera().toWidget(f.piece().x + mid.x(), f.piece().top + mid.y());
            if (f.view.boxAt(at).valid()) continue;
            QVERIFY2(f.view.tooltipAt(at).contains(formatBytes(bytes)), qPrintable(f.view.tooltipAt(at)));
            hovered = true;
        }
        QVERIFY(checked > 20);
        QVERIFY(hovered);
    }

    // The collapsed layers of llama are one run of equal blocks: the label names the run.
    void repeatLabelNamesTheRun() {
        Fixture f(ui_open::llamaForward());
        const std::uint32_t m = f.module("layers.3");
        const fxmem::ModuleRepeat r = f.piece().layout->repeat(m);
        QCOMPARE(r.count, 8u);
        QCOMPARE(repeatLabel(f.piece().layout->tree(), r), QStringLiteral("layers.0–7 × 8"));
    }

    // Zoomed in, the minimap shows; a click at its middle centres the view on the drawing's middle.
    void minimapCentres() {
        Fixture f(ui_open::llamaForward());
        f.view.zoomToFit();
        QVERIFY(f.view.minimapRect().isEmpty()); // all of it in view: no minimap
        f.view.zoomBy(8, {0, 0});
        const QRectF r = f.view.minimapRect();
        QVERIFY(!r.isEmpty());
        QTest::mouseClick(&f.view, Qt::LeftButton, {}, r.center().toPoint());
        const QPointF mid = f.view.camera().toLayout({f.view.width() / 2.0, f.view.height() / 2.0});
        const double w = f.view.layouts()->width(), h = f.view.layouts()->height();
        // Within the pixel the click rounds to, in layout units.
        QVERIFY(std::abs(mid.x() - w / 2) <= w / r.width() + 1e-6);
        QVERIFY(std::abs(mid.y() - h / 2) <= h / r.height() + 1e-6);
        QCOMPARE(f.state.selectedNode(), NodeRef{}); // a click on the minimap selects nothing
    }

    // fixtures::pair() joined: the backward's saved_a holds the forward's a (10 bytes), the one
    // value the backward reads from the forward: one edge between the segments, a to saved_a.
    // At the backward's first step its own live storages are tangents_1's (5) and saved_a's (10)
    // (the baseline, b's 20, is held by no backward node): those two are marked, and the edge.
    void savedActivationCrossesTheSegments() {
        auto file = std::make_shared<const fxmem::GraphFile>(fixtures::pair());
        SceneRequest r;
        r.pair = 0;
        Fixture f(buildScene(file, QStringLiteral("pair"), r));
        const DataflowLayouts& l = *f.view.layouts();
        QCOMPARE(l.size(), std::size_t{2});
        QVERIFY(l.piece(1).x >= l.piece(0).x + l.piece(0).drawing.width); // side by side
        const fxmem::Graph& fwd = file->graphs[0];
        const fxmem::Graph& bwd = file->graphs[1];
        QCOMPARE(l.crossEdges().size(), std::size_t{1});
        const CrossEdge& c = l.crossEdges().front();
        QCOMPARE(c.from_segment, std::size_t{0});
        QCOMPARE(c.to_segment, std::size_t{1});
        QCOMPARE(c.from_box, l.piece(0).nodeBox[fwd.find("a").index()]);
        QCOMPARE(c.to_box, l.piece(1).nodeBox[bwd.find("saved_a").index()]);
        QCOMPARE(c.bytes, std::int64_t{10});

        f.state.setCursorStep(5); // the backward's profile index 0: 35 = 5 + 10 + the baseline's 20
        QCOMPARE(f.scene->profile[5], std::int64_t{35});
        const DataflowMarks& m = f.view.marks();
        QCOMPARE(m.segment, 1);
        std::set<std::string> marked;
        for (std::uint32_t v = 0; v < m.liveNode.size(); ++v)
            if (m.liveNode[v]) marked.insert(bwd.node(fxmem::NodeId(static_cast<std::int32_t>(v))).name);
        QCOMPARE(marked, (std::set<std::string>{"tangents_1", "saved_a"}));
    }

    // The mode switch shows one view at a time and keeps the action in step.
    void modeSwitch() {
        auto* time = new QWidget;
        auto* dataflow = new DataflowView;
        QAction action(QStringLiteral("Dataflow"));
        GraphModePane pane(time, dataflow, &action);
        pane.show();
        QCOMPARE(pane.mode(), GraphModePane::Mode::Time);
        QVERIFY(time->isVisible() && !dataflow->isVisible());
        action.setChecked(true);
        QCOMPARE(pane.mode(), GraphModePane::Mode::Dataflow);
        QVERIFY(!time->isVisible() && dataflow->isVisible());
        QTest::mouseClick(pane.button(GraphModePane::Mode::Time), Qt::LeftButton);
        QCOMPARE(pane.mode(), GraphModePane::Mode::Time);
        QVERIFY(!action.isChecked());
    }
};

FXMEM_QTEST(TestDataflowView)
#include "test_dataflow_view.moc"
