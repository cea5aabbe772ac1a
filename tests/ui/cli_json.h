// Runs the built fxmem-cli (FXMEM_CLI_PATH) with `args` and returns its --json output; an empty
// object, with the command and its stderr in the test log, when it fails. The tests that compare
// the app with the CLI use it.
#pragma once
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStringList>
#include <QtDebug>

inline QJsonObject cliJson(const QStringList& args) {
    QProcess p;
    p.start(QStringLiteral(FXMEM_CLI_PATH), args);
    if (!p.waitForFinished(120000) || p.exitCode() != 0) {
        qWarning().noquote() << args.join(QLatin1Char(' ')) << "failed:" << p.readAllStandardError();
        return {};
    }
    return QJsonDocument::fromJson(p.readAllStandardOutput()).object();
}
