"""Examples of a whole training step (docs/format.md, "step"): captured with the backend the way a
user would, so the file has every region, the step and the optimizer's state.

    python -m fxmem_export.examples gpt_break -o gpt_break.fxmem.json
"""

from __future__ import annotations

import os

import torch

from .._backend import FxmemBackend
from ..errors import UnknownExampleError
from ..format_types import GraphFileDoc
from .models import build

__all__ = ["DESCRIPTIONS", "NAMES", "capture", "export"]

DESCRIPTIONS = {
    "gpt_break": "the small GPT with 3 layers, batch 8, and a graph break after block 0 (two compiled "
    "regions) trained with AdamW: forward regions, backward regions in autograd order, optimizer state",
    "gpt_adam": "the small GPT (fullgraph) trained with torch.optim.Adam: one region plus the "
    "optimizer's state (exp_avg, exp_avg_sq, step per parameter)",
}
NAMES = list(DESCRIPTIONS)


def capture(name: str, device: str = "meta", optimizer: type | None = None) -> FxmemBackend:
    """Compile example ``name`` with the fxmem backend (what Inductor partitions, for a CUDA GPU
    on meta), run one training step (forward, backward, optimizer step; the optimizer step is not
    compiled) and return the backend."""
    if name not in DESCRIPTIONS:
        raise UnknownExampleError(f"unknown step example {name!r}; choose one of {', '.join(NAMES)}")
    torch._dynamo.reset()
    torch.manual_seed(0)
    model, inputs, options = build(name, device)
    if optimizer is None:
        optimizer = torch.optim.AdamW if name == "gpt_break" else torch.optim.Adam
    opt = optimizer(model.parameters(), lr=1e-3)
    be = FxmemBackend(None, optimizer=opt)
    compiled = torch.compile(model, backend=be, fullgraph=(name != "gpt_break"), **options)
    compiled(*inputs).backward()
    if device != "meta":  # the meta device has no values to update
        opt.step()
    torch._dynamo.reset()
    return be


def export(name: str, path: str | os.PathLike[str], *, reference: bool = False) -> GraphFileDoc:
    from . import _relative_stack_traces

    be = capture(name)
    for _, _, gm in be.graphs():
        _relative_stack_traces(gm)
    be.reference = reference
    be.producer = {"example": name, "description": DESCRIPTIONS[name], "device": "meta", "inner": "partition"}
    return be.save(path)
