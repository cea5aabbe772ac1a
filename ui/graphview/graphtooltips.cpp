#include "graphview/graphtooltips.h"

#include "graphview/elide.h"
#include "util/text.h"
#include "util/units.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>

namespace {
QString tr(const char* text) { return QCoreApplication::translate("GraphView", text); }
} // namespace

QString nodeTooltip(const Segment& seg, const std::vector<fxmem::OpCategory>* categories, fxmem::NodeId node,
                    std::int64_t step) {
    const fxmem::Graph& g = seg.analysis->graph();
    const fxmem::Node& n = g.node(node);
    QString t = QStringLiteral("<b>%1</b><br>%2 <code>%3</code>")
                    .arg(elided(n.name, 120).toHtmlEscaped(), toQString(fxmem::to_string(n.op)),
                         elided(g.target(node), 120).toHtmlEscaped());
    if (categories)
        t += QStringLiteral(" (%1)").arg(toQString(fxmem::to_string(fxmem::node_category(g, node, *categories))));
    if (const fxmem::ModuleInfo* m = g.module(node)) {
        const QString name = m->name.empty() ? tr("(model)") : elided(m->name, 120).toHtmlEscaped();
        t += tr("<br>module %1").arg(name);
        if (!m->type.empty()) t += QStringLiteral(" <i>%1</i>").arg(elided(m->type, 60).toHtmlEscaped());
    }
    // Output tensors: dtype and shape, a few at most.
    const auto tensors = g.node_tensors(node);
    QStringList shapes;
    for (std::size_t i = 0; i < tensors.size() && i < 4; ++i) {
        QStringList dims;
        for (std::int64_t d : g.shape(tensors[i])) dims << QString::number(d);
        shapes << QStringLiteral("%1[%2]").arg(
            elided(seg.analysis->file().dtypes[tensors[i].dtype], 20).toHtmlEscaped(), dims.join(QStringLiteral(", ")));
    }
    if (tensors.size() > 4) shapes << tr("… %1 more").arg(tensors.size() - 4);
    if (!shapes.isEmpty()) t += QStringLiteral("<br>") + shapes.join(QStringLiteral(", "));
    t += tr("<br>step %1").arg(step);
    t += tr("<br>allocates %1, frees %2")
             .arg(formatBytes(seg.allocated[node.index()]), formatBytes(seg.freed[node.index()]));
    return t;
}

QString moduleTooltip(const fxmem::ModuleTree& tree, std::uint32_t module, bool inBand, bool collapsed,
                      const std::vector<std::uint32_t>& boxNodes) {
    const fxmem::ModuleTree::Module& m = tree[module];
    QString t = QStringLiteral("<b>%1</b>").arg(m.name.empty() ? tr("(model)") : elided(m.name, 120).toHtmlEscaped());
    if (!m.type.empty()) t += QStringLiteral(" <i>%1</i>").arg(elided(m.type, 60).toHtmlEscaped());
    if (inBand) {
        t += collapsed ? tr("<br>Click to expand") : tr("<br>Click to collapse");
    } else {
        for (std::uint32_t nodes : boxNodes) t += tr("<br>%1 nodes").arg(nodes);
        t += tr("<br>Collapsed: click to open one level");
    }
    return t;
}

QString spanTooltip(const fxmem::Graph& g, fxmem::NodeId start, fxmem::NodeId wait, std::int64_t a, std::int64_t b) {
    return tr("<b>%1</b> in flight from step %2 to %3 (%4 nodes run meanwhile)<br>started by %5, waited by %6")
        .arg(elided(fxmem::short_op(g.target(start)), 60).toHtmlEscaped())
        .arg(a)
        .arg(b)
        .arg(std::max<std::int64_t>(0, (b - a) / 2 - 1))
        .arg(elided(g.node(start).name, 80).toHtmlEscaped(), elided(g.node(wait).name, 80).toHtmlEscaped());
}
