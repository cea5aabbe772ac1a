"""Ground truth from a real ``torch.compile`` run on the CPU: the pair Inductor partitions.

``real_cpu_pair`` compiles the model with Inductor (caches off) on real CPU tensors and takes the
forward and backward inside ``min_cut_rematerialization_partition`` (the name
``compile_fx.partition_fn`` calls), before Inductor's later passes change them. Kernel generation
is not needed for that, so the compile is stopped right there (``_Partitioned``).
``meta_pair`` captures the same model on ``meta`` with fxmem_export's backend. ``summary`` puts
a pair in the terms the acceptance compares: op multisets, saved values, pair peak with every
device counted (PyTorch's estimator).
"""

from __future__ import annotations

import collections
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch.fx as fx

import fxmem_export
from fxmem_export._joint import copy_graph_module
from fxmem_export.examples import _loss  # the examples' loss: every output that needs a gradient, summed
from fxmem_export.reference import intended_peak_memory
from torch.nn.attention import SDPBackend, sdpa_kernel


class _Partitioned(Exception):
    """Raised from inside the compile once the pair is taken."""


@dataclass
class Pair:
    forward: fx.GraphModule
    backward: fx.GraphModule


def _region(autocast: torch.dtype | None, device: str) -> Any:
    return torch.autocast(device, dtype=autocast) if autocast is not None else contextlib.nullcontext()


def real_cpu_pair(model: torch.nn.Module, inputs: tuple[Any, ...], *, budget: float | None = None,
                  joint_pass: Callable[[fx.Graph], None] | None = None, autocast: torch.dtype | None = None,
                  sdpa_math: bool = False) -> Pair:
    """The pair a real CPU ``torch.compile(model)`` training step partitions (``autocast``: the
    call runs in ``torch.autocast("cpu", dtype=autocast)``; ``sdpa_math``: in
    ``sdpa_kernel(SDPBackend.MATH)``)."""
    import torch._inductor.compile_fx as cfx

    real_cut = cfx.min_cut_rematerialization_partition
    taken: list[Pair] = []

    def cut(gm: fx.GraphModule, joint_inputs: Any, **kwargs: Any) -> Any:
        fw, bw = real_cut(gm, joint_inputs, **kwargs)
        taken.append(Pair(copy_graph_module(fw), copy_graph_module(bw)))
        raise _Partitioned

    torch._dynamo.reset()
    patches = {"fx_graph_cache": False}
    if joint_pass is not None:
        patches["joint_custom_post_pass"] = joint_pass
    cfx.min_cut_rematerialization_partition = cut
    try:
        with torch._functorch.config.patch(enable_autograd_cache=False, **(
                {} if budget is None else {"activation_memory_budget": budget})), \
                torch._inductor.config.patch(patches):
            try:
                math = sdpa_kernel(SDPBackend.MATH) if sdpa_math else contextlib.nullcontext()
                with _region(autocast, "cpu"), math:
                    out = torch.compile(model, fullgraph=True)(*inputs)
                _loss(out).backward()
            except Exception as e:  # Dynamo wraps what the backend raised
                if not taken:
                    raise
                if not isinstance(e, _Partitioned) and not isinstance(getattr(e, "inner_exception", None), _Partitioned):
                    raise
    finally:
        cfx.min_cut_rematerialization_partition = real_cut
        torch._dynamo.reset()
    return taken[0]


def meta_pair(model: torch.nn.Module, inputs: tuple[Any, ...], *, region: tuple[str, torch.dtype] | None = None,
              **backend_options: Any) -> Pair:
    """The pair fxmem_export's backend captures for ``model`` (on ``meta``); ``region``:
    (device, dtype) of a ``torch.autocast`` the call runs in, as in a user's training loop."""
    torch._dynamo.reset()
    be = fxmem_export.backend(None, **backend_options)
    with _region(region[1] if region else None, region[0] if region else "cpu"):
        out = torch.compile(model, backend=be, fullgraph=True)(*inputs)
    _loss(out).backward()
    graphs = {kind: gm for _, kind, gm in be.graphs()}
    torch._dynamo.reset()
    return Pair(graphs["forward"], graphs["backward"])


def _op(node: fx.Node) -> str:
    return str(node.target)


def ops(gm: fx.GraphModule) -> collections.Counter[str]:
    return collections.Counter(_op(n) for n in gm.graph.nodes if n.op == "call_function")


def saved(pair: Pair) -> collections.Counter[tuple[str, tuple[int, ...], str]]:
    """The backward's saved inputs: (the forward op that made it, shape, dtype) of each."""
    fw_nodes = {n.name: n for n in pair.forward.graph.nodes}
    out: collections.Counter[tuple[str, tuple[int, ...], str]] = collections.Counter()
    for node in pair.backward.graph.find_nodes(op="placeholder"):
        if "tangents" in str(node.target):
            continue
        val = node.meta.get("val")
        producer = fw_nodes.get(node.name)
        maker = "placeholder" if producer is None or producer.op == "placeholder" else _op(producer)
        shape = tuple(int(s) for s in val.shape) if isinstance(val, torch.Tensor) else ()
        out[(maker, shape, str(getattr(val, "dtype", type(val).__name__)))] += 1
    return out


def peak(pair: Pair) -> int:
    """PyTorch's pair peak with every device counted."""
    return intended_peak_memory(pair.forward.graph, pair.backward.graph, count_cpu=True)["peak"]


def differences(real: Pair, captured: Pair) -> list[str]:
    """What differs between two pairs, in words (empty when they are the same)."""
    out = []
    for kind in ("forward", "backward"):
        a, b = ops(getattr(real, kind)), ops(getattr(captured, kind))
        if a != b:
            out.append(f"{kind} ops: real has {dict(a - b)}, capture has {dict(b - a)}")
    sa, sb = saved(real), saved(captured)
    if sa != sb:
        out.append(f"saved: real has {dict(sa - sb)}, capture has {dict(sb - sa)}")
    pa, pb = peak(real), peak(captured)
    if pa != pb:
        out.append(f"peak: real {pa:,} B, capture {pb:,} B")
    return out


class WithLoss(torch.nn.Module):
    """The model with the examples' loss inside it: the compiled graph returns the loss."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, *inputs: Any) -> torch.Tensor:
        return _loss(self.model(*inputs))


def _cpu_allocations(prof: Any) -> list[tuple[int, int]]:
    """(time, bytes) of every CPU allocator event the profiler saw (negative: a free)."""
    from fxmem_export._scratch import cpu_allocation_events

    return cpu_allocation_events(prof)


def real_allocated_peak(model: torch.nn.Module, inputs: tuple[Any, ...]) -> int:
    """The allocated peak of a real CPU ``torch.compile`` training step (Inductor, caches off,
    the loss inside the compiled model): the tensors alive at the step's start (parameters,
    buffers, inputs) plus the highest running sum of the CPU allocator's events in a step
    profiled after the compiling one, gradients set to None first."""
    from torch.profiler import ProfilerActivity, profile

    torch._dynamo.reset()
    step = WithLoss(model)
    try:
        with torch._functorch.config.patch(enable_autograd_cache=False), \
                torch._inductor.config.patch(fx_graph_cache=False):
            compiled = torch.compile(step, fullgraph=True)
            compiled(*inputs).backward()  # compiles
            step.zero_grad(set_to_none=True)
            alive = {t.untyped_storage()._cdata: t.untyped_storage().nbytes()
                     for t in [*step.parameters(), *step.buffers(), *inputs] if isinstance(t, torch.Tensor)}
            with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
                compiled(*inputs).backward()
    finally:
        torch._dynamo.reset()
    running = peak = 0
    for _, nbytes in _cpu_allocations(prof):
        running += nbytes
        peak = max(peak, running)
    return sum(alive.values()) + peak


def meta_program_doc(model: torch.nn.Module, inputs: tuple[Any, ...], **backend_options: Any) -> Any:
    """The file fxmem_export's backend writes for one training step of ``model`` (on ``meta``,
    the loss inside the compiled model) with ``program=True``."""
    torch._dynamo.reset()
    be = fxmem_export.backend(None, program=True, **backend_options)
    try:
        torch.compile(WithLoss(model), backend=be, fullgraph=True)(*inputs).backward()
        return be.document()
    finally:
        torch._dynamo.reset()
