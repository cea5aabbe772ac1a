// Op categories from target strings. A target is classified by its namespace (collectives),
// then by its short op name: in-place ("add_") and backward ("gelu_backward") forms fall back to
// their base op, a few families are recognised by substring ("attention", "batch_norm",
// "softmax", "pool"), the rest by exact name. Called once per interned target, so plain tables.
#include "fxmem/op_category.h"

#include <array>
#include <string>
#include <unordered_map>

namespace fxmem {

namespace {

constexpr std::array<std::string_view, kOpCategoryCount> kNames = {
    "input", "output", "matmul",   "attention", "convolution", "norm",       "reduction", "elementwise",
    "view",  "copy",   "indexing", "creation",  "random",      "collective", "wait",      "other"};

struct Family {
    OpCategory category;
    std::initializer_list<std::string_view> ops;
};

const std::unordered_map<std::string_view, OpCategory>& exact_names() {
    static const auto* table = [] {
        const Family families[] = {
            {OpCategory::Matmul,
             {"mm",
              "bmm",
              "addmm",
              "baddbmm",
              "addbmm",
              "matmul",
              "linear",
              "addmv",
              "mv",
              "dot",
              "vdot",
              "_scaled_mm",
              "einsum",
              "_int_mm",
              "_grouped_mm",
              "_scaled_grouped_mm",
              "outer",
              "ger",
              "_addmm_activation",
              "tensordot"}},
            {OpCategory::Reduction,
             {"sum",
              "mean",
              "amax",
              "amin",
              "max",
              "min",
              "prod",
              "var",
              "std",
              "var_mean",
              "std_mean",
              "norm",
              "linalg_vector_norm",
              "argmax",
              "argmin",
              "logsumexp",
              "cumsum",
              "cumprod",
              "cummax",
              "cummin",
              "topk",
              "sort",
              "argsort",
              "all",
              "any",
              "nll_loss",
              "nll_loss_forward",
              "nll_loss2d_forward",
              "cross_entropy_loss",
              "mse_loss",
              "l1_loss",
              "smooth_l1_loss",
              "huber_loss",
              "binary_cross_entropy",
              "binary_cross_entropy_with_logits",
              "kl_div",
              "count_nonzero",
              "aminmax",
              "median",
              "mode",
              "kthvalue",
              "nansum"}},
            {OpCategory::View, {"view",      "_unsafe_view", "reshape", "_reshape_alias", "t",
                                "transpose", "permute",      "expand",  "expand_as",      "unsqueeze",
                                "squeeze",   "slice",        "select",  "split",          "split_with_sizes",
                                "unbind",    "as_strided",   "alias",   "detach",         "narrow",
                                "chunk",     "tensor_split", "unfold",  "view_as_real",   "view_as_complex",
                                "view_as",   "diagonal",     "movedim", "getitem",        "unflatten",
                                "flatten",   "numpy_T",      "mT",      "lift_fresh",     "real",
                                "imag"}},
            {OpCategory::Copy,
             {"clone",
              "_to_copy",
              "copy",
              "contiguous",
              "cat",
              "stack",
              "concat",
              "concatenate",
              "hstack",
              "vstack",
              "to",
              "lift_fresh_copy",
              "repeat",
              "tile",
              "flip",
              "roll",
              "constant_pad_nd",
              "pad",
              "split_with_sizes_copy",
              "all_gather_copy_in",
              "chunk_cat"}},
            {OpCategory::Indexing,
             {"gather",         "scatter",          "scatter_add",        "scatter_reduce",    "index",
              "_unsafe_index",  "index_select",     "index_put",          "_unsafe_index_put", "index_add",
              "index_copy",     "index_fill",       "embedding",          "embedding_dense",   "slice_scatter",
              "select_scatter", "diagonal_scatter", "as_strided_scatter", "masked_scatter",    "masked_select",
              "take",           "nonzero",          "bucketize",          "searchsorted",      "one_hot"}},
            {OpCategory::Creation, {"zeros",
                                    "ones",
                                    "empty",
                                    "empty_strided",
                                    "empty_like",
                                    "zeros_like",
                                    "ones_like",
                                    "full",
                                    "full_like",
                                    "new_zeros",
                                    "new_ones",
                                    "new_empty",
                                    "new_empty_strided",
                                    "new_full",
                                    "arange",
                                    "scalar_tensor",
                                    "eye",
                                    "linspace",
                                    "logspace",
                                    "iota"}},
            {OpCategory::Random,
             {"rand",
              "randn",
              "randint",
              "rand_like",
              "randn_like",
              "randint_like",
              "randperm",
              "bernoulli",
              "uniform",
              "normal",
              "exponential",
              "multinomial",
              "geometric",
              "cauchy",
              "log_normal",
              "poisson",
              "philox_rand",
              "inductor_random",
              "inductor_seeds",
              "inductor_lookup_seed",
              "seed",
              "run_and_save_rng_state",
              "run_with_rng_state"}},
            {OpCategory::Elementwise,
             {"add",
              "sub",
              "rsub",
              "mul",
              "div",
              "neg",
              "relu",
              "relu6",
              "gelu",
              "silu",
              "sigmoid",
              "tanh",
              "exp",
              "exp2",
              "expm1",
              "log",
              "log1p",
              "log2",
              "log10",
              "pow",
              "sqrt",
              "rsqrt",
              "abs",
              "where",
              "clamp",
              "clamp_min",
              "clamp_max",
              "clip",
              "threshold",
              "hardtanh",
              "hardswish",
              "hardsigmoid",
              "leaky_relu",
              "elu",
              "selu",
              "celu",
              "mish",
              "softplus",
              "glu",
              "erf",
              "erfc",
              "erfinv",
              "sin",
              "cos",
              "tan",
              "asin",
              "acos",
              "atan",
              "atan2",
              "sinh",
              "cosh",
              "eq",
              "ne",
              "lt",
              "gt",
              "le",
              "ge",
              "logical_and",
              "logical_or",
              "logical_not",
              "logical_xor",
              "bitwise_and",
              "bitwise_or",
              "bitwise_not",
              "bitwise_xor",
              "maximum",
              "minimum",
              "fmax",
              "fmin",
              "reciprocal",
              "sign",
              "sgn",
              "floor",
              "ceil",
              "round",
              "trunc",
              "frac",
              "remainder",
              "fmod",
              "masked_fill",
              "tril",
              "triu",
              "fill",
              "lerp",
              "addcmul",
              "addcdiv",
              "square",
              "isnan",
              "isinf",
              "isfinite",
              "nan_to_num",
              "logit",
              "xlogy",
              "hypot",
              "copysign",
              "floor_divide",
              "true_divide",
              "convert_element_type",
              "prelu",
              "hardshrink",
              "softshrink",
              "polar",
              "angle",
              "conj",
              "bitwise_left_shift",
              "bitwise_right_shift",
              "heaviside",
              "clamp_tensor"}},
        };
        auto* t = new std::unordered_map<std::string_view, OpCategory>();
        for (const Family& f : families)
            for (std::string_view op : f.ops) t->emplace(op, f.category);
        return t;
    }();
    return *table;
}

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

OpCategory by_op_name(std::string_view op) {
    // Families recognised by part of the name, forward and backward alike.
    if (contains(op, "attention")) return OpCategory::Attention;
    if ((op.starts_with("conv") || op.starts_with("_conv") || contains(op, "cudnn_conv") ||
         contains(op, "mkldnn_conv")) &&
        !contains(op, "convert"))
        return OpCategory::Convolution;
    for (std::string_view norm : {"layer_norm", "batch_norm", "group_norm", "rms_norm", "instance_norm"})
        if (contains(op, norm)) return OpCategory::Norm;
    if (contains(op, "softmax") || contains(op, "pool")) return OpCategory::Reduction;
    if (contains(op, "dropout")) return OpCategory::Random;
    if (op.starts_with("_foreach_")) return OpCategory::Elementwise;
    const auto& table = exact_names();
    if (auto it = table.find(op); it != table.end()) return it->second;
    // In-place and backward forms: "add_" -> "add", "gelu_backward" -> "gelu",
    // "nll_loss_backward" -> "nll_loss".
    if (op.size() > 1 && op.back() == '_' && op[op.size() - 2] != '_') return by_op_name(op.substr(0, op.size() - 1));
    for (std::string_view suffix : {"_backward_data", "_backward"})
        if (op.size() > suffix.size() && op.ends_with(suffix))
            return by_op_name(op.substr(0, op.size() - suffix.size()));
    return OpCategory::Other;
}

} // namespace

std::string_view to_string(OpCategory category) { return kNames[static_cast<std::size_t>(category)]; }

std::string_view short_op(std::string_view target) {
    if (target.starts_with("torch.ops.")) target.remove_prefix(10);
    const std::size_t first = target.find('.');
    if (first == std::string_view::npos) return target;
    const std::size_t last = target.rfind('.');
    const std::size_t second = target.find('.', first + 1);
    if (second == last) return target.substr(first + 1, last - first - 1); // namespace.op.overload
    return target.substr(last + 1);
}

OpCategory op_category(OpKind op, std::string_view target) {
    switch (op) {
    case OpKind::Placeholder:
    case OpKind::GetAttr: return OpCategory::Input;
    case OpKind::Output: return OpCategory::Output;
    case OpKind::CallModule: return OpCategory::Other;
    default: break;
    }
    std::string_view ns;
    if (target.starts_with("torch.ops.")) target.remove_prefix(10);
    if (const std::size_t dot = target.find('.'); dot != std::string_view::npos) ns = target.substr(0, dot);
    const std::string_view name = short_op(target);
    if (ns == "_c10d_functional" || ns == "c10d_functional" || ns == "_c10d_functional_autograd" || ns == "c10d")
        return name == "wait_tensor" || name == "wait" ? OpCategory::Wait : OpCategory::Collective;
    // Python-level scalar operators (SymInt arithmetic); only getitem picks a tensor out.
    if (ns == "operator" || ns == "_operator" || ns == "builtins" || ns == "math")
        return name == "getitem" ? OpCategory::View : OpCategory::Other;
    return by_op_name(name);
}

std::vector<OpCategory> target_categories(const Graph& graph) {
    std::vector<OpCategory> out;
    out.reserve(graph.targets.size());
    for (const std::string& t : graph.targets) out.push_back(op_category(OpKind::CallFunction, t));
    return out;
}

} // namespace fxmem
