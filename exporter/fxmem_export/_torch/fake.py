"""FakeTensor and symbolic sizes (torch._subclasses.fake_tensor, torch.fx.experimental.symbolic_shapes)."""

from __future__ import annotations

from typing import Any

import torch
from torch.fx.experimental.symbolic_shapes import optimization_hint as _optimization_hint


def hint_int(value: Any) -> int:
    """Concrete int for an int or SymInt, resolved like memory_estimator.py (optimization_hint)."""
    if isinstance(value, torch.SymInt):
        return int(_optimization_hint(value))
    return int(value)


def fake_tensor_type() -> type[torch._subclasses.fake_tensor.FakeTensor]:
    """FakeTensor, looked up when called."""
    return torch._subclasses.fake_tensor.FakeTensor
