// The box sizes the app's Dataflow mode draws with: a node's op and output shape on two lines, an
// input's name, a collapsed module's name and bytes. fxmem-cli layout uses them too, so that its
// JSON is the drawing the app shows (core's DataflowOptions defaults stay the layout's own).
//
// Lifetime and threads: use_drawn_sizes captures `graph`, which must outlive the options. Any thread.
#pragma once
#include "fxmem/dataflow_layout.h"
#include "fxmem/model.h"

namespace fxmem {

inline constexpr BoxSize kDrawnNode{150, 38}, kDrawnInput{100, 38}, kDrawnModule{210, 58};

inline void use_drawn_sizes(DataflowOptions& options, const Graph& graph) {
    options.default_node = kDrawnNode;
    options.default_module = kDrawnModule;
    options.node_size = [g = &graph](NodeId n) {
        const OpKind op = g->node(n).op;
        return op == OpKind::Placeholder || op == OpKind::GetAttr ? kDrawnInput : kDrawnNode;
    };
}

} // namespace fxmem
