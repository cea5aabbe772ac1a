// The loop a user closes: reorder in the app's schedule editor, save, apply the saved schedule in
// PyTorch (fxmem_export.apply_schedule on a freshly captured model), and score it there with
// PyTorch's own MemoryTracker. The app's peak, fxmem-cli score and PyTorch must agree.
#include "analysis/graphanalysis.h"
#include "qtest_registry.h"
#include "schedule/scheduleeditor.h"

#include <fxmem/io.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

class TestSchedulePytorch : public QObject {
    Q_OBJECT
private slots:
    void savedScheduleScoresTheSameInPyTorch();
};

namespace {

QJsonObject runJson(const QString& program, const QStringList& args) {
    QProcess p;
    p.start(program, args);
    if (!p.waitForFinished(240000) || p.exitCode() != 0) {
        qWarning().noquote() << program << args.join(QLatin1Char(' ')) << "failed:" << p.readAllStandardError();
        return {};
    }
    return QJsonDocument::fromJson(p.readAllStandardOutput()).object();
}

} // namespace

void TestSchedulePytorch::savedScheduleScoresTheSameInPyTorch() {
    const QString example = QStringLiteral(FXMEM_EXAMPLES "/cnn.fxmem.json");
    const auto file = std::make_shared<const fxmem::GraphFile>(fxmem::load_file(example.toStdString()));
    const std::optional<fxmem::GraphId> forward = file->find_graph("forward");
    QVERIFY(forward.has_value());
    EditedSchedule edited;
    ScheduleEditor editor(&edited);
    editor.setAnalysis(GraphAnalysis::compute(file, *forward));

    // Random legal moves, as a user would drag: the editor refuses the illegal ones.
    QRandomGenerator rng(7);
    const auto n = static_cast<std::uint32_t>(editor.order().size());
    int accepted = 0;
    // Keep going until the peak itself has moved, so the comparison covers a changed peak.
    for (int i = 0; i < 5000 && (accepted < 60 || editor.peak() == editor.originalPeak()); ++i)
        accepted += editor.moveNode(rng.bounded(n), rng.bounded(n)) ? 1 : 0;
    QVERIFY(accepted >= 60);
    QVERIFY(editor.peak() != editor.originalPeak());
    QVERIFY(editor.isModified());

    QTemporaryDir dir;
    const QString sched = dir.filePath(QStringLiteral("cnn-forward.schedule.json"));
    QString error;
    QVERIFY2(editor.saveSchedule(sched, &error), qPrintable(error));

    // fxmem-cli score on the saved schedule.
    const QJsonObject cli =
        runJson(QStringLiteral(FXMEM_CLI_PATH),
                {QStringLiteral("score"), example, QStringLiteral("--schedule"), sched, QStringLiteral("--json")});
    QVERIFY(!cli.isEmpty());
    QCOMPARE(static_cast<std::int64_t>(cli.value(QStringLiteral("peak")).toDouble()), editor.peak());

    // PyTorch: apply the schedule to a fresh capture of the same model and run its MemoryTracker.
    const QJsonObject torch = runJson(QStringLiteral(FXMEM_PYTHON),
                                      {QStringLiteral(FXMEM_SOURCE_DIR "/exporter/tests/score_saved_schedule.py"),
                                       QStringLiteral("cnn"), QStringLiteral("forward"), sched});
    QVERIFY(!torch.isEmpty());
    QCOMPARE(static_cast<std::int64_t>(torch.value(QStringLiteral("peak")).toDouble()), editor.peak());

    // Memory after every node agrees too (placeholders aside: PyTorch keeps them first).
    const QJsonArray current = cli.value(QStringLiteral("current")).toArray();
    const QJsonObject after = torch.value(QStringLiteral("after")).toObject();
    const std::vector<fxmem::NodeId> order = editor.order();
    QCOMPARE(static_cast<std::size_t>(current.size()), order.size());
    const fxmem::Graph& graph = file->graph(*forward);
    int compared = 0, placeholders = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
        const fxmem::Node& node = graph.node(order[i]);
        if (node.op == fxmem::OpKind::Placeholder) {
            ++placeholders;
            continue;
        }
        const QString name = QString::fromStdString(node.name);
        QVERIFY2(after.contains(name), qPrintable(name));
        QCOMPARE(static_cast<std::int64_t>(after.value(name).toDouble()),
                 static_cast<std::int64_t>(current.at(static_cast<qsizetype>(i)).toDouble()));
        ++compared;
    }
    QCOMPARE(compared + placeholders, static_cast<int>(order.size()));
    QVERIFY(compared > 30);
    qInfo("app, fxmem-cli and PyTorch agree after %d moves: peak %lld (original %lld)", accepted,
          static_cast<long long>(editor.peak()), static_cast<long long>(editor.originalPeak()));
}

FXMEM_QTEST(TestSchedulePytorch)
#include "test_schedule_pytorch.moc"
