"""``sweep``: PyTorch's min-cut partition of one model at several activation memory budgets,
in one fxmem file (see docs/exporter.md, "Memory budgets")."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.fx as fx

from ._joint import NUM_FWD_META
from ._serialize import ROOT_TYPE_META, build_document, check_writable, write_json_atomic
from .errors import ArgumentError
from .format_types import GraphFileDoc, PairInfo

__all__ = [
    "DEFAULT_BUDGETS", "PARTITIONER", "Sweep", "budget_name", "capture_joint", "partition_sweep", "sweep",
    "write_sweep",
]

DEFAULT_BUDGETS = (1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.0)
PARTITIONER = "torch._functorch.partitioners.min_cut_rematerialization_partition(compiler='inductor')"


def budget_name(budget: float) -> str:
    """``budget=<b>``, with ``<b>`` as Python's repr of the float ("1.0", "0.6", "0.0")."""
    return f"budget={float(budget)!r}"


@dataclass
class Sweep:
    """The graphs of a sweep: (name, kind, GraphModule) in file order, and the pairs
    (forward, backward, {"joint", "budget", "extra_flops"})."""

    graphs: list[tuple[str, str, fx.GraphModule]] = field(default_factory=list)
    pairs: list[tuple[str, str, PairInfo]] = field(default_factory=list)
    target: dict[str, Any] = field(default_factory=dict)  # the producer's target keys


def _check_budgets(budgets: Sequence[float]) -> list[float]:
    if isinstance(budgets, (str, bytes)) or not isinstance(budgets, Sequence) or not budgets:
        raise ArgumentError(f"budgets must be a non-empty sequence of numbers in [0, 1], got {budgets!r}")
    out: list[float] = []
    for b in budgets:
        if isinstance(b, bool) or not isinstance(b, (int, float)) or not 0.0 <= float(b) <= 1.0:
            raise ArgumentError(f"budgets: {b!r} is not a number in [0, 1]")
        if budget_name(b) in {budget_name(x) for x in out}:
            raise ArgumentError(f"budgets: {float(b)!r} is given twice")
        out.append(float(b))
    return out


def capture_joint(model: Any, args: Sequence[Any], kwargs: Mapping[str, Any] | None = None,
                  compile_options: Mapping[str, Any] | None = None,
                  target_options: Mapping[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
    """Compile ``model`` once with the backend (``inner="partition"``, ``fullgraph=True``) and
    run its forward once, which makes AOTAutograd trace and partition the joint graph; no
    backward runs (on ``meta``, running a BatchNorm model's captured graphs under autograd at
    budgets below 1.0 fails a version-counter check). Returns (the joint capture, the roles'
    context of the Dynamo graph)."""
    from ._backend import FxmemBackend

    be = FxmemBackend(None, inner="partition", joint=False, **dict(target_options or {}))
    compiled: Callable[..., Any] = torch.compile(model, backend=be, fullgraph=True, **dict(compile_options or {}))
    with torch.enable_grad():
        compiled(*args, **dict(kwargs or {}))
    captures = [(r, c) for r in be.regions for c in r.joint_captures]
    if not captures:
        raise ArgumentError("sweep: AOTAutograd traced no joint graph: nothing needs a gradient (do the "
                            "model's parameters or inputs require grad, and is grad mode on?)")
    if len(captures) > 1:
        raise ArgumentError(f"sweep: the model compiled to {len(captures)} joint graphs; sweep partitions "
                            "one (compile options that split the graph are not supported)")
    region, capture = captures[0]
    return capture, {**region.meta, **be._target_info()}


def partition_sweep(model: Any, args: Sequence[Any], budgets: Sequence[float] = DEFAULT_BUDGETS,
                    kwargs: Mapping[str, Any] | None = None, *, joint: bool = True,
                    compile_options: Mapping[str, Any] | None = None,
                    target_options: Mapping[str, Any] | None = None) -> Sweep:
    """Trace the joint graph once and partition it once per budget (the same joint graph every
    time). Graphs ``budget=<b>.forward``/``budget=<b>.backward`` and (``joint=True``) ``joint``."""
    from ._flops import FlopCounter
    from ._partition import partition

    budgets = _check_budgets(budgets)
    capture, context = capture_joint(model, args, kwargs, compile_options, target_options)
    root = {ROOT_TYPE_META: type(model).__name__}
    out = Sweep(target={k: context.pop(k) for k in ("target", "sdpa", "autocast") if k in context})
    counter = FlopCounter()
    cut_joint: fx.GraphModule | None = None
    joint_flops = 0
    for b in budgets:
        fw, bw, cut = partition(capture, b)
        if cut_joint is None:
            cut_joint = cut
            cut_joint.meta.update({**context, **root, NUM_FWD_META: capture.num_fwd_outputs})
            joint_flops = sum(counter.graph(cut.graph).values())
        for gm in (fw, bw):
            gm.meta.update({**context, **root})
        extra_flops = sum(counter.graph(fw.graph).values()) + sum(counter.graph(bw.graph).values()) - joint_flops
        name = budget_name(b)
        out.graphs += [(f"{name}.forward", "forward", fw), (f"{name}.backward", "backward", bw)]
        info: PairInfo = {"budget": b, "extra_flops": int(extra_flops)}
        if joint:
            info = {"joint": "joint", **info}
        out.pairs.append((f"{name}.forward", f"{name}.backward", info))
    if joint and cut_joint is not None:
        out.graphs.append(("joint", "joint", cut_joint))
    return out


def write_sweep(path: str | os.PathLike[str], result: Sweep, *, reference: bool = False,
                producer: Mapping[str, Any] | None = None) -> GraphFileDoc:
    info: dict[str, Any] = {"capture": "fxmem_export.sweep", "partitioner": PARTITIONER,
            "budgets": [p[2]["budget"] for p in result.pairs], **result.target}
    info.update(producer or {})
    doc = build_document([(n, k, gm.graph) for n, k, gm in result.graphs], result.pairs,
                         reference=reference, producer=info)
    write_json_atomic(path, doc)
    return doc


def sweep(model: Any, args: Sequence[Any], path: str | os.PathLike[str],
          budgets: Sequence[float] = DEFAULT_BUDGETS, kwargs: Mapping[str, Any] | None = None, *,
          joint: bool = True, reference: bool = False, producer: Mapping[str, Any] | None = None,
          compile_options: Mapping[str, Any] | None = None, target: str | None = None, sdpa: str | None = None,
          autocast: Any = None) -> GraphFileDoc:
    """Partition ``model(*args, **kwargs)`` with PyTorch's min-cut partitioner once per
    ``torch._functorch.config.activation_memory_budget`` in ``budgets`` and write one fxmem file.

    The joint forward+backward graph is traced once (``torch.compile(fullgraph=True)``, one
    forward call, no backward) and the same joint graph is partitioned for every budget, so the
    pairs differ only in what is saved and what is recomputed. Each budget ``b`` gives the pair
    ``budget=<b>.forward``/``budget=<b>.backward`` (``<b>`` = ``repr(float(b))``) with keys
    ``budget``, ``extra_flops`` (the pair's FLOPs minus the joint graph's: what recomputation
    costs, FlopCounterMode on meta) and ``joint`` (the graph named ``joint``, written when
    ``joint=True``). The joint graph is the one Inductor's joint-graph passes leave (as
    ``backend``), so each budget's pair is what a real run at that budget partitions.
    ``target``, ``sdpa``, ``autocast``: as for ``backend``. Works on any device, ``meta``
    included. Returns the written document."""
    check_writable(path)  # before the (slower) trace
    result = partition_sweep(model, args, budgets, kwargs, joint=joint, compile_options=compile_options,
                             target_options={"target": target, "sdpa": sdpa, "autocast": autocast})
    return write_sweep(path, result, reference=reference, producer=producer)
