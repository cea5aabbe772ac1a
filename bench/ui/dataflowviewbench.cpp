// fxmem-dataflow-view-bench [FILE...] [--nodes 100000] [--frames 60]
// The graph view's Dataflow mode (ui/dataflow) timed offscreen in a 1600x900 DataflowView bound to
// a ViewState, on each graph of each FILE (default: the bundled llama, and the 8B-shaped capture
// /tmp/exp/llama3_8b.fxmem.json when it is on disk) and on fxmem_synth's 100k-node forward. Per
// graph: from showing the view to its overview laid out (on the view's worker) and painted
// ("open"), the layout alone (DataflowLayouts::build), a paint of the whole overview fitted, one
// module at the overview's depth expanded and collapsed by the view (relayout, marks, repaint),
// then --frames frames each of panning (mouse drag; the frame paints what the view asked to
// repaint, as the window does), zooming (wheel) and scrubbing (the cursor one step on, as the
// timeline's hover sets it), median and 90th percentile. The scene's own
// analysis (loading) is not counted. Prints figures and asserts nothing; exit 1 on a load error.
#include "dataflow/dataflowview.h"
#include "state/viewstate.h"
#include "synth.h"

#include <fxmem/error.h>
#include <fxmem/io.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QWheelEvent>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace {

double ms(const QElapsedTimer& t) { return static_cast<double>(t.nsecsElapsed()) / 1e6; }

struct Stats {
    double median = 0, p90 = 0;
};
Stats stats(std::vector<double> v) {
    if (v.empty()) return {};
    std::sort(v.begin(), v.end());
    return {v[v.size() / 2], v[std::min(v.size() - 1, v.size() * 9 / 10)]};
}

// Counts the paint events a widget gets.
class PaintCounter : public QObject {
public:
    int paints = 0;
    bool eventFilter(QObject*, QEvent* e) override {
        if (e->type() == QEvent::Paint) ++paints;
        return false;
    }
};

// Paints what the view asked to repaint, as the window's next frame does: the posted update
// request, which paints the dirty region (the strips a scroll exposed, or the whole view).
void paintPending(QWidget* view, PaintCounter& counter) {
    const int before = counter.paints;
    QCoreApplication::sendPostedEvents(nullptr, QEvent::UpdateRequest);
    if (counter.paints == before) view->repaint(); // no request was pending: never time nothing
}

void send(QWidget* w, QEvent::Type type, QPointF at, Qt::MouseButton button, Qt::MouseButtons buttons) {
    QMouseEvent e(type, at, w->mapToGlobal(at), button, buttons, {});
    QApplication::sendEvent(w, &e);
}

void run(const std::string& label, std::shared_ptr<const fxmem::GraphFile> file, int graph, int frames) {
    SceneRequest request;
    request.graph = graph;
    const std::shared_ptr<const Scene> scene = buildScene(file, QString::fromStdString(label), request);

    QElapsedTimer t;
    t.start();
    const auto layouts = DataflowLayouts::build(*scene);
    const double layoutMs = ms(t);

    // The state gets the scene first (what the other views do with it is not the Dataflow
    // mode's); the view lays it out when it is shown, as on switching to the mode.
    ViewState state;
    DataflowView view(&state);
    view.resize(1600, 900);
    state.setScene(scene);
    state.setCursorStep(static_cast<std::int64_t>(scene->peakStep));
    QSignalSpy laid(&view, &DataflowView::layoutChanged);
    t.restart();
    view.show();
    if (!view.layouts() && !laid.wait(120000)) {
        std::printf("%s: no layout in 120 s\n", label.c_str());
        return;
    }
    view.repaint();
    const double openMs = ms(t);
    const std::size_t openBoxes = view.lastPaintedBoxes();

    view.zoomToFit();
    t.restart();
    view.repaint();
    const double fitMs = ms(t);
    const std::size_t fitBoxes = view.lastPaintedBoxes();

    // The middle collapsed module at the overview's depth.
    double expandMs = 0, collapseMs = 0;
    const DataflowPiece& piece = view.layouts()->piece(0);
    std::vector<std::uint32_t> collapsed;
    for (const auto& b : piece.drawing.boxes)
        if (b.kind == fxmem::DataflowDrawing::Kind::Module && !b.expanded) collapsed.push_back(b.ref);
    if (!collapsed.empty()) {
        const std::uint32_t m = collapsed[collapsed.size() / 2];
        t.restart();
        view.toggleModule(0, m);
        view.repaint();
        expandMs = ms(t);
        t.restart();
        view.toggleModule(0, m);
        view.repaint();
        collapseMs = ms(t);
    }

    // Frames at a readable zoom around the node at the peak, as one reads it.
    view.zoomBy(0.8 / view.camera().scale, {800, 450});
    if (const Scene::Where w = scene->locate(static_cast<std::int64_t>(scene->peakStep)); w.segment >= 0)
        view.centerOn({w.segment, state.nodeAt(w)});
    std::vector<double> pan, zoom, scrub;
    const QPointF mid(800, 450);
    PaintCounter counter;
    view.installEventFilter(&counter);
    view.repaint();
    send(&view, QEvent::MouseButtonPress, mid, Qt::LeftButton, Qt::LeftButton);
    for (int i = 0; i < frames; ++i) {
        t.restart();
        send(&view, QEvent::MouseMove, mid + QPointF(4.0 * (i + 1), 3.0 * (i + 1)), Qt::NoButton, Qt::LeftButton);
        paintPending(&view, counter);
        pan.push_back(ms(t));
    }
    send(&view, QEvent::MouseButtonRelease, mid + QPointF(4.0 * frames, 3.0 * frames), Qt::LeftButton, Qt::NoButton);
    for (int i = 0; i < frames; ++i) {
        // In, out past where it started, and back: scales from about 0.3 to 2.
        const int dy = i < frames / 4 || i >= frames * 3 / 4 ? 120 : -120;
        QWheelEvent e(mid, view.mapToGlobal(mid), {}, {0, dy}, Qt::NoButton, {}, Qt::NoScrollPhase, false);
        t.restart();
        QApplication::sendEvent(&view, &e);
        view.repaint();
        zoom.push_back(ms(t));
    }
    const std::int64_t last = static_cast<std::int64_t>(scene->profile.size()) - 1;
    for (int i = 0; i < frames; ++i) {
        t.restart();
        state.setCursorStep(std::min<std::int64_t>(last, static_cast<std::int64_t>(scene->peakStep) / 2 + i));
        view.repaint();
        scrub.push_back(ms(t));
    }
    const Stats p = stats(pan), z = stats(zoom), s = stats(scrub);
    std::printf(
        "%-26s %7zu %6zu | %7.1f %7.1f %6zu | %6.1f %6zu | %6.1f %6.1f | %5.1f %5.1f | %5.1f %5.1f | %5.1f %5.1f\n",
        label.c_str(), scene->nodeCount(), piece.drawing.boxes.size(), openMs, layoutMs, openBoxes, fitMs, fitBoxes,
        expandMs, collapseMs, p.median, p.p90, z.median, z.p90, s.median, s.p90);
    std::fflush(stdout);
    Q_UNUSED(layouts);
}

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    std::vector<std::string> files;
    std::size_t nodes = 100000;
    int frames = 60;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--nodes" && i + 1 < argc) {
            nodes = std::strtoull(argv[++i], nullptr, 10);
        } else if (a == "--frames" && i + 1 < argc) {
            frames = std::max(1, std::atoi(argv[++i]));
        } else if (!a.empty() && a[0] != '-') {
            files.push_back(a);
        } else {
            std::fprintf(stderr, "usage: fxmem-dataflow-view-bench [FILE...] [--nodes N] [--frames N]\n");
            return 2;
        }
    }
    if (files.empty()) {
        files.push_back(FXMEM_SOURCE_DIR "/resources/examples/llama.fxmem.json");
        if (std::filesystem::exists("/tmp/exp/llama3_8b.fxmem.json")) files.push_back("/tmp/exp/llama3_8b.fxmem.json");
    }
    std::printf("%-26s %7s %6s | %7s %7s %6s | %6s %6s | %6s %6s | %11s | %11s | %11s\n", "graph", "nodes", "boxes",
                "open", "layout", "drawn", "fit", "drawn", "expand", "collap", "pan", "zoom", "scrub");
    std::printf("%-26s %7s %6s | %7s %7s %6s | %6s %6s | %6s %6s | %11s | %11s | %11s\n", "", "", "", "ms", "ms", "",
                "ms", "", "ms", "ms", "med p90 ms", "med p90 ms", "med p90 ms");
    try {
        for (const std::string& path : files) {
            auto file = std::make_shared<const fxmem::GraphFile>(fxmem::load_file(path));
            for (std::size_t g = 0; g < file->graphs.size(); ++g)
                run(std::filesystem::path(path).stem().stem().string() + ":" + file->graphs[g].name, file,
                    static_cast<int>(g), frames);
        }
        fxmem::synth::Options o;
        o.nodes = nodes;
        o.pair = false;
        run("synth " + std::to_string(nodes / 1000) + "k (flat)",
            std::make_shared<const fxmem::GraphFile>(fxmem::synth::generate(o)), 0, frames);
    } catch (const fxmem::Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
