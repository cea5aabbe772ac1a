#include "dataflow/dataflowlabels.h"

#include "util/text.h"

#include <QStringList>

namespace {
constexpr std::size_t kMaxLabelBytes = 120; // a box shows a few dozen characters at most
}

QString opLabel(const fxmem::Graph& graph, fxmem::NodeId node) {
    const fxmem::Node& n = graph.node(node);
    if (n.op == fxmem::OpKind::Placeholder || n.op == fxmem::OpKind::GetAttr || n.op == fxmem::OpKind::Output)
        return elided(n.name, kMaxLabelBytes);
    std::string_view t = graph.target(node);
    // "aten.mm.default" -> "mm": the namespace and the overload say little in a box.
    if (const auto dot = t.find('.'); dot != std::string_view::npos && t.substr(0, dot) == "aten")
        t.remove_prefix(dot + 1);
    if (const auto dot = t.rfind('.'); dot != std::string_view::npos && dot > 0) t = t.substr(0, dot);
    return elided(t, kMaxLabelBytes);
}

QString shapeLabel(const fxmem::Graph& graph, fxmem::NodeId node) {
    const auto tensors = graph.node_tensors(node);
    if (tensors.empty()) return {};
    QStringList dims;
    for (std::int64_t d : graph.shape(tensors.front())) dims << QString::number(d);
    QString s = u'[' + dims.join(QStringLiteral(", ")) + u']';
    if (tensors.size() > 1) s += QStringLiteral(" +%1").arg(tensors.size() - 1);
    return s;
}

QString repeatLabel(const fxmem::ModuleTree& tree, const fxmem::ModuleRepeat& repeat) {
    if (repeat.count < 2) return {};
    const std::string_view a = tree[repeat.first].name, b = tree[repeat.last].name;
    // The longest common prefix ending at a dot: "layers." for "layers.0" and "layers.31".
    std::size_t common = 0;
    for (std::size_t i = 0; i < std::min(a.size(), b.size()) && a[i] == b[i]; ++i)
        if (a[i] == '.') common = i + 1;
    return elided(a, kMaxLabelBytes) + QStringLiteral("–") + elided(b.substr(common), kMaxLabelBytes) +
           QStringLiteral(" × %1").arg(repeat.count);
}
