#include "loading/scene.h"

#include <fxmem/error.h>
#include <fxmem/estimator.h>
#include <fxmem/symbolic.h>

#include <QObject>
#include <QStringBuilder>

#include <algorithm>
#include <optional>

QString Scene::title() const {
    if (segments.empty()) return {};
    if (wholeStep()) return QObject::tr("whole step (%n graph runs)", nullptr, static_cast<int>(segments.size()));
    QString t = QString::fromStdString(segments.front().analysis->graph().name);
    if (joined()) t += QStringLiteral(" + ") % QString::fromStdString(segments.back().analysis->graph().name);
    return t;
}

QString Scene::segmentName(std::size_t segment) const {
    const Segment& s = segments[segment];
    return QString::fromStdString(s.name.empty() ? s.analysis->graph().name : s.name);
}

QString Scene::moduleName(std::size_t segment, std::string_view module) const {
    const QString& prefix = segments[segment].modulePrefix;
    if (prefix.isEmpty()) return QString::fromUtf8(module.data(), static_cast<qsizetype>(module.size()));
    if (module.empty()) return prefix;
    return prefix % QLatin1Char('.') % QString::fromUtf8(module.data(), static_cast<qsizetype>(module.size()));
}

std::optional<std::string> relativeModule(const QString& prefix, const QString& qualified) {
    if (prefix.isEmpty()) return qualified.toStdString();
    if (qualified == prefix) return std::string();
    if (qualified.size() <= prefix.size() + 1 || !qualified.startsWith(prefix) || qualified[prefix.size()] != u'.')
        return std::nullopt;
    return qualified.mid(prefix.size() + 1).toStdString();
}

std::shared_ptr<const fxmem::StepModules> wholeStepModules(const Scene& scene, std::uint32_t segment,
                                                           std::span<const fxmem::CarriedStorage> carried) {
    // Segment i runs step entry i: a graph's attribution is that of a segment running it.
    std::vector<const fxmem::Attribution*> ofGraph(scene.file->graphs.size(), nullptr);
    for (std::size_t s = 0; s < scene.segments.size() && s < scene.file->step.size(); ++s) {
        const fxmem::GraphId g = scene.file->step[s].graph;
        if (!ofGraph[g.index()]) ofGraph[g.index()] = scene.segments[s].attribution.get();
    }
    std::vector<std::optional<fxmem::Attribution>> made(scene.file->graphs.size());
    return std::make_shared<const fxmem::StepModules>(*scene.file, *scene.step, segment, carried,
                                                      [&](fxmem::GraphId g) -> const fxmem::Attribution& {
                                                          if (ofGraph[g.index()]) return *ofGraph[g.index()];
                                                          if (!made[g.index()])
                                                              made[g.index()].emplace(*scene.file, g, *scene.roles);
                                                          return *made[g.index()];
                                                      });
}

std::uint32_t Scene::findModule(std::size_t segment, const QString& qualified) const {
    const Segment& s = segments[segment];
    const std::optional<std::string> relative = relativeModule(s.modulePrefix, qualified);
    if (!relative) return fxmem::ModuleTree::npos;
    return relative->empty() && !s.modulePrefix.isEmpty() ? fxmem::ModuleTree::kRoot
                                                          : s.attribution->tree().find(*relative);
}

std::size_t Scene::nodeCount() const {
    std::size_t n = 0;
    for (const Segment& s : segments) n += s.analysis->graph().size();
    return n;
}

std::uint32_t Scene::layerDepth() const {
    std::vector<const fxmem::ModuleTree*> trees;
    for (const Segment& s : segments) trees.push_back(&s.attribution->tree());
    return fxmem::layer_depth(trees);
}

Scene::Where Scene::locate(std::int64_t globalStep) const {
    if (!timeline) return {};
    const std::optional<fxmem::TimelinePoint> at = timeline->locate(globalStep);
    if (!at) return {};
    return {static_cast<int>(at->segment), at->step};
}

std::int64_t Scene::globalStep(int segment, fxmem::NodeId node) const {
    const Segment& s = segments[static_cast<std::size_t>(segment)];
    return s.offset + s.layout->step(node);
}

namespace {
// What the views add to an analysis: its layout, attribution and per-node bytes.
Segment makeSegment(std::shared_ptr<const GraphAnalysis> analysis, const fxmem::RoleAssignment& roles,
                    const fxmem::CancelCheck& cancelled) {
    Segment s;
    s.analysis = std::move(analysis);
    fxmem::throw_if_cancelled(cancelled);
    s.attribution = std::make_shared<const fxmem::Attribution>(s.analysis->file(), s.analysis->graph_index(), roles);
    s.layout =
        std::make_shared<const fxmem::GraphLayout>(s.analysis->graph(), std::span<const fxmem::NodeId>(), cancelled);
    const GraphAnalysis& a = *s.analysis;
    const std::size_t n = a.graph().size();
    s.allocated.assign(n, 0);
    s.freed.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        if (i % 4096 == 0) fxmem::throw_if_cancelled(cancelled);
        const fxmem::NodeId id(static_cast<std::int32_t>(i));
        if (a.graph().nodes[i].op == fxmem::OpKind::Output) continue; // output frees nothing
        for (fxmem::StorageId st : a.alias().fresh_of(id))
            if (a.counted()[st.index()]) s.allocated[i] += a.file().nbytes(st);
        for (fxmem::StorageId st : a.alias().last_used_at(id))
            if (a.counted()[st.index()] && a.releasable()[a.alias().allocator[st.index()].index()])
                s.freed[i] += a.file().nbytes(st);
    }
    return s;
}

// One segment per timeline segment; a graph that runs several times (the whole step) shares one
// analysis, and so one layout and attribution.
void addSegments(Scene& scene, const fxmem::RoleAssignment& roles, const fxmem::CancelCheck& cancelled) {
    const fxmem::GraphFile& file = *scene.file;
    std::vector<std::optional<Segment>> byGraph(file.graphs.size());
    for (const fxmem::TimelineSegment& ts : scene.timeline->segments()) {
        std::optional<Segment>& proto = byGraph[ts.graph.index()];
        if (!proto || proto->analysis != ts.analysis) proto = makeSegment(ts.analysis, roles, cancelled);
        Segment seg = *proto;
        seg.offset = ts.offset;
        seg.baseline = ts.baseline;
        seg.baselineStorages = ts.baseline_storages;
        if (ts.entry) {
            const fxmem::StepEntry& entry = file.step[*ts.entry];
            seg.entry = static_cast<int>(*ts.entry);
            seg.name = fxmem::step_entry_name(file, entry);
            seg.modulePrefix = QString::fromStdString(entry.module_prefix);
        }
        scene.segments.push_back(std::move(seg));
    }
}
} // namespace

std::shared_ptr<const Scene> buildScene(std::shared_ptr<const fxmem::GraphFile> file, const QString& path,
                                        SceneRequest request, const fxmem::CancelCheck& cancelled,
                                        std::shared_ptr<const fxmem::GraphFile> loaded) {
    auto scene = std::make_shared<Scene>();
    scene->loaded = loaded ? std::move(loaded) : file;
    const fxmem::SymbolicSizes& symbolic = file->symbolic;
    if (request.sizes.size() != symbolic.symbols.size() || symbolic.empty()) {
        request.sizes.clear();
    } else if (request.sizes != symbolic.bound) {
        // The sizes are ints in the file that every analysis reads: a copy holds the binding.
        auto bound = std::make_shared<fxmem::GraphFile>(*file);
        fxmem::bind_sizes(*bound, fxmem::SizeBinding{request.sizes});
        file = std::move(bound);
    }
    fxmem::throw_if_cancelled(cancelled);
    scene->file = file;
    scene->path = path;
    const int graphs = static_cast<int>(file->graphs.size());
    const int pairs = static_cast<int>(file->pairs.size());
    if (request.pair >= pairs) request.pair = -1;
    if (request.graph >= graphs) request.graph = -1;
    request.wholeStep = request.graph < 0 && request.pair < 0 && !file->step.empty();
    if (request.graph < 0 && request.pair < 0 && !request.wholeStep && graphs > 0) request.graph = 0;
    scene->request = request;
    scene->roles = std::make_shared<const fxmem::RoleAssignment>(fxmem::resolve_roles(*file));
    const fxmem::RoleAssignment& roles = *scene->roles;
    auto timeline = [&]() -> std::optional<fxmem::Timeline> {
        if (request.wholeStep) return fxmem::Timeline::whole_step(file, request.filter, cancelled);
        if (request.pair >= 0)
            return fxmem::Timeline::pair(file, static_cast<std::size_t>(request.pair), request.filter, cancelled);
        if (request.graph >= 0)
            return fxmem::Timeline::graph(file, fxmem::GraphId(request.graph), request.filter, cancelled);
        return std::nullopt;
    }();
    if (!timeline) return scene;
    scene->timeline = std::make_shared<const fxmem::Timeline>(std::move(*timeline));
    addSegments(*scene, roles, cancelled);
    scene->profile = scene->timeline->profile();
    scene->peak = scene->timeline->peak();
    scene->peakStep = scene->timeline->peak_step();
    scene->pairPeak = scene->timeline->pair_peak();
    scene->step = scene->timeline->step();
    return scene;
}
