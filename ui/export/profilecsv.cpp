#include "export/profilecsv.h"

#include <fxmem/profile_steps.h>

namespace {
void appendField(QByteArray& out, std::string_view s) {
    if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
        out.append(s.data(), static_cast<qsizetype>(s.size()));
        return;
    }
    out += '"';
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    out += '"';
}

const char* phaseName(std::int64_t step) {
    switch (fxmem::phase_of(step)) {
    case fxmem::StepPhase::Start: return "start";
    case fxmem::StepPhase::AfterAlloc: return "after_alloc";
    case fxmem::StepPhase::AfterFree: return "after_free";
    }
    return "";
}
} // namespace

QByteArray profileCsv(const Scene& scene, std::span<const std::int64_t> edited,
                      std::span<const fxmem::NodeId> editedOrder) {
    const bool withEdit = !edited.empty() && !scene.joined() && !scene.empty();
    // The whole step runs a graph several times (a region per layer, forward then backward):
    // each row also names its run, as the timeline's sections do.
    const bool runs = scene.wholeStep();
    QByteArray csv = withEdit ? "step,graph,node,phase,bytes,edited_bytes,edited_node\n"
                     : runs   ? "step,run,graph,node,phase,bytes\n"
                              : "step,graph,node,phase,bytes\n";
    std::vector<std::string> runNames;
    if (runs)
        for (std::size_t k = 0; k < scene.segments.size(); ++k) runNames.push_back(scene.segmentName(k).toStdString());
    // The running nodes of the edited order, by position: step 1 + 2k and 2 + 2k are the k-th's.
    std::vector<fxmem::NodeId> running;
    if (withEdit) {
        const fxmem::Graph& g = scene.segments.front().analysis->graph();
        for (fxmem::NodeId n : editedOrder)
            if (fxmem::has_profile_points(g.node(n).op)) running.push_back(n);
    }
    for (std::size_t i = 0; i < scene.profile.size(); ++i) {
        const Scene::Where w = scene.locate(static_cast<std::int64_t>(i));
        const Segment& seg = scene.segments[static_cast<std::size_t>(w.segment)];
        const fxmem::Graph& g = seg.analysis->graph();
        const auto local = static_cast<std::int64_t>(w.step);
        const fxmem::NodeId n = local == 0 ? fxmem::NodeId{} : seg.analysis->live().node_at(w.step);
        csv += QByteArray::number(static_cast<qulonglong>(i)) + ',';
        if (runs) {
            appendField(csv, runNames[static_cast<std::size_t>(w.segment)]);
            csv += ',';
        }
        appendField(csv, g.name);
        csv += ',';
        if (n.valid()) appendField(csv, g.node(n).name);
        csv += ',';
        csv += phaseName(local);
        csv += ',' + QByteArray::number(static_cast<qlonglong>(scene.profile[i]));
        if (withEdit) {
            csv += ',';
            if (i < edited.size()) csv += QByteArray::number(static_cast<qlonglong>(edited[i]));
            csv += ',';
            if (local > 0) {
                const std::size_t k = fxmem::running_position(local);
                if (k < running.size()) appendField(csv, g.node(running[k]).name);
            }
        }
        csv += '\n';
    }
    return csv;
}
