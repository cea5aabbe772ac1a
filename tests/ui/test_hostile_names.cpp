// Names from a file shown safely (issue 39): a U+202E (right-to-left override) in a graph or node
// name reversed the text drawn after it, numbers included ("Pair peak 180 B" drawn as "B 081 kaep
// riaP") in the peak label, the timeline's step description and the status bar. Each shows the
// name escaped (\u202e), as fxmem-cli does, and no raw bidi or control character.
#include "mainwindow/mainwindow.h"
#include "mainwindow/windowparts.h"
#include "panels/summarybar.h"
#include "qtest_registry.h"
#include "state/viewstate.h"
#include "timeline/qcp.h"
#include "timeline/timelinemodebar.h"
#include "timeline/timelineplot.h"
#include "timeline/timelinetypes.h"
#include "ui_open.h"
#include "util/text.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

namespace {

const QChar kRlo(0x202E);

bool raw(const QString& text) {
    for (const QChar c : text)
        if (c == kRlo || c == QChar(0x1B) || c == QChar(0x07)) return true;
    return false;
}

} // namespace

class TestHostileNames : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void elidedEscapesAfterTheCut();
    void bidiControlsInNamesAreEscapedOnScreen();
    void timelineLegendSectionsAndHoverEscapeNames();

private:
    QTemporaryDir dir_;
};

void TestHostileNames::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("fxmem-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("test_hostile_names"));
    QSettings().clear();
    QVERIFY(dir_.isValid());
}

void TestHostileNames::elidedEscapesAfterTheCut() {
    QCOMPARE(elided(std::string_view("a\xe2\x80\xae"
                                     "b\x1b]0;x\x07")),
             QStringLiteral("a\\u202eb\\x1b]0;x\\x07"));
    QCOMPARE(elided(QStringLiteral("x") + kRlo + QStringLiteral("y")), QStringLiteral("x\\u202ey"));
    // Cut first (at 4 bytes: "abc" and the override's first byte backed over), then escaped.
    QCOMPARE(elided(std::string_view("abc\xe2\x80\xae"
                                     "def"),
                    4),
             QStringLiteral("abc…"));
    QCOMPARE(elided(std::string_view("ab\xe2\x80\xae"
                                     "def"),
                    5),
             QStringLiteral("ab\\u202e…"));
    // A message keeps its lines.
    QCOMPARE(elided(QStringLiteral("one\ntwo")), QStringLiteral("one\ntwo"));
}

void TestHostileNames::bidiControlsInNamesAreEscapedOnScreen() {
    QFile in(QStringLiteral(FXMEM_TEST_DATA "/good/diff_old.json"));
    QVERIFY(in.open(QIODevice::ReadOnly));
    // Every graph and node name gets an override in front (references follow).
    QJsonObject doc = QJsonDocument::fromJson(in.readAll()).object();
    const auto hostile = [](const QJsonValue& name) { return QJsonValue(QString(kRlo) + name.toString()); };
    QJsonArray graphs = doc.value(QStringLiteral("graphs")).toArray();
    for (auto g = graphs.begin(); g != graphs.end(); ++g) {
        QJsonObject graph = g->toObject();
        graph[QStringLiteral("name")] = hostile(graph.value(QStringLiteral("name")));
        QJsonArray nodes = graph.value(QStringLiteral("nodes")).toArray();
        for (auto n = nodes.begin(); n != nodes.end(); ++n) {
            QJsonObject node = n->toObject();
            node[QStringLiteral("name")] = hostile(node.value(QStringLiteral("name")));
            QJsonArray inputs = node.value(QStringLiteral("inputs")).toArray();
            for (auto i = inputs.begin(); i != inputs.end(); ++i) *i = hostile(*i);
            node[QStringLiteral("inputs")] = inputs;
            *n = node;
        }
        graph[QStringLiteral("nodes")] = nodes;
        *g = graph;
    }
    doc[QStringLiteral("graphs")] = graphs;
    QJsonArray pairs = doc.value(QStringLiteral("pairs")).toArray();
    for (auto p = pairs.begin(); p != pairs.end(); ++p) {
        QJsonObject pair = p->toObject();
        for (const QString key : {QStringLiteral("forward"), QStringLiteral("backward")})
            pair[key] = hostile(pair.value(key));
        *p = pair;
    }
    doc[QStringLiteral("pairs")] = pairs;
    const QString path = dir_.filePath(QStringLiteral("rlo.json"));
    QFile out(path);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(QJsonDocument(doc).toJson());
    out.close();

    MainWindow w(ui_open::realLoader());
    w.show();
    QVERIFY(ui_open::openAndWait(w, path));
    // The file's first graph, of a pair: "Pair peak" in the summary.
    QVERIFY(w.parts().summary->text().contains(QStringLiteral("Pair peak")));
    QString status; // the status bar's file line: "FILE · GRAPH · N nodes · peak ..."
    for (const QLabel* l : w.statusBar()->findChildren<QLabel*>())
        if (l->text().contains(QStringLiteral(" nodes · peak "))) status = l->text();
    QVERIFY(!status.isEmpty());
    const QStringList shown = {w.parts().summary->text(), w.parts().timeline->peakText(),
                               w.state()->describeStep(static_cast<std::int64_t>(w.scene()->peakStep)), status};
    for (const QString& t : shown) {
        QVERIFY2(!raw(t), qPrintable(t));
        QVERIFY2(t.contains(QStringLiteral("\\u202e")), qPrintable(t));
    }
}

// The timeline: a whole step of the pair whose graphs and modules carry an override. Its section
// labels (the runs' names), the legend of the bands by module, and the hover box's band lines
// show each name escaped; legendName escapes both halves of a long name it cuts.
void TestHostileNames::timelineLegendSectionsAndHoverEscapeNames() {
    const QString cut = timeline::legendName(QString(kRlo) + QString(40, QLatin1Char('m')) + kRlo);
    QCOMPARE(cut, QStringLiteral("\\u202e") + QString(16, QLatin1Char('m')) + QStringLiteral("…") +
                      QString(16, QLatin1Char('m')) + QStringLiteral("\\u202e"));

    QFile in(QStringLiteral(FXMEM_TEST_DATA "/good/diff_old.json"));
    QVERIFY(in.open(QIODevice::ReadOnly));
    QJsonObject doc = QJsonDocument::fromJson(in.readAll()).object();
    const QString fwd = QString(kRlo) + QStringLiteral("fwd"), bwd = QString(kRlo) + QStringLiteral("bwd");
    QJsonArray graphs = doc.value(QStringLiteral("graphs")).toArray();
    for (auto g = graphs.begin(); g != graphs.end(); ++g) {
        QJsonObject graph = g->toObject();
        graph[QStringLiteral("name")] = QString(QString(kRlo) + graph.value(QStringLiteral("name")).toString());
        QJsonArray nodes = graph.value(QStringLiteral("nodes")).toArray();
        for (auto n = nodes.begin(); n != nodes.end(); ++n) {
            QJsonObject node = n->toObject();
            node[QStringLiteral("module")] = QString(QString(kRlo) + QStringLiteral("blk"));
            *n = node;
        }
        graph[QStringLiteral("nodes")] = nodes;
        *g = graph;
    }
    doc[QStringLiteral("graphs")] = graphs;
    doc[QStringLiteral("pairs")] =
        QJsonArray{QJsonObject{{QStringLiteral("forward"), fwd}, {QStringLiteral("backward"), bwd}}};
    doc[QStringLiteral("step")] = QJsonArray{QJsonObject{{QStringLiteral("graph"), fwd}, {QStringLiteral("call"), 0}},
                                             QJsonObject{{QStringLiteral("graph"), bwd}, {QStringLiteral("call"), 0}}};
    const QString path = dir_.filePath(QStringLiteral("rlo_step.json"));
    QFile out(path);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(QJsonDocument(doc).toJson());
    out.close();

    MainWindow w(ui_open::realLoader());
    w.resize(1400, 900);
    w.show();
    QVERIFY(ui_open::openAndWait(w, path));
    QVERIFY(w.scene()->wholeStep());
    w.parts().modeBar->setDepth(1);
    w.parts().modeBar->setMode(TimelineModeBar::Mode::ByModule);
    TimelinePlot* plot = w.parts().timeline;
    QTRY_VERIFY(plot->isStacked());
    QCustomPlot* chart = plot->chart();
    QStringList legend, labels;
    const auto collect = [&] {
        chart->replot(QCustomPlot::rpImmediateRefresh);
        legend.clear();
        labels.clear();
        for (int i = 0; i < chart->plottableCount(); ++i) legend << chart->plottable(i)->name();
        for (int i = 0; i < chart->itemCount(); ++i)
            if (const auto* t = qobject_cast<QCPItemText*>(chart->item(i)); t && t->visible()) labels << t->text();
        // The module band, and both runs' section labels, escaped.
        return legend.contains(QStringLiteral("\\u202eblk")) && labels.contains(QStringLiteral("\\u202efwd")) &&
               labels.contains(QStringLiteral("\\u202ebwd"));
    };
    QTRY_VERIFY2(collect(),
                 qPrintable(legend.join(QLatin1Char('|')) + QStringLiteral(" / ") + labels.join(QLatin1Char('|'))));
    // The hover box at the peak names the bands holding memory there.
    w.state()->setCursorStep(static_cast<std::int64_t>(w.scene()->peakStep));
    QTRY_VERIFY(!plot->cursorText().isEmpty());
    const QString hover = plot->cursorText();
    QVERIFY2(hover.contains(QStringLiteral("\\u202eblk")), qPrintable(hover));
    for (const QString& t : legend + labels + QStringList{hover}) QVERIFY2(!raw(t), qPrintable(t));
}

FXMEM_QTEST(TestHostileNames)
#include "test_hostile_names.moc"
