"""Built-in example models and their compiled graphs.

    python -m fxmem_export.examples --list
    python -m fxmem_export.examples gpt -o gpt.fxmem.json --with-reference
    python -m fxmem_export.examples llama --sweep -o llama_sweep.fxmem.json --with-reference

The graphs are what Inductor partitions (``inner="partition"``, the default): Inductor's
front half as ``torch.compile`` runs it (pre-grad passes, Inductor's decompositions, its
joint-graph passes, the min-cut partitioner), without its code generation; or AOTAutograd's
default partition without Inductor's decompositions with ``inner="eager"``. On ``meta`` the
capture stands for a CUDA GPU (the backend's default ``target="cuda"``): attention is the fused
kernel CUDA would run (fp32: ``_scaled_dot_product_efficient_attention``).

The models are built on the ``meta`` device, so no memory is allocated and the storages are
non-CPU (device "meta"), which the estimator counts like CUDA memory. (Fake ``cuda`` tensors
cannot go through autograd on a CPU-only PyTorch build; see docs/exporter.md.)
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from typing import Any, cast

import torch
import torch.fx as fx

from .._backend import FxmemBackend
from .._save import save
from .._serialize import ROOT_TYPE_META
from ..errors import ArgumentError, CaptureError, UnknownExampleError
from ..format_types import GraphFileDoc
from . import fsdp
from .models import DESCRIPTIONS as _MODEL_DESCRIPTIONS
from .models import build, description

# fsdp (examples/fsdp.py) is traced under a fake process group and gets Inductor's overlap schedule.
DESCRIPTIONS = {**_MODEL_DESCRIPTIONS, "fsdp": fsdp.DESCRIPTION}
NAMES = list(DESCRIPTIONS)

__all__ = ["NAMES", "DESCRIPTIONS", "INNERS", "Captured", "capture", "export", "export_sweep"]

# The backend's inner modes the examples may use; the first is the default.
INNERS = ("partition", "eager")


@dataclass
class Captured:
    name: str
    forward: fx.GraphModule
    backward: fx.GraphModule
    joint: fx.GraphModule | None = None  # inner="partition" with joint=True
    target: str | None = None  # the device the capture stands for (the backend's target)


def _loss(out: Any) -> torch.Tensor:
    leaves = [t for t in torch.utils._pytree.tree_leaves(out) if isinstance(t, torch.Tensor) and t.requires_grad]
    return cast(torch.Tensor, sum(t.float().sum() for t in leaves))  # 0 + Tensors: a Tensor


def _environment(name: str) -> contextlib.AbstractContextManager[None]:
    return fsdp.fake_process_group() if name == "fsdp" else contextlib.nullcontext()


def _check(name: str, inner: str) -> None:
    if name not in DESCRIPTIONS:
        raise UnknownExampleError(f"unknown example {name!r}; choose one of {', '.join(NAMES)}")
    if inner not in INNERS:
        raise ArgumentError(f"inner must be one of {', '.join(INNERS)}, got {inner!r}")


def capture(name: str, device: str = "meta", *, inner: str = "partition", joint: bool = False,
            layers: int | None = None) -> Captured:
    """Compile example ``name`` with the fxmem backend (``inner="partition"``: what Inductor
    partitions, its decompositions and joint-graph passes included; ``"eager"``: AOTAutograd's
    default partition), run one forward and one backward pass, and return the forward and
    backward GraphModules (and with ``joint=True`` the joint graph they were cut from).
    ``layers``: llama's decoder layers (models.build)."""
    _check(name, inner)
    with _environment(name):
        return _capture(name, device, inner, joint, layers)


def _capture(name: str, device: str, inner: str, joint: bool, layers: int | None = None) -> Captured:
    torch._dynamo.reset()
    torch.manual_seed(0)
    model, inputs, options = fsdp.build(device) if name == "fsdp" else build(name, device, layers=layers)
    be = FxmemBackend(None, inner=inner, joint=joint)
    compiled = torch.compile(model, backend=be, fullgraph=True, **options)
    out = compiled(*inputs)
    _loss(out).backward()
    be.check_complete()
    graphs = be.graphs()
    for _, _, gm in graphs:  # nodes outside any submodule ran in the model itself
        gm.meta[ROOT_TYPE_META] = type(model).__name__
    if [kind for _, kind, _ in graphs] != ["forward", "backward"] + (["joint"] if joint else []):
        raise CaptureError(f"example {name!r}: expected one forward and one backward graph, got {[g[0] for g in graphs]}")
    torch._dynamo.reset()
    return Captured(name, graphs[0][2], graphs[1][2], graphs[2][2] if joint else None, be.target)


def _relative_stack_traces(gm: fx.GraphModule) -> None:
    """Make the stack traces' file names relative to the directory that holds the fxmem_export
    package ("fxmem_export/examples/models.py") or torch ("torch/utils/checkpoint.py"), so that
    the bundled files do not carry the path of the machine that wrote them; and drop the lines of
    only ``^`` markers under each source line (half of a trace's bytes, nothing a reader needs),
    so that the bundled files stay small."""
    package_parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    prefix = package_parent.rstrip(os.sep) + os.sep
    # fsdp's traces pass through torch's autograd.Function and checkpoint frames: "torch/...".
    torch_prefix = os.path.dirname(os.path.dirname(os.path.abspath(torch.__file__))).rstrip(os.sep) + os.sep
    for node in gm.graph.nodes:
        trace = node.meta.get("stack_trace")
        if trace:
            lines = trace.replace(prefix, "").replace(torch_prefix, "").split("\n")
            node.meta["stack_trace"] = "\n".join(ln for ln in lines if ln.strip(" ^~") or not ln.strip())


def export(name: str, path: str | os.PathLike[str], *, reference: bool = False, inner: str = "partition",
           joint: bool = False, layers: int | None = None) -> tuple[Captured, GraphFileDoc]:
    """Capture example ``name`` and write it to ``path`` (graphs "forward" and "backward", and
    "joint" with ``joint=True``), with stack traces naming files relative to the package's
    parent directory, and with Inductor's overlap schedule of every graph that has collectives
    (``overlap=True``)."""
    _check(name, inner)
    with _environment(name):  # the overlap pass needs the process group too
        cap = capture(name, inner=inner, joint=joint, layers=layers)
        _relative_stack_traces(cap.forward)
        _relative_stack_traces(cap.backward)
        if cap.joint is not None:
            _relative_stack_traces(cap.joint)
        doc = save(path, cap.forward, cap.backward, reference=reference, overlap=True, joint=cap.joint,
                   producer={"example": name, "description": description(name, layers, DESCRIPTIONS), "device": "meta",
                             "inner": inner, **({"target": cap.target} if cap.target else {})})
    return cap, doc


def export_sweep(name: str, path: str | os.PathLike[str], *, budgets: Any = None, reference: bool = False,
                 joint: bool = True, pair_stack_traces: bool = False, layers: int | None = None) -> GraphFileDoc:
    """Example ``name`` partitioned by ``fxmem_export.sweep`` at ``budgets`` (default 1.0, 0.9,
    ..., 0.0) on ``meta``, written to ``path`` with relative stack traces. Unless
    ``pair_stack_traces``, only the joint graph keeps them (the pairs' nodes have the joint's
    names): the traces are half of a file that holds 22 graphs (llama: 21 MB with them).
    ``layers``: llama's decoder layers (the bundled llama_sweep: 2, see regenerate.sh)."""
    from ..sweep import DEFAULT_BUDGETS, partition_sweep, write_sweep

    _check(name, "partition")
    with _environment(name):
        torch._dynamo.reset()
        torch.manual_seed(0)
        model, inputs, options = fsdp.build("meta") if name == "fsdp" else build(name, "meta", layers=layers)
        result = partition_sweep(model, inputs, DEFAULT_BUDGETS if budgets is None else budgets, joint=joint,
                                 compile_options=options)
        torch._dynamo.reset()
        for _, kind, gm in result.graphs:
            _relative_stack_traces(gm)
            if kind != "joint" and joint and not pair_stack_traces:
                for node in gm.graph.nodes:  # a saved value's placeholder shares the joint node's meta
                    node.meta = {k: v for k, v in node.meta.items() if k != "stack_trace"}
        return write_sweep(path, result, reference=reference,
                           producer={"example": name, "description": description(name, layers, DESCRIPTIONS), "device": "meta"})
