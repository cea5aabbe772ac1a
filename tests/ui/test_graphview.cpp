// The graph view's preparation of visible items (prepareVisibleItems) on hand-made graphs, with
// every count and position worked out on paper, and the elision of huge names.
#include "graphview/elide.h"
#include "graphview/visibleitems.h"

#include "ui_fixtures.h"

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

} // namespace

class TestGraphView : public QObject {
    Q_OBJECT
private slots:
    void chainLayoutIsAsWorkedOut();
    void zoomedInGivesBoxesWiresAndLabels();
    void zoomedOutGivesOneDotPerPixel();
    void liveDotWinsItsPixel();
    void lanesOutsideTheViewAreSkipped();
    void jointPairNamesStayInTheirPart();
    void hugeNamesAreElidedCheaply();
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
    QCOMPARE(items.nodeW, 160.0);  // 1.6 steps
    QCOMPARE(items.nodeH, 14.0);   // 0.7 lanes
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
        QCOMPARE(w.live, w.line == QLineF(150, 28, 350, 28));  // a's wire
    }
    QCOMPARE(diagonals, 1);
    QVERIFY(bWire);
    // Every box is wide enough for its name.
    QCOMPARE(items.labels.size(), std::size_t(5));
    QStringList texts;
    for (const auto& l : items.labels) texts << l.text;
    QVERIFY2(texts.contains(QStringLiteral("primals_1")), qPrintable(texts.join(u',')));
    QVERIFY(texts.contains(QStringLiteral("b")));
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
        QCOMPARE(items.dots[0].ref.node, c.id("primals_1"));  // the first wins
        QCOMPARE(items.dots[0].x, 0);
        QVERIFY(!items.dots[0].live);
    }
    c.live[c.id("b").index()] = 1;
    const VisibleItems items = prepareVisibleItems(c.input(-0.5, 27.5, 0, 7, 20, 200));
    QCOMPARE(items.dots.size(), std::size_t(3));
    QCOMPARE(items.dots[0].ref.node, c.id("b"));  // a live node takes the pixel
    QVERIFY(items.dots[0].live);
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
    in.view.right = 800;  // 100 px per step: the backward starts at x = px(4.5) = 500
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
    QCOMPARE(heads[0].rect.right(), 496.0);  // ends before the backward's part
    QCOMPARE(heads[1].rect.left(), 504.0);
    // Zoomed so that the forward shows only 10 px: its name is dropped, not overprinted.
    in.view.x0 = 4.4;
    in.view.x1 = 8.4;  // 200 px per step: the divider at px(4.5) = 20
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
    // Cut on a code point boundary: "é" is never split.
    std::string accents;
    for (int i = 0; i < 100; ++i) accents += "\xc3\xa9";
    const QString clipped = clippedName(accents, 10);
    QCOMPARE(clipped, QString(10, QChar(0xe9)) + QChar(0x2026));
    QCOMPARE(clippedName("short", 10), QStringLiteral("short"));
}

QTEST_MAIN(TestGraphView)
#include "test_graphview.moc"
