"""Writes tests/data/good/step_dynamic.json: a whole training step with a dynamic batch, its joint
graph and Adam's state, captured on meta by the exporter as a user would (torch.compile with
fxmem_export's backend, one forward, backward and optimizer construction). The fit and remat tests
of the whole step read it; exporter/tests/test_fit_step_plan.py captures it again under a plan.

    .venv/bin/python tests/data/make/step_dynamic.py tests/data/good/step_dynamic.json
"""

from __future__ import annotations

import os
import sys
from typing import Any

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "exporter"))
from fxmem_export._backend import FxmemBackend  # noqa: E402


def capture(path: str | os.PathLike[str], remat: Any = None) -> None:
    """The step, written to ``path``; with ``remat`` (a plan), partitioned under it."""
    torch._dynamo.reset()
    torch.manual_seed(0)
    with torch.device("meta"):
        # Six narrow layers: at a large batch the saved activations dominate, and recompute pays.
        layers = [m for _ in range(6) for m in (torch.nn.Linear(32, 32), torch.nn.ReLU())]
        model = torch.nn.Sequential(*layers, torch.nn.Linear(32, 8))
    x = torch.randn(16, 32, device="meta")
    torch._dynamo.mark_dynamic(x, 0)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    be = FxmemBackend(None, optimizer=opt, remat=remat)
    compiled = torch.compile(model, backend=be, fullgraph=True)
    compiled(x).sum().backward()
    be.producer = {"example": "tests/data/make/step_dynamic.py", "device": "meta"}
    be.save(path)
    torch._dynamo.reset()


if __name__ == "__main__":
    capture(sys.argv[1])
