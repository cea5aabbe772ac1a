// fxmem: argument parsing and wiring. The UI library knows nothing of the file format; the
// loader (fxmem::load_file) is injected here.
#include "mainwindow/mainwindow.h"
#include "util/theme.h"

#include <fxmem/io.h>

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QTemporaryDir>
#include <QTimer>

#include <cstdio>

namespace {

// The bundled examples: beside the build tree (build/bin/../../resources/examples), installed
// (bin/../share/fxmem/examples) or in the source tree this binary was built from.
QString examplesDir() {
    const QStringList dirs = {QCoreApplication::applicationDirPath() + QStringLiteral("/../../resources/examples"),
                              QCoreApplication::applicationDirPath() + QStringLiteral("/../share/fxmem/examples"),
                              QStringLiteral(FXMEM_EXAMPLES_DIR)};
    for (const QString& dir : dirs)
        if (QFileInfo(dir + QStringLiteral("/gpt.fxmem.json")).isFile()) return QFileInfo(dir).canonicalFilePath();
    return {};
}

void fail(const QString& message) { std::fprintf(stderr, "fxmem: %s\n", qPrintable(message)); }

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("fxmem"));
    QApplication::setApplicationName(QStringLiteral("fxmem"));
    QApplication::setApplicationVersion(QStringLiteral(FXMEM_VERSION));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/fxmem.svg")));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Where the GPU memory of PyTorch FX graphs goes."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("fxmem graph file (default: the bundled example)"));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                        QStringLiteral("Render the window after loading to OUT.png and exit."),
                                        QStringLiteral("OUT.png"));
    const QCommandLineOption graph(QStringLiteral("graph"), QStringLiteral("Show the graph NAME of the file."), QStringLiteral("NAME"));
    const QCommandLineOption pair(QStringLiteral("pair"), QStringLiteral("Show forward/backward pair K joined."), QStringLiteral("K"));
    const QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size for --screenshot (default 1600x1000)."),
                                  QStringLiteral("WxH"), QStringLiteral("1600x1000"));
    const QCommandLineOption theme(QStringLiteral("theme"),
                                   QStringLiteral("Use the Fusion style with a dark or light palette instead of the system's."),
                                   QStringLiteral("dark|light"));
    parser.addOptions({screenshot, graph, pair, size, theme});
    parser.process(app);
    if (parser.isSet(theme) && !applyTheme(parser.value(theme))) {
        fail(QStringLiteral("unknown theme '%1' (expected dark or light)").arg(parser.value(theme)));
        return 2;
    }

    const bool shot = parser.isSet(screenshot);
    QTemporaryDir settingsDir;
    if (shot) {
        // A screenshot shows defaults, not this user's saved layout.
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
    }

    const QString examples = examplesDir();
    QString path = parser.positionalArguments().value(0);
    if (path.isEmpty() && !examples.isEmpty()) path = examples + QStringLiteral("/gpt.fxmem.json");

    MainWindow window([](const std::string& file, const LoadProgress& progress) { return fxmem::load_file(file, progress); });
    window.setBundledExamplesDir(examples);
    if (shot) {
        const QStringList wh = parser.value(size).split(QLatin1Char('x'));
        window.resize(wh.value(0).toInt() > 0 ? wh.value(0).toInt() : 1600, wh.value(1).toInt() > 0 ? wh.value(1).toInt() : 1000);
    }
    window.show();

    if (path.isEmpty()) {
        if (shot) {
            fail(QStringLiteral("no file given and the bundled example was not found"));
            return 1;
        }
        window.showEmptyHint(QObject::tr("No file opened: the bundled example (resources/examples/gpt.fxmem.json) was not "
                                         "found. Open a graph file with File ▸ Open (Ctrl+O) or drop one on the window."));
        return QApplication::exec();
    }

    // Choosing a graph is a second request once the file is in.
    bool chosen = !parser.isSet(graph) && !parser.isSet(pair);
    QObject::connect(&window, &MainWindow::sceneShown, &window, [&] {
        if (!chosen) {
            chosen = true;
            const auto& file = *window.scene()->file;
            if (parser.isSet(pair)) {
                window.showGraph(-1, parser.value(pair).toInt());
                return;
            }
            const int g = file.find_graph(parser.value(graph).toStdString());
            if (g < 0) {
                fail(QStringLiteral("%1 has no graph named '%2'").arg(path, parser.value(graph)));
                if (shot) QCoreApplication::exit(2);
                return;
            }
            window.showGraph(g);
            return;
        }
        if (!shot) return;
        // Let queued replots and layouts settle, then render.
        QTimer::singleShot(300, &window, [&] {
            const QString out = parser.value(screenshot);
            if (!window.grab().save(out)) {
                fail(QStringLiteral("cannot write %1").arg(out));
                QCoreApplication::exit(1);
                return;
            }
            std::printf("%s\n", qPrintable(out));
            QCoreApplication::exit(0);
        });
    });
    if (shot) {
        QObject::connect(&window, &MainWindow::loadFailed, &window, [&](const QString& message) {
            fail(message);
            QCoreApplication::exit(1);
        });
        QTimer::singleShot(300000, &window, [] {
            fail(QStringLiteral("timed out waiting for the file to load"));
            QCoreApplication::exit(1);
        });
    }
    window.openFile(path);
    return QApplication::exec();
}
