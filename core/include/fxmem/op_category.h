// What kind of work a node does, from its FX op kind and target string as the exporter writes it
// ("aten.mm.default", "aten._scaled_dot_product_flash_attention.default",
// "_c10d_functional.all_gather_into_tensor.default", "operator.getitem", "prims.iota.default").
// For colouring the graph view and for legends. Classify once per interned target
// (Graph::targets), not per node: target_categories() does exactly that.
//
// Pure functions of their arguments: any thread.
#pragma once
#include "fxmem/model.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace fxmem {

enum class OpCategory : std::uint8_t {
    Input,       // placeholder and get_attr nodes
    Output,      // the output node
    Matmul,      // mm, bmm, addmm, baddbmm, linear, _scaled_mm, einsum ...
    Attention,   // scaled dot product / flash / efficient / flex attention, forward and backward
    Convolution, // convolution, convolution_backward, conv*d ...
    Norm,        // layer, batch, group, RMS norm and their backwards
    Reduction,   // sum, mean, amax, softmax, log_softmax, losses, topk, sort, cumsum ...
    Elementwise, // add, mul, relu, gelu, where, casts ... and their backwards
    View,        // view, reshape, t, transpose, permute, expand, slice, select, split, getitem, detach ...
    Copy,        // clone, _to_copy, copy, cat, stack, contiguous ...
    Indexing,    // gather, scatter, index, index_put, embedding, slice_scatter ...
    Creation,    // zeros, ones, empty, full, arange, scalar_tensor, *_like, new_* ...
    Random,      // rand*, bernoulli, dropout, philox/inductor seeds ...
    Collective,  // _c10d_functional / c10d collectives (all_gather, reduce_scatter, all_reduce ...)
    Wait,        // _c10d_functional.wait_tensor: the end of an asynchronous collective
    Other,       // anything else (call_module, unknown ops)
};
inline constexpr std::size_t kOpCategoryCount = 16;

// "matmul", "attention", ... (lower case, stable: used in legends and JSON).
std::string_view to_string(OpCategory category);

// The category of a node with op kind `op` and target `target`.
OpCategory op_category(OpKind op, std::string_view target);

// Per interned target of `graph` (index = Node::target): the category of a call_function /
// call_method node with that target. Placeholder, get_attr, output and call_module nodes are
// classified by op kind alone: use node_category().
std::vector<OpCategory> target_categories(const Graph& graph);
inline OpCategory node_category(const Graph& graph, NodeId node, const std::vector<OpCategory>& by_target) {
    const Node& n = graph.node(node);
    switch (n.op) {
    case OpKind::Placeholder:
    case OpKind::GetAttr: return OpCategory::Input;
    case OpKind::Output: return OpCategory::Output;
    case OpKind::CallModule: return OpCategory::Other;
    default: return by_target[n.target];
    }
}

// The op's short name for labels: "aten.mm.default" -> "mm", "operator.getitem" -> "getitem",
// "_c10d_functional.wait_tensor.default" -> "wait_tensor", "torch.ops.aten.add.Tensor" -> "add",
// "torch.nn.functional.relu" -> "relu". Rule: drop a leading "torch.ops."; three dotted parts
// (namespace.op.overload) give the middle one; otherwise the last part. A view into `target`.
std::string_view short_op(std::string_view target);

} // namespace fxmem
