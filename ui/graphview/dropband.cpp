#include "graphview/dropband.h"

#include "graphview/elide.h"
#include "state/editedschedule.h"

#include <fxmem/profile_steps.h>

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>
#include <cmath>

namespace {
QString tr(const char* text) { return QCoreApplication::translate("GraphView", text); }
} // namespace

DropBand dropBandOf(const EditedSchedule& schedule, const fxmem::Graph& g, fxmem::NodeId node) {
    DropBand d;
    if (!fxmem::has_profile_points(g.node(node).op)) {
        d.why = tr("'%1' is a %2: it is not scheduled (live from the start or at the end).")
                    .arg(elided(g.node(node).name, 80),
                         QString::fromStdString(std::string(fxmem::to_string(g.node(node).op))));
        return d;
    }
    // Core's legal range (inputs, users, the output node last, and the storages the node
    // allocates or uses), drawn on the profile steps of the nodes that run inside it.
    const fxmem::IncrementalSchedule::LegalRange range = schedule.legalRange(schedule.positionOf(node));
    const std::size_t k0 = schedule.runningBefore(range.lo);
    const std::size_t k1 = std::max<std::size_t>(schedule.runningBefore(range.hi + 1), k0 + 1);
    d.ok = true;
    d.loStep = fxmem::alloc_step(k0);
    d.hiStep = fxmem::alloc_step(k1 - 1);
    const QString name = elided(g.node(node).name, 80);
    const auto has = [](std::span<const fxmem::NodeId> nodes, fxmem::NodeId n) {
        return std::find(nodes.begin(), nodes.end(), n) != nodes.end();
    };
    QStringList parts;
    if (const fxmem::NodeId b = range.blocker_before; b.valid())
        parts << (has(g.inputs(node), b) ? tr("after its input '%1'")
                                         : tr("after '%1', which allocates a storage it uses"))
                     .arg(elided(g.node(b).name, 80));
    if (const fxmem::NodeId a = range.blocker_after; a.valid())
        parts << (has(g.users(node), a)                   ? tr("before its user '%1'")
                  : g.node(a).op == fxmem::OpKind::Output ? tr("before the output node '%1'")
                                                          : tr("before '%1', which uses a storage it allocates"))
                     .arg(elided(g.node(a).name, 80));
    d.why = parts.isEmpty() ? tr("'%1' can go anywhere").arg(name)
                            : tr("'%1' must stay %2").arg(name, parts.join(tr(" and ")));
    return d;
}

std::size_t dropPosition(const EditedSchedule& schedule, double step) {
    if (schedule.runningCount() == 0) return 0;
    const auto k = std::clamp<std::int64_t>(std::llround((step - 1) / 2), 0,
                                            static_cast<std::int64_t>(schedule.runningCount()) - 1);
    return schedule.positionOfProfileStep(fxmem::alloc_step(static_cast<std::size_t>(k)));
}
