// The graph view's preparation of visible items (prepareVisibleItems) on hand-made graphs, with
// every count and position worked out on paper, and the elision of huge names.
#include "graphview/elide.h"
#include "graphview/graphview.h"
#include "graphview/visibleitems.h"
#include "qtest_registry.h"

#include "ui_fixtures.h"
#include "util/text.h"

#include <QElapsedTimer>
#include <QScrollBar>
#include <QSignalSpy>
#include <QtTest>

namespace {

// fixtures::chain(): primals_1 (step 0) -> a (1) -> b (3) -> c (5); output(b) at step 6.
// Lanes (layout.h): primals_1, a, b continue lane 0; c starts lane 1 (b's wire runs on to the
// output at step 6); output continues b's lane 0.
struct Chain {
    fxmem::GraphFile file = fixtures::chain();
    const fxmem::Graph& g = file.graphs[0];
    fxmem::GraphLayout layout{g};
    std::vector<std::uint8_t> live = std::vector<std::uint8_t>(g.size(), 0);
    std::vector<std::uint8_t> match = std::vector<std::uint8_t>(g.size(), 0);
    fxmem::NodeId id(const char* name) const { return g.find(name); }

    PrepareInput input(double x0, double x1, double left, double right, int width, int height) const {
        PrepareInput in;
        in.view.x0 = x0;
        in.view.x1 = x1;
        in.view.left = left;
        in.view.right = right;
        in.view.top = 0;
        in.view.laneHeight = 20;
        in.view.topPad = 18;
        in.view.width = width;
        in.view.height = height;
        in.segments.push_back({&g, &layout, 0, &live, &match});
        return in;
    }
};

const VisibleItems::Box* boxOf(const VisibleItems& items, fxmem::NodeId n) {
    for (const VisibleItems::Box& b : items.boxes)
        if (b.ref.node == n) return &b;
    return nullptr;
}

// `width` placeholders p_i, each doubled by d_i, all summed by `sum`: the wires of the p_i and
// d_i overlap in time, so the layout needs `width` lanes or more. `longName`: d_0's name length.
fxmem::GraphFile fan(int width, std::size_t longName = 0) {
    fxmem::GraphFile f;
    f.source = "fan.json";
    fxmem::GraphBuilder b(f, "fan", fxmem::GraphKind::Inference);
    std::vector<fxmem::NodeId> ps, ds;
    for (int i = 0; i < width; ++i) {
        const fxmem::StorageId s = f.add_storage(i, "cuda:0", 4);
        ps.push_back(b.add("p_" + std::to_string(i), fxmem::OpKind::Placeholder, "p", std::span<const fxmem::NodeId>{},
                           std::span<const fxmem::StorageId>(&s, 1)));
    }
    for (int i = 0; i < width; ++i) {
        const fxmem::StorageId s = f.add_storage(1000 + i, "cuda:0", 8);
        const std::string name = i == 0 && longName ? std::string(longName, 'n') : "d_" + std::to_string(i);
        ds.push_back(b.add(name, fxmem::OpKind::CallFunction, "aten.mul.Tensor",
                           std::span<const fxmem::NodeId>(&ps[i], 1), std::span<const fxmem::StorageId>(&s, 1)));
    }
    const fxmem::StorageId s = f.add_storage(5000, "cuda:0", 8);
    const fxmem::NodeId sum =
        b.add("sum", fxmem::OpKind::CallFunction, "aten.sum.default", ds, std::span<const fxmem::StorageId>(&s, 1));
    b.add("output", fxmem::OpKind::Output, "output", std::span<const fxmem::NodeId>(&sum, 1), {});
    b.finish();
    return f;
}

std::shared_ptr<const Scene> sceneOf(fxmem::GraphFile f) {
    return buildScene(std::make_shared<const fxmem::GraphFile>(std::move(f)), QStringLiteral("test"), SceneRequest{});
}

void wheel(QWidget* w, QPointF at, QPoint delta, Qt::KeyboardModifiers mods) {
    QWheelEvent e(at, w->mapToGlobal(at), QPoint(), delta, Qt::NoButton, mods, Qt::NoScrollPhase, false);
    QApplication::sendEvent(w, &e);
}

// A chain of nodes with modules, built in code (the reader of the "module" field is not ours).
struct NodeSpec {
    std::string name, target, module, type;
};
fxmem::GraphFile modular(const std::vector<NodeSpec>& specs) {
    fxmem::GraphFile f;
    f.source = "modules.json";
    fxmem::GraphBuilder b(f, "model", fxmem::GraphKind::Inference);
    fxmem::NodeId prev;
    for (std::size_t i = 0; i < specs.size(); ++i) {
        const NodeSpec& sp = specs[i];
        const auto op = i == 0 ? fxmem::OpKind::Placeholder : fxmem::OpKind::CallFunction;
        const fxmem::StorageId s = f.add_storage(static_cast<std::int64_t>(i), "cuda:0", 64);
        const fxmem::NodeId id = b.begin_node(sp.name, op, sp.target);
        if (prev.valid()) b.add_input(prev);
        if (!sp.module.empty() || !sp.type.empty()) b.set_module(sp.module, sp.type);
        const std::int64_t shape[2] = {4, 4}, stride[2] = {4, 1};
        b.val_tensor(s, "float32", shape, stride, 0);
        b.end_node();
        prev = id;
    }
    b.begin_node("output", fxmem::OpKind::Output, "output");
    b.add_input(prev);
    b.end_node();
    b.finish();
    return f;
}

// x -> e (embed) -> a0 (blocks.0.attn) -> m0 (blocks.0.mlp) -> r0 (blocks.0 itself) -> a1
// (blocks.1.attn) -> m1 (blocks.1.mlp) -> h (head) -> output, at steps 0, 1, 3, ..., 13, 14,
// all on lane 0 (each node continues its input's wire).
fxmem::GraphFile twoBlocks() {
    return modular({{"x", "x", "", ""},
                    {"e", "aten.embedding.default", "embed", "Embedding"},
                    {"a0", "aten._scaled_dot_product_flash_attention.default", "blocks.0.attn", "Attention"},
                    {"m0", "aten.mm.default", "blocks.0.mlp", "MLP"},
                    {"r0", "aten.add.Tensor", "blocks.0", "Block"},
                    {"a1", "aten._scaled_dot_product_flash_attention.default", "blocks.1.attn", "Attention"},
                    {"m1", "aten.mm.default", "blocks.1.mlp", "MLP"},
                    {"h", "aten.mm.default", "head", "Linear"}});
}

QStringList names(std::initializer_list<const char*> list) {
    QStringList out;
    for (const char* n : list) out << QString::fromUtf8(n);
    return out;
}

QStringList boxNames(const GraphView& view) {
    QStringList out;
    const fxmem::Graph& g = view.scene()->segments[0].analysis->graph();
    for (const auto& b : view.visibleItems().boxes) out << QString::fromStdString(g.node(b.ref.node).name);
    return out;
}

} // namespace

class TestGraphView : public QObject {
    Q_OBJECT
private slots:
    void chainLayoutIsAsWorkedOut();
    void zoomedInGivesBoxesWiresAndLabels();
    void zoomedOutGivesOneDotPerPixel();
    void liveDotWinsItsPixel();
    void liveMarksRefreshLikeAPrepare();
    void cursorStepReusesPreparedItems();
    void lanesOutsideTheViewAreSkipped();
    void jointPairNamesStayInTheirPart();
    void hugeNamesAreElidedCheaply();
    void ctrlWheelZoomsLanesAtTheMouse();
    void wheelZoomsTimeAtTheMouse();
    void shiftWheelScrollsAFractionOfTheView();
    void scrollBarsFollowAndDrive();
    void resetZoomResetsBothAxes();
    void hugeNameInTheView();
    void moduleRunsAsWorkedOut();
    void collapsingHidesNodesAndExpandingShowsThem();
    void clickingABandCollapsesItsModule();
    void highlightedModuleMarksItsNodes();
    void thirtyTwoLayersOpenAsGroups();
    void tooltipSaysModuleShapeAndBytes();
    void everyColourModeHasALegend();
    void selectedNodeEdges();
    void collectivesAreSpansFromStartToWait();
    void largeModularGraphFigures();
};

void TestGraphView::chainLayoutIsAsWorkedOut() {
    Chain c;
    QCOMPARE(c.layout.steps(), 7);
    QCOMPARE(c.layout.lanes(), 2);
    QCOMPARE(c.layout.step(c.id("b")), 3);
    QCOMPARE(c.layout.lane(c.id("b")), 0);
    QCOMPARE(c.layout.lane(c.id("c")), 1);
    QCOMPARE(c.layout.lane(c.id("output")), 0);
}

void TestGraphView::zoomedInGivesBoxesWiresAndLabels() {
    Chain c;
    // 100 px per step: px(step) = (step + 0.5) * 100; py(lane) = 18 + 20 lane + 10.
    PrepareInput in = c.input(-0.5, 6.5, 0, 700, 800, 200);
    in.selected = {0, c.id("b")};
    c.live[c.id("a").index()] = 1;
    const VisibleItems items = prepareVisibleItems(in);
    QCOMPARE(items.nodeW, 160.0); // 1.6 steps
    QCOMPARE(items.nodeH, 14.0);  // 0.7 lanes
    QCOMPARE(items.boxes.size(), std::size_t(5));
    QVERIFY(items.dots.empty());
    const VisibleItems::Box* b = boxOf(items, c.id("b"));
    QVERIFY(b);
    QCOMPARE(b->rect, QRectF(350 - 80, 28 - 7, 160, 14));
    QCOMPARE(b->flags, std::uint8_t(VisibleItems::Selected));
    QCOMPARE(boxOf(items, c.id("a"))->flags, std::uint8_t(VisibleItems::Live));
    QCOMPARE(boxOf(items, c.id("c"))->rect.center(), QPointF(550, 48));
    // Wires: one horizontal per node (primals_1 0->1, a 1->3, b 3->6, c and output of length 0),
    // and one diagonal b -> c (the only user on another lane), ending at c's box.
    QCOMPARE(items.wires.size(), std::size_t(6));
    int diagonals = 0;
    bool bWire = false;
    for (const VisibleItems::Wire& w : items.wires) {
        if (w.line.y1() != w.line.y2()) {
            ++diagonals;
            QCOMPARE(w.line, QLineF(550 - 176, 28, 550 - 80, 48));
        }
        if (w.line == QLineF(350, 28, 650, 28)) bWire = true;
        QCOMPARE(w.live, w.line == QLineF(150, 28, 350, 28)); // a's wire
    }
    QCOMPARE(diagonals, 1);
    QVERIFY(bWire);
    // Every box is wide enough for its name.
    QCOMPARE(items.labels.size(), std::size_t(5));
    QStringList texts;
    for (const auto& l : items.labels) texts << l.text;
    QVERIFY2(texts.contains(QStringLiteral("primals_1")), qPrintable(texts.join(u',')));
    // Compute nodes carry their short op.
    QVERIFY2(texts.contains(QStringLiteral("b \u00b7 mul")), qPrintable(texts.join(u',')));
}

void TestGraphView::zoomedOutGivesOneDotPerPixel() {
    Chain c;
    // 1 px per step: x = int(step + 0.5), y = int(28 + 20 lane).
    const VisibleItems items = prepareVisibleItems(c.input(-0.5, 6.5, 0, 7, 20, 200));
    QVERIFY(items.boxes.empty());
    QVERIFY(items.wires.empty());
    QVERIFY(items.labels.empty());
    QCOMPARE(items.dots.size(), std::size_t(5));
    for (const VisibleItems::Dot& d : items.dots) {
        const std::int64_t step = c.layout.step(d.ref.node);
        QCOMPARE(d.x, static_cast<int>(step + 0.5));
        QCOMPARE(d.y, 28 + 20 * c.layout.lane(d.ref.node));
    }
}

void TestGraphView::liveDotWinsItsPixel() {
    Chain c;
    // 0.25 px per step: primals_1 (x 0.125), a (0.375) and b (0.875) share pixel (0, 28); c is
    // (1, 48) (x 1.375), output (1, 28) (x 1.625).
    {
        const VisibleItems items = prepareVisibleItems(c.input(-0.5, 27.5, 0, 7, 20, 200));
        QCOMPARE(items.dots.size(), std::size_t(3));
        QCOMPARE(items.dots[0].ref.node, c.id("primals_1")); // the first wins
        QCOMPARE(items.dots[0].x, 0);
        QVERIFY(!items.dots[0].live);
    }
    c.live[c.id("b").index()] = 1;
    const VisibleItems items = prepareVisibleItems(c.input(-0.5, 27.5, 0, 7, 20, 200));
    QCOMPARE(items.dots.size(), std::size_t(3));
    QCOMPARE(items.dots[0].ref.node, c.id("b")); // a live node takes the pixel
    QVERIFY(items.dots[0].live);
}

void TestGraphView::liveMarksRefreshLikeAPrepare() {
    const fxmem::GraphFile f = fan(200);
    const fxmem::Graph& g = f.graphs[0];
    const fxmem::GraphLayout layout(g);
    std::vector<std::uint8_t> live(g.size(), 0), match(g.size(), 0);
    auto input = [&](double x0, double x1, int width, double laneHeight) {
        PrepareInput in;
        in.view.x0 = x0;
        in.view.x1 = x1;
        in.view.left = 0;
        in.view.right = width;
        in.view.laneHeight = laneHeight;
        in.view.topPad = 18;
        in.view.width = width;
        in.view.height = 700;
        in.segments.push_back({&g, &layout, 0, &live, &match});
        return in;
    };
    auto mark = [&](int every) {
        for (std::size_t i = 0; i < live.size(); ++i) live[i] = i % static_cast<std::size_t>(every) == 0;
    };
    // An overview (nodes share dots) and a close-up (boxes and wires).
    const auto steps = static_cast<double>(layout.steps());
    for (const PrepareInput& in : std::vector<PrepareInput>{input(-0.5, steps, 40, 0.5), input(100, 130, 900, 3)}) {
        mark(3);
        PrepareInput before = in;
        before.selected = {0, g.find("d_3")};
        before.hovered = {0, g.find("p_9")};
        VisibleItems items = prepareVisibleItems(before);
        mark(5);
        PrepareInput now = in;
        now.selected = {0, g.find("d_120")}; // in the close-up's range
        now.hovered = {0, g.find("p_57")};   // a box of the close-up
        QVERIFY(refreshMarks(items, now));
        const VisibleItems expected = prepareVisibleItems(now);
        QCOMPARE(items.edges.size(), expected.edges.size());
        QCOMPARE(items.edges.size(), std::size_t(2)); // d_120's input p_120 and its user sum
        for (std::size_t i = 0; i < items.edges.size(); ++i) {
            QCOMPARE(items.edges[i].from, expected.edges[i].from);
            QCOMPARE(items.edges[i].to, expected.edges[i].to);
            QCOMPARE(items.edges[i].toUser, expected.edges[i].toUser);
        }
        QCOMPARE(items.dots.size(), expected.dots.size());
        QCOMPARE(items.boxes.size(), expected.boxes.size());
        QCOMPARE(items.wires.size(), expected.wires.size());
        QVERIFY(items.dots.size() + items.boxes.size() > 10);
        for (std::size_t i = 0; i < items.dots.size(); ++i) {
            const VisibleItems::Dot &a = items.dots[i], &b = expected.dots[i];
            QCOMPARE(QPoint(a.x, a.y), QPoint(b.x, b.y));
            QCOMPARE(a.ref, b.ref);
            QCOMPARE(a.live, b.live);
            QCOMPARE(a.highlight, b.highlight);
        }
        for (std::size_t i = 0; i < items.boxes.size(); ++i) {
            QCOMPARE(items.boxes[i].ref, expected.boxes[i].ref);
            QCOMPARE(items.boxes[i].flags, expected.boxes[i].flags);
        }
        int lit = 0;
        for (std::size_t i = 0; i < items.wires.size(); ++i) {
            QCOMPARE(items.wires[i].line, expected.wires[i].line);
            QCOMPARE(items.wires[i].live, expected.wires[i].live);
            lit += items.wires[i].live;
        }
        if (!items.dots.empty()) {
            // Many nodes share a dot, and live ones are among them: the choice was made again.
            QVERIFY2(
                items.dotNodes.size() >= items.dots.size() + 100,
                qPrintable(QStringLiteral("%1 nodes on %2 dots").arg(items.dotNodes.size()).arg(items.dots.size())));
            QVERIFY(std::any_of(items.dots.begin(), items.dots.end(), [](const auto& d) { return d.live; }));
        } else {
            QVERIFY(lit > 0);
        }
    }
}

void TestGraphView::cursorStepReusesPreparedItems() {
    const auto scene = sceneOf(fan(60));
    const fxmem::Graph& g = scene->segments[0].analysis->graph();
    auto liveEvery = [&](std::size_t every) {
        std::vector<NodeRef> nodes;
        for (std::size_t i = 0; i < g.size(); i += every)
            nodes.push_back({0, fxmem::NodeId(static_cast<std::int32_t>(i))});
        return nodes;
    };
    GraphView view;
    view.resize(900, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setScene(scene);
    view.setPlotArea(40, 860);
    view.setXRange(20, 70); // boxes, wires and labels
    view.setLiveNodes(liveEvery(3));
    view.setCursorStep(30);
    QImage image = view.grab().toImage();
    const std::size_t prepared = view.preparedCount();
    QVERIFY(prepared > 0);
    // Cursor steps: the live marks and the cursor change, the items are not prepared again.
    view.setLiveNodes(liveEvery(4));
    view.setCursorStep(41);
    image = view.grab().toImage();
    view.setLiveNodes(liveEvery(7));
    view.setCursorStep(45);
    view.selectNode({0, g.find("d_20")}); // a key step selects the node at the cursor
    image = view.grab().toImage();
    QCOMPARE(view.preparedCount(), prepared);
    // ... and the picture equals one drawn from scratch.
    GraphView fresh;
    fresh.resize(900, 500);
    fresh.show();
    QVERIFY(QTest::qWaitForWindowExposed(&fresh));
    fresh.setScene(scene);
    fresh.setPlotArea(40, 860);
    fresh.setXRange(20, 70);
    fresh.setLiveNodes(liveEvery(7));
    fresh.setCursorStep(45);
    fresh.selectNode({0, g.find("d_20")});
    QCOMPARE(image, fresh.grab().toImage());
    // A zoom prepares them again.
    view.setXRange(10, 80);
    image = view.grab().toImage();
    QCOMPARE(view.preparedCount(), prepared + 1);
}

void TestGraphView::lanesOutsideTheViewAreSkipped() {
    Chain c;
    PrepareInput in = c.input(-0.5, 6.5, 0, 700, 800, 200);
    // First visible lane 3: lanes 0 and 1 are above the view (laneLo = floor(3) - 1 = 2).
    in.view.top = 3;
    const VisibleItems items = prepareVisibleItems(in);
    QVERIFY(items.boxes.empty());
    // Only b -> c's diagonal could remain, and both its lanes are above the view.
    QVERIFY(items.wires.empty());
}

void TestGraphView::jointPairNamesStayInTheirPart() {
    fxmem::GraphFile f = fixtures::pair();
    const fxmem::GraphLayout fwd(f.graphs[0]), bwd(f.graphs[1]);
    QCOMPARE(fwd.steps(), 5);
    PrepareInput in;
    in.view.x0 = -0.5;
    in.view.x1 = 7.5;
    in.view.left = 0;
    in.view.right = 800; // 100 px per step: the backward starts at x = px(4.5) = 500
    in.view.width = 800;
    in.view.height = 200;
    in.segments.push_back({&f.graphs[0], &fwd, 0, nullptr, nullptr});
    in.segments.push_back({&f.graphs[1], &bwd, 5, nullptr, nullptr});
    VisibleItems items = prepareVisibleItems(in);
    QCOMPARE(items.segmentMarks.size(), std::size_t(2));
    QCOMPARE(items.segmentMarks[1].x, 500.0);
    std::vector<VisibleItems::Label> heads;
    for (const auto& l : items.labels)
        if (l.kind == VisibleItems::LabelKind::Segment) heads.push_back(l);
    QCOMPARE(heads.size(), std::size_t(2));
    QCOMPARE(heads[0].text, QStringLiteral("fwd"));
    QCOMPARE(heads[0].rect.left(), 4.0);
    QCOMPARE(heads[0].rect.right(), 496.0); // ends before the backward's part
    QCOMPARE(heads[1].rect.left(), 504.0);
    // Zoomed so that the forward shows only 10 px: its name is dropped, not overprinted.
    in.view.x0 = 4.4;
    in.view.x1 = 8.4; // 200 px per step: the divider at px(4.5) = 20
    items = prepareVisibleItems(in);
    heads.clear();
    for (const auto& l : items.labels)
        if (l.kind == VisibleItems::LabelKind::Segment) heads.push_back(l);
    QCOMPARE(heads.size(), std::size_t(1));
    QCOMPARE(heads[0].text, QStringLiteral("bwd"));
    QVERIFY(heads[0].rect.left() >= 20);
}

void TestGraphView::hugeNamesAreElidedCheaply() {
    // A 64 MiB name: the conversion must stop after what can be shown.
    const std::string huge(64u << 20, 'x');
    const QFontMetricsF fm(QFont{});
    const QString shown = elidedName(huge, fm, 120);
    QVERIFY(!shown.isEmpty());
    QVERIFY(shown.size() < 200);
    QVERIFY(shown.endsWith(QChar(0x2026)));
    QVERIFY(fm.horizontalAdvance(shown) <= 120.5);
    // elided() (util/text.h, shared by every view) cuts on a code point boundary: "é" (2 bytes)
    // is never split, 11 bytes keep 5 of them.
    std::string accents;
    for (int i = 0; i < 100; ++i) accents += "\xc3\xa9";
    QCOMPARE(elided(accents, 11), QString(5, QChar(0xe9)) + QChar(0x2026));
    QCOMPARE(elided(accents, 10), QString(5, QChar(0xe9)) + QChar(0x2026));
    QCOMPARE(elided(std::string_view("short"), 10), QStringLiteral("short"));
}

void TestGraphView::ctrlWheelZoomsLanesAtTheMouse() {
    GraphView view;
    view.resize(800, 400);
    view.setPlotArea(40, 760);
    view.setScene(sceneOf(fan(60)));
    const GraphViewport before = view.viewport();
    QVERIFY(before.laneHeight * 60 <= before.height - before.topPad); // every lane fits at first
    // A node far from the top lane, under the mouse.
    const NodeRef d = {0, view.scene()->segments[0].analysis->graph().find("d_45")};
    const QPointF at = view.nodeCenter(d);
    for (int i = 0; i < 6; ++i) wheel(&view, at, QPoint(0, 120), Qt::ControlModifier);
    const GraphViewport after = view.viewport();
    QVERIFY(after.laneHeight > before.laneHeight * 2);
    QVERIFY2(after.top > 0, "zoomed around the mouse, not the top lane");
    QVERIFY2(std::abs(view.nodeCenter(d).y() - at.y()) < 0.5,
             qPrintable(QStringLiteral("%1 vs %2").arg(view.nodeCenter(d).y()).arg(at.y())));
    QCOMPARE(view.nodeCenter(d).x(), at.x()); // time untouched
    // And back out, still anchored.
    for (int i = 0; i < 3; ++i) wheel(&view, at, QPoint(0, -120), Qt::ControlModifier);
    QVERIFY(std::abs(view.nodeCenter(d).y() - at.y()) < 0.5);
}

void TestGraphView::wheelZoomsTimeAtTheMouse() {
    GraphView view;
    view.resize(800, 400);
    view.setPlotArea(40, 760);
    view.setScene(sceneOf(fan(60)));
    QSignalSpy range(&view, &GraphView::xRangeChanged);
    const NodeRef d = {0, view.scene()->segments[0].analysis->graph().find("d_20")};
    const QPointF at = view.nodeCenter(d);
    const double width = view.viewport().x1 - view.viewport().x0;
    wheel(&view, at, QPoint(0, 240), Qt::NoModifier);
    QCOMPARE(range.count(), 1); // the timeline follows through this signal
    const double lo = range.last().at(0).toDouble(), hi = range.last().at(1).toDouble();
    QCOMPARE(lo, view.viewport().x0);
    QVERIFY(std::abs((hi - lo) - width * 0.64) < 1e-9); // two notches of 0.8
    QVERIFY(std::abs(view.nodeCenter(d).x() - at.x()) < 1e-6);
}

void TestGraphView::shiftWheelScrollsAFractionOfTheView() {
    GraphView view;
    view.resize(800, 400);
    view.setScene(sceneOf(fan(200)));
    view.zoomLanes(8, 0); // lanes 8x taller: a few dozen of the 200 in view
    const GraphViewport v = view.viewport();
    QCOMPARE(v.top, 0.0);
    const double visible = v.visibleLanes();
    QVERIFY(visible > 12 && visible < 100);
    wheel(&view, QPointF(400, 200), QPoint(0, -120), Qt::ShiftModifier);
    QVERIFY(std::abs(view.viewport().top - visible / 6) < 1e-9);
    // The same notch delivered as a horizontal delta (Shift+wheel on some platforms).
    wheel(&view, QPointF(400, 200), QPoint(-120, 0), Qt::ShiftModifier);
    QVERIFY(std::abs(view.viewport().top - 2 * visible / 6) < 1e-9);
    wheel(&view, QPointF(400, 200), QPoint(0, 120 * 100), Qt::ShiftModifier);
    QCOMPARE(view.viewport().top, 0.0); // clamped at the first lane
}

void TestGraphView::scrollBarsFollowAndDrive() {
    GraphView view;
    view.resize(800, 400);
    view.setPlotArea(40, 760);
    view.setScene(sceneOf(fan(200)));
    QScrollBar* h = view.horizontalScrollBar();
    QScrollBar* v = view.verticalScrollBar();
    QVERIFY(!h->isHidden() && !v->isHidden());
    // The whole time axis in view: nothing to scroll.
    const auto steps = static_cast<int>(view.scene()->profile.size());
    QCOMPARE(h->maximum(), 0);
    QCOMPARE(h->pageStep(), steps);
    view.zoomTime(0.25, 40); // a quarter of the axis, from its left edge
    QCOMPARE(h->pageStep(), static_cast<int>(std::lround(steps * 0.25)));
    QCOMPARE(h->value(), 0);
    QSignalSpy range(&view, &GraphView::xRangeChanged);
    h->setValue(100);
    QCOMPARE(range.count(), 1);
    QCOMPARE(view.viewport().x0, 99.5);
    view.zoomLanes(8, 0);
    QVERIFY(v->maximum() > 0);
    v->setValue(50);
    QCOMPARE(view.viewport().top, 50.0);
    view.scrollLanes(1);
    QCOMPARE(v->value(), static_cast<int>(std::lround(view.viewport().top)));
}

void TestGraphView::resetZoomResetsBothAxes() {
    GraphView view;
    view.resize(800, 400);
    view.setPlotArea(40, 760);
    view.setScene(sceneOf(fan(200)));
    const GraphViewport fresh = view.viewport();
    view.zoomLanes(8, 200);
    view.zoomTime(0.1, 300);
    view.scrollLanes(3);
    QVERIFY(view.viewport().laneHeight > fresh.laneHeight);
    QSignalSpy range(&view, &GraphView::xRangeChanged);
    view.resetZoom();
    QCOMPARE(range.count(), 1);
    const GraphViewport v = view.viewport();
    QCOMPARE(v.x0, -0.5);
    QCOMPARE(v.x1, static_cast<double>(view.scene()->profile.size()) - 0.5);
    QCOMPARE(v.top, 0.0);
    QCOMPARE(v.laneHeight, fresh.laneHeight);
    // The key does the same.
    view.zoomLanes(8, 200);
    QTest::keyClick(&view, Qt::Key_R);
    QCOMPARE(view.viewport().laneHeight, fresh.laneHeight);
}

void TestGraphView::hugeNameInTheView() {
    GraphView view;
    view.resize(800, 400);
    view.setPlotArea(40, 760);
    view.setScene(sceneOf(fan(3, 32u << 20))); // d_0 has a 32 MiB name
    // Zoomed in on d_0 (step 1) with tall lanes: boxes wide enough for labels.
    view.setXRange(-0.5, 4.5);
    view.zoomLanes(3, 0);
    const VisibleItems items = view.visibleItems();
    QVERIFY(!items.labels.empty());
    for (const auto& l : items.labels) QVERIFY2(l.text.size() < 300, qPrintable(QString::number(l.text.size())));
    // Hover tooltips of every node: the name's head only.
    int tips = 0;
    for (std::int32_t n = 0; n < 8; ++n) {
        const QPoint at = view.nodeCenter({0, fxmem::NodeId(n)}).toPoint();
        if (!view.rect().contains(at)) continue;
        const QString tip = view.tooltipAt(at);
        tips += !tip.isEmpty();
        QVERIFY2(tip.size() < 1000, qPrintable(QString::number(tip.size())));
    }
    QVERIFY(tips > 0);
    QVERIFY(!view.grab().isNull());
}

void TestGraphView::moduleRunsAsWorkedOut() {
    const fxmem::GraphFile f = twoBlocks();
    const fxmem::GraphLayout layout(f.graphs[0]);
    const ModuleGroups mg(std::make_shared<const fxmem::ModuleTree>(f.graphs[0]), layout);
    const fxmem::ModuleTree& t = mg.tree();
    QCOMPARE(mg.depths(), 3u);
    auto runs = [&](std::uint32_t d) {
        QStringList out;
        for (const auto& r : mg.runs(d))
            out << QStringLiteral("%1 %2-%3 x%4")
                       .arg(toQString(t[r.module].name))
                       .arg(r.stepLo)
                       .arg(r.stepHi)
                       .arg(r.nodes);
        return out.join(u';');
    };
    // r0 (in blocks.0 itself) joins blocks.0's run at depth 2 and is skipped at depth 3.
    QCOMPARE(runs(1), QStringLiteral("embed 1-1 x1;blocks 3-11 x5;head 13-13 x1"));
    QCOMPARE(runs(2), QStringLiteral("blocks.0 3-7 x3;blocks.1 9-11 x2"));
    QCOMPARE(runs(3),
             QStringLiteral("blocks.0.attn 3-3 x1;blocks.0.mlp 5-5 x1;blocks.1.attn 9-9 x1;blocks.1.mlp 11-11 x1"));
    QCOMPARE(mg.runsIn(2, 8, 100).size(), std::size_t(1)); // blocks.1 only
    QCOMPARE(mg.runsIn(3, 4, 9).size(), std::size_t(2));   // blocks.0.mlp, blocks.1.attn
    QCOMPARE(t.layer_depth(6), 3u);                        // no depth has 6 modules: the deepest
    QCOMPARE(t.layer_depth(3), 1u);                        // embed, blocks, head
}

void TestGraphView::collapsingHidesNodesAndExpandingShowsThem() {
    GraphView view;
    view.resize(900, 300);
    view.setPlotArea(20, 860);
    view.setScene(sceneOf(twoBlocks()));
    const QStringList all = names({"x", "e", "a0", "m0", "r0", "a1", "m1", "h", "output"});
    QCOMPARE(boxNames(view), all);
    QVERIFY(view.visibleItems().groups.empty());
    const fxmem::ModuleTree& t = view.moduleGroups(0)->tree();

    // Both blocks to one box each: 3 and 2 nodes hidden.
    view.setGroupDepth(2);
    VisibleItems items = view.visibleItems();
    QCOMPARE(boxNames(view), names({"x", "e", "h", "output"}));
    QCOMPARE(items.groups.size(), std::size_t(2));
    QCOMPARE(items.groups[0].module, t.find("blocks.0"));
    QCOMPARE(items.groups[0].nodes, 3u);
    QCOMPARE(items.groups[1].module, t.find("blocks.1"));
    // blocks.0's box spans its first to its last node (steps 3 and 7) on lane 0.
    const GraphViewport v = view.viewport();
    QCOMPARE(items.groups[0].rect.left(), v.px(3) - items.nodeW / 2);
    QCOMPARE(items.groups[0].rect.right(), v.px(7) + items.nodeW / 2);
    QCOMPARE(items.groups[0].rect.center().y(), v.py(0));
    // Wires inside the blocks are dropped: those of x, e, m1 (its user h is visible), h, output.
    QCOMPARE(items.wires.size(), std::size_t(5));
    // A box shows what it hides: m0's storage live at the cursor, r0 selected (both in blocks.0).
    QCOMPARE(items.groups[0].flags, std::uint8_t(0));
    const fxmem::Graph& g = view.scene()->segments[0].analysis->graph();
    view.setLiveNodes({{0, g.find("m0")}});
    view.selectNode({0, g.find("r0")});
    items = view.visibleItems();
    QCOMPARE(items.groups[0].flags, std::uint8_t(VisibleItems::Live | VisibleItems::Selected));
    QCOMPARE(items.groups[1].flags, std::uint8_t(0));
    view.setLiveNodes({});
    view.selectNode({});
    QVERIFY(view.tooltipAt(items.groups[1].rect.center().toPoint()).contains(QStringLiteral("2 nodes")));
    // A hidden node cannot be hovered or clicked.
    QVERIFY(
        !view.nodeAt(view.nodeCenter({0, view.scene()->segments[0].analysis->graph().find("m0")}).toPoint()).valid());

    // Opening blocks.0 one level: r0 shows, its attn and mlp are boxes.
    view.expandModule(0, t.find("blocks.0"));
    items = view.visibleItems();
    QCOMPARE(boxNames(view), names({"x", "e", "r0", "h", "output"}));
    QCOMPARE(items.groups.size(), std::size_t(3));
    QCOMPARE(items.groups[0].module, t.find("blocks.0.attn"));
    QCOMPARE(items.groups[1].module, t.find("blocks.0.mlp"));
    QCOMPARE(items.groups[2].module, t.find("blocks.1"));

    // Centring on a hidden node opens what hides it, and only that.
    view.setGroupDepth(1);
    QCOMPARE(boxNames(view), names({"x", "output"}));
    view.centerOn({0, view.scene()->segments[0].analysis->graph().find("m1")});
    // blocks, blocks.1, blocks.1.mlp opened; embed, head, blocks.0, blocks.1.attn stay boxes.
    QCOMPARE(boxNames(view), names({"x", "m1", "output"}));
    QCOMPARE(view.visibleItems().groups.size(), std::size_t(4));
    view.setGroupDepth(2); // back to the state above
    view.expandModule(0, t.find("blocks.0"));

    // Collapsing a parent swallows its collapsed children; expanding everything shows all.
    view.setModuleCollapsed(0, t.find("blocks"), true);
    QCOMPARE(boxNames(view), names({"x", "e", "h", "output"}));
    QCOMPARE(view.visibleItems().groups.size(), std::size_t(1));
    QCOMPARE(view.visibleItems().groups[0].nodes, 5u);
    view.setModuleCollapsed(0, t.find("blocks"), false);
    QCOMPARE(boxNames(view), all);
    view.setGroupDepth(3);
    QCOMPARE(boxNames(view), names({"x", "e", "r0", "h", "output"}));
    view.setGroupDepth(0);
    QCOMPARE(boxNames(view), all);
}

void TestGraphView::clickingABandCollapsesItsModule() {
    GraphView view;
    view.resize(900, 300);
    view.setPlotArea(20, 860);
    view.setScene(sceneOf(twoBlocks()));
    const fxmem::ModuleTree& t = view.moduleGroups(0)->tree();
    // Three band rows (depths 1-3) above the lanes: 3 + 2 + 4 runs.
    const VisibleItems items = view.visibleItems();
    QCOMPARE(items.bands.size(), std::size_t(9));
    const VisibleItems::Band* block0 = nullptr;
    for (const auto& b : items.bands)
        if (b.module == t.find("blocks.0")) block0 = &b;
    QVERIFY(block0);
    QCOMPARE(block0->depth, 2u);
    QVERIFY(block0->rect.bottom() < view.viewport().topPad);
    const QString tip = view.tooltipAt(block0->rect.center().toPoint());
    QVERIFY2(tip.contains(QStringLiteral("<b>blocks.0</b> <i>Block</i>")) && tip.contains(QStringLiteral("collapse")),
             qPrintable(tip));
    QSignalSpy clicked(&view, &GraphView::moduleClicked);
    QTest::mouseClick(&view, Qt::LeftButton, {}, block0->rect.center().toPoint());
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.last().at(1).value<std::uint32_t>(), t.find("blocks.0"));
    QVERIFY(view.moduleGroups(0)->collapsed(t.find("blocks.0")));
    QCOMPARE(boxNames(view), names({"x", "e", "a1", "m1", "h", "output"}));
    // Clicking the collapsed box opens one level.
    const QPointF box = view.visibleItems().groups.at(0).rect.center();
    QTest::mouseClick(&view, Qt::LeftButton, {}, box.toPoint());
    QCOMPARE(clicked.count(), 2);
    QCOMPARE(boxNames(view), names({"x", "e", "r0", "a1", "m1", "h", "output"}));
}

void TestGraphView::highlightedModuleMarksItsNodes() {
    GraphView view;
    view.resize(900, 300);
    view.setPlotArea(20, 860);
    view.setScene(sceneOf(twoBlocks()));
    view.setHighlightedModuleName(QStringLiteral("blocks.1"));
    QStringList lit;
    const fxmem::Graph& g = view.scene()->segments[0].analysis->graph();
    for (const auto& b : view.visibleItems().boxes)
        if (b.flags & VisibleItems::Highlight) lit << QString::fromStdString(g.node(b.ref.node).name);
    QCOMPARE(lit, names({"a1", "m1"}));
    int bands = 0;
    for (const auto& b : view.visibleItems().bands) bands += b.highlight;
    QCOMPARE(bands, 3); // blocks.1, blocks.1.attn, blocks.1.mlp (not their parent "blocks")
    view.setHighlightedModuleName(QString());
    for (const auto& b : view.visibleItems().boxes) QVERIFY(!(b.flags & VisibleItems::Highlight));
}

void TestGraphView::thirtyTwoLayersOpenAsGroups() {
    std::vector<NodeSpec> specs = {{"x", "x", "", ""},
                                   {"emb", "aten.embedding.default", "tok_embeddings", "Embedding"}};
    for (int l = 0; l < 32; ++l) {
        const std::string layer = "layers." + std::to_string(l);
        specs.push_back({"q" + std::to_string(l), "aten.mm.default", layer + ".attention.wq", "Linear"});
        specs.push_back({"s" + std::to_string(l), "aten._scaled_dot_product_flash_attention.default",
                         layer + ".attention", "Attention"});
        specs.push_back({"n" + std::to_string(l), "aten.mul.Tensor", layer + ".ffn_norm", "RMSNorm"});
        specs.push_back({"w" + std::to_string(l), "aten.mm.default", layer + ".feed_forward.w1", "Linear"});
    }
    specs.push_back({"head", "aten.mm.default", "output", "Linear"});
    GraphView view;
    view.resize(1300, 300);
    view.setPlotArea(60, 1260);
    view.setScene(sceneOf(modular(specs)));
    // The opening view: the layers (depth 2, 32 modules) shade the lanes in alternation, and
    // have their own band row with each layer's name where it fits.
    const VisibleItems items = view.visibleItems();
    QCOMPARE(items.stripes.size(), std::size_t(32));
    for (std::size_t i = 0; i < items.stripes.size(); ++i) {
        QCOMPARE(items.stripes[i].ordinal % 2, static_cast<std::uint32_t>(i % 2));
        if (i > 0) QVERIFY(items.stripes[i].x0 >= items.stripes[i - 1].x1 - 1e-9);
    }
    int layerBands = 0;
    for (const auto& b : items.bands) layerBands += b.depth == 2;
    QCOMPARE(layerBands, 32);
    QStringList captions;
    for (const auto& l : items.labels)
        if (l.kind == VisibleItems::LabelKind::Band) captions << l.text;
    QVERIFY2(captions.contains(QStringLiteral("layers.7")) || captions.contains(QStringLiteral("7")),
             qPrintable(captions.join(u',')));
    // Collapsed at that depth: 32 boxes, one per layer.
    view.setGroupDepth(2);
    QCOMPARE(view.visibleItems().groups.size(), std::size_t(32));
}

void TestGraphView::tooltipSaysModuleShapeAndBytes() {
    GraphView view;
    view.resize(900, 300);
    view.setPlotArea(20, 860);
    view.setScene(sceneOf(twoBlocks()));
    const NodeRef m0{0, view.scene()->segments[0].analysis->graph().find("m0")};
    const QString tip = view.tooltipAt(view.nodeCenter(m0).toPoint());
    QVERIFY2(tip.contains(QStringLiteral("<b>m0</b>")), qPrintable(tip));
    QVERIFY(tip.contains(QStringLiteral("aten.mm.default")));
    QVERIFY(tip.contains(QStringLiteral("(matmul)")));
    QVERIFY(tip.contains(QStringLiteral("module blocks.0.mlp <i>MLP</i>")));
    QVERIFY(tip.contains(QStringLiteral("float32[4, 4]")));
    // m0 allocates its 64-byte output and frees a0's (its only user).
    QVERIFY2(tip.contains(QStringLiteral("allocates 64 B, frees 64 B")), qPrintable(tip));
}

void TestGraphView::everyColourModeHasALegend() {
    GraphView view;
    view.setScene(sceneOf(twoBlocks()));
    auto texts = [&] {
        QStringList out;
        for (const LegendEntry& e : view.legend()) out << e.text;
        return out;
    };
    QCOMPARE(view.colorMode(), GraphView::ColorMode::OpCategory); // the default
    QCOMPARE(texts(), names({"input", "output", "matmul", "attention", "elementwise", "indexing"}));
    view.setColorMode(GraphView::ColorMode::OpKind);
    QCOMPARE(texts(), names({"placeholder", "call_function", "output"}));
    view.setColorMode(GraphView::ColorMode::MemoryChange);
    QCOMPARE(texts().size(), 3);
    // Distinct colours within each legend.
    for (auto mode : kNodeColorModes) {
        view.setColorMode(mode);
        QSet<QRgb> seen;
        for (const LegendEntry& e : view.legend()) seen.insert(e.color.rgb());
        QCOMPARE(seen.size(), static_cast<qsizetype>(view.legend().size()));
    }
    // A chooser built from kNodeColorModes starts on the view's default (the main window's combo
    // offered only op kind and memory change, showing "By op kind" over op-category colours).
    QCOMPARE(kNodeColorModes.front(), GraphView().colorMode());
    QSet<QString> labels;
    QSet<int> modes;
    for (NodeColorMode m : kNodeColorModes) {
        labels.insert(colorModeName(m));
        modes.insert(static_cast<int>(m));
    }
    QCOMPARE(labels.size(), qsizetype(kNodeColorModes.size()));
    QCOMPARE(modes.size(), qsizetype(kNodeColorModes.size()));
    QCOMPARE(colorModeName(NodeColorMode::OpCategory), QStringLiteral("By op category"));
}

void TestGraphView::selectedNodeEdges() {
    // fan(3): d_0's input is p_0 and its user is sum.
    GraphView view;
    view.resize(800, 300);
    view.setPlotArea(20, 780);
    view.setScene(sceneOf(fan(3)));
    const fxmem::Graph& g = view.scene()->segments[0].analysis->graph();
    const NodeRef d0{0, g.find("d_0")}, p0{0, g.find("p_0")}, sum{0, g.find("sum")};
    QVERIFY(view.visibleItems().edges.empty());
    view.selectNode(d0);
    const VisibleItems items = view.visibleItems();
    QCOMPARE(items.edges.size(), std::size_t(2));
    QCOMPARE(items.edges[0].from, view.nodeCenter(p0));
    QCOMPARE(items.edges[0].to, view.nodeCenter(d0));
    QVERIFY(!items.edges[0].toUser);
    QCOMPARE(items.edges[1].from, view.nodeCenter(d0));
    QCOMPARE(items.edges[1].to, view.nodeCenter(sum));
    QVERIFY(items.edges[1].toUser);
}

// x (step 0, lane 0) -> ag = all_gather(x) (step 1; x's wire runs on to m, so ag opens lane 1)
// -> m = mm(x) (step 3, continues lane 0) -> w = wait_tensor(ag) (step 5, continues ag's lane 1)
// -> y = add(w, m) (step 7, lane 1) -> output. A second collective through getitem:
// rs = reduce_scatter(y) (step 9) -> g = getitem(rs) (11) -> w2 = wait_tensor(g) (13).
fxmem::GraphFile prefetch() {
    fxmem::GraphFile f;
    f.source = "prefetch.json";
    fxmem::GraphBuilder b(f, "fsdp", fxmem::GraphKind::Inference);
    std::int64_t id = 0;
    auto add = [&](const char* name, fxmem::OpKind op, const char* target,
                   std::initializer_list<std::string_view> inputs) {
        const fxmem::StorageId s = f.add_storage(id++, "cuda:0", 16);
        b.add(name, op, target, inputs, {s});
    };
    add("x", fxmem::OpKind::Placeholder, "x", {});
    add("ag", fxmem::OpKind::CallFunction, "_c10d_functional.all_gather_into_tensor.default", {"x"});
    add("m", fxmem::OpKind::CallFunction, "aten.mm.default", {"x"});
    add("w", fxmem::OpKind::CallFunction, "_c10d_functional.wait_tensor.default", {"ag"});
    add("y", fxmem::OpKind::CallFunction, "aten.add.Tensor", {"w", "m"});
    add("rs", fxmem::OpKind::CallFunction, "_c10d_functional.reduce_scatter_tensor.default", {"y"});
    add("g", fxmem::OpKind::CallFunction, "operator.getitem", {"rs"});
    add("w2", fxmem::OpKind::CallFunction, "_c10d_functional.wait_tensor.default", {"g"});
    b.add("output", fxmem::OpKind::Output, "output", {"w2"}, {});
    b.finish();
    return f;
}

void TestGraphView::collectivesAreSpansFromStartToWait() {
    const fxmem::GraphFile f = prefetch();
    const fxmem::Graph& g = f.graphs[0];
    const auto pairs = fxmem::find_collectives(g, fxmem::target_categories(g));
    QCOMPARE(pairs.size(), std::size_t(2));
    QCOMPARE(pairs[0].start, g.find("ag"));
    QCOMPARE(pairs[0].wait, g.find("w"));
    QCOMPARE(pairs[1].start, g.find("rs"));
    QCOMPARE(pairs[1].wait, g.find("w2"));

    GraphView view;
    view.resize(900, 300);
    view.setPlotArea(20, 860);
    view.setScene(sceneOf(prefetch()));
    const fxmem::GraphLayout& L = *view.scene()->segments[0].layout;
    QCOMPARE(L.lane(g.find("ag")), 1);
    QCOMPARE(L.lane(g.find("w")), 1);
    const VisibleItems items = view.visibleItems();
    QCOMPARE(items.spans.size(), std::size_t(2));
    const GraphViewport v = view.viewport();
    const VisibleItems::Span& ag = items.spans[0];
    QCOMPARE(ag.start.node, g.find("ag"));
    QCOMPARE(ag.wait.node, g.find("w"));
    QCOMPARE(ag.rect.left(), v.px(1));
    QCOMPARE(ag.rect.right(), v.px(5));
    QCOMPARE(ag.rect.center().y(), v.py(1));
    QCOMPARE(items.spans[1].rect.left(), v.px(9));
    QCOMPARE(items.spans[1].rect.right(), v.px(13));
    // Its tooltip says what is in flight and for how long (m runs meanwhile).
    const QString tip = view.tooltipAt(QPointF(v.px(3), v.py(1)).toPoint());
    QVERIFY2(tip.contains(QStringLiteral("all_gather_into_tensor</b> in flight from step 1 to 5 (1 nodes")),
             qPrintable(tip));
    // Scrolled to steps 6-8: neither span is in view.
    view.setXRange(5.8, 8.2);
    QVERIFY(view.visibleItems().spans.empty());
}

// 32 layers of 3,000 nodes in four module levels: prints what grouping and preparing cost
// (figures only, never asserted), and checks the counts.
void TestGraphView::largeModularGraphFigures() {
    std::vector<NodeSpec> specs = {{"x", "x", "", ""}};
    const char* parts[] = {"attention.wq", "attention", "feed_forward.w1", "feed_forward", "ffn_norm"};
    for (int l = 0; l < 32; ++l)
        for (int k = 0; k < 3000; ++k) {
            const std::string layer = "layers." + std::to_string(l) + "." + parts[k % 5];
            specs.push_back({"n" + std::to_string(l) + "_" + std::to_string(k),
                             k % 3 ? "aten.mm.default" : "aten.add.Tensor", layer, "M"});
        }
    QElapsedTimer t;
    t.start();
    const auto scene = sceneOf(modular(specs));
    const qint64 build = t.restart();
    GraphView view;
    view.resize(1300, 400);
    view.setPlotArea(60, 1260);
    view.setScene(scene);
    const qint64 set = t.restart();
    VisibleItems items = view.visibleItems();
    const qint64 overview = t.restart();
    QCOMPARE(items.stripes.size(), std::size_t(32));
    view.setGroupDepth(2);
    t.restart();
    items = view.visibleItems();
    const qint64 collapsed = t.restart();
    QCOMPARE(items.groups.size(), std::size_t(32));
    QVERIFY(items.dots.size() <= 2); // x and the output only
    view.setGroupDepth(0);
    view.setXRange(50000, 50400);
    t.restart();
    items = view.visibleItems();
    const qint64 zoomed = t.restart();
    QVERIFY(!items.boxes.empty());
    qInfo("%zu nodes, 32 layers: scene %lld ms; setScene (categories, module tree, runs) %lld ms; prepare: overview "
          "%lld ms, "
          "collapsed to layers %lld ms, 400 steps %lld ms",
          specs.size(), static_cast<long long>(build), static_cast<long long>(set), static_cast<long long>(overview),
          static_cast<long long>(collapsed), static_cast<long long>(zoomed));
}

FXMEM_QTEST(TestGraphView)
#include "test_graphview.moc"
