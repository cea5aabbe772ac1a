"""A Llama-3-8B-shaped training step, traced on ``meta`` (not bundled: the file is ~20 MB).

    python -m fxmem_export.examples llama3_8b -o llama3_8b.fxmem.json [--sdpa math] [--no-autocast]

dim 4096, 32 layers, 32 heads with 8 key/value heads (grouped-query attention), SwiGLU hidden
14336, vocabulary 128256, batch 1 x 4096 tokens, fp32 parameters trained with AdamW under
``torch.autocast("cuda", dtype=torch.bfloat16)``, captured for ``target="cuda"``: what a GPU
run of this step compiles (flash attention in bf16). The whole step (forward, backward, AdamW's
state) is in the file: ``fxmem-cli peak FILE --whole-step``.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

import torch

from .._backend import FxmemBackend
from ..format_types import GraphFileDoc
from .llama import Llama

__all__ = ["DESCRIPTION", "NAME", "SHAPE", "capture", "export"]

NAME = "llama3_8b"
DESCRIPTION = ("Llama-3-8B-shaped decoder (32 layers, dim 4096, GQA 32/8 heads, SwiGLU 14336, vocab 128256), "
               "batch 1 x 4096 tokens, AdamW, bf16 autocast, target cuda (traced, not bundled)")
SHAPE = {"vocab": 128256, "dim": 4096, "layers": 32, "heads": 32, "hidden": 14336, "max_seq": 4096, "kv_heads": 8}


def capture(*, layers: int = 32, seq: int = 4096, batch: int = 1, sdpa: str | None = None,
            autocast: bool = True, remat: Any = None) -> FxmemBackend:
    """Trace one training step on ``meta`` and return the backend holding its graphs
    (``remat``: a recompute plan applied to the partition, as ``backend(..., remat=PLAN)``)."""
    torch._dynamo.reset()
    shape = {**SHAPE, "layers": layers, "max_seq": max(seq, 1)}
    with torch.device("meta"):
        model = Llama(**shape)
        tokens = torch.zeros(batch, seq, dtype=torch.long)
        targets = torch.zeros(batch, seq, dtype=torch.long)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    be = FxmemBackend(None, target="cuda", sdpa=sdpa, optimizer=opt, remat=remat)
    compiled = torch.compile(model, backend=be, fullgraph=True)
    # The user's own mixed-precision context, as a CUDA training script has it.
    amp = torch.autocast("cuda", dtype=torch.bfloat16) if autocast else contextlib.nullcontext()
    with amp:
        loss = compiled(tokens, targets)
    loss.backward()
    torch._dynamo.reset()
    return be


def export(path: str | os.PathLike[str], *, sdpa: str | None = None, autocast: bool = True,
           layers: int = 32, seq: int = 4096, remat: Any = None) -> GraphFileDoc:
    from . import _relative_stack_traces

    be = capture(layers=layers, seq=seq, sdpa=sdpa, autocast=autocast, remat=remat)
    for _, _, gm in be.graphs():
        _relative_stack_traces(gm)
    be.producer = {"example": NAME, "description": DESCRIPTION, "device": "meta",
                   "mixed_precision": "torch.autocast('cuda', bfloat16)" if autocast else "none"}
    return be.save(path)
