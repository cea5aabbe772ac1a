// The panels' pure parts: profile CSV export (worked by hand on the chain and reorder graphs),
// natural name order, elision of huge names, and the find bar against the shared state.
#include "export/profilecsv.h"
#include "panels/findbar.h"
#include "qtest_registry.h"
#include "state/viewstate.h"
#include "ui_fixtures.h"
#include "ui_open.h"
#include "util/natural.h"
#include "util/text.h"

#include <fxmem/io.h>
#include <fxmem/schedule.h>

#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QtTest>

class TestPanels : public QObject {
    Q_OBJECT
private slots:
    void csvOfTheOriginalOrder();
    void csvWithAnEditedOrder();
    void csvQuotesNamesAndJoinsPairs();
    void naturalOrder();
    void elisionCutsBeforeTheQString();
    void findBarSelectsThroughTheState();
    void findBarFindsModules();
};

void TestPanels::csvOfTheOriginalOrder() {
    // chain: profile [100, 110, 110, 130, 120, 120, 120]; running nodes a, b, c.
    const auto scene = ui_open::sceneOfGraphFile(fixtures::chain());
    QCOMPARE(profileCsv(*scene), QByteArray("step,run,graph,graph_step,node,phase,bytes\n"
                                            "0,chain,chain,0,,start,100\n"
                                            "1,chain,chain,1,a,after_alloc,110\n"
                                            "2,chain,chain,2,a,after_free,110\n"
                                            "3,chain,chain,3,b,after_alloc,130\n"
                                            "4,chain,chain,4,b,after_free,120\n"
                                            "5,chain,chain,5,c,after_alloc,120\n"
                                            "6,chain,chain,6,c,after_free,120\n"));
}

void TestPanels::csvWithAnEditedOrder() {
    // reorder: original [4, 104, 104, 114, 114, 115, 15, 16, 6] (big, small, use_big, use_small);
    // use_big moved after big: [4, 104, 104, 105, 5, 15, 15, 16, 6] (big, use_big, small, use_small).
    const auto scene = ui_open::sceneOfGraphFile(fixtures::reorderable());
    const fxmem::Graph& g = scene->segments[0].analysis->graph();
    std::vector<fxmem::NodeId> order;
    for (const char* n : {"primals_1", "big", "use_big", "small", "use_small", "output"}) order.push_back(g.find(n));
    const std::vector<std::int64_t> edited{4, 104, 104, 105, 5, 15, 15, 16, 6};
    QCOMPARE(profileCsv(*scene, edited, order),
             QByteArray("step,run,graph,graph_step,node,phase,bytes,edited_bytes,edited_node\n"
                        "0,reorder,reorder,0,,start,4,4,\n"
                        "1,reorder,reorder,1,big,after_alloc,104,104,big\n"
                        "2,reorder,reorder,2,big,after_free,104,104,big\n"
                        "3,reorder,reorder,3,small,after_alloc,114,105,use_big\n"
                        "4,reorder,reorder,4,small,after_free,114,5,use_big\n"
                        "5,reorder,reorder,5,use_big,after_alloc,115,15,small\n"
                        "6,reorder,reorder,6,use_big,after_free,15,15,small\n"
                        "7,reorder,reorder,7,use_small,after_alloc,16,16,use_small\n"
                        "8,reorder,reorder,8,use_small,after_free,6,6,use_small\n"));
}

void TestPanels::csvQuotesNamesAndJoinsPairs() {
    // The joined pair: forward [100, 110, 110, 130, 130], backward raised by 20: [35, 75, 65].
    const auto joined = ui_open::sceneOfGraphFile(fixtures::pair(), SceneRequest{-1, 0, DeviceFilter::NonCpu});
    const QList<QByteArray> lines = profileCsv(*joined).split('\n');
    QCOMPARE(lines.size(), 1 + 8 + 1); // header, 8 steps, the empty piece after the last newline
    QCOMPARE(lines[5], QByteArray("4,fwd,fwd,4,b,after_free,130"));
    QCOMPARE(lines[6], QByteArray("5,bwd,bwd,0,,start,35"));
    QCOMPARE(lines[7], QByteArray("6,bwd,bwd,1,g,after_alloc,75"));
    // An edited profile is ignored for a joined view (the editor works on one graph).
    QCOMPARE(profileCsv(*joined, std::vector<std::int64_t>{1, 2, 3}, {}), profileCsv(*joined));
    // Names with a comma or a quote are quoted (RFC 4180).
    fxmem::GraphFile f;
    f.source = "q.json";
    const fxmem::StorageId s0 = f.add_storage(0, "cuda:0", 8);
    fxmem::GraphBuilder b(f, "g,1", fxmem::GraphKind::Inference);
    b.add("x", fxmem::OpKind::Placeholder, "x", {}, {});
    b.add("say \"hi\"", fxmem::OpKind::CallFunction, "aten.empty", {"x"}, {s0});
    b.add("output", fxmem::OpKind::Output, "output", {"say \"hi\""}, {});
    b.finish();
    const QList<QByteArray> q = profileCsv(*ui_open::sceneOfGraphFile(std::move(f))).split('\n');
    QCOMPARE(q[2], QByteArray("1,\"g,1\",\"g,1\",1,\"say \"\"hi\"\"\",after_alloc,8"));
}

void TestPanels::naturalOrder() {
    QVERIFY(naturalLess(std::string_view("primals_4"), std::string_view("primals_10")));
    QVERIFY(!naturalLess(std::string_view("primals_10"), std::string_view("primals_4")));
    QVERIFY(naturalLess(std::string_view("a"), std::string_view("a1")));
    QVERIFY(naturalLess(std::string_view("mm_9"), std::string_view("mm_10_1")));
    QVERIFY(naturalLess(std::string_view("x2y"), std::string_view("x2z")));
    QCOMPARE(naturalCompare(std::string_view("add_3"), std::string_view("add_3")), 0);
    // Equal values: fewer leading zeros first, so the order stays total.
    QVERIFY(naturalLess(std::string_view("n7"), std::string_view("n007")));
    // Runs longer than any integer compare by length, then digits.
    QVERIFY(naturalLess(std::string_view("n99999999999999999999999"), std::string_view("n100000000000000000000000")));
    QVERIFY(naturalLess(QStringView(u"[2, 4]"), QStringView(u"[2, 16]")));
    QVERIFY(naturalLess(QStringView(u"cuda:2"), QStringView(u"cuda:10")));
    QStringList names{QStringLiteral("primals_10"), QStringLiteral("primals_2"), QStringLiteral("primals_1"),
                      QStringLiteral("getitem"), QStringLiteral("primals_4")};
    std::sort(names.begin(), names.end(), [](const QString& a, const QString& b) { return naturalLess(a, b); });
    QCOMPARE(names, (QStringList{QStringLiteral("getitem"), QStringLiteral("primals_1"), QStringLiteral("primals_2"),
                                 QStringLiteral("primals_4"), QStringLiteral("primals_10")}));
}

void TestPanels::elisionCutsBeforeTheQString() {
    QCOMPARE(elided(std::string_view("short")), QStringLiteral("short"));
    const std::string big(50u << 20, 'x'); // 50 MiB
    const QString e = elided(std::string_view(big));
    QCOMPARE(e.size(), static_cast<qsizetype>(kMaxShownNameBytes) + 1);
    QVERIFY(e.endsWith(QStringLiteral("…")));
    // Never inside a UTF-8 character: "é" is two bytes; cutting after 3 bytes keeps "aé".
    QCOMPARE(elided(std::string_view("a\xc3\xa9\xc3\xa9\xc3\xa9"), 4), QStringLiteral("aé…"));
    QCOMPARE(elided(std::string_view("a\xc3\xa9\xc3\xa9\xc3\xa9"), 3), QStringLiteral("aé…"));
    QCOMPARE(elided(QStringLiteral("abcdef"), 3), QStringLiteral("abc…"));
}

void TestPanels::findBarSelectsThroughTheState() {
    ViewState state;
    FindBar bar(&state);
    const auto scene = ui_open::sceneOfGraphFile(fixtures::reorderable());
    state.setScene(scene);
    QSignalSpy selected(&state, &ViewState::nodeSelected);
    bar.edit()->setText(QStringLiteral("USE_")); // case-insensitive: use_big, use_small
    bar.runSearch();
    QCOMPARE(bar.matches().size(), std::size_t(2));
    QCOMPARE(bar.countLabel()->text(), QStringLiteral("2 matches"));
    bar.step(1);
    const fxmem::Graph& g = scene->segments[0].analysis->graph();
    QCOMPARE(state.selectedNode(), (NodeRef{0, g.find("use_big")}));
    QCOMPARE(state.cursorStep(), 5); // use_big allocates at step 5 in the graph's order
    bar.step(1);
    QCOMPARE(state.selectedNode(), (NodeRef{0, g.find("use_small")}));
    bar.step(1); // wraps around
    QCOMPARE(state.selectedNode(), (NodeRef{0, g.find("use_big")}));
    bar.step(-1);
    QCOMPARE(state.selectedNode(), (NodeRef{0, g.find("use_small")}));
    QCOMPARE(bar.countLabel()->text(), QStringLiteral("2 of 2"));
    QCOMPARE(selected.count(), 4);
    bar.edit()->setText(QStringLiteral("aten.sum")); // targets too
    bar.runSearch();
    QCOMPARE(bar.matches().size(), std::size_t(2));
    bar.dismiss();
    QVERIFY(bar.matches().empty());
    QVERIFY(bar.edit()->text().isEmpty());
}

// diff_step_old.json: one module, "lin" (the forward's mm and the backward's mul and mm_1), in
// both graph runs of its whole step: one module match, selected through the state, before the
// nodes ("mm" and "mm_1" match "m" too, as do their targets).
void TestPanels::findBarFindsModules() {
    ViewState state;
    FindBar bar(&state);
    state.setScene(ui_open::sceneOfFile(QStringLiteral(FXMEM_TEST_DATA "/good/diff_step_old.json")));
    QVERIFY(state.scene()->wholeStep());
    QSignalSpy modules(&state, &ViewState::moduleSelected);
    bar.edit()->setText(QStringLiteral("LIN"));
    bar.runSearch();
    QCOMPARE(bar.moduleMatches(), std::vector<QString>{QStringLiteral("lin")});
    QVERIFY(bar.matches().empty());
    QCOMPARE(bar.countLabel()->text(), QStringLiteral("1 modules, 0 nodes"));
    bar.step(1);
    QCOMPARE(modules.count(), 1);
    QCOMPARE(modules.at(0).at(0).toString(), QStringLiteral("lin"));
    QCOMPARE(bar.countLabel()->text(), QStringLiteral("1 of 1"));
    // "mm_": no module; the backward's mm_1 only.
    bar.edit()->setText(QStringLiteral("mm_"));
    bar.runSearch();
    QVERIFY(bar.moduleMatches().empty());
    QCOMPARE(bar.matches().size(), std::size_t(1));
    bar.dismiss();
    QVERIFY(bar.moduleMatches().empty());
}

FXMEM_QTEST(TestPanels)
#include "test_panels.moc"
