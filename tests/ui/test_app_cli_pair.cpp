// The app and fxmem-cli show the same thing at the same step of a joined pair: the live set the
// app lists (liveAtStep: the segment's storages, then the forward's baseline ones) and the
// storages and bytes `fxmem-cli live/breakdown --pair forward,backward --step K` print, at three
// steps of the bundled llama (one in the forward, the backward's first step and the peak).
#include "analysis/liveatstep.h"
#include "cli_json.h"
#include "loading/scene.h"

#include <fxmem/io.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>

#include <algorithm>
#include <set>

class TestAppCliPair : public QObject {
    Q_OBJECT
private slots:
    void liveAndBreakdownMatchTheCli();
};

namespace {

QJsonObject cli(const QStringList& args) { return cliJson(args); }

} // namespace

void TestAppCliPair::liveAndBreakdownMatchTheCli() {
    const QString path = QStringLiteral(FXMEM_EXAMPLES "/llama.fxmem.json");
    auto file = std::make_shared<const fxmem::GraphFile>(fxmem::load_file(path.toStdString()));
    SceneRequest request;
    request.pair = 0;
    const auto scene = buildScene(file, path, request);
    QVERIFY(scene->joined());
    const std::int64_t backwardStart = scene->segments[1].offset;
    for (const std::int64_t step : {backwardStart / 2, backwardStart, static_cast<std::int64_t>(scene->peakStep)}) {
        const LiveAtStep app = liveAtStep(*scene, nullptr, step);
        std::int64_t appBytes = 0;
        std::multiset<qint64> appIds;
        for (const fxmem::LiveStorage& s : app.live) {
            appBytes += s.nbytes;
            appIds.insert(file->storages[s.storage.index()].file_id);
        }
        QCOMPARE(appBytes, scene->profile[static_cast<std::size_t>(step)]);
        const QStringList pair = {QStringLiteral("--pair"), QStringLiteral("forward,backward"),
                                  QStringLiteral("--step"), QString::number(step), QStringLiteral("--json")};
        const QJsonObject live = cli(QStringList{QStringLiteral("live"), path} + pair);
        QCOMPARE(static_cast<std::int64_t>(live.value(QStringLiteral("total")).toDouble()), appBytes);
        std::multiset<qint64> cliIds;
        for (const QJsonValue v : live.value(QStringLiteral("storages")).toArray())
            cliIds.insert(static_cast<qint64>(v.toObject().value(QStringLiteral("id")).toDouble()));
        QVERIFY2(cliIds == appIds, qPrintable(QStringLiteral("step %1: different storages").arg(step)));
        const QJsonObject breakdown = cli(QStringList{QStringLiteral("breakdown"), path} + pair);
        QCOMPARE(static_cast<std::int64_t>(breakdown.value(QStringLiteral("total")).toDouble()), appBytes);
        std::size_t storages = 0;
        for (const QJsonValue v : breakdown.value(QStringLiteral("groups")).toArray())
            storages += static_cast<std::size_t>(v.toObject().value(QStringLiteral("storages")).toInt());
        QCOMPARE(storages, app.live.size());
    }
}

QTEST_MAIN(TestAppCliPair)
#include "test_app_cli_pair.moc"
