"""The CPU branch of Inductor's decompositions, for a capture on ``meta`` with ``target="cpu"``.

Some of PyTorch's decompositions ask ``input.device.type == "cpu"`` and trace other ops on a CPU
tensor than on any other device. On ``meta`` they take the other branch, so a capture for the
CPU would hold a GPU's graph there. ``cpu_branches`` gives them the CPU's answer while Inductor's
front half traces the joint graph:

* ``native_layer_norm`` (``torch._refs``) returns the mean and rstd in the input's dtype on the
  CPU (fp32 elsewhere): a bf16 LayerNorm under CPU autocast saves bf16 statistics.
* a convolution's output layout: FakeTensor's ``conv`` asks ``torch._C._select_conv_backend``
  and ``_conv_determine_backend_memory_format`` about the input, which on ``meta`` answer
  "contiguous"; on the CPU a channels-last input gives a channels-last output (and gradients).
  They are asked about CPU tensors of the same sizes, strides and dtype instead. FakeTensor's
  dispatch cache would answer from Dynamo's own trace (run before the backend, without this), so
  it is emptied on entry and on exit (a later capture for "cuda" must not read these answers).

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


def _size(s: Any) -> int:
    """A size's value without a guard (the hint of a backed SymInt, as fake_impls requires)."""
    return int(s.node.hint) if isinstance(s, torch.SymInt) else int(s)


def _cpu_like(t: Any) -> Any:
    """A CPU tensor with ``t``'s sizes, strides and dtype when ``t`` is a meta tensor, else ``t``.
    Uninitialised: its pages are never touched, only its layout is read."""
    if not isinstance(t, torch.Tensor) or t.device.type != "meta":
        return t
    from torch._subclasses.fake_tensor import unset_fake_temporarily

    with unset_fake_temporarily():
        return torch.empty_strided([_size(s) for s in t.shape], [_size(s) for s in t.stride()], dtype=t.dtype,
                                   device="cpu")


def _asked_on_cpu(original: Callable[..., Any]) -> Callable[..., Any]:
    def ask(*args: Any, **kwargs: Any) -> Any:
        from torch._subclasses.fake_tensor import unset_fake_temporarily

        cpu_args = [_cpu_like(a) for a in args]
        cpu_kwargs = {k: _cpu_like(v) for k, v in kwargs.items()}
        # The question may run ops on its CPU stand-ins (a conv1d's input is made contiguous):
        # outside the fake mode, as real tensors.
        if any(isinstance(a, torch.Tensor) and a.device.type == "cpu" for a in [*cpu_args, *cpu_kwargs.values()]):
            with unset_fake_temporarily():
                return original(*cpu_args, **cpu_kwargs)
        return original(*cpu_args, **cpu_kwargs)

    return ask


def _clear_fake_caches(fake_mode: Any) -> None:
    from torch._subclasses.fake_tensor import FakeTensorMode

    FakeTensorMode.cache.clear()
    shape_env = getattr(fake_mode, "shape_env", None)
    if shape_env is not None:
        shape_env.fake_tensor_cache.clear()


@contextlib.contextmanager
def cpu_branches(active: bool, fake_mode: Any = None) -> Iterator[None]:
    """While active (a capture for target "cpu"), ``meta`` tensors take the CPU's branches above
    (module-level patches of ``compile_fx.select_decomp_table`` and the two convolution
    questions, under a lock, restored on exit); ``fake_mode``: the capture's, whose cache of
    symbolic shapes is emptied too."""
    if not active:
        yield
        return
    import torch._inductor.compile_fx as compile_fx

    layer_norm = torch.ops.aten.native_layer_norm.default
    with _lock:
        original = getattr(compile_fx, "select_decomp_table")
        conv_questions = (torch._C._select_conv_backend, torch._C._conv_determine_backend_memory_format)

        def select_decomp_table() -> dict[Any, Callable[..., Any]]:
            table = dict(original())
            if layer_norm in table:
                table[layer_norm] = _layer_norm_on_cpu(table[layer_norm])
            return table

        setattr(compile_fx, "select_decomp_table", select_decomp_table)
        torch._C._select_conv_backend = _asked_on_cpu(conv_questions[0])
        torch._C._conv_determine_backend_memory_format = _asked_on_cpu(conv_questions[1])
        _clear_fake_caches(fake_mode)
        try:
            yield
        finally:
            setattr(compile_fx, "select_decomp_table", original)
            torch._C._select_conv_backend, torch._C._conv_determine_backend_memory_format = conv_questions
            _clear_fake_caches(fake_mode)
