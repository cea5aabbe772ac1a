"""Autograd on ``meta`` as a device has it, while a capture traces.

Why ``F.cross_entropy`` lost its backward on ``meta``: ``torch._meta_registrations.activate_meta``
puts every Python decomposition (``torch._refs``' ``nll_loss``, ``where.ScalarOther``,
``var_mean``, ...) on the ``Meta`` key as a Python kernel, also for ops whose C++ kernel is
``CompositeImplicitAutograd``. AOTAutograd traces with the Python dispatcher on, and its
``resolve_key`` then sees a "backend kernel" for ``Meta`` behind ``AutogradMeta``, so it skips the
composite kernel there; no ``Autograd`` kernel exists either, so the op lands on the autograd
fallback and its result has no ``grad_fn`` (PyTorch only warns "an autograd kernel was not
registered"). On ``AutogradCPU`` / ``AutogradCUDA`` the same op resolves to its composite kernel,
which decomposes above autograd into ops that have derivatives (``nll_loss_forward``, ``where.self``).

``meta_autograd`` gives each such op, for the capture's duration, a Python kernel at
``AutogradMeta`` that runs the composite kernel: the dispatch a CPU or CUDA tensor gets. The
affected ops are found by asking ``resolve_key`` itself, once per process.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch._C import DispatchKey
from torch._ops import OpOverload

_lock = threading.RLock()
_depth = 0  # captures active in this process (the kernels are global, as the dispatcher is)
_ops: list[OpOverload] | None = None


def _lacks_meta_autograd(op: OpOverload) -> bool:
    """Whether the Python dispatcher drops ``op``'s autograd on meta where the CPU composes it."""
    from torch._ops import resolve_key

    try:
        on_meta = resolve_key(op, DispatchKey.AutogradMeta)
        on_cpu = resolve_key(op, DispatchKey.AutogradCPU)
    except (NotImplementedError, RuntimeError):
        return False
    return bool(on_meta == DispatchKey.AutogradMeta and on_cpu == DispatchKey.CompositeImplicitAutograd)


def affected_ops() -> list[OpOverload]:
    """The ops whose autograd the Python dispatcher loses on ``meta`` (computed once)."""
    global _ops
    with _lock:
        if _ops is None:
            from torch._decomp import global_decomposition_table

            candidates = {op for table in global_decomposition_table.values() for op in table
                          if isinstance(op, OpOverload) and DispatchKey.Meta in op.py_kernels}
            _ops = sorted((op for op in candidates if _lacks_meta_autograd(op)), key=str)
        return list(_ops)


def _composite(op: OpOverload) -> Callable[..., Any]:
    def kernel(*args: Any, **kwargs: Any) -> Any:
        return op._op_dk(DispatchKey.CompositeImplicitAutograd, *args, **kwargs)

    return kernel


def _install(ops: list[OpOverload]) -> None:
    for op in ops:
        op.py_kernels[DispatchKey.AutogradMeta] = _composite(op)
        op._dispatch_cache.clear()


def _remove(ops: list[OpOverload]) -> None:
    for op in ops:
        op.py_kernels.pop(DispatchKey.AutogradMeta, None)
        op._dispatch_cache.clear()


@contextlib.contextmanager
def meta_autograd() -> Iterator[None]:
    """While active, ``meta`` tensors get the autograd a CPU tensor gets for the ops of
    ``affected_ops`` (nested and concurrent captures share one installation)."""
    global _depth
    ops = affected_ops()
    with _lock:
        if _depth == 0:
            _install(ops)
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                _remove(ops)
