"""Built-in example models and their compiled graphs.

    python -m fxmem_export.examples --list
    python -m fxmem_export.examples gpt -o gpt.fxmem.json --with-reference

The models are built on the ``meta`` device, so no memory is allocated and the storages are
non-CPU (device "meta"), which the estimator counts like CUDA memory. (Fake ``cuda`` tensors
cannot go through autograd on a CPU-only PyTorch build; see docs/exporter.md.)
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from typing import Any

import torch
import torch.fx as fx

from .._backend import FxmemBackend
from .._save import save
from .._serialize import ROOT_TYPE_META
from . import fsdp
from .models import DESCRIPTIONS as _MODEL_DESCRIPTIONS
from .models import build

# fsdp (examples/fsdp.py) is traced under a fake process group and gets Inductor's overlap schedule.
DESCRIPTIONS = {**_MODEL_DESCRIPTIONS, "fsdp": fsdp.DESCRIPTION}
NAMES = list(DESCRIPTIONS)

__all__ = ["NAMES", "DESCRIPTIONS", "Captured", "capture", "export"]


@dataclass
class Captured:
    name: str
    forward: fx.GraphModule
    backward: fx.GraphModule


def _loss(out: Any) -> torch.Tensor:
    leaves = [t for t in torch.utils._pytree.tree_leaves(out) if isinstance(t, torch.Tensor) and t.requires_grad]
    return sum(t.float().sum() for t in leaves)  # type: ignore[return-value]


def _environment(name: str) -> contextlib.AbstractContextManager[None]:
    return fsdp.fake_process_group() if name == "fsdp" else contextlib.nullcontext()


def capture(name: str, device: str = "meta") -> Captured:
    """Compile example ``name`` with the fxmem backend (inner "eager"), run one forward and one
    backward pass, and return the forward and backward GraphModules AOTAutograd produced."""
    if name not in DESCRIPTIONS:
        raise KeyError(f"unknown example {name!r}; choose one of {', '.join(NAMES)}")
    with _environment(name):
        return _capture(name, device)


def _capture(name: str, device: str) -> Captured:
    torch._dynamo.reset()
    torch.manual_seed(0)
    model, inputs, options = fsdp.build(device) if name == "fsdp" else build(name, device)
    be = FxmemBackend(None, inner="eager")
    compiled = torch.compile(model, backend=be, fullgraph=True, **options)
    out = compiled(*inputs)
    _loss(out).backward()
    be.check_complete()
    graphs = be.graphs()
    for _, _, gm in graphs:  # nodes outside any submodule ran in the model itself
        gm.meta[ROOT_TYPE_META] = type(model).__name__
    if [kind for _, kind, _ in graphs] != ["forward", "backward"]:
        raise RuntimeError(f"example {name!r}: expected one forward and one backward graph, got {[g[0] for g in graphs]}")
    torch._dynamo.reset()
    return Captured(name, graphs[0][2], graphs[1][2])


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


def export(name: str, path: str | os.PathLike[str], *, reference: bool = False) -> tuple[Captured, dict[str, Any]]:
    """Capture example ``name`` and write it to ``path`` (graphs "forward" and "backward"), with
    stack traces naming files relative to the package's parent directory, and with Inductor's
    overlap schedule of every graph that has collectives (``overlap=True``)."""
    with _environment(name):  # the overlap pass needs the process group too
        cap = capture(name)
        _relative_stack_traces(cap.forward)
        _relative_stack_traces(cap.backward)
        doc = save(path, cap.forward, cap.backward, reference=reference, overlap=True,
                   producer={"example": name, "description": DESCRIPTIONS[name], "device": "meta"})
    return cap, doc
