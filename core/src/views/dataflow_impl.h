// The state behind fxmem::DataflowLayout, shared by its layout and its drawing files: which
// modules are laid out, each one's items and lifted edges, and keeping the rest of the drawing in
// place when one module expands or collapses.
#pragma once
#include "fxmem/dataflow_layout.h"

#include "fxmem/error.h"
#include "views/dataflow_level.h"
#include "views/dataflow_modules.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <queue>
#include <string>

namespace fxmem {

struct DataflowLayout::Impl {
    const GraphFile* file;
    const Graph* graph;
    DataflowOptions opt;
    detail::ModuleIndex index;
    detail::Spacing spacing;
    std::vector<ModuleRepeat> repeats;
    std::vector<std::int64_t> allocated;
    std::vector<std::uint8_t> expanded; // per module: wanted open (the root always is)
    std::vector<std::int32_t> level_of; // per module: its slot in levels, -1 when not laid out
    std::vector<std::unique_ptr<detail::Level>> levels;
    // Empty slots of levels, the lowest on top (a find over levels per module was quadratic).
    std::priority_queue<std::int32_t, std::vector<std::int32_t>, std::greater<>> free_levels;
    std::vector<std::uint32_t> item_of_node;   // per node: its item in its module's level
    std::vector<std::uint32_t> item_of_module; // per module: its item in its parent's level

    Impl(const GraphFile& f, std::size_t g, const ModuleTree& tree, DataflowOptions o)
        : file(&f), graph(&f.graphs.at(g)), opt(std::move(o)), index(*graph, tree) {
        spacing = {opt.layer_gap, opt.node_gap, opt.edge_gap};
        repeats = detail::module_repeats(*graph, index);
        allocated = detail::module_allocated(*file, *graph, index, opt.counted);
        const std::size_t m = index.tree.size();
        expanded.assign(m, 0);
        for (std::uint32_t i = 0; i < m; ++i) expanded[i] = index.tree[i].depth < opt.depth ? 1 : 0;
        if (m > 0) expanded[ModuleTree::kRoot] = 1;
        level_of.assign(m, -1);
        item_of_node.assign(graph->size(), 0);
        item_of_module.assign(m, 0);
        if (m > 0) lay_out_subtree(ModuleTree::kRoot);
    }

    BoxSize node_size(NodeId n) const { return opt.node_size ? opt.node_size(n) : opt.default_node; }
    BoxSize collapsed_size(std::uint32_t m) const { return opt.module_size ? opt.module_size(m) : opt.default_module; }
    const detail::Level& level(std::uint32_t m) const { return *levels[static_cast<std::size_t>(level_of[m])]; }
    detail::Level& level(std::uint32_t m) { return *levels[static_cast<std::size_t>(level_of[m])]; }
    BoxSize open_size(std::uint32_t m) const {
        const detail::Level& l = level(m);
        return {l.width + 2 * opt.module_pad, l.height + opt.module_header + opt.module_pad};
    }
    bool has_nodes(std::uint32_t m) const { return index.first_node[m] >= 0; }

    // The item of `m`'s level that holds node v (v inside m).
    std::uint32_t item_for(std::uint32_t m, NodeId v) const {
        const std::uint32_t own = index.module_of[v.index()];
        return own == m ? item_of_node[v.index()] : item_of_module[index.child_toward(m, own)];
    }

    // Lays out m and its expanded descendants, children first (no recursion: nesting may be deep).
    void lay_out_subtree(std::uint32_t m) {
        std::vector<std::uint32_t> order, stack{m};
        while (!stack.empty()) {
            const std::uint32_t a = stack.back();
            stack.pop_back();
            order.push_back(a);
            for (const std::uint32_t c : index.tree[a].children)
                if (expanded[c] && has_nodes(c)) stack.push_back(c);
        }
        for (auto it = order.rbegin(); it != order.rend(); ++it) lay_out_one(*it);
    }

    void lay_out_one(std::uint32_t m) {
        throw_if_cancelled(opt.cancelled);
        detail::LevelInput in;
        const auto add = [&](detail::ItemKind kind, std::uint32_t ref, BoxSize size, std::int64_t key) {
            in.kind.push_back(kind);
            in.ref.push_back(ref);
            in.size.push_back(size);
            in.key.push_back(key);
            return static_cast<std::uint32_t>(in.kind.size() - 1);
        };
        for (const NodeId n : index.direct_nodes(m))
            item_of_node[n.index()] =
                add(detail::ItemKind::Node, static_cast<std::uint32_t>(n.index()), node_size(n), n.index());
        for (const std::uint32_t c : index.tree[m].children) {
            if (!has_nodes(c)) continue;
            const BoxSize size = level_of[c] >= 0 ? open_size(c) : collapsed_size(c);
            item_of_module[c] = add(detail::ItemKind::Module, c, size, index.first_node[c]);
        }
        const bool inner = m != ModuleTree::kRoot;
        const std::uint32_t entry = inner ? add(detail::ItemKind::In, m, {0, 0}, -1) : 0;
        const std::uint32_t exit =
            inner ? add(detail::ItemKind::Out, m, {0, 0}, std::numeric_limits<std::int64_t>::max()) : 0;
        for (const NodeId v : index.subtree_nodes(m)) {
            const std::uint32_t cv = item_for(m, v);
            for (const NodeId u : graph->inputs(v)) {
                if (index.inside(m, u)) {
                    const std::uint32_t cu = item_for(m, u);
                    if (cu != cv) in.edges.emplace_back(cu, cv);
                } else {
                    in.edges.emplace_back(entry, cv);
                }
            }
            if (!inner) continue;
            for (const NodeId w : graph->users(v))
                if (!index.inside(m, w)) in.edges.emplace_back(cv, exit);
        }
        std::sort(in.edges.begin(), in.edges.end());
        in.edges.erase(std::unique(in.edges.begin(), in.edges.end()), in.edges.end());

        auto level = std::make_unique<detail::Level>();
        level->module = m;
        level->entry = entry;
        level->exit = exit;
        detail::assign_layers(in, *level);
        detail::reduce_crossings(*level, opt.crossing_sweeps, opt.cancelled);
        detail::assign_coordinates(*level, spacing, opt.coordinate_sweeps);
        if (level_of[m] >= 0) {
            levels[static_cast<std::size_t>(level_of[m])] = std::move(level);
            return;
        }
        if (free_levels.empty()) {
            level_of[m] = static_cast<std::int32_t>(levels.size());
            levels.push_back(std::move(level));
        } else {
            level_of[m] = free_levels.top();
            free_levels.pop();
            levels[static_cast<std::size_t>(level_of[m])] = std::move(level);
        }
    }

    // Forgets the layout of m and of every laid-out module inside it.
    void drop(std::uint32_t m) {
        std::vector<std::uint32_t> stack{m};
        while (!stack.empty()) {
            const std::uint32_t a = stack.back();
            stack.pop_back();
            if (level_of[a] < 0) continue;
            levels[static_cast<std::size_t>(level_of[a])].reset();
            free_levels.push(level_of[a]);
            level_of[a] = -1;
            for (const std::uint32_t c : index.tree[a].children) stack.push_back(c);
        }
    }

    // m's box has a new size: in each ancestor's level, the items right of it in its row move
    // by the change of width and the rows below by the change of the row's height.
    void resize(std::uint32_t m, BoxSize size) {
        while (m != ModuleTree::kRoot) {
            const std::uint32_t parent = index.tree[m].parent;
            detail::Level& l = level(parent);
            const std::uint32_t i = item_of_module[m];
            const double dw = size.w - l.w[i];
            l.w[i] = size.w;
            l.h[i] = size.h;
            const auto r = static_cast<std::size_t>(l.layer[i]);
            const std::vector<std::uint32_t>& row = l.rows[r];
            for (std::size_t p = l.pos[i] + 1; p < row.size(); ++p) l.x[row[p]] += dw;
            double height = 0;
            for (const std::uint32_t a : row) height = std::max(height, l.h[a]);
            const double dh = height - l.row_height[r];
            l.row_height[r] = height;
            for (std::size_t below = r + 1; below < l.rows.size(); ++below) l.row_top[below] += dh;
            l.width = 0;
            for (std::size_t a = 0; a < l.x.size(); ++a) l.width = std::max(l.width, l.x[a] + l.w[a]);
            l.height = l.row_top.back() + l.row_height.back();
            size = open_size(parent);
            m = parent;
        }
    }

    void check(std::uint32_t m) const {
        if (m >= index.tree.size())
            throw PreconditionError("dataflow layout: no module " + std::to_string(m) + " (the tree has " +
                                    std::to_string(index.tree.size()) + ")");
    }

    std::uint32_t lca(std::uint32_t a, std::uint32_t b) const {
        const ModuleTree& t = index.tree;
        while (t[a].depth > t[b].depth) a = t[a].parent;
        while (t[b].depth > t[a].depth) b = t[b].parent;
        while (a != b) {
            a = t[a].parent;
            b = t[b].parent;
        }
        return a;
    }
};

} // namespace fxmem
