"""Autocast on meta (fxmem_export._autocast) against PyTorch's own autocast.

* target "cpu": a small model compiled with an aot_autograd backend, run for real on CPU under
  ``torch.autocast("cpu", bfloat16)``, gives the same forward and backward graphs (op multiset
  with each node's dtype) as the same model traced on ``meta`` with the CPU policy; both with the
  region inside the compiled function and around its call.
* target "cuda": the user's ``torch.autocast("cuda", bfloat16)`` on a machine without CUDA:
  matmuls bf16, layer_norm/softmax/log_softmax fp32, parameter gradients fp32; the
  ``dtype=`` option gives the graph of a region around the call.
* the op lists: every op the installed PyTorch gives an AutocastCUDA / AutocastCPU kernel is in
  the table and nothing else; ops whose CUDA and CPU categories agree give, under the CUDA
  policy on meta, the dtype real CPU autocast gives; the CPU policy gives real CPU's dtypes.
* without autocast nothing changes, and leaving the capture restores PyTorch's state.
"""

from __future__ import annotations

import collections
import contextlib
import warnings
from collections.abc import Callable
from typing import Any

import pytest

import torch
import torch.nn.functional as F
from functorch.compile import make_boxed_func
from torch._dynamo.backends.common import aot_autograd

from fxmem_export import _autocast
from fxmem_export._autocast import POLICY_TABLES, AutocastPolicy, autocast_capture

BF16, FP32 = torch.bfloat16, torch.float32


class Tiny(torch.nn.Module):
    """Linear, LayerNorm, GELU, a matmul, softmax and a log_softmax loss (picked with gather:
    aten::nll_loss on meta has no autograd kernel in torch 2.13, so its backward would be lost
    with or without autocast)."""

    def __init__(self, norm_first: bool = True) -> None:
        super().__init__()
        self.norm_first = norm_first
        self.ln = torch.nn.LayerNorm(8)
        self.lin = torch.nn.Linear(8, 8)
        self.out = torch.nn.Linear(8, 4)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        # norm_first: the LayerNorm sees the fp32 input (see test_cpu_layer_norm_stats_are_the_meta_kernels).
        h = self.lin(self.ln(x)) if self.norm_first else self.ln(self.lin(x))
        h = F.gelu(h)
        a = torch.softmax(h @ h.transpose(-1, -2), dim=-1)
        logits = self.out(a @ h).flatten(0, 1)
        return -torch.log_softmax(logits, dim=-1).gather(1, y[:, None]).mean()


def region(device_type: str | None) -> Callable[[], Any]:
    if device_type is None:
        return contextlib.nullcontext
    return lambda: torch.autocast(device_type, dtype=BF16)


def capture(device: str, *, inside: str | None = None, around: str | None = None,
            policy: tuple[str, torch.dtype | None] | None = None, norm_first: bool = True,
            ) -> tuple[dict[str, torch.fx.GraphModule], torch.nn.Module]:
    """Compile Tiny on ``device`` with an aot_autograd backend that records the forward and
    backward graphs; autocast for ``inside`` (a region inside the compiled function) or
    ``around`` (a region around its call). ``policy``: the backend's compile runs inside
    ``autocast_capture(*policy)``; with ``around="cuda"`` the whole call does (the region is built
    there, as a user's script would be inside it)."""
    torch._dynamo.reset()
    graphs: dict[str, torch.fx.GraphModule] = {}

    def backend(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Any:
        def record(kind: str) -> Callable[..., Any]:
            def compiler(g: torch.fx.GraphModule, _: Any) -> Any:
                graphs[kind] = g
                return make_boxed_func(g.forward)

            return compiler

        ctx = autocast_capture(*policy) if policy is not None else contextlib.nullcontext()
        with ctx:
            return aot_autograd(fw_compiler=record("forward"), bw_compiler=record("backward"))(gm, example_inputs)

    torch.manual_seed(0)
    with torch.device(device):
        model = Tiny(norm_first)
        x, y = torch.randn(2, 5, 8), torch.randint(0, 4, (10,))

    def step(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        with region(inside)():
            return model(x, y)

    compiled = torch.compile(step, backend=backend)
    outer = autocast_capture(*policy) if policy is not None and around == "cuda" else contextlib.nullcontext()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "CUDA is not available ... Disabling autocast" at Dynamo's trace
        with outer, region(around)():
            loss = compiled(x, y)
        loss.backward()
    return graphs, model


def dtypes(gm: torch.fx.GraphModule) -> collections.Counter[tuple[str, Any]]:
    """The graph's ops with their dtypes: (target, dtype of meta['val']) for every call."""
    def dtype(v: Any) -> Any:
        if isinstance(v, torch.Tensor):
            return v.dtype
        if isinstance(v, (tuple, list)):
            return tuple(dtype(e) for e in v)
        return None

    return collections.Counter((str(n.target), dtype(n.meta.get("val")))
                               for n in gm.graph.nodes if n.op == "call_function")


def of(gm: torch.fx.GraphModule, target: Any) -> list[torch.dtype]:
    return [n.meta["val"].dtype for n in gm.graph.nodes if n.target is target]


# -- target "cpu": against real CPU autocast -----------------------------------------------------

@pytest.mark.parametrize("where", ["inside", "around"])
def test_cpu_policy_gives_real_cpu_autocast_graphs(where: str) -> None:
    real, _ = capture("cpu", **{where: "cpu"})
    meta, model = capture("meta", **{where: "cpu"}, policy=("cpu", None))
    for kind in ("forward", "backward"):
        assert dtypes(meta[kind]) == dtypes(real[kind]), kind
    assert of(meta["forward"], torch.ops.aten.addmm.default) == [BF16, BF16]
    assert all(p.grad is not None and p.grad.dtype == FP32 for p in model.parameters())
    # Without the policy, meta ignores CPU autocast (what this module is for).
    plain, _ = capture("meta", **{where: "cpu"})
    assert of(plain["forward"], torch.ops.aten.addmm.default) == [FP32, FP32]


def test_cpu_layer_norm_stats_are_the_meta_kernels() -> None:
    """A bf16 LayerNorm: CPU's kernel returns its mean/rstd in bf16, the meta kernel (CUDA's
    convention) in fp32. That is the meta kernel, not autocast: it is the only difference."""
    real, _ = capture("cpu", inside="cpu", norm_first=False)
    meta, _ = capture("meta", inside="cpu", policy=("cpu", None), norm_first=False)
    assert dtypes(meta["backward"]) == dtypes(real["backward"])
    only_real = dtypes(real["forward"]) - dtypes(meta["forward"])
    only_meta = dtypes(meta["forward"]) - dtypes(real["forward"])
    ln = str(torch.ops.aten.native_layer_norm.default)
    assert only_real == {(ln, (BF16, BF16, BF16)): 1, ("<built-in function getitem>", BF16): 2}
    assert only_meta == {(ln, (BF16, FP32, FP32)): 1, ("<built-in function getitem>", FP32): 2}


# -- target "cuda": the user's CUDA region without CUDA ------------------------------------------

def check_cuda_graph(graphs: dict[str, torch.fx.GraphModule], model: torch.nn.Module) -> None:
    fw, bw = graphs["forward"], graphs["backward"]
    aten = torch.ops.aten
    assert of(fw, aten.addmm.default) == [BF16, BF16]
    assert of(fw, aten.bmm.default) == [BF16, BF16]
    assert [t.dtype for t in fw.graph.find_nodes(op="call_function", target=aten.native_layer_norm.default)[0]
            .meta["val"]] == [FP32] * 3
    assert of(fw, aten._softmax.default) == [FP32]
    assert of(fw, aten._log_softmax.default) == [FP32]
    assert set(of(bw, aten.mm.default)) == {BF16}
    assert all(p.grad is not None and p.grad.dtype == FP32 for p in model.parameters())
    # The backward's outputs: a gradient per parameter, fp32 as the parameters.
    output = bw.graph.find_nodes(op="output")[0]
    grads = [a.meta["val"] for a in output.args[0] if isinstance(a, torch.fx.Node)]
    assert len(grads) == len(list(model.parameters())) and {g.dtype for g in grads} == {FP32}


def test_cuda_region_inside_the_compiled_function() -> None:
    graphs, model = capture("meta", inside="cuda", policy=("cuda", None))
    check_cuda_graph(graphs, model)
    # Autocast is off in the backward (the region ended with the forward): sums stay bf16.
    assert set(of(graphs["backward"], torch.ops.aten.sum.dim_IntList)) == {BF16}


def test_cuda_region_around_the_call_and_the_dtype_option() -> None:
    around, model = capture("meta", around="cuda", policy=("cuda", None))
    check_cuda_graph(around, model)
    # AOTAutograd traces the backward under the region's autocast (backward_pass_autocast =
    # "same_as_forward"): the bias gradients' sums get fp32 outputs, as on a GPU.
    assert set(of(around["backward"], torch.ops.aten.sum.dim_IntList)) == {FP32}
    forced, model = capture("meta", policy=("cuda", BF16))
    check_cuda_graph(forced, model)
    for kind in ("forward", "backward"):
        assert forced[kind].code == around[kind].code, kind
        assert dtypes(forced[kind]) == dtypes(around[kind]), kind


def test_cuda_regions_follow_autocast_state() -> None:
    """Eager meta ops inside a capture: nested enabled=False, fp16, fp32 output dtypes, promote,
    the banned op, and the CUDA-only lists."""
    with torch.device("meta"):
        a, b = torch.randn(4, 4), torch.randn(4, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "CUDA is not available ... Disabling autocast"
        with autocast_capture("cuda"), torch.autocast("cuda", dtype=BF16):
            assert (a @ b).dtype == BF16
            with torch.autocast("cuda", enabled=False):
                assert (a @ b).dtype == FP32
            with torch.autocast("cuda", dtype=torch.float16):
                assert torch.mm(a, b).dtype == torch.float16
            h = a @ b
            assert torch.softmax(h, -1).dtype == FP32 and h.sum().dtype == FP32
            assert torch.softmax(h, -1, dtype=BF16).dtype == BF16  # an explicit dtype is kept
            assert torch.exp(h).dtype == FP32 and F.layer_norm(h, (4,)).dtype == FP32
            assert torch.cat([h, a]).dtype == FP32  # cat is not on CUDA's promote list: plain promotion
            assert torch.addcmul(h, h, a).dtype == FP32 and torch.addcmul(h, h, h).dtype == BF16  # promote
            assert torch.ops.aten.norm.Scalar(h, 2).dtype == FP32  # fp32_append_dtype
            assert (a.double() @ b.double()).dtype == torch.float64  # double is not autocast
            with pytest.raises(RuntimeError, match="binary_cross_entropy"):
                F.binary_cross_entropy(torch.sigmoid(h), torch.rand(4, 4, device="meta"))
            # Real tensors are left to PyTorch: CPU tensors are outside this CUDA region.
            c = torch.randn(4, 4)
            assert (c @ c).dtype == FP32
            F.binary_cross_entropy(torch.sigmoid(c), torch.rand(4, 4))
            with torch.autocast("cpu", dtype=BF16):
                assert (c @ c).dtype == BF16 and (a @ b).dtype == BF16
    assert (a @ b).dtype == FP32  # outside: PyTorch's own meta behaviour


# -- the op lists ------------------------------------------------------------------------------------

def registered(key: str) -> set[str]:
    """ATen ops (table names) the installed PyTorch gives a kernel at ``key``."""
    out = set()
    for name in torch._C._dispatch_get_all_op_names():
        if name.startswith("aten::") and torch._C._dispatch_has_kernel_for_dispatch_key(name, key):
            out.add(_autocast.op_name(name))
    return out


@pytest.mark.parametrize("target,key", [("cuda", "AutocastCUDA"), ("cpu", "AutocastCPU")])
def test_tables_are_pytorchs_lists(target: str, key: str) -> None:
    table = POLICY_TABLES[target]
    present = {name for name in table if _autocast._resolve(name) is not None}
    assert present == registered(key)
    assert set(table.values()) <= set(_autocast.CATEGORIES)


def _ops(dev: str) -> dict[str, Callable[[], torch.Tensor]]:
    """One call per op; float inputs fp32 (bf16 where a promote op needs a mix)."""
    def r(*shape: int, dtype: torch.dtype = FP32) -> torch.Tensor:
        return torch.randn(*shape, device=dev, dtype=dtype)

    idx = torch.tensor([1, 0, 3], device=dev)
    return {
        "mm": lambda: torch.mm(r(3, 4), r(4, 5)),
        "addmm": lambda: torch.addmm(r(5), r(3, 4), r(4, 5)),
        "bmm": lambda: torch.bmm(r(2, 3, 4), r(2, 4, 5)),
        "baddbmm": lambda: torch.baddbmm(r(2, 3, 5), r(2, 3, 4), r(2, 4, 5)),
        "addbmm": lambda: torch.addbmm(r(3, 5), r(2, 3, 4), r(2, 4, 5)),
        "matmul": lambda: torch.matmul(r(2, 3, 4), r(4, 5)),
        "linear": lambda: F.linear(r(3, 4), r(5, 4), r(5)),
        "conv1d": lambda: F.conv1d(r(1, 2, 8), r(3, 2, 3)),
        "conv2d": lambda: F.conv2d(r(1, 2, 6, 6), r(3, 2, 3, 3), r(3)),
        "prelu": lambda: F.prelu(r(2, 3), r(3)),
        "linalg_vecdot": lambda: torch.linalg.vecdot(r(3, 4), r(3, 4)),
        "scaled_dot_product_attention": lambda: F.scaled_dot_product_attention(r(1, 2, 4, 8), r(1, 2, 4, 8),
                                                                               r(1, 2, 4, 8)),
        "mse_loss": lambda: F.mse_loss(r(3, 4, dtype=BF16), r(3, 4, dtype=BF16)),
        "l1_loss": lambda: F.l1_loss(r(3, 4, dtype=BF16), r(3, 4, dtype=BF16)),
        "smooth_l1_loss": lambda: F.smooth_l1_loss(r(3, 4, dtype=BF16), r(3, 4, dtype=BF16)),
        "huber_loss": lambda: F.huber_loss(r(3, 4, dtype=BF16), r(3, 4, dtype=BF16)),
        "kl_div": lambda: F.kl_div(r(3, 4, dtype=BF16), r(3, 4, dtype=BF16), reduction="batchmean"),
        "binary_cross_entropy_with_logits": lambda: F.binary_cross_entropy_with_logits(r(3, 4, dtype=BF16),
                                                                                      r(3, 4, dtype=BF16)),
        "cdist": lambda: torch.cdist(r(3, 4, dtype=BF16), r(2, 4, dtype=BF16)),
        "cosine_embedding_loss": lambda: F.cosine_embedding_loss(r(3, 4, dtype=BF16), r(3, 4, dtype=BF16),
                                                                 torch.ones(3, device=dev)),
        "margin_ranking_loss": lambda: F.margin_ranking_loss(r(3, dtype=BF16), r(3, dtype=BF16),
                                                             torch.ones(3, device=dev)),
        # categories that differ between CUDA and CPU (checked against CPU only)
        "softmax.int": lambda: torch.softmax(r(3, 4, dtype=BF16), -1),
        "layer_norm": lambda: F.layer_norm(r(3, 4, dtype=BF16), (4,)),
        "exp": lambda: torch.exp(r(3, dtype=BF16)),
        "cat": lambda: torch.cat([r(2, 3, dtype=BF16), r(2, 3)]),
        "stack": lambda: torch.stack([r(2, 3, dtype=BF16), r(2, 3, dtype=BF16)]),
        "index_copy": lambda: torch.index_copy(r(4, 3, dtype=BF16), 0, idx, r(3, 3)),
        "gelu": lambda: F.gelu(r(3, dtype=BF16)),  # on no list
    }


def _dtypes_under(dev: str, target: str | None) -> dict[str, torch.dtype]:
    """The output dtype of every op of _ops on ``dev``, under autocast for ``target`` (bf16)."""
    out = {}
    ctx = autocast_capture(target) if dev == "meta" and target is not None else contextlib.nullcontext()
    with ctx, torch.autocast(target or "cpu", dtype=BF16):
        for name, call in _ops(dev).items():
            out[name] = call().dtype
    return out


def test_policies_give_real_cpu_dtypes() -> None:
    real = _dtypes_under("cpu", "cpu")
    cpu_on_meta = _dtypes_under("meta", "cpu")
    cuda_on_meta = _dtypes_under("meta", "cuda")
    assert cpu_on_meta == real
    cuda, cpu = POLICY_TABLES["cuda"], POLICY_TABLES["cpu"]
    agree = [n for n in real if cuda.get(n) == cpu.get(n) and n in cuda]
    assert len(agree) >= 15
    assert {n: cuda_on_meta[n] for n in agree} == {n: real[n] for n in agree}
    # The lists differ where PyTorch's do: fp32 on CUDA, the input's dtype on CPU.
    for name in ("softmax.int", "layer_norm", "exp"):
        assert (cuda_on_meta[name], real[name]) == (FP32, BF16), name
    assert real["mm"] == BF16 and real["mse_loss"] == FP32 and real["cat"] == FP32


# -- nothing changes without autocast ---------------------------------------------------------------

def test_no_autocast_no_change_and_state_restored() -> None:
    plain, _ = capture("meta")
    with_capture, _ = capture("meta", policy=("cuda", None))
    for kind in ("forward", "backward"):
        assert with_capture[kind].code == plain[kind].code
        assert dtypes(with_capture[kind]) == dtypes(plain[kind])
        assert not any(BF16 == d or isinstance(d, tuple) and BF16 in d for _, d in dtypes(plain[kind]))
    # Leaving the capture: autocast.__init__, the dispatch key and the policy stack as before.
    init = torch.amp.autocast_mode.autocast.__init__
    with autocast_capture("cuda"):
        assert torch.amp.autocast_mode.autocast.__init__ is not init
        with autocast_capture("cuda"):  # re-entrant
            pass
        with pytest.raises(RuntimeError, match="autocast capture"):
            with autocast_capture("cpu"):
                pass
    assert torch.amp.autocast_mode.autocast.__init__ is init
    assert not _autocast._active
    key = _autocast._key
    assert torch._C._dispatch_tls_is_dispatch_key_excluded(key)
    assert not torch._C._dispatch_tls_is_dispatch_key_included(key)
    if not torch.cuda.is_available():
        with pytest.warns(UserWarning, match="Disabling autocast"):
            torch.autocast("cuda")
    with torch.device("meta"), torch.autocast("cpu", dtype=BF16):
        assert torch.mm(torch.randn(2, 2), torch.randn(2, 2)).dtype == FP32  # PyTorch's own meta behaviour


def test_policy_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match="target"):
        AutocastPolicy("xpu")
    with pytest.raises(ValueError, match="dtype"):
        AutocastPolicy("cuda", torch.float64)
    assert AutocastPolicy("cuda").category(torch.ops.aten.mm.default) == "lower_precision_fp"
    assert AutocastPolicy("cuda").category("aten::softmax.int") == "fp32_set_opt_dtype"
    assert AutocastPolicy("cpu").category(torch.ops.aten.softmax.int) is None
