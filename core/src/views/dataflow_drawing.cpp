// DataflowLayout::drawing(): the laid-out levels put together in absolute coordinates. An edge
// between two visible boxes runs, at each level from its source up to the lowest module holding
// both ends, from its item to that module's exit; then between the two items at that level; then
// down from each module's entry to the item on the target's side. A reversed leg (a cycle of
// lifted modules) is drawn upward from the source's top to the target's bottom.
#include "views/dataflow_impl.h"

#include <tuple>

namespace fxmem {

namespace {
constexpr std::uint32_t kNoBox = 0xffffffffu;
}

DataflowDrawing DataflowLayout::drawing() const {
    const Impl& d = *impl_;
    const ModuleTree& tree = d.index.tree;
    DataflowDrawing out;
    if (tree.size() == 0) return out;
    std::vector<std::uint32_t> box_of_node(d.graph->size(), kNoBox), box_of_module(tree.size(), kNoBox);
    std::vector<double> origin_x(tree.size(), 0), origin_y(tree.size(), 0);

    // Boxes, parents before children: breadth first, each module's items in item order.
    struct Open {
        std::uint32_t module;
        std::optional<std::uint32_t> box;
    };
    std::vector<Open> queue{{ModuleTree::kRoot, std::nullopt}};
    for (std::size_t next = 0; next < queue.size(); ++next) {
        const Open o = queue[next];
        const detail::Level& l = d.level(o.module);
        const double ox = origin_x[o.module], oy = origin_y[o.module];
        for (std::uint32_t i = 0; i < l.real_items; ++i) {
            DataflowDrawing::Box b;
            b.x = ox + l.x[i];
            b.y = oy + l.top(i);
            b.w = l.w[i];
            b.h = l.h[i];
            b.parent = o.box;
            b.ref = l.ref[i];
            const auto at = static_cast<std::uint32_t>(out.boxes.size());
            if (l.kind[i] == detail::ItemKind::Node) {
                b.kind = DataflowDrawing::Kind::Node;
                box_of_node[b.ref] = at;
            } else if (l.kind[i] == detail::ItemKind::Module) {
                b.kind = DataflowDrawing::Kind::Module;
                b.expanded = d.level_of[b.ref] >= 0;
                box_of_module[b.ref] = at;
                if (b.expanded) {
                    origin_x[b.ref] = b.x + d.opt.module_pad;
                    origin_y[b.ref] = b.y + d.opt.module_header;
                    queue.push_back({b.ref, at});
                }
            } else {
                continue;
            }
            out.boxes.push_back(b);
        }
    }
    const detail::Level& root = d.level(ModuleTree::kRoot);
    out.width = root.width;
    out.height = root.height;

    // The visible box of each node: its outermost module not laid out, else the node itself.
    const std::size_t n = d.graph->size();
    std::vector<std::uint32_t> visible(n);
    for (std::size_t v = 0; v < n; ++v) {
        std::uint32_t outer = kNoBox;
        for (std::uint32_t a = d.index.module_of[v]; a != ModuleTree::kRoot; a = tree[a].parent)
            if (d.level_of[a] < 0) outer = a;
        visible[v] = outer == kNoBox ? box_of_node[v] : box_of_module[outer];
    }
    // (from box, to box, storage): each storage once per edge.
    std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> carried;
    for (std::size_t u = 0; u < n; ++u) {
        const NodeId id(static_cast<std::int32_t>(u));
        for (const NodeId w : d.graph->users(id)) {
            const std::uint32_t from = visible[u], to = visible[w.index()];
            if (from == to) continue;
            carried.emplace_back(from, to, kNoBox); // the edge, even when nothing it carries counts
            for (const StorageId s : d.graph->outputs(id))
                if (!d.opt.counted || (*d.opt.counted)[s.index()])
                    carried.emplace_back(from, to, static_cast<std::uint32_t>(s.index()));
        }
    }
    std::sort(carried.begin(), carried.end());
    carried.erase(std::unique(carried.begin(), carried.end()), carried.end());

    // Where a box sits: the module whose level holds it, and its item there.
    const auto place = [&](std::uint32_t box) -> std::pair<std::uint32_t, std::uint32_t> {
        const DataflowDrawing::Box& b = out.boxes[box];
        if (b.kind == DataflowDrawing::Kind::Node) {
            const std::uint32_t m = d.index.module_of[b.ref];
            return {m, d.item_of_node[b.ref]};
        }
        return {tree[b.ref].parent, d.item_of_module[b.ref]};
    };
    std::vector<std::pair<std::uint32_t, std::uint32_t>> down_legs; // (module, item) below the meeting level
    for (std::size_t k = 0; k < carried.size();) {
        DataflowDrawing::Edge e;
        e.from = std::get<0>(carried[k]);
        e.to = std::get<1>(carried[k]);
        for (; k < carried.size() && std::get<0>(carried[k]) == e.from && std::get<1>(carried[k]) == e.to; ++k)
            if (std::get<2>(carried[k]) != kNoBox)
                e.bytes += d.file->nbytes(StorageId(static_cast<std::int32_t>(std::get<2>(carried[k]))));
        auto [mu, iu] = place(e.from);
        auto [mv, iv] = place(e.to);
        const std::uint32_t meet = d.lca(mu, mv);
        std::vector<DataflowDrawing::Point> up;
        while (mu != meet) {
            const detail::Level& l = d.level(mu);
            append_route(l, l.route(iu, l.exit), origin_x[mu], origin_y[mu], up);
            iu = d.item_of_module[mu];
            mu = tree[mu].parent;
        }
        down_legs.clear();
        while (mv != meet) {
            down_legs.emplace_back(mv, iv);
            iv = d.item_of_module[mv];
            mv = tree[mv].parent;
        }
        const detail::Level& l = d.level(meet);
        const detail::Level::Route& r = l.route(iu, iv);
        e.reversed = r.reversed;
        e.straight = r.straight;
        if (r.reversed) {
            const DataflowDrawing::Box &bf = out.boxes[e.from], &bt = out.boxes[e.to];
            e.points.push_back({bf.x + bf.w / 2, bf.y});
            append_route(l, r, origin_x[meet], origin_y[meet], e.points);
            e.points.push_back({bt.x + bt.w / 2, bt.y + bt.h});
        } else {
            e.points = std::move(up);
            e.points.reserve(e.points.size() + 2 + 2 * static_cast<std::size_t>(r.end - r.begin));
            append_route(l, r, origin_x[meet], origin_y[meet], e.points);
            for (auto it = down_legs.rbegin(); it != down_legs.rend(); ++it) {
                const detail::Level& inner = d.level(it->first);
                append_route(inner, inner.route(inner.entry, it->second), origin_x[it->first], origin_y[it->first],
                             e.points);
            }
        }
        // Consecutive repeats (where legs meet) are dropped.
        e.points.erase(std::unique(e.points.begin(), e.points.end()), e.points.end());
        out.edges.push_back(std::move(e));
    }
    return out;
}

} // namespace fxmem
