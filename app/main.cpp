// fxmem: argument parsing and wiring. The UI library knows nothing of the file format; the
// loader (fxmem::load_file) is injected here.
#include "mainwindow/mainwindow.h"
#include "mainwindow/sidetabs.h"
#include "timeline/timelinemodebar.h"
#include "util/theme.h"

// The --benchmark-* flags run the measurements of bench/ui (fxmem_bench_ui).
#include "ui/graphdragbenchmark.h"
#include "ui/opentiming.h"
#include "ui/scrubbenchmark.h"
#include "ui/sizesbenchmark.h"

#include <fxmem/io.h>

#include <fxmem/error.h>

#include <QApplication>
#include <QBuffer>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QImageWriter>
#include <QSettings>
#include <QTemporaryDir>
#include <QTimer>

#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

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

// The bytes of the argument Qt decoded to `decoded` (the last such, or the value of a
// --option=VALUE): a path that is not UTF-8 decodes to U+FFFD, which names no file, so files
// are opened and written by the bytes given.
std::string nativePath(const QString& decoded, const std::vector<std::string>& args) {
    for (auto it = args.rbegin(); it != args.rend(); ++it) {
        if (QString::fromLocal8Bit(*it) == decoded) return *it;
        const std::size_t eq = it->find('=');
        if (it->starts_with("--") && eq != std::string::npos && QString::fromLocal8Bit(it->substr(eq + 1)) == decoded)
            return it->substr(eq + 1);
    }
    return QFile::encodeName(decoded).toStdString();
}

// --screenshot OUT, checked before anything loads, as fxmem-cli checks its outputs: an image
// format Qt writes, named by OUT's suffix (`fxmem --screenshot model.fxmem.json`, the PNG name
// forgotten, must not replace the graph); no directory, FIFO or device (resolve_write_target);
// not the input by any path (a symbolic link to it included). The message, or "" when it may
// be written.
QString screenshotOutputError(const QString& shown, const std::string& out, const std::string& input) {
    const QByteArray format = QFileInfo(shown).suffix().toLower().toLatin1();
    if (format.isEmpty() || !QImageWriter::supportedImageFormats().contains(format))
        return QStringLiteral("--screenshot %1: not an image file name (give OUT.png, .jpg or .bmp); nothing written")
            .arg(shown);
    try {
        if (fxmem::same_file(fxmem::resolve_write_target(out), input))
            return QStringLiteral("--screenshot %1 is the file it would show; write the image elsewhere").arg(shown);
    } catch (const fxmem::Error& e) {
        return QStringLiteral("--screenshot: %1").arg(QString::fromStdString(e.what()));
    }
    return {};
}

// Calls `then` with the window's picture once two frames in a row are equal (queued replots and
// layouts have run), polling every 50 ms; after 200 polls with the last frame and a warning.
void whenPictureSettles(QWidget& window, std::function<void(const QImage&)> then) {
    auto* poll = new QTimer(&window);
    auto last = std::make_shared<QImage>();
    auto polls = std::make_shared<int>(0);
    QObject::connect(poll, &QTimer::timeout, &window, [&window, poll, last, polls, then = std::move(then)] {
        QImage frame = window.grab().toImage();
        const bool settled = !last->isNull() && frame == *last;
        if (!settled && ++*polls < 200) {
            *last = std::move(frame);
            return;
        }
        if (!settled) fail(QStringLiteral("warning: the window still changed after %1 frames").arg(*polls));
        poll->stop();
        poll->deleteLater();
        then(frame);
    });
    poll->start(50);
}

// `frame` in OUT's format, written atomically (a temporary file, then a rename).
QString saveScreenshot(const QImage& frame, const QString& shown, const std::string& out) {
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QImageWriter writer(&buffer, QFileInfo(shown).suffix().toLower().toLatin1());
    if (!writer.write(frame)) return QStringLiteral("cannot write %1: %2").arg(shown, writer.errorString());
    try {
        fxmem::write_file_atomically(out, std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
    } catch (const fxmem::Error& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

// --help, --version and --screenshot show no window: without a display (a terminal over ssh, CI)
// they run on the offscreen platform instead of failing to connect to one. A platform the user
// chose is kept.
void offscreenWhenNoWindowIsShown(int argc, char** argv) {
    if (qEnvironmentVariableIsSet("QT_QPA_PLATFORM") || qEnvironmentVariableIsSet("DISPLAY") ||
        qEnvironmentVariableIsSet("WAYLAND_DISPLAY"))
        return;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "-h" || a == "--help" || a == "--help-all" || a == "-v" || a == "--version" || a == "--screenshot" ||
            a.starts_with("--screenshot=")) {
            qputenv("QT_QPA_PLATFORM", "offscreen");
            return;
        }
    }
}

} // namespace

int main(int argc, char** argv) {
    QElapsedTimer sinceMain; // --benchmark-scrub's open figures count from here
    sinceMain.start();
    offscreenWhenNoWindowIsShown(argc, argv);
    const std::vector<std::string> rawArgs(argv + 1, argv + argc); // before Qt removes its own
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("fxmem"));
    QApplication::setApplicationName(QStringLiteral("fxmem"));
    QApplication::setApplicationVersion(QStringLiteral(FXMEM_VERSION));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/fxmem.svg")));
    // Matches the installed .desktop entry, so docks and task bars show its icon and name.
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.fxmem.fxmem"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Where the GPU memory of PyTorch FX graphs goes."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("FILE"),
                                 QStringLiteral("fxmem graph file (default: the bundled example)"));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                        QStringLiteral("Render the window after loading to OUT.png and exit."),
                                        QStringLiteral("OUT.png"));
    const QCommandLineOption graph(QStringLiteral("graph"), QStringLiteral("Show the graph NAME of the file."),
                                   QStringLiteral("NAME"));
    const QCommandLineOption pair(QStringLiteral("pair"), QStringLiteral("Show forward/backward pair K joined."),
                                  QStringLiteral("K"));
    const QCommandLineOption size(QStringLiteral("size"),
                                  QStringLiteral("Window size for --screenshot (default 1600x1000)."),
                                  QStringLiteral("WxH"), QStringLiteral("1600x1000"));
    const QCommandLineOption theme(
        QStringLiteral("theme"),
        QStringLiteral("Use the Fusion style with a dark or light palette instead of the system's."),
        QStringLiteral("dark|light"));
    // What a screenshot (or a start) shows besides the defaults: docs/ images are made with these.
    const QCommandLineOption timelineMode(QStringLiteral("timeline-mode"),
                                          QStringLiteral("Timeline: total, role or module."), QStringLiteral("MODE"));
    const QCommandLineOption depth(QStringLiteral("depth"), QStringLiteral("Module depth of --timeline-mode module."),
                                   QStringLiteral("D"));
    const QCommandLineOption tab(QStringLiteral("tab"), QStringLiteral("Raise the %1 tab.").arg(sideTabChoices()),
                                 QStringLiteral("TAB"));
    const QCommandLineOption selectModule(
        QStringLiteral("select-module"),
        QStringLiteral("Select the module NAME (breakdown tree, graph view, live table)."), QStringLiteral("NAME"));
    const QCommandLineOption collapse(QStringLiteral("collapse-depth"),
                                      QStringLiteral("Collapse the graph view's modules at depth D (0: all expanded)."),
                                      QStringLiteral("D"));
    const QCommandLineOption compare(
        QStringLiteral("compare"),
        QStringLiteral("Compare the original order with the file's schedule NAME (Schedule tab)."),
        QStringLiteral("NAME"));
    const QCommandLineOption useSchedule(
        QStringLiteral("schedule"), QStringLiteral("Show the graph in the file's schedule NAME (an undoable edit)."),
        QStringLiteral("NAME"));
    const QCommandLineOption step(QStringLiteral("step"), QStringLiteral("Put the timeline cursor at profile step K."),
                                  QStringLiteral("K"));
    const QCommandLineOption findPlan(
        QStringLiteral("find-plan"),
        QStringLiteral("Search a recompute plan (Recompute tab) for a file with a joint graph, and show its pair."));
    parser.addOptions({screenshot, graph, pair, size, theme, timelineMode, depth, tab, selectModule, collapse,
                       useSchedule, compare, step});
    const QCommandLineOption maxExtraPercent(
        QStringLiteral("max-extra-percent"),
        QStringLiteral("Find plan's limit on extra FLOPs in % of the baseline pair's, as fxmem-cli remat's."),
        QStringLiteral("P"));
    parser.addOptions({findPlan, maxExtraPercent});
    const QCommandLineOption sizes(
        QStringLiteral("set"),
        QStringLiteral(
            "Bind symbolic sizes, as fxmem-cli's --set: SYM=V[,SYM=V] (a name, a source or batch/sequence)."),
        QStringLiteral("SYM=V"));
    const QCommandLineOption deviceMemory(QStringLiteral("device-memory"),
                                          QStringLiteral("The Sizes bar's GPU memory: 80GB, 79.6GiB, 512MiB."),
                                          QStringLiteral("SIZE"));
    parser.addOptions({sizes, deviceMemory});
    const QCommandLineOption graphMode(QStringLiteral("graph-mode"),
                                       QStringLiteral("The graph view's mode: time or dataflow."),
                                       QStringLiteral("MODE"));
    const QCommandLineOption expand(QStringLiteral("expand"),
                                    QStringLiteral("Open the modules M,... in the Dataflow mode."),
                                    QStringLiteral("M,..."));
    const QCommandLineOption dataflowFit(QStringLiteral("dataflow-fit"),
                                         QStringLiteral("The whole Dataflow drawing in view."));
    parser.addOptions({graphMode, expand, dataflowFit});
    // Offscreen timing of scrubbing: what a hover or key step costs until every panel has painted.
    const QCommandLineOption benchScrub(
        QStringLiteral("benchmark-scrub"),
        QStringLiteral("Move the timeline cursor --steps times (hover, then --scrub-input), print timings and exit."));
    const QCommandLineOption benchSteps(
        QStringLiteral("steps"), QStringLiteral("Steps of --benchmark-scrub and --benchmark-sizes (default 400)."),
        QStringLiteral("N"), QStringLiteral("400"));
    const QCommandLineOption benchInput(
        QStringLiteral("scrub-input"),
        QStringLiteral("hover, key or both (default both); drop or pan: drags in the graph view; zoom: its wheel "
                       "(pan and zoom: in the Dataflow mode with --graph-mode dataflow)."),
        QStringLiteral("KIND"), QStringLiteral("both"));
    parser.addOptions({benchScrub, benchSteps, benchInput});
    const QCommandLineOption benchSizes(
        QStringLiteral("benchmark-sizes"),
        QStringLiteral("Re-score the file's symbolic sizes --steps times (the Sizes bar), print timings and exit."));
    parser.addOption(benchSizes);
    parser.process(app);
    const QStringList modes = {QStringLiteral("total"), QStringLiteral("role"), QStringLiteral("module")};
    if (parser.isSet(timelineMode) && !modes.contains(parser.value(timelineMode))) {
        fail(QStringLiteral("unknown timeline mode '%1' (expected total, role or module)")
                 .arg(parser.value(timelineMode)));
        return 2;
    }
    if (parser.isSet(graphMode) && parser.value(graphMode) != QStringLiteral("time") &&
        parser.value(graphMode) != QStringLiteral("dataflow")) {
        fail(QStringLiteral("unknown graph mode '%1' (expected time or dataflow)").arg(parser.value(graphMode)));
        return 2;
    }
    if (parser.isSet(tab) && !sideTabNames().contains(parser.value(tab))) {
        fail(QStringLiteral("unknown tab '%1' (expected %2)").arg(parser.value(tab), sideTabChoices()));
        return 2;
    }
    const QStringList scrubInputs = {QStringLiteral("hover"), QStringLiteral("key"), QStringLiteral("both"),
                                     QStringLiteral("drop"),  QStringLiteral("pan"), QStringLiteral("zoom")};
    if (!scrubInputs.contains(parser.value(benchInput))) {
        fail(QStringLiteral("unknown --scrub-input '%1' (expected hover, key, both, drop, pan or zoom)")
                 .arg(parser.value(benchInput)));
        return 2;
    }
    for (const QCommandLineOption* o : {&depth, &collapse, &step, &benchSteps}) {
        bool ok = false;
        if (parser.isSet(*o) && (parser.value(*o).toLongLong(&ok) < 0 || !ok)) {
            fail(QStringLiteral("--%1 expects a number >= 0, not '%2'").arg(o->names().first(), parser.value(*o)));
            return 2;
        }
    }
    bool percentOk = false;
    const double percent = parser.value(maxExtraPercent).toDouble(&percentOk);
    if (parser.isSet(maxExtraPercent) && (!percentOk || !std::isfinite(percent) || percent < 0)) {
        fail(QStringLiteral("--max-extra-percent expects a number >= 0, not '%1'").arg(parser.value(maxExtraPercent)));
        return 2;
    }
    if (parser.isSet(theme) && !applyTheme(parser.value(theme))) {
        fail(QStringLiteral("unknown theme '%1' (expected dark or light)").arg(parser.value(theme)));
        return 2;
    }

    ViewOptions options;
    if (parser.isSet(timelineMode))
        options.timelineMode = static_cast<TimelineModeBar::Mode>(modes.indexOf(parser.value(timelineMode)));
    if (parser.isSet(depth)) options.depth = parser.value(depth).toInt();
    if (parser.isSet(collapse)) options.collapseDepth = parser.value(collapse).toInt();
    if (parser.isSet(step)) options.step = parser.value(step).toLongLong();
    options.selectModule = parser.value(selectModule);
    options.schedule = parser.value(useSchedule);
    options.compare = parser.value(compare);
    options.tab = parser.value(tab);
    options.findPlan = parser.isSet(findPlan);
    if (parser.isSet(maxExtraPercent)) options.maxExtraPercent = percent;
    options.sizes = parser.value(sizes);
    options.deviceMemory = parser.value(deviceMemory);
    options.graphMode = parser.value(graphMode);
    options.dataflowFit = parser.isSet(dataflowFit);
    if (parser.isSet(expand)) options.expand = parser.value(expand).split(QLatin1Char(','), Qt::SkipEmptyParts);

    const bool benchSizesRun = parser.isSet(benchSizes);
    const bool bench = parser.isSet(benchScrub) || benchSizesRun;
    const bool shot = parser.isSet(screenshot) || bench;
    QTemporaryDir settingsDir;
    if (shot) {
        // A screenshot shows defaults, not this user's saved layout.
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
    }

    const QString examples = examplesDir();
    QString path = parser.positionalArguments().value(0);
    if (path.isEmpty() && !examples.isEmpty()) path = examples + QStringLiteral("/gpt.fxmem.json");

    // The window names files by QString; the path given is opened by its bytes.
    const std::string input = nativePath(path, rawArgs);
    if (parser.isSet(screenshot))
        if (const QString error =
                screenshotOutputError(parser.value(screenshot), nativePath(parser.value(screenshot), rawArgs), input);
            !error.isEmpty()) {
            fail(error);
            return 2;
        }
    MainWindow window([input, shown = path.toStdString()](const std::string& file, const LoadControl& control) {
        return fxmem::load_file(file == shown ? input : file, control);
    });
    window.setBundledExamplesDir(examples);
    OpenTiming* opening = parser.isSet(benchScrub) ? new OpenTiming(window, sinceMain) : nullptr;
    if (shot) {
        const QStringList wh = parser.value(size).split(QLatin1Char('x'));
        window.resize(wh.value(0).toInt() > 0 ? wh.value(0).toInt() : 1600,
                      wh.value(1).toInt() > 0 ? wh.value(1).toInt() : 1000);
    }
    window.show();

    if (path.isEmpty()) {
        if (shot) {
            fail(QStringLiteral("no file given and the bundled example was not found"));
            return 1;
        }
        window.showEmptyHint(
            QObject::tr("No file opened: the bundled example (resources/examples/gpt.fxmem.json) was not "
                        "found. Open a graph file with File ▸ Open (Ctrl+O) or drop one on the window."));
        return QApplication::exec();
    }

    // Choosing a graph is a second request once the file is in.
    bool chosen = !parser.isSet(graph) && !parser.isSet(pair);
    bool applied = false;
    QObject::connect(&window, &MainWindow::sceneShown, &window, [&] {
        if (!chosen) {
            chosen = true;
            const auto& file = *window.scene()->file;
            if (parser.isSet(pair)) {
                window.showGraph(-1, parser.value(pair).toInt());
                return;
            }
            const std::optional<fxmem::GraphId> g = file.find_graph(parser.value(graph).toStdString());
            if (!g) {
                fail(QStringLiteral("%1 has no graph named '%2'").arg(path, parser.value(graph)));
                if (shot) QCoreApplication::exit(2);
                return;
            }
            window.showGraph(g->value);
            return;
        }
        // The view options, once, when the chosen graph is shown.
        if (applied) return;
        applied = true;
        if (const QString error = window.applyViewOptions(options); !error.isEmpty()) {
            fail(path + QStringLiteral(": ") + error);
            if (shot) QCoreApplication::exit(2);
            return;
        }
        if (!shot) return;
        // Wait for what is computed off the GUI thread (stacked bands, comparison), then let
        // queued replots and layouts settle, and render.
        auto settled = std::make_shared<QElapsedTimer>();
        settled->start();
        auto* poll = new QTimer(&window);
        QObject::connect(poll, &QTimer::timeout, &window, [&, poll, settled] {
            const ViewOptionsSettled done = window.viewOptionsSettled(options);
            if (!done.views && settled->elapsed() < 20000) return;
            if (!done.plan && settled->elapsed() < 60000) return;
            poll->stop();
            if (opening) opening->settled();
            whenPictureSettles(window, [&](const QImage& frame) {
                if (benchSizesRun) {
                    std::printf("%s\n", qPrintable(runSizesBenchmark(window, parser.value(benchSteps).toInt())));
                    QCoreApplication::exit(0);
                    return;
                }
                if (bench) {
                    std::printf("%s", qPrintable(opening->report()));
                    ScrubBenchmarkOptions o;
                    o.steps = std::max(1, parser.value(benchSteps).toInt());
                    const QString input = parser.value(benchInput);
                    if (input == QStringLiteral("drop") || input == QStringLiteral("pan") ||
                        input == QStringLiteral("zoom")) {
                        o.input = input == QStringLiteral("drop")  ? ScrubBenchmarkOptions::Input::Drop
                                  : input == QStringLiteral("pan") ? ScrubBenchmarkOptions::Input::Pan
                                                                   : ScrubBenchmarkOptions::Input::Zoom;
                        std::printf("%s\n", qPrintable(runGraphDragBenchmark(window, o)));
                    }
                    for (const QString& kind : {QStringLiteral("hover"), QStringLiteral("key")}) {
                        if (parser.value(benchInput) != kind && parser.value(benchInput) != QStringLiteral("both"))
                            continue;
                        o.input = kind == QStringLiteral("key") ? ScrubBenchmarkOptions::Input::Key
                                                                : ScrubBenchmarkOptions::Input::Hover;
                        std::printf("%s\n", qPrintable(runScrubBenchmark(window, o)));
                    }
                    QCoreApplication::exit(0);
                    return;
                }
                const QString out = parser.value(screenshot);
                if (const QString error = saveScreenshot(frame, out, nativePath(out, rawArgs)); !error.isEmpty()) {
                    fail(error);
                    QCoreApplication::exit(1);
                    return;
                }
                std::printf("%s\n", qPrintable(out));
                QCoreApplication::exit(0);
            });
        });
        poll->start(50);
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
