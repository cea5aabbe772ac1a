// RecomputePanel's edits of the shown pair (the live table's Recompute/Save, undoable) and what
// it tells the graph view and the inspector about recomputed nodes.
#include "recompute/recomputepanel.h"

#include "loading/scene.h"
#include "recompute/rematedit.h"
#include "state/rematcommand.h"
#include "state/viewstate.h"
#include "util/text.h"
#include "util/units.h"

#include <QUndoStack>

#include <algorithm>

using Kind = RecomputePoint::Kind;

bool RecomputePanel::isMade(const std::shared_ptr<const fxmem::GraphFile>& file) const {
    return std::any_of(made_.begin(), made_.end(), [&](const Made& m) { return m.file == file; });
}

bool RecomputePanel::shownSaved(std::vector<fxmem::NodeId>* saved, QString* why) const {
    const auto fail = [why](const QString& reason) {
        if (why) *why = reason;
        return false;
    };
    const auto& scene = state_->scene();
    const RecomputePoints& pts = points();
    if (!scene || !file_) return fail(tr("The file has no joint graph."));
    if (!pts.jointGraph)
        return fail(pts.jointError.empty() ? tr("The file has no joint graph.")
                                           : tr("The joint graph is unusable: %1").arg(elided(pts.jointError, 400)));
    for (const Made& m : made_)
        if (m.file == scene->file) {
            *saved = m.saved;
            return true;
        }
    const int pair = scene->request.pair;
    if (scene->file != file_ || pair < 0 ||
        file_->pairs[static_cast<std::size_t>(pair)].joint != fxmem::GraphId(pts.joint))
        return fail(
            tr("The shown graph is not a pair partitioned from the joint graph; show a budget pair or the plan."));
    try {
        *saved = fxmem::saved_of_pair(*pts.jointGraph, file_->pairs[static_cast<std::size_t>(pair)]);
    } catch (const fxmem::Error& e) {
        return fail(toQString(e.what()));
    }
    return true;
}

QString RecomputePanel::actionFor(fxmem::StorageId storage, QString* why) const {
    std::vector<fxmem::NodeId> saved;
    if (!shownSaved(&saved, why)) return {};
    const fxmem::JointGraph& joint = *points().jointGraph;
    const auto holds = [&](fxmem::NodeId n) {
        const auto outs = joint.g().outputs(n);
        return std::find(outs.begin(), outs.end(), storage) != outs.end();
    };
    if (std::any_of(saved.begin(), saved.end(), holds)) return tr("Recompute in backward");
    try {
        const fxmem::Partition p = fxmem::simulate_partition(joint, saved);
        if (std::any_of(p.recomputed.begin(), p.recomputed.end(), holds)) return tr("Save in forward");
    } catch (const fxmem::Error& e) {
        if (why) *why = toQString(e.what());
        return {};
    }
    if (why) *why = tr("Not a saved activation or a recomputed value of this pair.");
    return {};
}

bool RecomputePanel::toggleStorage(fxmem::StorageId storage, QString* why) {
    QString reason;
    std::vector<fxmem::NodeId> saved;
    const auto refuse = [&](const QString& r) {
        if (why) *why = r;
        lastEdit_ = [r] { return r; };
        updateSummary();
        emit rematEdited(r);
        return false;
    };
    if (!shownSaved(&saved, &reason)) return refuse(reason);
    const fxmem::JointGraph& joint = *points().jointGraph;
    const std::shared_ptr<const Scene> scene = state_->scene();
    RematEditResult r;
    try {
        r = editAtStorage(joint, saved, storage, "edit" + std::to_string(++edits_));
    } catch (const fxmem::Error& e) {
        return refuse(tr("Refused: %1").arg(elided(std::string_view(e.what()), 400)));
    }
    made_.push_back({r.file, r.saved, r.plan});
    const RecomputePoints& pts = points();
    const std::int64_t base = pts.baseFlops > 0 ? pts.baseFlops : r.flopsBefore;
    lastExtra_ = r.partition.flops - base;
    const QString name = elided(joint.g().node(r.node).name, 80);
    const QString what = r.recompute ? tr("Recompute %1 in backward").arg(name) : tr("Save %1 in forward").arg(name);
    const std::int64_t delta = r.partition.flops - r.flopsBefore;
    const std::int64_t before = scene->pairPeak ? scene->pairPeak->peak : scene->peak, after = r.peak.peak;
    const double extra = 100.0 * static_cast<double>(lastExtra_) / static_cast<double>(std::max<std::int64_t>(base, 1));
    // Formatted again when the byte units change, while the summary shows it.
    const auto text = [what, before, after, delta, extra] {
        return tr("%1: pair peak %2 → %3, FLOPs %4%L5 (+%6 % over budget 1.0)")
            .arg(what, formatBytes(before), formatBytes(after), delta >= 0 ? QStringLiteral("+") : QString())
            .arg(static_cast<qlonglong>(delta))
            .arg(extra, 0, 'f', 1);
    };
    const QString message = text();
    const auto show = [this](const std::shared_ptr<const fxmem::GraphFile>& file, int pair) {
        emit pairRequested(file, pair);
    };
    state_->pairEdits()->push(new RematCommand(show, {scene->file, scene->request.pair}, {r.file, 0}, what));
    // QString, not the QStringBuilder of a temporary that `auto` would return (QT_USE_QSTRINGBUILDER).
    lastEdit_ = [text]() -> QString { return text() + QLatin1Char('.'); };
    // The edited pair joins the plot and the table, where a click shows it again.
    RecomputePoint point;
    point.kind = Kind::Edit;
    point.peak = r.peak.peak;
    point.extraFlops = lastExtra_;
    point.savedBytes = savedBytes(joint, r.saved);
    point.made = static_cast<int>(made_.size()) - 1;
    point.label = what.toStdString();
    RecomputePoints pts2 = points();
    pts2.points.push_back(std::move(point));
    pts2.markLowest();
    showPoints(pts2);
    updateSummary();
    emit rematEdited(message);
    return true;
}

bool RecomputePanel::isRecomputed(const Scene& scene, NodeRef ref) const {
    const RecomputePoints& pts = points();
    if (!pts.jointGraph || !scene.joined() || scene.wholeStep() || ref.segment != 1 || !ref.node.valid()) return false;
    const bool ofJoint =
        (scene.file == file_ && scene.request.pair >= 0 &&
         file_->pairs[static_cast<std::size_t>(scene.request.pair)].joint == fxmem::GraphId(pts.joint)) ||
        isMade(scene.file);
    if (!ofJoint) return false;
    const fxmem::Graph& g = scene.segments[1].analysis->graph();
    if (g.node(ref.node).op == fxmem::OpKind::Placeholder || g.node(ref.node).op == fxmem::OpKind::Output) return false;
    const fxmem::JointGraph& joint = *pts.jointGraph;
    const fxmem::NodeId j = joint.g().find(g.node(ref.node).name);
    return j.valid() && joint.forward[j.index()] != 0;
}

QString RecomputePanel::recomputedNote(const Scene& scene, NodeRef ref) const {
    if (!isRecomputed(scene, ref)) return {};
    const fxmem::Graph& g = scene.segments[1].analysis->graph();
    QStringList from;
    for (fxmem::NodeId in : g.inputs(ref.node))
        from << QStringLiteral("<a href=\"node:1:%1\">%2</a>")
                    .arg(in.value)
                    .arg(elided(g.node(in).name).toHtmlEscaped());
    return tr("<b>recomputed</b> in the backward from %1 (the forward computes it too; it is not saved)")
        .arg(from.isEmpty() ? tr("nothing") : from.join(QStringLiteral(", ")));
}

std::vector<NodeRef> RecomputePanel::recomputedNodes(const Scene& scene) const {
    std::vector<NodeRef> out;
    if (!points().jointGraph || !scene.joined() || scene.wholeStep()) return out;
    const std::size_t n = scene.segments[1].analysis->graph().size();
    for (std::size_t i = 0; i < n; ++i)
        if (const NodeRef ref{1, fxmem::NodeId(static_cast<std::int32_t>(i))}; isRecomputed(scene, ref))
            out.push_back(ref);
    return out;
}
