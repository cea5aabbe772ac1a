"""The CPU branch of Inductor's decompositions, for a capture on ``meta`` with ``target="cpu"``.

Some of PyTorch's decompositions ask ``input.device.type == "cpu"`` and trace other ops on a CPU
tensor than on any other device. On ``meta`` they take the other branch, so a capture for the
CPU would hold a GPU's graph there. ``cpu_branches`` gives them the CPU's answer while Inductor's
front half traces the joint graph:

* ``native_layer_norm`` (``torch._refs``) returns the mean and rstd in the input's dtype on the
  CPU (fp32 elsewhere): a bf16 LayerNorm under CPU autocast saves bf16 statistics.

Not given (named in docs/exporter.md): ``native_group_norm``'s CPU formula and
``native_batch_norm``'s CPU dtype casts of its saved statistics.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

import torch

_lock = threading.RLock()


def _layer_norm_on_cpu(decomposition: Callable[..., Any]) -> Callable[..., Any]:
    def native_layer_norm(input: torch.Tensor, normalized_shape: Any, weight: Any, bias: Any, eps: float) -> Any:
        out, mean, rstd = decomposition(input, normalized_shape, weight, bias, eps)
        if input.device.type == "meta" and mean.dtype != input.dtype:
            # torch._refs.native_layer_norm's CPU branch: _maybe_convert_to_dtype, a prims convert
            convert = torch.ops.prims.convert_element_type.default
            mean, rstd = convert(mean, input.dtype), convert(rstd, input.dtype)
        return out, mean, rstd

    return native_layer_norm


@contextlib.contextmanager
def cpu_branches(active: bool) -> Iterator[None]:
    """While active (a capture for target "cpu"), Inductor's decomposition table has the CPU
    branch of the decompositions above for ``meta`` tensors (a module-level patch of
    ``compile_fx.select_decomp_table``, under a lock, restored on exit)."""
    if not active:
        yield
        return
    import torch._inductor.compile_fx as compile_fx

    layer_norm = torch.ops.aten.native_layer_norm.default
    with _lock:
        original = compile_fx.select_decomp_table

        def select_decomp_table() -> dict[Any, Callable[..., Any]]:
            table = dict(original())
            if layer_norm in table:
                table[layer_norm] = _layer_norm_on_cpu(table[layer_norm])
            return table

        compile_fx.select_decomp_table = select_decomp_table
        try:
            yield
        finally:
            compile_fx.select_decomp_table = original
