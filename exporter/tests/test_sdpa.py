"""lower_sdpa: SDPA traced on meta as the CPU / CUDA kernel PyTorch would run.

CPU is checked against PyTorch itself: its own choice (torch._fused_sdp_choice on real CPU
tensors) and the graphs a real CPU compile produces. CUDA has no ground truth on this machine,
so its graphs are checked against the rules in cuda/sdp_utils.cpp, against figures written here
(logsumexp shapes, padding) and against the aten meta kernels called directly.
"""

from __future__ import annotations

import math
import operator
from collections import Counter
from typing import Any, Callable

import pytest

import torch
import torch.fx as fx
import torch.nn.functional as F
from functorch.compile import make_boxed_func
from torch._dynamo.backends.common import aot_autograd
from torch.nn.attention import SDPBackend, sdpa_kernel

from fxmem_export._sdpa import lower_sdpa, select_backend

aten = torch.ops.aten
B, H, L = 2, 4, 16
_last: tuple[dict[str, fx.GraphModule], list[int]] = ({}, [])  # capture's graphs, kept if running fails


def capture(fn: Callable[..., torch.Tensor], *args: Any, target: str | None = None,
            choice: str | None = None) -> tuple[dict[str, fx.GraphModule], list[int]]:
    """Compile ``fn`` with AOTAutograd (lowering first when ``target``), run forward and backward."""
    graphs: dict[str, fx.GraphModule] = {}
    counts: list[int] = []

    def keep(kind: str) -> Callable[..., Any]:
        def compiler(gm: fx.GraphModule, example_inputs: Any) -> Any:
            graphs[kind] = gm
            return make_boxed_func(gm.forward)
        return compiler

    inner = aot_autograd(fw_compiler=keep("forward"), bw_compiler=keep("backward"))

    def backend(gm: fx.GraphModule, example_inputs: Any) -> Any:
        if target is not None:
            counts.append(lower_sdpa(gm, target=target, choice=choice))
        return inner(gm, example_inputs)

    global _last
    _last = graphs, counts
    torch._dynamo.reset()
    out = torch.compile(fn, backend=backend, fullgraph=True, dynamic=False)(*args)
    if out.requires_grad:
        out.sum().backward()
    return graphs, counts


def qkv(d: int = 64, dtype: torch.dtype = torch.bfloat16, device: str = "meta", grad: bool = True,
        heads_kv: int = H, s: int = L, dv: int | None = None) -> list[torch.Tensor]:
    torch.manual_seed(0)
    shapes = [(B, H, L, d), (B, heads_kv, s, d), (B, heads_kv, s, dv or d)]
    return [torch.randn(sh, dtype=dtype, device=device, requires_grad=grad) for sh in shapes]


def ops(gm: fx.GraphModule) -> Counter[str]:
    """Call targets, counting the op a run_*_rng_state wrapper runs (checkpointed random ops) too."""
    calls = [n for n in gm.graph.nodes if n.op == "call_function"]
    wrapped = [n.args[n.args[0].__class__ is not torch._ops.OpOverload] for n in calls
               if isinstance(n.target, torch._ops.HigherOrderOperator) and "rng_state" in n.target.name()]
    return Counter(str(t) for t in [n.target for n in calls] + wrapped)


def _val(v: Any) -> Any:
    if isinstance(v, torch.Tensor):
        # An rng state's size is symbolic; its symbol's name (s21, s29) depends on what compiled
        # before in the process, so two captures are compared on its being symbolic.
        return (tuple(s if isinstance(s, int) else "<symbolic>" for s in v.shape), v.dtype)
    if isinstance(v, (tuple, list)):
        return tuple(_val(x) for x in v)
    return v if isinstance(v, (int, float, bool, type(None))) else type(v).__name__


def signature(gm: fx.GraphModule) -> Counter[tuple[str, Any]]:
    """Every call's target with the shapes and dtypes it produces."""
    return Counter((str(n.target), _val(n.meta.get("val"))) for n in gm.graph.nodes if n.op == "call_function")


def kernel(gm: fx.GraphModule, op: Any) -> fx.Node:
    (node,) = [n for n in gm.graph.nodes if n.target == op]
    return node


def output(gm: fx.GraphModule, node: fx.Node, index: int) -> fx.Node:
    """The getitem taking output ``index`` of ``node``; past 0 it must be saved for the backward."""
    (item,) = [u for u in node.users if u.target is operator.getitem and u.args[1] == index]
    assert index == 0 or item in gm.graph.output_node().args[0]
    return item


def shape_dtype(node: fx.Node) -> tuple[tuple[int, ...], torch.dtype]:
    return tuple(node.meta["val"].shape), node.meta["val"].dtype


class Attention(torch.nn.Module):
    def __init__(self, dim: int = 32, heads: int = 2, **sdpa: Any) -> None:
        super().__init__()
        self.heads, self.sdpa = heads, sdpa
        self.qkv, self.proj = torch.nn.Linear(dim, 3 * dim), torch.nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        b, t, c = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, **self.sdpa)
        return self.proj(y.transpose(1, 2).reshape(b, t, c))


# --- target="cpu": PyTorch's own CPU dispatch is the ground truth --------------------------------

def _cpu_cases() -> list[tuple[str, Callable[[str], tuple[Callable[..., torch.Tensor], list[Any]]]]]:
    def model(**kw: Any) -> Callable[[str], tuple[Callable[..., torch.Tensor], list[Any]]]:
        def make(device: str) -> tuple[Callable[..., torch.Tensor], list[Any]]:
            torch.manual_seed(0)
            return Attention(**kw).to(device), [torch.randn(2, 8, 32, device=device)]
        return make

    def fn(f: Callable[..., torch.Tensor], **kw: Any) -> Callable[[str], tuple[Callable[..., torch.Tensor], list[Any]]]:
        return lambda device: (f, qkv(d=8, dtype=torch.float32, device=device, **kw))

    return [
        ("flash", model(is_causal=True)),
        ("flash: bool mask", lambda d: (Attention().to(d), [torch.randn(2, 8, 32, device=d),
                                                           torch.ones(8, 8, dtype=torch.bool, device=d).tril()])),
        ("flash: gqa", fn(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True), heads_kv=2)),
        ("math: dropout", model(dropout_p=0.5)),
        ("math: value head dim", fn(lambda q, k, v: F.scaled_dot_product_attention(q, k, v), dv=16)),
        ("math: 3-D mask", fn(lambda q, k, v: F.scaled_dot_product_attention(
            q, k, v, attn_mask=torch.zeros(H, L, L, device=q.device)))),
    ]


@pytest.mark.parametrize("name, make", _cpu_cases(), ids=[c[0] for c in _cpu_cases()])
def test_cpu_lowering_matches_a_real_cpu_compile(name: str, make: Any) -> None:
    fn, args = make("cpu")
    real, _ = capture(fn, *args)  # real CPU tensors, no lowering: PyTorch picks
    fn, args = make("meta")
    lowered, counts = capture(fn, *args, target="cpu")
    assert counts == [1]
    flash = "aten._scaled_dot_product_flash_attention_for_cpu"
    assert (flash + ".default" in ops(real["forward"])) == name.startswith("flash")
    assert (flash + "_backward.default" in ops(real["backward"])) == name.startswith("flash")
    for kind in ("forward", "backward"):
        assert signature(lowered[kind]) == signature(real[kind]), kind


def test_cpu_rules_match_fused_sdp_choice() -> None:
    """select_backend(target="cpu") against torch._fused_sdp_choice on real CPU tensors."""
    t = torch.randn
    cases: list[tuple[list[torch.Tensor], dict[str, Any]]] = [
        (qkv(8, torch.float32, "cpu"), {}),
        (qkv(8, torch.float64, "cpu"), {"is_causal": True}),
        (qkv(8, torch.bfloat16, "cpu", grad=False), {}),
        (qkv(8, torch.float32, "cpu"), {"dropout_p": 0.1}),
        (qkv(8, torch.float32, "cpu", heads_kv=2), {}),
        (qkv(8, torch.float32, "cpu", heads_kv=2), {"enable_gqa": True}),
        (qkv(8, torch.float32, "cpu", heads_kv=3), {"enable_gqa": True}),
        (qkv(8, torch.float32, "cpu", dv=16), {}),
        ([x[0] for x in qkv(8, torch.float32, "cpu")], {}),  # 3-D
        ([x.transpose(-1, -2) for x in qkv(16, torch.float32, "cpu", s=16)], {}),  # last-dim stride
        (qkv(8, torch.float32, "cpu"), {"attn_mask": t(L, L)}),
        (qkv(8, torch.float32, "cpu"), {"attn_mask": t(B, 1, L, 1)}),
        (qkv(8, torch.float32, "cpu"), {"attn_mask": t(H, L, L)}),
        (qkv(8, torch.float32, "cpu"), {"attn_mask": t(L, L, requires_grad=True)}),
        (qkv(8, torch.float32, "cpu"), {"attn_mask": t(3, H, L, L)}),
        (qkv(8, torch.float32, "cpu", s=0), {}),
    ]
    with torch.no_grad():
        cases.append((qkv(8, torch.float32, "cpu"), {}))
    names = {SDPBackend.FLASH_ATTENTION.value: "flash", SDPBackend.MATH.value: "math"}
    for i, (args, kw) in enumerate(cases):
        ours_kw = {k: v for k, v in kw.items() if k != "attn_mask"}
        theirs = names[torch._fused_sdp_choice(*args, **kw)]
        assert select_backend(*args, kw.get("attn_mask"), target="cpu", **ours_kw) == theirs, (i, kw)
    # The global toggles, as sdpa_kernel sets them.
    args = qkv(8, torch.float32, "cpu")
    with sdpa_kernel([SDPBackend.MATH]):
        assert select_backend(*args, target="cpu") == names[torch._fused_sdp_choice(*args)] == "math"


# --- target="cuda": the rules of cuda/sdp_utils.cpp ------------------------------------------

FLASH = aten._scaled_dot_product_flash_attention.default
EFFICIENT = aten._scaled_dot_product_efficient_attention.default


def sdpa(**kw: Any) -> Callable[..., torch.Tensor]:
    return lambda q, k, v: F.scaled_dot_product_attention(q, k, v, **kw)


def test_cuda_bf16_takes_flash_and_saves_its_logsumexp() -> None:
    q, k, v = qkv(64, torch.bfloat16)
    g, counts = capture(sdpa(is_causal=True), q, k, v, target="cuda")
    assert counts == [1]
    fw, bw = g["forward"], g["backward"]
    node = kernel(fw, FLASH)
    assert node.args[3:5] == (0.0, True) and node.kwargs["scale"] == 1 / math.sqrt(64)
    assert shape_dtype(output(fw, node, 0)) == ((B, H, L, 64), torch.bfloat16)
    assert shape_dtype(output(fw, node, 1)) == ((B, H, L), torch.float32)  # logsumexp [B, H, L] fp32
    meta = FLASH(q, k, v, 0.0, True, scale=0.125)
    assert [shape_dtype(output(fw, node, i)) for i in (1, 6, 7)] == [(tuple(meta[i].shape), meta[i].dtype)
                                                                      for i in (1, 6, 7)]
    assert ops(bw)["aten._scaled_dot_product_flash_attention_backward.default"] == 1
    assert "aten.bmm.default" not in ops(fw) and "aten._softmax.default" not in ops(fw)
    assert [shape_dtype(o) for o in bw.graph.output_node().args[0]] == [((B, H, L, 64), torch.bfloat16)] * 3


def test_cuda_fp32_takes_efficient() -> None:
    q, k, v = qkv(64, torch.float32)
    g, _ = capture(sdpa(), q, k, v, target="cuda")
    node = kernel(g["forward"], EFFICIENT)
    assert node.args[3:5] == (None, True)  # no bias; compute_log_sumexp for the backward
    lse = output(g["forward"], node, 1)
    assert shape_dtype(lse) == ((B, H, 32 * math.ceil(L / 32)), torch.float32)
    assert tuple(EFFICIENT(q, k, v, None, True)[1].shape) == shape_dtype(lse)[0]
    assert ops(g["backward"])["aten._scaled_dot_product_efficient_attention_backward.default"] == 1


@pytest.mark.parametrize("dtype, op", [(torch.bfloat16, FLASH), (torch.float32, EFFICIENT)])
def test_cuda_module_with_a_fused_projection(dtype: torch.dtype, op: Any) -> None:
    """q, k, v as views of one qkv projection (storage offsets 0, 32, 64) inside AOTAutograd."""
    model = Attention(is_causal=True).to(device="meta", dtype=dtype)
    g, counts = capture(model, torch.randn(2, 8, 32, device="meta", dtype=dtype), target="cuda")
    assert counts == [1] and ops(g["forward"])[str(op)] == 1
    assert ops(g["backward"])[str(op).replace(".default", "_backward.default")] == 1


def test_cuda_head_dim_not_a_multiple_of_8_is_padded_for_flash() -> None:
    q, k, v = qkv(20, torch.bfloat16)
    g, _ = capture(sdpa(), q, k, v, target="cuda")
    fw = g["forward"]
    pads = [n for n in fw.graph.nodes if n.target == aten.constant_pad_nd.default]
    assert [n.args[1] for n in pads] == [[0, 4]] * 3
    node = kernel(fw, FLASH)
    assert list(node.args[:3]) == pads and node.kwargs["scale"] == 1 / math.sqrt(20)  # scale of the real dim
    (cut,) = [n for n in fw.graph.nodes if n.target == aten.slice.Tensor]
    assert cut.args[1:] == (-1, 0, 20) and shape_dtype(cut) == ((B, H, L, 20), torch.bfloat16)
    assert shape_dtype(output(fw, node, 0))[0] == (B, H, L, 24)
    assert [shape_dtype(o)[0] for o in g["backward"].graph.output_node().args[0]] == [(B, H, L, 20)] * 3


@pytest.mark.parametrize("s, padded", [(12, True), (16, False)])
def test_cuda_mask_takes_efficient_with_the_bias_prepared(s: int, padded: bool) -> None:
    q, k, v = qkv(64, torch.bfloat16, s=s)
    mask = torch.ones(L, s, dtype=torch.bool, device="meta")
    g, _ = capture(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=mask), q, k, v, target="cuda")
    fw = g["forward"]
    assert FLASH not in [n.target for n in fw.graph.nodes]
    node = kernel(fw, EFFICIENT)
    bias = node.args[3]
    assert bias.target == aten.expand.default and shape_dtype(bias) == ((B, H, L, s), torch.bfloat16)
    # preprocess_mask pads a bias whose row stride is not a multiple of 8, then slices it back
    assert (ops(fw)["aten.constant_pad_nd.default"], ops(fw)["aten.slice.Tensor"]) == ((1, 1) if padded else (0, 0))
    assert ops(fw)["aten.where.self"] == 1  # bool mask -> additive


@pytest.mark.parametrize("dtype, d, kw, want", [
    (torch.float16, 64, {}, "flash"),
    (torch.bfloat16, 256, {}, "flash"),
    (torch.bfloat16, 264, {}, "efficient"),  # flash takes head dims <= 256
    (torch.float32, 20, {}, "efficient"),  # a multiple of 4 for fp32
    (torch.float32, 18, {}, "math"),
    (torch.bfloat16, 64, {"s": 8, "is_causal": True}, "efficient"),  # flash: causal needs L == S
    (torch.bfloat16, 64, {"heads_kv": 2, "enable_gqa": True}, "flash"),
    (torch.float32, 64, {"heads_kv": 2, "enable_gqa": True}, "math"),  # efficient has no GQA in 2.13
    (torch.bfloat16, 64, {"heads_kv": 2}, "math"),  # differing heads without enable_gqa
    (torch.float32, 64, {"dropout_p": 0.1}, "efficient"),
    (torch.bfloat16, 64, {"dv": 32}, "efficient"),
    (torch.float64, 64, {}, "math"),
])
def test_cuda_selection(dtype: torch.dtype, d: int, kw: dict[str, Any], want: str) -> None:
    sizes = {key: kw.pop(key) for key in ("s", "heads_kv", "dv") if key in kw}
    assert select_backend(*qkv(d, dtype, **sizes), target="cuda", **kw) == want


def test_cuda_selection_follows_layout_and_toggles() -> None:
    q, k, v = qkv(64, torch.float32)
    fused = torch.randn(B, L, 3 * H * 64 + 2, device="meta")[..., 2:].view(B, L, 3, H, 64).permute(2, 0, 3, 1, 4)
    assert select_backend(*fused, target="cuda") == "math"  # storage offset 2: misaligned for efficient
    assert select_backend(*(x.transpose(-1, -2) for x in qkv(16, torch.float32)), target="cuda") == "math"
    q, k, v = qkv(64, torch.bfloat16)
    with sdpa_kernel([SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]):
        assert select_backend(q, k, v, target="cuda") == "efficient"
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
        with pytest.raises(RuntimeError, match="no enabled backend"):
            select_backend(q, k, v, attn_mask=torch.zeros(L, L, device="meta"), target="cuda")
    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION], set_priority=True):
        assert select_backend(q, k, v, target="cuda") == "cudnn"


def test_cuda_inference_keeps_no_logsumexp() -> None:
    q, k, v = qkv(64, torch.float32, grad=False)
    g, _ = capture(sdpa(), q, k, v, target="cuda")
    assert set(g) == {"forward"}
    node = kernel(g["forward"], EFFICIENT)
    assert node.args[4] is False  # compute_log_sumexp only when a backward needs it
    assert tuple(EFFICIENT(q, k, v, None, False)[1].shape) == (B, H, 0)
    assert shape_dtype(output(g["forward"], node, 0)) == ((B, H, L, 64), torch.float32)
    g, _ = capture(sdpa(), *qkv(64, torch.bfloat16, grad=False), target="cuda")
    assert ops(g["forward"])["aten._scaled_dot_product_flash_attention.default"] == 1


def test_choice_overrides_the_rules() -> None:
    q, k, v = qkv(64, torch.bfloat16)
    g, _ = capture(sdpa(), q, k, v, target="cuda", choice="efficient")
    assert ops(g["forward"])["aten._scaled_dot_product_efficient_attention.default"] == 1
    g, _ = capture(sdpa(), q, k, v, target="cuda", choice="cudnn")
    node = kernel(g["forward"], aten._scaled_dot_product_cudnn_attention.default)
    assert shape_dtype(output(g["forward"], node, 1)) == ((B, H, L, 1), torch.float32)
    assert ops(g["backward"])["aten._scaled_dot_product_cudnn_attention_backward.default"] == 1
    with pytest.raises(Exception, match="cannot use flash on cuda: dtype torch.float32"):
        capture(sdpa(), *qkv(64, torch.float32), target="cuda", choice="flash")


@pytest.mark.parametrize("target", ["cuda", "cpu"])
def test_math_choice_is_the_unlowered_meta_graph(target: str) -> None:
    mask = torch.ones(L, L, dtype=torch.bool, device="meta").tril()
    fn = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)  # noqa: E731
    plain, _ = capture(fn, *qkv(16, torch.bfloat16, heads_kv=2))
    lowered, _ = capture(fn, *qkv(16, torch.bfloat16, heads_kv=2), target=target, choice="math")
    assert "aten.bmm.default" in ops(plain["forward"])
    for kind in ("forward", "backward"):
        assert signature(lowered[kind]) == signature(plain[kind]), kind


def test_checkpointed_attention_is_lowered_as_on_a_real_cpu() -> None:
    """A checkpoint body is a get_attr submodule of Dynamo's graph; its SDPA is lowered too. Random
    ops under checkpoint (and every fused SDPA kernel is tagged random) get AOTAutograd's
    run_and_save_rng_state wrapper, which has no meta kernel: the graphs are captured (backward
    compiled eagerly), then running the forward on meta fails."""
    def fn(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        y = torch.utils.checkpoint.checkpoint(sdpa(is_causal=True), q, k, v, use_reentrant=False)
        return F.scaled_dot_product_attention(y, k, v)

    with torch._functorch.config.patch(force_non_lazy_backward_lowering=True):
        real, _ = capture(fn, *qkv(8, torch.float32, "cpu"))
        for target in ("cpu", "cuda"):
            with pytest.raises(AssertionError, match="Backend not supported for meta"):
                capture(fn, *qkv(64, torch.bfloat16) if target == "cuda" else qkv(8, torch.float32), target=target)
            lowered, counts = _last
            assert counts == [2]
            if target == "cpu":
                for kind in ("forward", "backward"):
                    assert signature(lowered[kind]) == signature(real[kind]), kind
    fw, bw = ops(lowered["forward"]), ops(lowered["backward"])
    assert fw["aten._scaled_dot_product_flash_attention.default"] == 2
    assert bw["aten._scaled_dot_product_flash_attention.default"] == 1  # the checkpointed one, recomputed
    assert bw["aten._scaled_dot_product_flash_attention_backward.default"] == 2
    assert "run_and_save_rng_state" in str(real["forward"].code)


def test_bad_arguments() -> None:
    gm = fx.symbolic_trace(torch.nn.Identity())
    assert lower_sdpa(gm, target="cpu") == 0
    for kw in ({"target": "gpu"}, {"target": "cpu", "choice": "efficient"}, {"target": "cuda", "choice": "fast"}):
        with pytest.raises(ValueError):
            lower_sdpa(gm, **kw)
