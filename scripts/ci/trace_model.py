"""Trace one training step of the model on `meta` (no GPU, no memory) for a CUDA GPU and write the
fxmem capture: what a CPU-only CI job runs (docs/ci.md). Replace build() with your model.

    python scripts/ci/trace_model.py OUT.fxmem.json
"""

from __future__ import annotations

import os
import sys

import torch

import fxmem_export
from fxmem_export.examples.llama import Llama


def build() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    # The demo's "change under review": FXMEM_DEMO_HIDDEN widens the MLP (default 176).
    hidden = int(os.environ.get("FXMEM_DEMO_HIDDEN", "176"))
    with torch.device("meta"):
        model = Llama(hidden=hidden)
        tokens = torch.randint(0, 256, (2, 64))
        targets = torch.randint(0, 256, (2, 64))
    return model, (tokens, targets)


def main(path: str) -> None:
    model, inputs = build()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)  # its state is in the whole step
    be = fxmem_export.backend(None, target="cuda", optimizer=opt)
    loss = torch.compile(model, backend=be)(*inputs)
    loss.backward()
    be.save(path)


if __name__ == "__main__":
    main(sys.argv[1])
