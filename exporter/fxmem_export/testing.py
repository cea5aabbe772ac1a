"""A unit-test helper: fail a test when a model's training step needs more GPU memory than allowed,
on any machine (trace on ``meta``, no GPU needed).

    from fxmem_export.testing import assert_peak

    def test_block_fits():
        with torch.device("meta"):
            model, x = MyBlock(), torch.randn(8, 512, 1024)
        assert_peak(model, (x,), max_bytes=2 * 2**30)  # 2 GiB on a CUDA GPU

The number is PyTorch's own estimator's (``get_peak_memory`` of
torch/_inductor/fx_passes/memory_estimator.py, as intended: fxmem_export.reference) on the graphs
``torch.compile`` partitions, the same number ``fxmem-cli peak`` prints for the saved file.
"""

from __future__ import annotations

import os
from typing import Any, Callable, cast

import torch

from .errors import ArgumentError

__all__ = ["assert_peak", "peak_bytes"]


def _default_loss(out: Any) -> torch.Tensor:
    leaves = [t for t in torch.utils._pytree.tree_leaves(out) if isinstance(t, torch.Tensor) and t.requires_grad]
    if not leaves:
        raise ArgumentError("assert_peak: the model's output holds no tensor that requires grad; pass loss=... "
                            "or call it under torch.no_grad() for an inference graph")
    return cast(torch.Tensor, sum(t.float().sum() for t in leaves))  # 0 + Tensors: a Tensor


def _format(n: int) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(n) >= size:
            return f"{n / size:#.3g} {unit}"
    return f"{n} B"


def peak_bytes(model: torch.nn.Module, inputs: Any, *, target: str = "cuda",
               loss: Callable[[Any], torch.Tensor] | None = None, save_to: str | os.PathLike[str] | None = None,
               **backend_options: Any) -> tuple[int, str]:
    """Capture one forward and backward pass of ``model(*inputs)`` with
    ``fxmem_export.backend(None, target=target)`` and return (the largest pair peak of PyTorch's
    estimator, a line naming that pair and its parts). Without a backward (the model ran under
    ``torch.no_grad()``), the largest inference graph's profile peak. ``save_to`` also writes
    the capture, for ``fxmem-cli``."""
    from ._backend import backend
    from ._checks import only_cpu
    from .reference import intended_peak_memory, torch_profile

    inputs = inputs if isinstance(inputs, (tuple, list)) else (inputs,)
    torch._dynamo.reset()
    try:
        be = backend(None, target=target, **backend_options)
        out = torch.compile(model, backend=be)(*inputs)
        if torch.is_grad_enabled():
            (loss or _default_loss)(out).backward()
        graphs = {name: gm for name, _, gm in be.graphs()}
        if save_to is not None:
            be.save(save_to)
    finally:
        torch._dynamo.reset()
    # A model on real CPU tensors: count them (PyTorch's filter leaves CPU storages out, so every
    # peak would be 0 and any limit would pass).
    count_cpu = bool(graphs) and all(only_cpu(gm) for gm in graphs.values())
    best: tuple[int, str] = (-1, "")
    for pair in be.pairs():
        fw, bw = pair[0], pair[1]
        p = intended_peak_memory(graphs[fw].graph, graphs[bw].graph, count_cpu=count_cpu)
        where = (f"pair {fw} + {bw}: forward peak {_format(p['forward_peak'])}, backward peak "
                 f"{_format(p['backward_peak'])} (the forward's outputs it keeps: {_format(p['backward_baseline'])})")
        best = max(best, (p["peak"], where), key=lambda b: b[0])
    if not be.pairs():
        for name, gm in graphs.items():
            if count_cpu:
                continue  # inference on CPU tensors: PyTorch's profile counts nothing
            best = max(best, (max(torch_profile(gm.graph)), f"graph {name}"), key=lambda b: b[0])
    if best[0] < 0:
        raise ArgumentError("assert_peak: nothing was captured (did the model run through torch.compile?)")
    return best


def assert_peak(model: torch.nn.Module, inputs: Any, *, max_bytes: int, target: str = "cuda",
                loss: Callable[[Any], torch.Tensor] | None = None, save_to: str | os.PathLike[str] | None = None,
                **backend_options: Any) -> int:
    """Raise AssertionError when the peak memory of one training step of ``model(*inputs)`` (see
    :func:`peak_bytes`; build the model and inputs on ``meta`` so no memory is allocated) exceeds
    ``max_bytes``. Return the peak. ``loss(output)`` makes the scalar to differentiate (default:
    the sum of every output that requires grad); ``target`` is the device the capture stands for."""
    peak, where = peak_bytes(model, inputs, target=target, loss=loss, save_to=save_to, **backend_options)
    if peak > max_bytes:
        over = peak - max_bytes
        raise AssertionError(
            f"peak memory {_format(peak)} ({peak} bytes) exceeds max_bytes {_format(max_bytes)} ({max_bytes} bytes) "
            f"by {_format(over)} ({over} bytes, {100 * over / max(max_bytes, 1):.1f} %) on target {target!r}; "
            f"{where}. To see what holds it, pass save_to=PATH and run `fxmem-cli breakdown PATH --pair FWD,BWD` "
            "(that pair) or open PATH in fxmem")
    return peak
